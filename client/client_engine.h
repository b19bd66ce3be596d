#pragma once
// The client without its window: owns the gateway connections and instances, maps a
// LeverSet + options onto them (switchable at run time), and reports guard events, tag
// changes, connection and recovery states and log lines to its observers (the runner's
// metrics and a console's log tap can listen to the same engine). Runs on one
// Scheduler: virtual in replay, QtScheduler on the worker thread in live mode.

#include "gateway_connection.h"
#include "instance.h"
#include "lever_set.h"
#include "options.h"
#include "recovery_gate.h"

#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace stormwatch {

struct ConnectionSpec {
    std::string name;
    int writeUserId = 0;
    // The gateway this connection reaches: a key of the engine's ports. Empty: the engine's
    // only port (the one-gateway constructor, every scenario).
    std::string gateway = {}; // (an initializer: {name, user} stays a complete aggregate init)
};

struct InstanceSpec {
    std::string name;
    std::string connection;
    // Moved into the engine's Instance (Instance::tagNames) when the engine is built: a site's
    // names are held once, not once more in the engine's copy of its configuration.
    std::vector<std::string> tags;
    bool alarms = false;
    // Per tag, seconds without an update after which a Good tag is stale (0: never); empty:
    // none is. A site sets it from each tag kind's expected update period and stale factor.
    std::vector<double> staleAfterS = {};
};

// What the incident analysis leaves open about the bridge, as named settings (scenario
// "client_model").
struct ClientModel {
    Teardown redeployTeardown = Teardown::PerItemRemove; // what a redeploy sends
    bool teardownGated = true; // teardown calls pass the recovery gate and count as its failures
    bool operator==(const ClientModel&) const = default;
};

struct EngineConfig {
    ClientOptions options;
    LeverSet levers;
    ClientModel model;
    std::vector<ConnectionSpec> connections;
    std::vector<InstanceSpec> instances;
    std::uint64_t seed = 1;
    std::string clientName = "stormwatch";
};

class EngineObserver {
public:
    virtual ~EngineObserver() = default;
    virtual void onGuardEvent(const Instance&, const GatewayConnection&, const GuardEvent&,
                              bool /*alarm*/)
    {
    }
    virtual void onTagsChanged(const Instance&, int /*instance*/, const std::vector<int>& /*tags*/)
    {
    }
    virtual void onConnectionState(const GatewayConnection&, ConnectionState) {}
    virtual void onRecoveryState(RecoveryGate::State, const std::string& /*cause*/) {}
    // subject: "engine", a connection name or an instance name.
    virtual void onLog(Severity, const std::string& /*subject*/, const std::string& /*message*/) {}
};

// The guard settings a lever set and options give (shared by the engine and the console).
InstanceSettings instanceSettings(const LeverSet& levers, const ClientOptions& options);
ConnectionConfig connectionConfig(const ConnectionSpec& spec, const LeverSet& levers,
                                  const ClientOptions& options, const std::string& clientName,
                                  const ClientModel& model = {});

class ClientEngine {
public:
    // The ports of several gateways, by gateway name (ConnectionSpec::gateway).
    using GatewayPorts = std::map<std::string, GatewayPort*>;

    // Returns "" when valid, else what is wrong (unknown connection, duplicate name, options,
    // a connection naming a gateway that `ports` lacks — when ports are given).
    static std::string validate(const EngineConfig& config, const GatewayPorts* ports = nullptr);

    // One gateway: every connection reaches `port`.
    ClientEngine(Scheduler& scheduler, GatewayPort& port, EngineConfig config);
    // Several gateways, one engine: each connection reaches the port of its gateway, so one
    // recovery gate, one set of observers (one recorder) and one scheduler serve them all,
    // while each gateway's sessions, streams and failures stay on its own connections. A
    // connection naming a gateway not in `ports` is never started (validate() says so).
    ClientEngine(Scheduler& scheduler, GatewayPorts ports, EngineConfig config);
    ~ClientEngine();
    ClientEngine(const ClientEngine&) = delete;
    ClientEngine& operator=(const ClientEngine&) = delete;

