#pragma once
// The mock's MxAccessGateway service for a contract given at run time (mxgw-mock --contract
// FILE): a generic gRPC service that answers the contract's own method paths, reads and
// writes each message through the contract's codec (wire/), and hands the model the same
// requests the compiled-in service does. So one model serves either family, and a client
// built from nothing but the contract file can drive it.
//
// What the contract cannot carry is not offered: without a supervisory flag in SubscribeBulk
// the bulk-subscribe-supervisory capability is not advertised (the client falls back to the
// per-item fan-out, as against the published gateway). Notices go only to contracts that have
// them. Each event stream numbers its events from 1 where the contract has a sequence.

#include "api_keys.h"
#include "gateway_model.h"
#include "wire/wire_codec.h"

#include <grpcpp/generic/async_generic_service.h>
#include <memory>

namespace stormwatch::gateway {

// The model's configuration for serving `codec`'s contract: the published family gets its
// documented event policy (applyPublishedEventPolicy); any contract numbers its events when
// it has a sequence, keeps them for a resume only when it has the resume field, and never
// advertises Lever 2's capability without the supervisory flag.
GatewayConfig configForContract(const wire::WireCodec& codec, GatewayConfig config);

class ContractGatewayService final : public grpc::CallbackGenericService {
public:
    // The model and its scheduler must outlive the server's shutdown.
    ContractGatewayService(Scheduler& scheduler, GatewayModel& model,
                           std::shared_ptr<const wire::WireCodec> codec);

    grpc::ServerGenericBidiReactor*
    CreateReactor(grpc::GenericCallbackServerContext* context) override;
    // Every call needs a key of these with the method's scope (before the server starts);
    // none: every call is served.
    void setApiKeys(std::shared_ptr<const ApiKeys> keys) { m_keys = std::move(keys); }

    Scheduler& scheduler() { return m_scheduler; }
    GatewayModel& model() { return m_model; }
    const wire::WireCodec& codec() const { return *m_codec; }

private:
    Scheduler& m_scheduler;
    GatewayModel& m_model;
    std::shared_ptr<const wire::WireCodec> m_codec;
    std::shared_ptr<const ApiKeys> m_keys;
};

} // namespace stormwatch::gateway
