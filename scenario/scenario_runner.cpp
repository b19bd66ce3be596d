#include "scenario/scenario_runner.h"

#include "client/lever_set.h"
#include "client/log_text.h"
#include "client/options.h"
#include "client/qt_scheduler.h"
#include "client/virtual_scheduler.h"
#include "gateway/mock_gateway_server.h"
#include "scenario/in_process_gateway_port.h"

#include <QDateTime>
#include <QEventLoop>
#include <QLoggingCategory>
#include <QTimer>
#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace stormwatch {

Q_LOGGING_CATEGORY(lcScenario, "stormwatch.scenario")

namespace {

Duration seconds(double s)
{
    return Duration(std::llround(s * 1e6));
}

double toSeconds(Time t)
{
    return double(t.count()) / 1e6;
}

constexpr int kProgressSteps = 50;

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
        config.connections.push_back(ConnectionSpec{c.name.toStdString(), int(c.writeUserId), c.gateway.toStdString()});
    for (const ScenarioInstance& i : scenario.instances)
        config.instances.push_back(InstanceSpec{i.name.toStdString(), i.connection.toStdString(),
                                                tagNamesFor(i), i.alarms});
    config.model.redeployTeardown =
        teardownFromString(scenario.clientModel.redeployTeardown.toStdString()).value_or(Teardown::PerItemRemove);
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
    config.defaultCommandTimeout = seconds(scenario.gateway.defaultCommandTimeoutS);
    config.dataHz = scenario.gateway.dataHz;
    config.seed = seed;
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
            return; // alarm subscriptions are not tag subscribes (DESIGN.md "Metrics")
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
        g.port = std::make_unique<InProcessGatewayPort>(
            *m_virtualScheduler, *g.model, Duration(std::llround(m_scenario.gateway.networkLatencyMs * 1000)));
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
    std::map<std::string, gateway::MockGatewayServer*> embedded;
    if (gateways.empty() && !live.gateway && !m_scenario.gatewayNames().isEmpty()) {
        for (const ConnectionSpec& c : config.connections) {
            const std::string name = c.gateway.empty() ? c.name : c.gateway;
            if (gateways.contains(name))
                continue;
            gateway::MockGatewayServer* server =
                startEmbeddedServer(QString::fromStdString(name), gatewaySeedFor(m_seed, int(embedded.size())));
            if (!server)
                return;
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
                m_error = QStringLiteral("gateway: no endpoint for connection \"%1\"").arg(QString::fromStdString(c.name));
                return;
            }
            const QString name = QString::fromStdString(c.gateway);
            if (const QString bad = GrpcGatewayPort::validate(it->second); !bad.isEmpty()) {
                m_error = QStringLiteral("gateway %1: %2").arg(name, bad);
                return;
            }
            auto port = std::make_unique<GrpcGatewayPort>(*m_scheduler, it->second);
            if (!port->setupError().empty()) {
                m_error = QStringLiteral("gateway %1: %2").arg(name, QString::fromStdString(port->setupError()));
                return;
            }
            Gateway g;
            g.name = name;
            const auto server = embedded.find(c.gateway);
            if (server != embedded.end()) {
                g.server = server->second;
                g.access = embeddedServerAccess(*server->second);
            }
            else if (m_sharedGateways) // only its STA queue is read, and it may hang: polled
                g.access = polledStatsAccess(remoteControlAccess(it->second.address),
                                             std::chrono::seconds(1));
            else
                g.access = remoteControlAccess(it->second.address);
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
    GrpcPortOptions portOptions;
    gateway::MockGatewayServer* server = nullptr;
    if (live.gateway) {
        portOptions = *live.gateway;
        if (const QString bad = GrpcGatewayPort::validate(portOptions); !bad.isEmpty()) {
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
    g.access = server ? embeddedServerAccess(*server) : remoteControlAccess(portOptions.address);
    auto port = std::make_unique<GrpcGatewayPort>(*m_scheduler, portOptions);
    if (!port->setupError().empty()) {
        m_error = QStringLiteral("gateway: %1").arg(QString::fromStdString(port->setupError()));
        return;
    }
    g.port = std::move(port);
    m_gateways.push_back(std::move(g));
    setUp(config);
}

gateway::MockGatewayServer* ScenarioRunner::startEmbeddedServer(const QString& name, quint64 seed)
{
    gateway::GatewayConfig gatewayConfig = gatewayConfigFor(m_scenario, seed);
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
    m_engine = m_gatewayPorts.empty()
                   ? std::make_unique<ClientEngine>(*m_scheduler, *m_gateways.front().port, std::move(config))
                   : std::make_unique<ClientEngine>(*m_scheduler, m_gatewayPorts, std::move(config));

    // Series handles, so the hot paths index instead of looking names up.
    const auto& instances = m_engine->instances();
    m_counts.assign(instances.size(), QualityCounts{});
    m_subscriptionSeries.resize(instances.size());
    for (std::size_t i = 0; i < instances.size(); ++i) {
        const Instance& instance = *instances[i];
        for (std::size_t g = 0; g < instance.groupCount(); ++g) {
            const QString subject =
                QString::fromStdString(instance.name() + "/" + instance.connection(g).name());
            m_subscriptionSeries[i].push_back(
                SubscriptionSeries{m_series.indexOf(subject, QStringLiteral("outstanding")),
                                   m_series.indexOf(subject, QStringLiteral("interval_ms")),
                                   m_series.indexOf(subject, QStringLiteral("tags_good")),
                                   m_series.indexOf(subject, QStringLiteral("tags_uncertain")),
                                   m_series.indexOf(subject, QStringLiteral("tags_bad")),
                                   m_series.indexOf(subject, QStringLiteral("requests_sent"))});
        }
    }
    const QString gw = QStringLiteral("gateway");
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
            const QString subject = QStringLiteral("gateway:") + g.name;
            g.staDepth = m_series.indexOf(subject, QStringLiteral("sta_queue_depth"));
            g.rpcsPerS = m_series.indexOf(subject, QStringLiteral("invoke_rpcs_per_s"));
            g.deadlinePerS = m_series.indexOf(subject, QStringLiteral("deadline_exceeded_per_s"));
            g.recoveryState = m_series.indexOf(subject, QStringLiteral("recovery_state"));
            g.suppressed = m_series.indexOf(subject, QStringLiteral("suppressed_calls"));
            g.suppressedPerS = m_series.indexOf(subject, QStringLiteral("suppressed_calls_per_s"));
        }
    m_orphans.assign(instances.size(), 0);
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

Time ScenarioRunner::end() const
{
    return seconds(m_scenario.durationS);
}

Time ScenarioRunner::sinceStart(Time at) const
{
    // Live, a callback can land a little after the run's end (or, before start(), ahead
    // of it); its effect is counted at the edge.
    return std::clamp(at - m_t0, Time{0}, end());
}

double ScenarioRunner::elapsedS() const
{
    return m_started ? toSeconds(relNow()) : 0.0;
}

void ScenarioRunner::start()
{
    if (!ok() || m_started)
        return;
    m_started = true;
    m_t0 = m_scheduler->now();
    // Counted from here on, from the gateways themselves when every one exposes its
    // counters (virtual, embedded, an mxgw-mock). A live site's are the client's own, per
    // gateway: its gateways are shared, their counters count others' work too.
    m_countersFromGateway = !m_sharedGateways &&
                            std::all_of(m_gateways.begin(), m_gateways.end(),
                                        [](Gateway& g) { return g.access->stats().has_value(); });
    m_baseline = m_lastCounters = gatewayCounters();
    recordRecoveryStates();
    // Same-instant order: the timeline (the environment) first, then connections, then
    // deploys — so a fault "at 0" is in force when the first session is asked for.
    const auto at = [this](double s) { return m_t0 + seconds(s); };
    for (const TimelineEvent& event : m_scenario.timeline)
        if (seconds(event.atS) < end())
            m_scheduler->callAt(at(event.atS), [this, event] { applyTimeline(event); });
    m_scheduler->callAt(m_t0, [this] { m_engine->startConnections(); });
    for (int i = 0; i < m_scenario.instances.size(); ++i)
        if (const double startAt = m_scenario.instances[i].startAtS; seconds(startAt) < end())
            m_scheduler->callAt(at(startAt), [this, i] { deploy(i); });
    m_scheduler->callAt(m_t0, [this] { sampleGateway(); });
}

void ScenarioRunner::advanceTo(double s)
{
    if (!m_started || m_finished)
        return;
    const Time until = m_t0 + std::min(seconds(s), end()) - Duration(1);
    if (m_virtualScheduler) {
        if (until >= m_virtualScheduler->now())
            m_virtualScheduler->runUntil(until);
        return;
    }
    // Live: the scheduler's timers and the gRPC completions it is posted run in this loop.
    while (m_scheduler->now() < until) {
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(until - m_scheduler->now());
        QEventLoop loop;
        QTimer::singleShot(left, Qt::PreciseTimer, &loop, &QEventLoop::quit);
        loop.exec();
    }
}

VariantRun ScenarioRunner::run(const ProgressFn& progress, const std::function<bool()>& cancelled)
{
    start();
    if (!ok())
        return {};
    const double d = m_scenario.durationS;
    const auto step = [&](double s) {
        if (cancelled && cancelled())
            return false;
        advanceTo(s);
        if (progress)
            progress(s / d);
        return true;
    };
    bool going = true;
    if (m_live) {
        // Every whole second of wall time, then the end.
        for (double s = 1; s < d && going; s += 1)
            going = step(s);
        going = going && step(d);
    } else {
        for (int k = 1; k <= kProgressSteps && going; ++k)
            going = step(d * k / kProgressSteps);
    }
    if (!going) {
        abandon();
        return {};
    }
    return finish();
}

VariantRun ScenarioRunner::finish()
{
    VariantRun result;
    if (!ok() || m_finished)
        return result;
    start();
    advanceTo(m_scenario.durationS);

    m_badTagUs += std::int64_t(m_notGood) * (end() - m_lastChange).count();
    m_lastChange = end();
    m_orphanCheckAll = true;
    countOrphans();
    m_orphanUs += std::int64_t(m_orphaned) * (end() - m_lastOrphanChange).count();
    m_lastOrphanChange = end();

    VariantMetrics& m = result.metrics;
    m.name = m_variant.name;
    m.levers = leverSetToJson(m_levers);
    m.subscribeRequests = m_subscribeRequests;
    m.maxOutstanding = m_maxOutstanding;
    const GatewayCounters counters = gatewayCounters();
    m.gatewayRpcs = counters.rpcs - m_baseline.rpcs;
    for (auto it = counters.byKind.begin(); it != counters.byKind.end(); ++it)
        if (const qint64 n = it.value() - m_baseline.byKind.value(it.key(), 0))
            m.gatewayRpcsByKind.insert(it.key(), n);
    m.deadlineExceeded = counters.deadlineExceeded - m_baseline.deadlineExceeded;
    // A gateway's maximum since its own start says nothing about this run unless the run
    // raised it; otherwise the largest value sampled during the run is what is known. A
    // gateway without counters has no queue to report: unknown, not 0.
    if (m_countersFromGateway) {
        m.maxStaQueueDepth = counters.maxStaQueueDepth > m_baseline.maxStaQueueDepth
                                 ? counters.maxStaQueueDepth
                                 : m_maxSampledDepth;
        if (counters.outstandingSubscribes)
            m.maxGatewayOutstandingSubscribes =
                counters.maxOutstandingSubscribes > m_baseline.maxOutstandingSubscribes
                    ? counters.maxOutstandingSubscribes
                    : m_maxSampledOutstanding;
    } else {
        // A live site's gateways are shared, so their own maxima count others' work; but
        // their queues were sampled for the series all along: the deepest one's maximum
        // there (unknown when none could be read: a real gateway has no control service).
        m.maxStaQueueDepth = deepestSampledQueue();
    }
    m.badTagSeconds = double(m_badTagUs) / 1e6;
    m.orphanedTagSeconds = double(m_orphanUs) / 1e6;
    m.connectedAfterS = m_connectedAfterS;
    // Measured from the faults that happened: a fault the gateway could not apply (a real
    // gateway has no control service) disturbed nothing.
    const double faultEnd = m_lastAppliedFaultEndS.value_or(0.0);
    m.timeToAllGoodFrom = m_lastAppliedFaultEndS ? QStringLiteral("last fault") : QStringLiteral("start");
    if (!m_lastAppliedFaultEndS && m_scenario.lastFaultEndS())
        m.notes << QStringLiteral("time_to_all_good_s is measured from the start: the gateway applied "
                                  "none of the timeline's faults");
    if (m_notGood == 0 && m_allGoodSince)
        m.timeToAllGoodS = std::max(0.0, toSeconds(*m_allGoodSince) - faultEnd);
    m.suppressedCalls = qint64(m_engine->suppressedCalls());
    m.skippedActions = m_skipped;
    if (m_live)
        m.gatewayMetricsSource =
            m_countersFromGateway ? QStringLiteral("gateway") : QStringLiteral("client");
    m_finished = true;

    m_engine->removeObserver(m_observer.get());
    closeSessions();
    endFaults();
    m.wallMs = m_wall.elapsed();
    result.series = std::move(m_series);
    return result;
}

void ScenarioRunner::abandon()
{
    if (!ok() || !m_started || m_finished)
        return;
    m_finished = true;
    m_engine->removeObserver(m_observer.get());
    closeSessions();
    endFaults();
}

void ScenarioRunner::closeSessions()
{
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

double ScenarioRunner::orphanedTagSecondsSoFar() const
{
    const std::int64_t since = (relNow() - m_lastOrphanChange).count();
    return double(m_orphanUs + std::int64_t(m_orphaned) * since) / 1e6;
}

void ScenarioRunner::checkOrphans(int instance)
{
    // Observer calls land mid-transition (a guard reports Failed before it re-arms; a
    // connection reports Connected before it re-subscribes): the check runs once the
    // current step is over, for every instance marked meanwhile.
    if (m_finished || !m_started)
        return;
    if (instance < 0)
        m_orphanCheckAll = true;
    else
        m_orphanCheckDirty.push_back(instance);
    if (m_orphanCheckPosted)
        return;
    m_orphanCheckPosted = true;
    m_scheduler->post([this, life = std::weak_ptr<int>(m_life)] {
        if (life.expired())
            return;
        m_orphanCheckPosted = false;
        countOrphans();
    });
}

void ScenarioRunner::countOrphans()
{
    if (m_finished || !m_started)
        return;
    std::vector<int> dirty;
    dirty.swap(m_orphanCheckDirty);
    const bool all = m_orphanCheckAll;
    m_orphanCheckAll = false;
    const auto& instances = m_engine->instances();
    int orphaned = m_orphaned;
    const auto one = [&](std::size_t i) {
        const Instance& in = *instances[i];
        int n = 0;
        for (std::size_t g = 0; g < in.groupCount(); ++g)
            n += in.orphanedTags(g);
        orphaned += n - m_orphans[i];
        m_orphans[i] = n;
    };
    if (all) {
        for (std::size_t i = 0; i < instances.size(); ++i)
            one(i);
    } else {
        std::sort(dirty.begin(), dirty.end());
        dirty.erase(std::unique(dirty.begin(), dirty.end()), dirty.end());
        for (int i : dirty)
            one(std::size_t(i));
    }
    if (orphaned == m_orphaned)
        return;
    const Time now = relNow();
    m_orphanUs += std::int64_t(m_orphaned) * (now - m_lastOrphanChange).count();
    m_lastOrphanChange = now;
    m_orphaned = orphaned;
    m_series.at(m_orphanedSeries).add(toSeconds(now), orphaned);
}

void ScenarioRunner::onConnectionState(const GatewayConnection& connection, ConnectionState state)
{
    if (state == ConnectionState::Connected && !m_connectedAfterS &&
        std::find(m_connected.begin(), m_connected.end(), &connection) == m_connected.end()) {
        m_connected.push_back(&connection);
        if (m_connected.size() == m_engine->connections().size())
            m_connectedAfterS = toSeconds(relNow());
    }
    checkOrphans(-1);
}

double ScenarioRunner::badTagSecondsSoFar() const
{
    const std::int64_t since = (relNow() - m_lastChange).count();
    return double(m_badTagUs + std::int64_t(m_notGood) * since) / 1e6;
}

QString ScenarioRunner::applyNow(TimelineEvent event, bool* applied)
{
    if (applied)
        *applied = false;
    if (!m_started || m_finished)
        return QStringLiteral("the run is not running");
    event.atS = elapsedS();
    const auto skippedBefore = m_skipped.size();
    const bool took = applyTimeline(event);
    if (applied)
        *applied = took;
    return m_skipped.size() > skippedBefore ? m_skipped.last() : QString();
}

bool ScenarioRunner::applyTimeline(const TimelineEvent& e)
{
    qCDebug(lcScenario) << "t =" << e.atS << "s:" << timelineActionName(e.action);
    const bool applied = applyTimelineEvent(e);
    // time_to_all_good_s counts from the faults that happened, not from skipped ones.
    if (e.isFault() && applied)
        m_lastAppliedFaultEndS =
            std::max(m_lastAppliedFaultEndS.value_or(0.0), e.endS(m_scenario.durationS));
    return applied;
}

bool ScenarioRunner::applyTimelineEvent(const TimelineEvent& e)
{
    if (auto fault = faultRequestFor(e)) {
        const auto targets = targetsOf(e);
        if (!targets) {
            skip(e, QStringLiteral("the run has no gateway \"%1\"").arg(e.gateway));
            return false;
        }
        // Each gateway on its own: one that cannot take it (no control service, gone) does
        // not keep the fault from the others; those that could not are recorded as skipped.
        QStringList failed;
        for (Gateway* g : *targets) {
            QString outcome;
            bool applied = true;
            if (e.action == TimelineAction::SourceOutage) {
                // Overlapping outages: on with the first, off when the last one ends.
                if (g->sourceOutages == 0)
                    applied = g->access->inject(*fault, &outcome);
                if (applied) {
                    ++g->sourceOutages;
                    const std::size_t index = std::size_t(g - m_gateways.data());
                    m_scheduler->callAfter(seconds(e.durationS), [this, e, index] {
                        Gateway& at = m_gateways[index];
                        QString why;
                        if (--at.sourceOutages == 0 && !at.access->inject(sourceOutageRequest(false), &why))
                            skip(e, QStringLiteral("ending it: ") + why);
                    });
                }
            } else {
                applied = g->access->inject(*fault, &outcome);
            }
            if (applied)
                g->injected = true;
            else
                failed << (m_gateways.size() > 1 ? QStringLiteral("%1: %2").arg(g->name, outcome) : outcome);
        }
        if (!failed.isEmpty())
            skip(e, failed.join(QStringLiteral("; ")));
        return std::size_t(failed.size()) < targets->size();
    }
    QString outcome;
    switch (e.action) {
    case TimelineAction::Redeploy:
        redeploy(e.instance);
        break;
    case TimelineAction::SetLevers: {
        QString error;
        // The report keeps naming the variant's own levers: that is what it is compared by.
        if (auto levers = leverSetFromJson(e.levers, &error)) {
            m_engine->applyLevers(*levers);
        } else {
            qCWarning(lcScenario) << "set_levers at" << e.atS << "s ignored:" << error;
        }
        break;
    }
    case TimelineAction::SetCapability: {
        const auto targets = targetsOf(e);
        if (!targets) {
            skip(e, QStringLiteral("the run has no gateway \"%1\"").arg(e.gateway));
            return false;
        }
        QStringList failed;
        for (Gateway* g : *targets)
            if (!g->access->setAdvertiseBulkSupervisory(e.advertiseBulkSupervisory, &outcome))
                failed << (m_gateways.size() > 1 ? QStringLiteral("%1: %2").arg(g->name, outcome) : outcome);
        if (!failed.isEmpty())
            skip(e, failed.join(QStringLiteral("; ")));
        return std::size_t(failed.size()) < targets->size();
    }
    default: // the gateway's faults, above
        break;
    }
    return true;
}

void ScenarioRunner::skip(const TimelineEvent& e, const QString& why)
{
    // `why` may carry a gateway's own error text: one escaped line.
    const QString line = QStringLiteral("%1 at %2 s skipped: %3")
                             .arg(timelineActionName(e.action), QString::number(e.atS), escapeLogText(why));
    qCWarning(lcScenario).noquote() << line;
    m_skipped << line;
}

void ScenarioRunner::deploy(int instance)
{
    m_engine->deploy(instance);
    resyncCounts();
}

void ScenarioRunner::redeploy(const QString& instance)
{
    m_engine->redeploy(instance.toStdString());
    resyncCounts(); // a fresh deployment starts every tag over, with no tag-change callback
}

void ScenarioRunner::resyncCounts()
{
    for (std::size_t i = 0; i < m_counts.size(); ++i)
        onInstanceCounts(int(i));
}

void ScenarioRunner::onInstanceCounts(int index)
{
    const Instance& instance = *m_engine->instances()[std::size_t(index)];
    const QualityCounts now = instance.deployed() ? instance.counts() : QualityCounts{};
    QualityCounts& last = m_counts[std::size_t(index)];
    if (now == last)
        return;
    const int delta = now.notGood() - last.notGood();
    last = now;
    if (delta != 0)
        setNotGood(m_notGood + delta);

    const double t = toSeconds(relNow());
    auto& groups = m_subscriptionSeries[std::size_t(index)];
    for (std::size_t g = 0; g < groups.size(); ++g) {
        // One group is the usual case: its counts are the instance's, kept incrementally.
        const QualityCounts c = groups.size() == 1 ? now : instance.counts(g);
        m_series.at(groups[g].good).add(t, c.good);
        m_series.at(groups[g].uncertain).add(t, c.uncertain);
        m_series.at(groups[g].bad).add(t, c.bad);
    }
    checkOrphans(index);
}

void ScenarioRunner::setNotGood(int notGood)
{
    const Time now = relNow();
    m_badTagUs += std::int64_t(m_notGood) * (now - m_lastChange).count();
    m_lastChange = now;
    if (notGood == 0 && m_notGood > 0)
        m_allGoodSince = now;
    else if (notGood > 0)
        m_allGoodSince.reset();
    m_notGood = notGood;
}

} // namespace stormwatch