    // setObserver: this one observer only (nullptr: none). add/remove: one among several,
    // called in the order added; an observer must be removed (or the engine gone) before it
    // is destroyed. Removing one from inside a callback is safe (the one after it may miss
    // that call).
    void setObserver(EngineObserver* observer);
    void addObserver(EngineObserver* observer);
    void removeObserver(EngineObserver* observer);

    void startConnections();
    void deploy(int instance); // start one instance (its first subscribe goes out now)
    void deployAll();
    void stop();
    // The end of a run: instances stop without teardown, every connection closes its
    // session; `closed` runs once every CloseSession is answered.
    void close(std::function<void()> closed);
    bool redeploy(const std::string& instance);
    void applyLevers(const LeverSet& levers);

    const LeverSet& levers() const { return m_config.levers; }
    const ClientOptions& options() const { return m_config.options; }
    const EngineConfig& config() const { return m_config; }
    Scheduler& scheduler() const { return m_scheduler; }
    // The recovery gate of the first connection's gateway (the only one, with one gateway).
    RecoveryGate& gate() { return *m_gate; }
    const RecoveryGate& gate() const { return *m_gate; }
    // Over every gateway's gate: the calls they refused, and the most severe state (Closed >
    // Recovering > Normal) — what a run's recovery series and metrics report, so a site's
    // second gateway in recovery is not hidden behind the first one's Normal.
    std::int64_t suppressedCalls() const;
    // Retries the connections' retry budgets held back (lever retry_budget), over all of them.
    std::int64_t throttledRetries() const;
    // Events numbered by the gateway that never arrived, over every connection.
    std::int64_t eventsLost() const;
    // Connection-seconds the gateways were unresponsive, summed over the connections.
    double unresponsiveSeconds() const;
    RecoveryGate::State recoveryState() const;
    // The gate of `gateway` (nullptr when no connection reaches it).
    const RecoveryGate* gate(const std::string& gateway) const
    {
        const auto it = m_gates.find(gateway);
        return it == m_gates.end() ? nullptr : it->second.get();
    }
    const std::vector<std::unique_ptr<GatewayConnection>>& connections() const
    {
        return m_connections;
    }
    const std::vector<std::unique_ptr<Instance>>& instances() const { return m_instances; }
    int instanceIndex(const std::string& name) const;
    int instanceIndex(const Instance& instance) const;

    // Counts over the tags of deployed instances.
    QualityCounts deployedCounts() const;
    int deployedTags() const;
    // Tag-subscribe requests sent by all instances (alarm ones apart).
    std::int64_t subscribeRequests() const;
    // Orphaned tags over every deployed instance (see Instance::orphanedTags).
    int orphanedTags() const;

private:
    void log(Severity severity, const std::string& subject, const std::string& message);
    // Says once when a connection's retry budget starts holding retries back, and when it lets
    // them go again.
    void announceRetryBudget(const GatewayConnection& connection, const GuardEvent& event);
    template <typename F> void notify(F&& call)
    {
        // By index: an observer may remove itself (or another) while being called.
        for (std::size_t i = 0; i < m_observers.size(); ++i)
            call(*m_observers[i]);
    }
    double jitter() { return m_uniform(m_rng); }

    Scheduler& m_scheduler;
    GatewayPorts m_ports;
    EngineConfig m_config;
    std::vector<EngineObserver*> m_observers;
    std::mt19937_64 m_rng;
    std::uniform_real_distribution<double> m_uniform{0.0, 1.0};
    std::map<std::string, std::unique_ptr<RecoveryGate>> m_gates; // by gateway name
    RecoveryGate* m_gate = nullptr;
    std::vector<std::size_t>
        m_specOf; // m_connections[i] was built from m_config.connections[m_specOf[i]]
    std::vector<std::unique_ptr<GatewayConnection>> m_connections;
    std::set<const GatewayConnection*> m_budgetThrottled; // announced as holding retries back
    std::vector<std::unique_ptr<Instance>> m_instances;
    std::unordered_map<const Instance*, int> m_indexOf; // per data batch: no name lookups
};

} // namespace stormwatch
