#pragma once
// A mock gateway model and an in-process port on one VirtualScheduler, and a connection
// over it that records its subscribers' tag states: the client's real connection logic
// against the modelled gateway, in virtual time.

#include "client/gateway_connection.h"
#include "client/virtual_scheduler.h"
#include "gateway/gateway_model.h"
#include "scenario/in_process_gateway_port.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace stormwatch::testing {

std::vector<std::string> makeTags(const std::string& prefix, int count);

struct VirtualGateway {
    explicit VirtualGateway(gateway::GatewayConfig config = {},
                            Duration latency = std::chrono::milliseconds(1));

    VirtualScheduler sched;
    gateway::GatewayModel model;
    InProcessGatewayPort port;
};

// One connection with one subscriber whose tag qualities are tracked.
struct ConnectionHarness {
    explicit ConnectionHarness(VirtualGateway& gw, ConnectionConfig config = {},
                               RecoveryGate* gate = nullptr);

    GatewayConnection::SubscriberId addSubscriber(std::vector<std::string> tags);
    // Subscribes and returns a slot the outcome lands in.
    std::shared_ptr<std::optional<SubscribeOutcome>> subscribe(GatewayConnection::SubscriberId id);
    int goodTags(GatewayConnection::SubscriberId id) const;

    VirtualGateway& gw;
    GatewayConnection connection;
    std::map<GatewayConnection::SubscriberId, std::vector<int>> quality;
    std::vector<bool> qualityEvents;
    std::vector<bool> livenessEvents; // false: unresponsive, true: answering again
};

} // namespace stormwatch::testing
