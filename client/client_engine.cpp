#include "client_engine.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace stormwatch {

namespace {
Duration millis(int ms)
{
    return std::chrono::milliseconds(ms);
}
} // namespace

InstanceSettings instanceSettings(const LeverSet& levers, const ClientOptions& options)
{
    InstanceSettings s;
    s.tagTiming = GuardTiming{millis(options.tagSubscribeRetryIntervalMs),
                              millis(options.tagSubscribeRetryMaxIntervalMs),
                              millis(options.tagSubscribeInFlightCeilingMs)};
    s.tagPolicy =
        GuardPolicy{levers.inflightGuard,    levers.backoff,    levers.confirmedFlag, true,
                    levers.resubscribeGuard, levers.retryBudget};
    s.ceilingMargin = millis(options.tagSubscribeInFlightCeilingMarginMs);
    if (levers.alarmGuard) {
        s.alarmTiming = GuardTiming{millis(options.alarmSubscribeRetryIntervalMs),
                                    millis(options.tagSubscribeRetryMaxIntervalMs),
                                    millis(options.tagSubscribeInFlightCeilingMs)};
        s.alarmPolicy =
            GuardPolicy{true, true, true, true, levers.resubscribeGuard, levers.retryBudget};
    } else {
        // The pre-fix alarm actor: fixed 2× interval, no in-flight check, ids not compared.
        const Duration twice = 2 * millis(options.alarmSubscribeRetryIntervalMs);
        s.alarmTiming = GuardTiming{twice, twice, millis(options.tagSubscribeInFlightCeilingMs)};
        s.alarmPolicy = GuardPolicy{false, false, false, false, false, levers.retryBudget};
    }
    return s;
}

ConnectionConfig connectionConfig(const ConnectionSpec& spec, const LeverSet& levers,
                                  const ClientOptions& options, const std::string& clientName,
                                  const ClientModel& model)
{
    ConnectionConfig c;
    c.name = spec.name;
    c.writeUserId = spec.writeUserId;
    c.clientName = clientName;
    c.bulkSupervisory = levers.bulkSupervisory;
    c.sessionCommandTimeout = millis(levers.sessionCommandTimeoutMs);
    c.adviseParallelism = options.mxSupervisoryAdviseParallelism;
    c.coalesce = levers.coalesce;
    c.guardedResubscribe = levers.resubscribeGuard;
    c.dropSuperseded = levers.dropSuperseded;
    c.commandTimeout = millis(options.mxCommandTimeoutMs);
    c.teardown = model.redeployTeardown;
    c.teardownGated = model.teardownGated;
    c.reconnectFloor = millis(options.reconnectBackoffFloorMs);
    c.reconnectMax = millis(options.reconnectBackoffMaxMs);
    return c;
}

std::string ClientEngine::validate(const EngineConfig& config, const GatewayPorts* ports)
{
    const auto errors = stormwatch::validate(config.options);
    if (!errors.isEmpty())
        return errors.front().message().toStdString();
    std::set<std::string> connections;
    for (const auto& c : config.connections) {
        if (c.name.empty())
            return "a connection has no name";
        if (!connections.insert(c.name).second)
            return "duplicate connection \"" + c.name + "\"";
        if (ports && !ports->contains(c.gateway))
            return "connection \"" + c.name + "\" names unknown gateway \"" + c.gateway + "\"";
    }
    std::set<std::string> instances;
    for (const auto& i : config.instances) {
        if (!instances.insert(i.name).second)
            return "duplicate instance \"" + i.name + "\"";
        if (!connections.count(i.connection))
            return "instance \"" + i.name + "\" names unknown connection \"" + i.connection + "\"";
    }
    return {};
}

// The one-gateway form: a single port named "" serves every connection, whatever gateway it
// names (not built from `config`: the argument's order of evaluation is unspecified, and it
// may already have been moved from).
ClientEngine::ClientEngine(Scheduler& scheduler, GatewayPort& port, EngineConfig config)
    : ClientEngine(scheduler, GatewayPorts{{std::string(), &port}}, std::move(config))
{
}

