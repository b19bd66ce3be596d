#include "support_virtual_gateway.h"

namespace stormwatch::testing {

std::vector<std::string> makeTags(const std::string& prefix, int count)
{
    std::vector<std::string> tags;
    for (int i = 0; i < count; ++i)
        tags.push_back(prefix + "." + std::to_string(i + 1));
    return tags;
}

VirtualGateway::VirtualGateway(gateway::GatewayConfig config, Duration latency)
    : model(sched, config), port(sched, model, latency)
{
}

ConnectionHarness::ConnectionHarness(VirtualGateway& g, ConnectionConfig config, RecoveryGate* gate)
    : gw(g), connection(g.sched, g.port, std::move(config), gate, [] { return 0.5; })
{
}

GatewayConnection::SubscriberId ConnectionHarness::addSubscriber(std::vector<std::string> tags)
{
    const std::size_t n = tags.size();
    auto id = std::make_shared<GatewayConnection::SubscriberId>(0);
    *id = connection.addSubscriber(
        std::move(tags),
        [this, id](const std::vector<TagUpdate>& updates) {
            for (const auto& u : updates)
                quality[*id][std::size_t(u.index)] = u.quality;
        },
        [this](bool good) { qualityEvents.push_back(good); },
        [this](bool responsive) { livenessEvents.push_back(responsive); });
    quality[*id].assign(n, kQualityUncertain);
    return *id;
}

std::shared_ptr<std::optional<SubscribeOutcome>>
ConnectionHarness::subscribe(GatewayConnection::SubscriberId id)
{
    auto slot = std::make_shared<std::optional<SubscribeOutcome>>();
    connection.subscribe(id, [slot](const SubscribeOutcome& outcome) { *slot = outcome; });
    return slot;
}

int ConnectionHarness::goodTags(GatewayConnection::SubscriberId id) const
{
    int n = 0;
    for (int q : quality.at(id))
        n += q == kQualityGood;
    return n;
}

} // namespace stormwatch::testing
