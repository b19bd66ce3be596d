#include "scenario/scenario_runner.h"

#include "client/lever_set.h"
#include "client/options.h"

#include <QLoggingCategory>
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
        config.connections.push_back(ConnectionSpec{c.name.toStdString(), int(c.writeUserId)});
    for (const ScenarioInstance& i : scenario.instances)
        config.instances.push_back(InstanceSpec{i.name.toStdString(), i.connection.toStdString(),
                                                tagNamesFor(i), i.alarms});
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
        const double t = toSeconds(event.at);
        if (event.kind == GuardEventKind::Sent) {
            ++r.m_subscribeRequests;
            r.m_series.at(s.requestsSent).add(t, double(++s.sent));
        }
        r.m_maxOutstanding = std::max(r.m_maxOutstanding, event.outstanding);
        r.m_series.at(s.outstanding).add(t, event.outstanding);
        r.m_series.at(s.intervalMs).add(t, double(event.interval.count()) / 1000.0);
    }

    void onTagsChanged(const Instance&, int instance, const std::vector<int>&) override
    {
        if (instance >= 0)
            m_runner.onInstanceCounts(instance);
    }

    void onRecoveryState(RecoveryGate::State state, const std::string&) override
    {
        ScenarioRunner& r = m_runner;
        r.m_series.at(r.m_recoveryState).add(toSeconds(r.m_scheduler.now()), double(int(state)));
    }

private:
    ScenarioRunner& m_runner;
    std::unordered_map<const Instance*, int> m_index;
};

ScenarioRunner::ScenarioRunner(const Scenario& scenario, const VariantSpec& variant,
                               std::optional<quint64> seedOverride, std::size_t seriesCap)
    : m_scenario(scenario), m_variant(variant), m_seed(seedOverride.value_or(scenario.seed)),
      m_series(seriesCap)
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
    m_levers = config.levers;
    m_model = std::make_unique<gateway::GatewayModel>(m_scheduler, gatewayConfig);
    m_port = std::make_unique<InProcessGatewayPort>(
        m_scheduler, *m_model, Duration(std::llround(m_scenario.gateway.networkLatencyMs * 1000)));
    m_engine = std::make_unique<ClientEngine>(m_scheduler, *m_port, std::move(config));

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
    m_series.endS = m_scenario.durationS;

    m_observer = std::make_unique<Observer>(*this);
    m_engine->setObserver(m_observer.get());
}

ScenarioRunner::~ScenarioRunner()
{
    if (m_engine)
        m_engine->setObserver(nullptr);
    m_engine.reset(); // before the port and the model it talks through
    m_port.reset();
    m_model.reset();
}

void ScenarioRunner::start()
{
    if (!ok() || m_started)
        return;
    m_started = true;
    const Time end = seconds(m_scenario.durationS);
    m_series.at(m_recoveryState).add(0, double(int(m_engine->gate().state())));
    // Same-instant order: the timeline (the environment) first, then connections, then
    // deploys — so a fault "at 0" is in force when the first session is asked for.
    for (const TimelineEvent& event : m_scenario.timeline) {
        const Time at = seconds(event.atS);
        if (at < end)
            m_scheduler.callAt(at, [this, event] { applyTimeline(event); });
    }
    m_scheduler.callAt(Time{0}, [this] { m_engine->startConnections(); });
    for (int i = 0; i < m_scenario.instances.size(); ++i) {
        const Time at = seconds(m_scenario.instances[i].startAtS);
        if (at < end)
            m_scheduler.callAt(at, [this, i] { deploy(i); });
    }
    m_scheduler.callAt(Time{0}, [this] { sampleGateway(); });
}

void ScenarioRunner::advanceTo(double s)
{
    if (!m_started || m_finished)
        return;
    const Time end = seconds(m_scenario.durationS);
    const Time until = std::min(seconds(s), end) - Duration(1);
    if (until >= m_scheduler.now())
        m_scheduler.runUntil(until);
}