ClientEngine::ClientEngine(Scheduler& scheduler, GatewayPorts ports, EngineConfig config)
    : m_scheduler(scheduler), m_ports(std::move(ports)), m_config(std::move(config)),
      m_rng(m_config.seed)
{
    // One recovery gate per gateway: a gateway's failures must not refuse another's calls.
    // Every scenario has one gateway (""), hence one gate, as before.
    auto gateFor = [this](const std::string& gateway) {
        auto& gate = m_gates[gateway];
        if (!gate) {
            gate = std::make_unique<RecoveryGate>(m_scheduler, m_config.levers.recovery);
            const std::string subject = gateway.empty() ? std::string("gateway") : gateway;
            gate->setObserver([this, subject](RecoveryGate::State state, const std::string& cause) {
                log(state == RecoveryGate::State::Normal ? Severity::Info : Severity::Warning,
                    subject, std::string("recovery ") + toString(state) + ": " + cause);
                notify([&](EngineObserver& o) { o.onRecoveryState(state, cause); });
            });
        }
        return gate.get();
    };
    m_gate = gateFor(m_config.connections.empty() ? std::string()
                                                  : m_config.connections.front().gateway);

    for (std::size_t c = 0; c < m_config.connections.size(); ++c) {
        const ConnectionSpec& spec = m_config.connections[c];
        const bool onlyPort = m_ports.size() == 1 && m_ports.begin()->first.empty();
        const auto port = onlyPort ? m_ports.begin() : m_ports.find(spec.gateway);
        if (port == m_ports.end() || !port->second)
            continue; // validate() names it; its instances get no connection, like an unknown one
        auto connection = std::make_unique<GatewayConnection>(
            m_scheduler, *port->second,
            connectionConfig(spec, m_config.levers, m_config.options, m_config.clientName,
                             m_config.model),
            gateFor(spec.gateway), [this] { return jitter(); });
        m_specOf.push_back(c);
        GatewayConnection* raw = connection.get();
        connection->setLogger([this, raw](Severity severity, const std::string& message) {
            log(severity, raw->name(), message);
        });
        connection->setStateObserver([this, raw](ConnectionState state) {
            notify([&](EngineObserver& o) { o.onConnectionState(*raw, state); });
        });
        m_connections.push_back(std::move(connection));
    }

    const InstanceSettings settings = instanceSettings(m_config.levers, m_config.options);
    InstanceCallbacks callbacks;
    callbacks.onGuardEvent = [this](Instance& instance, GatewayConnection& connection,
                                    const GuardEvent& event, bool alarm) {
        announceRetryBudget(connection, event);
        notify([&](EngineObserver& o) { o.onGuardEvent(instance, connection, event, alarm); });
    };
    callbacks.onTagsChanged = [this](Instance& instance, const std::vector<int>& tags) {
        if (m_observers.empty())
            return;
        const int index = instanceIndex(instance);
        notify([&](EngineObserver& o) { o.onTagsChanged(instance, index, tags); });
    };
    callbacks.onLog = [this](Instance& instance, Severity severity, const std::string& message) {
        log(severity, instance.name(), message);
    };
    for (auto& spec : m_config.instances) {
        GatewayConnection* connection = nullptr;
        for (auto& c : m_connections)
            if (c->name() == spec.connection)
                connection = c.get();
        std::vector<int> indices(spec.tags.size());
        for (std::size_t i = 0; i < indices.size(); ++i)
            indices[i] = int(i);
        std::vector<Instance::Group> groups;
        if (connection)
            groups.push_back(Instance::Group{connection, std::move(indices)});
        std::vector<Duration> staleLimits;
        staleLimits.reserve(spec.staleAfterS.size());
        for (double s : spec.staleAfterS)
            staleLimits.push_back(Duration(std::llround(s * 1e6)));
        m_instances.push_back(std::make_unique<Instance>(
            m_scheduler, spec.name, std::move(spec.tags), std::move(groups), spec.alarms, settings,
            [this] { return jitter(); }, callbacks, std::move(staleLimits)));
        m_indexOf.emplace(m_instances.back().get(), int(m_instances.size()) - 1);
    }
}

ClientEngine::~ClientEngine()
{
    m_observers.clear();
    m_instances.clear(); // before the connections they subscribe through
    m_connections.clear();
}

void ClientEngine::log(Severity severity, const std::string& subject, const std::string& message)
{
    notify([&](EngineObserver& o) { o.onLog(severity, subject, message); });
}

void ClientEngine::setObserver(EngineObserver* observer)
{
    m_observers.clear();
    if (observer)
        m_observers.push_back(observer);
}

void ClientEngine::addObserver(EngineObserver* observer)
{
    if (observer &&
        std::find(m_observers.begin(), m_observers.end(), observer) == m_observers.end())
        m_observers.push_back(observer);
}

void ClientEngine::removeObserver(EngineObserver* observer)
{
    std::erase(m_observers, observer);
}

std::int64_t ClientEngine::suppressedCalls() const
{
    std::int64_t n = 0;
    for (const auto& [name, gate] : m_gates)
        n += gate->suppressedCalls();
    return n;
}

