#include "scenario/scenario_runner.h"

// Building a run and taking it down: the engine's and the mock gateway's configs from the
// scenario, each gateway's seed, the world a variant runs in (a model and an in-process port
// per gateway in virtual time; live, an embedded mock per gateway, a site's own endpoints or
// one gateway for every connection), the engine with the runner's metrics observer, and the
// end of it all: the sessions closed at the run's end, the world torn down in reverse.

#include "client/lever_set.h"
#include "client/options.h"
#include "client/qt_scheduler.h"
#include "client/virtual_scheduler.h"
#include "gateway/contract_service.h"
#include "gateway/mock_gateway_server.h"
#include "scenario/in_process_gateway_port.h"
#include "scenario/run_time.h"

#include <QDateTime>
#include <QEventLoop>
#include <QLoggingCategory>
#include <QTimer>
#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace stormwatch {

Q_DECLARE_LOGGING_CATEGORY(lcScenario) // scenario_runner.cpp

using run_time::fromSeconds;
using run_time::toSeconds;

namespace {
// A live mxgw-mock's counters are read once a second, on a thread of their own.
constexpr std::chrono::milliseconds kStatsPollPeriod{1000};
} // namespace

std::vector<std::string> tagNamesFor(const ScenarioInstance& instance)
{
    std::vector<std::string> tags;
    tags.reserve(std::size_t(std::max(0, instance.tags)));
    if (!instance.tagAddresses.isEmpty()) {
        for (const QString& a : instance.tagAddresses)
            tags.push_back(a.toStdString());
        return tags;
    }
    const std::string prefix = instance.tagPrefix.toStdString();
    for (int i = 1; i <= instance.tags; ++i)
        tags.push_back(prefix + std::to_string(i));
    return tags;
}

EngineConfig engineConfigFor(const Scenario& scenario, const VariantSpec& variant, quint64 seed,
                             QString* error)
{
    EngineConfig config;
    QString problem;
    QList<OptionError> optionErrors;
    if (auto options = optionsFromJson(scenario.options, &optionErrors))
        config.options = *options;
    else
        problem = QStringLiteral("options: %1").arg(optionErrors.value(0).message());
    QString leverError;
    if (auto levers = leverSetFromJson(variant.levers, &leverError))
        config.levers = *levers;
    else if (problem.isEmpty())
        problem = QStringLiteral("variant \"%1\": %2").arg(variant.name, leverError);
    for (const ScenarioConnection& c : scenario.connections)
        config.connections.push_back(
            ConnectionSpec{c.name.toStdString(), int(c.writeUserId), c.gateway.toStdString()});
    for (const ScenarioInstance& i : scenario.instances) {
        InstanceSpec spec{i.name.toStdString(), i.connection.toStdString(), tagNamesFor(i),
                          i.alarms};
        spec.staleAfterS.reserve(std::size_t(i.expectedUpdateS.size()));
        for (double period : i.expectedUpdateS)
            spec.staleAfterS.push_back(period * scenario.staleFactor);
        config.instances.push_back(std::move(spec));
    }
    config.model.redeployTeardown =
        teardownFromString(scenario.clientModel.redeployTeardown.toStdString())
            .value_or(Teardown::PerItemRemove);
    config.model.teardownGated = scenario.clientModel.teardownGated;
    config.seed = seed;
    if (problem.isEmpty()) {
        const std::string engineError = ClientEngine::validate(config);
        if (!engineError.empty())
            problem = QString::fromStdString(engineError);
    }
    if (error)
        *error = problem;
    return config;
}

gateway::GatewayConfig gatewayConfigFor(const Scenario& scenario, quint64 seed)
{
    gateway::GatewayConfig config;
    config.advertiseBulkSupervisory = scenario.gateway.advertiseBulkSupervisory;
    config.commandMs = scenario.gateway.commandMs;
    config.perItemMs = scenario.gateway.perItemMs;
    config.defaultCommandTimeout = fromSeconds(scenario.gateway.defaultCommandTimeoutS);
    config.dataHz = scenario.gateway.dataHz;
    config.seed = seed;
    gateway::applyContractFamily(scenario.gateway.contractFamily.toStdString(), config);
    return config;
}

