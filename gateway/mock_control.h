#pragma once
// The MockGatewayControl messages applied to a GatewayModel: configuration to and from
// proto, and fault requests validated and injected. Shared by the gRPC control service and
// anything that drives the model in-process from the same messages (scenario timelines).

#include "gateway_model.h"
#include "mock_control.pb.h"

namespace stormwatch::gateway {

mxgateway::mock::v1::MockConfig toProto(const GatewayConfig& config);
// `config` with the fields present in `request` changed (not validated).
GatewayConfig applied(GatewayConfig config, const mxgateway::mock::v1::SetConfigRequest& request);
// How a freeze stops the gateway: the process itself (mxgw-mock: SIGSTOP, then SIGCONT
// after `seconds`), or refused with a reason. Unset: the model is frozen (virtual time, where
// the in-process transport plays the unanswered keepalive).
using FreezeProcessFn = std::function<CallStatus(double seconds, std::string& description)>;
// The freeze of a gateway that cannot stop its own process (one embedded in another program).
CallStatus refuseFreeze(double seconds, std::string& description);

// Validates and injects one fault; INVALID_ARGUMENT (nothing injected) when a value breaks
// its rule. `description` says what was done.
CallStatus injectFault(GatewayModel& model, const mxgateway::mock::v1::FaultRequest& request,
                       std::string& description, const FreezeProcessFn& freezeProcess = nullptr);

Duration secondsToDuration(double seconds);

} // namespace stormwatch::gateway