void ClientEngine::announceRetryBudget(const GatewayConnection& connection, const GuardEvent& event)
{
    if (event.kind == GuardEventKind::Throttled && m_budgetThrottled.insert(&connection).second) {
        const int ms = m_config.options.tagSubscribeRetryMaxIntervalMs;
        connection.log(
            Severity::Warning,
            "retry budget half spent by failures: retries held back, one probe per " +
                (ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms"));
    } else if (event.kind == GuardEventKind::Confirmed && !connection.retryBudget().throttling() &&
               m_budgetThrottled.erase(&connection) > 0)
        connection.log(Severity::Info, "retry budget refilled: retries go out again");
}

std::int64_t ClientEngine::throttledRetries() const
{
    std::int64_t n = 0;
    for (const auto& c : m_connections)
        n += std::int64_t(c->retryBudget().throttledRetries());
    return n;
}

std::int64_t ClientEngine::eventsLost() const
{
    std::int64_t n = 0;
    for (const auto& c : m_connections)
        n += c->stats().eventsLost;
    return n;
}

double ClientEngine::unresponsiveSeconds() const
{
    Duration total{0};
    for (const auto& c : m_connections)
        total += c->unresponsiveFor();
    return std::chrono::duration<double>(total).count();
}

RecoveryGate::State ClientEngine::recoveryState() const
{
    auto worst = RecoveryGate::State::Normal;
    for (const auto& [name, gate] : m_gates)
        worst = std::max(worst, gate->state());
    return worst;
}

int ClientEngine::instanceIndex(const std::string& name) const
{
    for (std::size_t i = 0; i < m_instances.size(); ++i)
        if (m_instances[i]->name() == name)
            return int(i);
    return -1;
}

int ClientEngine::instanceIndex(const Instance& instance) const
{
    const auto it = m_indexOf.find(&instance);
    return it == m_indexOf.end() ? -1 : it->second;
}

void ClientEngine::startConnections()
{
    log(Severity::Info, "engine", "levers: " + describeLevers(m_config.levers).toStdString());
    for (auto& c : m_connections)
        c->start();
}

void ClientEngine::deploy(int instance)
{
    if (instance >= 0 && std::size_t(instance) < m_instances.size())
        m_instances[std::size_t(instance)]->start();
}

void ClientEngine::deployAll()
{
    for (auto& i : m_instances)
        i->start();
}

void ClientEngine::stop()
{
    for (auto& i : m_instances)
        i->stop();
    for (auto& c : m_connections)
        c->stop();
}

void ClientEngine::close(std::function<void()> closed)
{
    for (auto& i : m_instances)
        i->stop(/*teardown=*/false);
    auto left = std::make_shared<std::size_t>(m_connections.size());
    auto done = std::make_shared<std::function<void()>>(std::move(closed));
    if (*left == 0) {
        m_scheduler.post(*done);
        return;
    }
    for (auto& c : m_connections)
        c->close([left, done] {
            if (--*left == 0)
                (*done)();
        });
}

int ClientEngine::orphanedTags() const
{
    int n = 0;
    for (const auto& i : m_instances)
        for (std::size_t g = 0; g < i->groupCount(); ++g)
            n += i->orphanedTags(g);
    return n;
}

bool ClientEngine::redeploy(const std::string& name)
{
    const int index = instanceIndex(name);
    if (index < 0)
        return false;
    log(Severity::Info, name, "redeploy");
    m_instances[std::size_t(index)]->redeploy();
    return true;
}

void ClientEngine::applyLevers(const LeverSet& levers)
{
    if (levers == m_config.levers)
        return;
    const LeverSet before = m_config.levers;
    m_config.levers = levers;
    log(Severity::Info, "engine", "levers changed: " + describeLevers(levers).toStdString());
    if (!(levers.recovery == before.recovery))
        for (auto& entry : m_gates)
            entry.second->reconfigure(levers.recovery);
    const InstanceSettings settings = instanceSettings(levers, m_config.options);
    for (auto& i : m_instances)
        i->setSettings(settings);
    for (std::size_t c = 0; c < m_connections.size(); ++c)
        m_connections[c]->setConfig(connectionConfig(m_config.connections[m_specOf[c]], levers,
                                                     m_config.options, m_config.clientName,
                                                     m_config.model));
}

QualityCounts ClientEngine::deployedCounts() const
{
    QualityCounts total;
    for (const auto& i : m_instances) {
        if (!i->deployed())
            continue;
        const QualityCounts c = i->counts();
        total.good += c.good;
        total.uncertain += c.uncertain;
        total.bad += c.bad;
        total.stale += c.stale;
    }
    return total;
}

int ClientEngine::deployedTags() const
{
    int n = 0;
    for (const auto& i : m_instances)
        if (i->deployed())
            n += int(i->tags().size());
    return n;
}

std::int64_t ClientEngine::subscribeRequests() const
{
    std::int64_t n = 0;
    for (const auto& i : m_instances)
        for (std::size_t g = 0; g < i->groupCount(); ++g)
            n += i->requestsSent(g);
    return n;
}

} // namespace stormwatch