quint64 gatewaySeedFor(quint64 runSeed, int index)
{
    if (index == 0)
        return runSeed;
    // SplitMix64's finaliser over the pair: neighbouring seeds and indices give unrelated
    // streams.
    quint64 z = runSeed + quint64(index) * 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

// The engine's observer: every callback turns into an O(1) metric update (the per-batch
// tag path reads the instance's incrementally kept counts, never walks its tags).
class ScenarioRunner::Observer final : public EngineObserver {
public:
    explicit Observer(ScenarioRunner& runner) : m_runner(runner)
    {
        const auto& instances = runner.m_engine->instances();
        for (std::size_t i = 0; i < instances.size(); ++i)
            m_index.emplace(instances[i].get(), int(i));
    }

    void onGuardEvent(const Instance& instance, const GatewayConnection& connection,
                      const GuardEvent& event, bool alarm) override
    {
        if (alarm)
            return; // alarm subscriptions are not tag subscribes
        const auto it = m_index.find(&instance);
        if (it == m_index.end())
            return;
        std::size_t group = 0;
        for (std::size_t g = 0; g < instance.groupCount(); ++g)
            if (&instance.connection(g) == &connection)
                group = g;
        ScenarioRunner& r = m_runner;
        SubscriptionSeries& s = r.m_subscriptionSeries[std::size_t(it->second)][group];
        const double t = toSeconds(r.sinceStart(event.at));
        if (event.kind == GuardEventKind::Sent) {
            ++r.m_subscribeRequests;
            r.m_series.at(s.requestsSent).add(t, double(++s.sent));
        }
        r.m_maxOutstanding = std::max(r.m_maxOutstanding, event.outstanding);
        r.m_series.at(s.outstanding).add(t, event.outstanding);
        r.m_series.at(s.intervalMs).add(t, double(event.interval.count()) / 1000.0);
        r.checkOrphans(it->second);
    }

    void onConnectionState(const GatewayConnection& connection, ConnectionState state) override
    {
        m_runner.onConnectionState(connection, state);
    }

    void onTagsChanged(const Instance&, int instance, const std::vector<int>&) override
    {
        if (instance >= 0)
            m_runner.onInstanceCounts(instance);
    }

    void onRecoveryState(RecoveryGate::State, const std::string&) override
    {
        m_runner.recordRecoveryStates();
    }

private:
    ScenarioRunner& m_runner;
    std::unordered_map<const Instance*, int> m_index;
};

GrpcPortOptions ScenarioRunner::withScenarioKeepalive(GrpcPortOptions options) const
{
    setKeepalive(options, m_scenario.clientModel.keepaliveS.value_or(0),
                 m_scenario.clientModel.keepaliveTimeoutS.value_or(0));
    return options;
}

ScenarioRunner::ScenarioRunner(const Scenario& scenario, const VariantSpec& variant,
                               std::optional<quint64> seedOverride, SeriesLimits seriesLimits)
    : m_scenario(scenario), m_variant(variant), m_seed(seedOverride.value_or(scenario.seed)),
      m_series(seriesLimits)
{
    m_wall.start();
    EngineConfig config = engineConfigFor(m_scenario, m_variant, m_seed, &m_error);
    if (!m_error.isEmpty())
        return;
    const gateway::GatewayConfig gatewayConfig = gatewayConfigFor(m_scenario, m_seed);
    const std::string gatewayError = gateway::validateConfig(gatewayConfig);
    if (!gatewayError.empty()) {
        m_error = QStringLiteral("gateway: %1").arg(QString::fromStdString(gatewayError));
        return;
    }
    m_virtualScheduler = std::make_unique<VirtualScheduler>();
    m_scheduler = m_virtualScheduler.get();
    // A model and an in-process port per gateway (a site's), each with its own STA, as live
    // each gateway is its own process; a scenario without named gateways has one.
    QStringList names = m_scenario.gatewayNames();
    if (names.isEmpty())
        names << QString();
    for (const QString& name : names) {
        Gateway g;
        g.name = name;
        gateway::GatewayConfig own = gatewayConfig;
        own.seed = gatewaySeedFor(m_seed, int(m_gateways.size()));
        g.model = std::make_unique<gateway::GatewayModel>(*m_scheduler, own);
        g.access = modelAccess(*g.model);
        auto port = std::make_unique<InProcessGatewayPort>(
            *m_virtualScheduler, *g.model,
            Duration(std::llround(m_scenario.gateway.networkLatencyMs * 1000)));
        const GrpcPortOptions transport = withScenarioKeepalive(GrpcPortOptions{});
        port->setKeepalive(transport.keepaliveTime, transport.keepaliveTimeout);
        g.port = std::move(port);
        if (!name.isEmpty())
            m_gatewayPorts.emplace(name.toStdString(), g.port.get());
        m_gateways.push_back(std::move(g));
    }
    setUp(config);
}

ScenarioRunner::ScenarioRunner(const Scenario& scenario, const VariantSpec& variant,
                               const LiveOptions& live, std::optional<quint64> seedOverride,
                               SeriesLimits seriesLimits)
    : m_scenario(scenario), m_variant(variant), m_seed(seedOverride.value_or(scenario.seed)),
      m_live(true), m_series(seriesLimits)
{
    m_wall.start();
    EngineConfig config = engineConfigFor(m_scenario, m_variant, m_seed, &m_error);
    if (!m_error.isEmpty())
        return;
    m_qtScheduler = std::make_unique<QtScheduler>();
    m_scheduler = m_qtScheduler.get();
    // A site scenario without endpoints (headless --live, the console playing it live): an
    // embedded mock per gateway, each its own process in all but name, as the virtual run
    // models each one; they are then reached exactly as a site's own gateways are.
    std::map<std::string, GrpcPortOptions> gateways = live.gateways;
    for (auto& [name, options] : gateways)
        options = withScenarioKeepalive(options);
    std::map<std::string, gateway::MockGatewayServer*> embedded;
    if (gateways.empty() && !live.gateway && !m_scenario.gatewayNames().isEmpty()) {
        for (const ConnectionSpec& c : config.connections) {
            const std::string name = c.gateway.empty() ? c.name : c.gateway;
            if (gateways.contains(name))
                continue;
            gateway::MockGatewayServer* server = startEmbeddedServer(
                QString::fromStdString(name), gatewaySeedFor(m_seed, int(embedded.size())));
            if (!server)
                return;
            gateways[name] = withScenarioKeepalive(GrpcPortOptions{});
            gateways[name].address = server->address();
            embedded[name] = server;
        }
    }
    if (!gateways.empty()) {
        // A site: a port per gateway, each reaching its own; its faults and counters through
        // its own MockGatewayControl (or its embedded server's model).
        m_sharedGateways = embedded.empty();
        for (ConnectionSpec& c : config.connections) {
            if (c.gateway.empty())
                c.gateway = c.name;
            if (m_gatewayPorts.contains(c.gateway))
                continue;
            const auto it = gateways.find(c.gateway);
            if (it == gateways.end()) {
                m_error = QStringLiteral("gateway: no endpoint for connection \"%1\"")
                              .arg(QString::fromStdString(c.name));
                return;
            }
            const QString name = QString::fromStdString(c.gateway);
            if (const QString bad = GrpcGatewayPort::validateTransport(it->second);
                !bad.isEmpty()) {
                m_error = QStringLiteral("gateway %1: %2").arg(name, bad);
                return;
            }
            // A port that may send nothing (its contract does not check) is kept: its connection
            // is refused, says why, and sends no command, while the site's other gateways run.
            auto port = std::make_unique<GrpcGatewayPort>(*m_scheduler, it->second);
            Gateway g;
            g.name = name;
            const auto server = embedded.find(c.gateway);
            if (server != embedded.end()) {
                g.server = server->second;
                g.access = embeddedServerAccess(*server->second);
            } else // a frozen gateway's control service hangs too: read on a thread of its own
                g.access =
                    polledStatsAccess(remoteControlAccess(it->second.address), kStatsPollPeriod);
            m_gatewayPorts.emplace(c.gateway, port.get());
            g.port = std::move(port);
            m_gateways.push_back(std::move(g));
        }
        if (m_gateways.empty()) {
            m_error = QStringLiteral("gateway: the scenario has no connection");
            return;
        }
        setUp(config);
        return;
    }
    // One gateway (embedded or external) serves every connection: one gate, as any scenario.
    GrpcPortOptions portOptions = withScenarioKeepalive(GrpcPortOptions{});
    gateway::MockGatewayServer* server = nullptr;
    if (live.gateway) {
        portOptions = withScenarioKeepalive(*live.gateway);
        if (const QString bad = GrpcGatewayPort::validateTransport(portOptions); !bad.isEmpty()) {
            m_error = QStringLiteral("gateway: %1").arg(bad);
            return;
        }
    } else {
        if (!(server = startEmbeddedServer({}, m_seed)))
            return;
        portOptions.address = server->address();
    }
    for (ConnectionSpec& c : config.connections)
        c.gateway.clear();
    Gateway g;
    g.access = server
                   ? embeddedServerAccess(*server)
                   : polledStatsAccess(remoteControlAccess(portOptions.address), kStatsPollPeriod);
    auto port =
        std::make_unique<GrpcGatewayPort>(*m_scheduler, portOptions); // refused connections say why
    g.port = std::move(port);
    m_gateways.push_back(std::move(g));
    setUp(config);
}

gateway::MockGatewayServer* ScenarioRunner::startEmbeddedServer(const QString& name, quint64 seed)
{
    // What stormwatch's own contract, which the embedded mock serves, can carry of the
    // scenario's gateway.
    gateway::GatewayConfig gatewayConfig = gateway::configForContract(
        *wire::WireCodec::compiled(), gatewayConfigFor(m_scenario, seed));
    // Live data carries wall-clock source timestamps.
    gatewayConfig.timestampEpochUs = QDateTime::currentMSecsSinceEpoch() * 1000;
    auto server = std::make_unique<gateway::MockGatewayServer>(gatewayConfig);
    if (!server->start("127.0.0.1:0")) {
        m_error = QStringLiteral("embedded mock gateway%1: %2")
                      .arg(name.isEmpty() ? QString() : QStringLiteral(" ") + name,
                           QString::fromStdString(server->lastError()));
        return nullptr;
    }
    m_servers.push_back(std::move(server));
    return m_servers.back().get();
}

void ScenarioRunner::setUp(const EngineConfig& engineConfig)
{
    EngineConfig config = engineConfig;
    m_levers = config.levers;
    for (const ConnectionSpec& c : config.connections)
        m_gatewayOf[c.name] = c.gateway;
    m_engine =
        m_gatewayPorts.empty()
            ? std::make_unique<ClientEngine>(*m_scheduler, *m_gateways.front().port,
                                             std::move(config))
            : std::make_unique<ClientEngine>(*m_scheduler, m_gatewayPorts, std::move(config));

    // Series handles, so the hot paths index instead of looking names up.
    const auto& instances = m_engine->instances();
    m_counts.assign(instances.size(), QualityCounts{});
    m_subscriptionSeries.resize(instances.size());
    for (std::size_t i = 0; i < instances.size(); ++i) {
        const Instance& instance = *instances[i];
        for (std::size_t g = 0; g < instance.groupCount(); ++g) {
            const QString subject = SeriesSubject::subscriptionSubject(
                QString::fromStdString(instance.name()),
                QString::fromStdString(instance.connection(g).name()));
            m_subscriptionSeries[i].push_back(
                SubscriptionSeries{m_series.indexOf(subject, QStringLiteral("outstanding")),
                                   m_series.indexOf(subject, QStringLiteral("interval_ms")),
                                   m_series.indexOf(subject, QStringLiteral("tags_good")),
                                   m_series.indexOf(subject, QStringLiteral("tags_uncertain")),
                                   m_series.indexOf(subject, QStringLiteral("tags_bad")),
                                   m_series.indexOf(subject, QStringLiteral("requests_sent")),
                                   m_series.indexOf(subject, QStringLiteral("tags_stale")),
                                   m_series.indexOf(subject, QStringLiteral("tags_orphaned")),
                                   m_series.indexOf(subject, QStringLiteral("tags_frozen"))});
        }
    }
    const QString gw = SeriesSubject::gatewaySubject();
    m_staDepth = m_series.indexOf(gw, QStringLiteral("sta_queue_depth"));
    m_rpcsPerS = m_series.indexOf(gw, QStringLiteral("invoke_rpcs_per_s"));
    m_deadlinePerS = m_series.indexOf(gw, QStringLiteral("deadline_exceeded_per_s"));
    m_recoveryState = m_series.indexOf(gw, QStringLiteral("recovery_state"));
    m_suppressed = m_series.indexOf(gw, QStringLiteral("suppressed_calls"));
    m_suppressedPerS = m_series.indexOf(gw, QStringLiteral("suppressed_calls_per_s"));
    m_orphanedSeries = m_series.indexOf(gw, QStringLiteral("orphaned_tags"));
    // Several gateways: each one's own series too, beside the run's sums ("gateway").
    if (m_gateways.size() > 1)
        for (Gateway& g : m_gateways) {
            const QString subject = SeriesSubject::gatewaySubject(g.name);
            g.staDepth = m_series.indexOf(subject, QStringLiteral("sta_queue_depth"));
            g.rpcsPerS = m_series.indexOf(subject, QStringLiteral("invoke_rpcs_per_s"));
            g.deadlinePerS = m_series.indexOf(subject, QStringLiteral("deadline_exceeded_per_s"));
            g.recoveryState = m_series.indexOf(subject, QStringLiteral("recovery_state"));
            g.suppressed = m_series.indexOf(subject, QStringLiteral("suppressed_calls"));
            g.suppressedPerS = m_series.indexOf(subject, QStringLiteral("suppressed_calls_per_s"));
        }
    m_orphans.assign(instances.size(), 0);
    m_frozens.assign(instances.size(), 0);
    m_series.endS = m_scenario.durationS;

    m_observer = std::make_unique<Observer>(*this);
    m_engine->addObserver(m_observer.get()); // the console may listen too
}

ScenarioRunner::~ScenarioRunner()
{
    if (m_engine)
        m_engine->removeObserver(m_observer.get());
    // The engine before the port it talks through, the port (which cancels its calls and
    // drops results posted to the scheduler) before the gateway, the scheduler last.
    m_engine.reset();
    m_gatewayPorts.clear();
    for (Gateway& g : m_gateways)
        g.port.reset();
    for (Gateway& g : m_gateways)
        g.access.reset();
    for (auto& server : m_servers)
        server->stop();
    m_servers.clear();
    m_gateways.clear();
    m_qtScheduler.reset();
    m_virtualScheduler.reset();
}

void ScenarioRunner::closeSessions()
{
    // The run is over for its metrics: the engine's own close is not the run's news.
    m_engine->removeObserver(m_observer.get());
    // The end of a run is not a redeploy: no RemoveItem per tag. Each session is closed and
    // its CloseSession answered, so the gateway frees the items and queued work and does not
    // keep the session (the next variant on the same gateway starts clean). Bounded: a
    // gateway that does not answer gets 2 s.
    bool closed = false;
    m_engine->close([&closed] { closed = true; });
    const Time deadline = m_scheduler->now() + std::chrono::seconds(2);
    while (!closed && m_scheduler->now() < deadline) {
        if (m_virtualScheduler) {
            if (!m_virtualScheduler->runNext())
                break;
        } else {
            QEventLoop loop;
            QTimer::singleShot(10, Qt::PreciseTimer, &loop, &QEventLoop::quit);
            loop.exec();
        }
    }
    if (!closed)
        qCWarning(lcScenario) << "closing the sessions was not answered within 2 s";
}

} // namespace stormwatch