VariantRun ScenarioRunner::run(const ProgressFn& progress)
{
    start();
    if (!ok())
        return {};
    for (int k = 1; k <= kProgressSteps; ++k) {
        advanceTo(m_scenario.durationS * k / kProgressSteps);
        if (progress)
            progress(double(k) / kProgressSteps);
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
    m_finished = true;

    const Time end = seconds(m_scenario.durationS);
    m_badTagUs += std::int64_t(m_notGood) * (end - m_lastChange).count();
    m_lastChange = end;

    VariantMetrics& m = result.metrics;
    m.name = m_variant.name;
    m.levers = leverSetToJson(m_levers);
    m.subscribeRequests = m_subscribeRequests;
    m.maxOutstanding = m_maxOutstanding;
    m.gatewayRpcs = m_model->invokeRpcs();
    for (std::size_t k = 0; k < gateway::kCommandKindCount; ++k) {
        const auto kind = static_cast<gateway::CommandKind>(k);
        if (const std::int64_t n = m_model->invokeRpcs(kind))
            m.gatewayRpcsByKind.insert(
                QString::fromUtf8(gateway::commandKindName(kind).data(),
                                  qsizetype(gateway::commandKindName(kind).size())),
                n);
    }
    m.deadlineExceeded = m_model->deadlineExceeded();
    m.badTagSeconds = double(m_badTagUs) / 1e6;
    const double faultEnd = m_scenario.lastFaultEndS().value_or(0.0);
    if (m_notGood == 0 && m_allGoodSince)
        m.timeToAllGoodS = std::max(0.0, toSeconds(*m_allGoodSince) - faultEnd);
    m.maxStaQueueDepth = qint64(m_model->maxStaQueueDepth());
    m.suppressedCalls = qint64(m_engine->gate().suppressedCalls());

    m_engine->setObserver(nullptr);
    m_engine->stop();
    m.wallMs = m_wall.elapsed();
    result.series = std::move(m_series);
    return result;
}

double ScenarioRunner::badTagSecondsSoFar() const
{
    const std::int64_t since = (m_scheduler.now() - m_lastChange).count();
    return double(m_badTagUs + std::int64_t(m_notGood) * since) / 1e6;
}

void ScenarioRunner::applyTimeline(const TimelineEvent& e)
{
    qCDebug(lcScenario) << "t =" << e.atS << "s:" << timelineActionName(e.action);
    switch (e.action) {
    case TimelineAction::Wedge:
        m_model->wedge(seconds(e.durationS));
        break;
    case TimelineAction::Slow:
        m_model->slow(e.factor, seconds(e.durationS));
        break;
    case TimelineAction::DropReplies:
        m_model->dropReplies(e.probability, seconds(e.durationS));
        break;
    case TimelineAction::RestartGateway:
        m_model->restart(seconds(e.downtimeS));
        break;
    case TimelineAction::EndEventStreams:
        m_model->endEventStreams();
        break;
    case TimelineAction::SourceOutage:
        ++m_sourceOutages;
        m_model->setSourceOutage(true);
        m_scheduler.callAfter(seconds(e.durationS), [this] {
            if (--m_sourceOutages == 0)
                m_model->setSourceOutage(false);
        });
        break;
    case TimelineAction::RefuseSessions:
        m_model->refuseSessions(seconds(e.durationS));
        break;
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
    case TimelineAction::SetCapability:
        m_model->setAdvertiseBulkSupervisory(e.advertiseBulkSupervisory);
        break;
    }
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

    const double t = toSeconds(m_scheduler.now());
    auto& groups = m_subscriptionSeries[std::size_t(index)];
    for (std::size_t g = 0; g < groups.size(); ++g) {
        // One group is the usual case: its counts are the instance's, kept incrementally.
        const QualityCounts c = groups.size() == 1 ? now : instance.counts(g);
        m_series.at(groups[g].good).add(t, c.good);
        m_series.at(groups[g].uncertain).add(t, c.uncertain);
        m_series.at(groups[g].bad).add(t, c.bad);
    }
}

void ScenarioRunner::setNotGood(int notGood)
{
    const Time now = m_scheduler.now();
    m_badTagUs += std::int64_t(m_notGood) * (now - m_lastChange).count();
    m_lastChange = now;
    if (notGood == 0 && m_notGood > 0)
        m_allGoodSince = now;
    else if (notGood > 0)
        m_allGoodSince.reset();
    m_notGood = notGood;
}

void ScenarioRunner::sampleGateway()
{
    // Every virtual second: the queue as it stands, and the counters' growth over the
    // second that ends now, plotted over that second.
    const Time now = m_scheduler.now();
    const double t = toSeconds(now);
    m_series.at(m_staDepth).add(t, double(m_model->staQueueDepth()));
    const std::int64_t rpcs = m_model->invokeRpcs();
    const std::int64_t deadline = m_model->deadlineExceeded();
    if (now > Time{0}) {
        m_series.at(m_rpcsPerS).add(t - 1, double(rpcs - m_lastRpcs));
        m_series.at(m_deadlinePerS).add(t - 1, double(deadline - m_lastDeadline));
    }
    m_lastRpcs = rpcs;
    m_lastDeadline = deadline;
    m_series.at(m_suppressed).add(t, double(m_engine->gate().suppressedCalls()));
    const Time next = now + std::chrono::seconds(1);
    if (next < seconds(m_scenario.durationS))
        m_scheduler.callAt(next, [this] { sampleGateway(); });
}

QString checkVariantNames(const Scenario& scenario, const QStringList& variantNames)
{
    QStringList known;
    for (const VariantSpec& v : scenario.variants)
        known << v.name;
    QStringList unknown;
    for (const QString& name : variantNames)
        if (!known.contains(name))
            unknown << name;
    if (unknown.isEmpty())
        return {};
    return QStringLiteral("unknown variant%1 %2 in scenario \"%3\" (its variants: %4)")
        .arg(unknown.size() > 1 ? QStringLiteral("s") : QString(),
             QStringLiteral("\"") + unknown.join(QStringLiteral("\", \"")) + QStringLiteral("\""),
             scenario.name, known.join(QStringLiteral(", ")));
}

ScenarioReport runScenario(const Scenario& scenario, const QStringList& variantNames,
                           std::optional<quint64> seedOverride, const ProgressFn& progress,
                           QString* error, QList<SeriesSet>* series)
{
    ScenarioReport report;
    report.scenario = scenario.name;
    report.description = scenario.description;
    report.durationS = scenario.durationS;
    report.seed = seedOverride.value_or(scenario.seed);
    report.live = false;
    if (error)
        error->clear();
    if (const QString bad = checkVariantNames(scenario, variantNames); !bad.isEmpty()) {
        if (error)
            *error = bad;
        return report;
    }
    QList<VariantSpec> chosen;
    for (const VariantSpec& v : scenario.variants)
        if (variantNames.isEmpty() || variantNames.contains(v.name))
            chosen << v;
    // In the order asked for, when asked: the first one is the report's baseline.
    if (!variantNames.isEmpty())
        std::stable_sort(chosen.begin(), chosen.end(),
                         [&](const VariantSpec& a, const VariantSpec& b) {
                             return variantNames.indexOf(a.name) < variantNames.indexOf(b.name);
                         });
    for (int v = 0; v < chosen.size(); ++v) {
        ScenarioRunner runner(scenario, chosen[v], seedOverride);
        if (!runner.ok()) {
            if (error)
                *error = runner.error();
            report.variants.clear();
            return report;
        }
        const int n = int(chosen.size());
        VariantRun run = runner.run([&](double f) {
            if (progress)
                progress((v + f) / n);
        });
        report.variants << run.metrics;
        if (series)
            series->append(std::move(run.series));
    }
    return report;
}

} // namespace stormwatch
