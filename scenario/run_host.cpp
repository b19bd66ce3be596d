#include "scenario/run_host.h"

#include "client/lever_set.h"

#include "client/engine_batcher.h"
#include "client/scheduler.h"

#include <QElapsedTimer>
#include <QHash>
#include <QLoggingCategory>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <limits>
#include <optional>

namespace stormwatch {

Q_LOGGING_CATEGORY(lcRunHost, "stormwatch.scenario.run")

namespace {

QString speedLabel(double speed)
{
    return speed <= 0 ? QStringLiteral("max speed") : QStringLiteral("%1×").arg(speed);
}

QString describeAction(const TimelineEvent& e);

QString describeTimeline(const TimelineEvent& e)
{
    const QString what = describeAction(e);
    return e.atGateway() && !e.gateway.isEmpty() ? QStringLiteral("%1 on gateway %2").arg(what, e.gateway) : what;
}

QString describeAction(const TimelineEvent& e)
{
    const QString name = timelineActionName(e.action);
    switch (e.action) {
    case TimelineAction::Wedge:
    case TimelineAction::RefuseSessions:
    case TimelineAction::SourceOutage: return QStringLiteral("%1 for %2 s").arg(name).arg(e.durationS);
    case TimelineAction::Slow: return QStringLiteral("slow ×%1 for %2 s").arg(e.factor).arg(e.durationS);
    case TimelineAction::DropReplies:
        return QStringLiteral("drop_replies p=%1 for %2 s").arg(e.probability).arg(e.durationS);
    case TimelineAction::RestartGateway: return QStringLiteral("restart_gateway, down %1 s").arg(e.downtimeS);
    case TimelineAction::KillGateway: return QStringLiteral("kill_gateway, down %1 s").arg(e.downtimeS);
    case TimelineAction::Redeploy: return QStringLiteral("redeploy %1").arg(e.instance);
    case TimelineAction::SetCapability:
        return QStringLiteral("set_capability bulk-subscribe-supervisory %1")
            .arg(e.advertiseBulkSupervisory ? "on" : "off");
    case TimelineAction::SetLevers:
    case TimelineAction::EndEventStreams: break;
    }
    return name;
}

QString shortSeconds(double s)
{
    return QString::number(s, 'g', 6) + QStringLiteral(" s");
}

double seconds(Time t)
{
    return double(t.count()) / 1e6;
}

} // namespace

QString RunHost::markerLabel(const TimelineEvent& e)
{
    const QString what = actionLabel(e);
    // A fault aimed at one gateway says which ("wedge 90 s @B").
    return e.atGateway() && !e.gateway.isEmpty() ? QStringLiteral("%1 @%2").arg(what, e.gateway) : what;
}

QString RunHost::actionLabel(const TimelineEvent& e)
{
    switch (e.action) {
    case TimelineAction::Wedge: return QStringLiteral("wedge %1").arg(shortSeconds(e.durationS));
    case TimelineAction::Slow:
        return QStringLiteral("slow ×%1 %2").arg(e.factor).arg(shortSeconds(e.durationS));
    case TimelineAction::DropReplies:
        return QStringLiteral("drop %1 % %2").arg(e.probability * 100).arg(shortSeconds(e.durationS));
    case TimelineAction::SourceOutage: return QStringLiteral("outage %1").arg(shortSeconds(e.durationS));
    case TimelineAction::RefuseSessions: return QStringLiteral("refuse %1").arg(shortSeconds(e.durationS));
    case TimelineAction::RestartGateway: return QStringLiteral("restart (down %1)").arg(shortSeconds(e.downtimeS));
    case TimelineAction::KillGateway: return QStringLiteral("kill (down %1)").arg(shortSeconds(e.downtimeS));
    case TimelineAction::Redeploy: return QStringLiteral("redeploy %1").arg(e.instance);
    case TimelineAction::SetCapability:
        return QStringLiteral("bulk-supervisory %1").arg(e.advertiseBulkSupervisory ? "on" : "off");
    case TimelineAction::SetLevers:
        if (e.levers.isString())
            return QStringLiteral("%1 on").arg(e.levers.toString());
        // An inline set starts from levers-off: what it turns on is what it says.
        if (const auto set = leverSetFromJson(e.levers, nullptr))
            if (const auto off = leverPreset(QStringLiteral("levers-off"), nullptr))
                if (const QString label = leverChangeLabel(*off, *set); !label.isEmpty())
                    return label;
        return QStringLiteral("levers changed");
    case TimelineAction::EndEventStreams: break;
    }
    return timelineActionName(e.action);
}

QString RunHost::leverChangeLabel(const LeverSet& before, const LeverSet& after)
{
    if (before == after)
        return {};
    if (const auto preset = presetNameOf(after))
        return *preset == QLatin1String("levers-off") ? QStringLiteral("levers off")
                                                      : QStringLiteral("%1 on").arg(*preset);
    const QStringList was = describeLevers(before).split(QStringLiteral(", "));
    const QStringList now = describeLevers(after).split(QStringLiteral(", "));
    QStringList changed;
    for (const QString& part : now)
        if (!was.contains(part))
            changed << part;
    // Two at most: a marker's label stays short; the event log has the whole set.
    if (changed.size() > 2)
        return changed.mid(0, 2).join(QStringLiteral(", ")) + QStringLiteral(", …");
    return changed.isEmpty() ? QStringLiteral("levers changed") : changed.join(QStringLiteral(", "));
}

QVector<RunHost::Marker> RunHost::timelineMarkers(const Scenario& scenario)
{
    QVector<Marker> markers;
    for (const TimelineEvent& e : scenario.timeline)
        if (e.atS <= scenario.durationS)
            markers.push_back(Marker{e.atS, markerLabel(e)});
    return markers;
}

struct RunHost::Step {
    QVector<Marker> markers;
    EngineBatch batch;
    QVector<SeriesUpdate> series;
    GatewayPoint gateway;
    QVector<GatewayPoint> gateways; // one per gateway, when the run has several
    double virtualS = 0;
    std::optional<LeverSet> levers; // when the engine's levers changed since the last step
    QVector<TimelineEvent> timeline; // passed since the last step
};

// Lives on the playback thread; builds, runs and destroys the runner there.
class RunHost::Worker : public QObject {
public:
    Worker(Scenario scenario, VariantSpec variant, RunnerFactory factory, bool live, int maxLogLines,
           std::shared_ptr<Shared> shared, RunHost* owner)
        : m_scenario(std::move(scenario)), m_variant(std::move(variant)),
          m_factory(std::move(factory)), m_live(live), m_maxLogLines(maxLogLines),
          m_shared(std::move(shared)), m_owner(owner)
    {
    }

    // Builds the runner (blocking the caller: a live one starts its gateway here). "" when
    // it is ready, else what is wrong; *levers: the variant's.
    struct Created {
        LeverSet levers;
        QString gatewayAddress;
        QString faultsUnavailable;
        QStringList instances;
        QStringList gateways;
    };

    QString create(Created* created)
    {
        m_runner = m_factory(m_scenario, m_variant);
        if (!m_runner->ok())
            return m_runner->error();
        created->gatewayAddress = m_runner->gatewayDescription();
        created->faultsUnavailable = m_runner->faultsUnavailableReason();
        for (const QString& g : m_runner->gatewayNames())
            if (!g.isEmpty())
                created->gateways << g;
        const auto& instances = m_runner->engine().instances();
        for (std::size_t i = 0; i < instances.size(); ++i) {
            created->instances << QString::fromStdString(instances[i]->name());
            for (std::size_t g = 0; g < instances[i]->groupCount(); ++g)
                m_instanceOfSubject.insert(QString::fromStdString(instances[i]->name() + "/" +
                                                                  instances[i]->connection(g).name()),
                                           int(i));
        }
        // The same batcher as the live client's worker: it collects what changed (and the
        // engine's log lines, capped per step) as an observer beside the runner's metrics.
        m_batcher = std::make_unique<EngineBatcher>(m_runner->engine());
        m_batcher->setMaxLogLines(m_maxLogLines);
        m_runner->engine().addObserver(m_batcher.get());
        m_sentLevers = m_runner->engine().levers();
        created->levers = m_sentLevers;
        return {};
    }

    // The console's fault panel: a timeline event at "now", through the runner.
    void inject(const TimelineEvent& event)
    {
        if (!m_runner || m_done || m_shutDown)
            return;
        bool applied = false;
        const QString skipped = m_runner->applyNow(event, &applied);
        const QDateTime wall = QDateTime::currentDateTime();
        const double t = m_runner->elapsedS();
        // Applied somewhere (on a site, some gateways may not have taken it): it happened,
        // so it is marked and recorded; where it was skipped is said beside it.
        if (applied && event.action != TimelineAction::SetLevers)
            m_pendingMarkers.push_back(Marker{t, markerLabel(event)});
        if (applied) {
            TimelineEvent at = event;
            at.atS = t;
            m_pendingTimeline.push_back(at);
            m_pendingLogs.push_back(LogEntry{t, wall, int(Severity::Warning), QStringLiteral("timeline"),
                                             QStringLiteral("%1 (from the console)").arg(describeTimeline(event))});
        }
        if (!skipped.isEmpty())
            m_pendingLogs.push_back(
                LogEntry{t, wall, int(Severity::Warning), QStringLiteral("timeline"), skipped});
    }

    void begin()
    {
        if (m_shutDown || !m_runner || !m_runner->ok())
            return;
        m_runner->start();
        m_t0 = m_runner->scheduler().now();
        if (m_live) {
            liveTick();
            return;
        }
        m_timer = new QTimer(this);
        connect(m_timer, &QTimer::timeout, this, [this] { tick(); });
        m_timer->start(interval());
        tick();
    }

    // The owner wants the thread to end. Inside a live step (this call then comes from the
    // runner's event loop) the step sees the stop flag when it returns, within kStepMs.
    void onStopRequested()
    {
        if (!m_inRunnerLoop)
            shutdown();
    }

    void applyLevers(const LeverSet& levers)
    {
        if (m_runner && !m_done && !m_shutDown)
            m_runner->engine().applyLevers(levers);
    }

private:
    // The timer and the runner go where they lived, then the thread ends.
    void shutdown()
    {
        if (m_shutDown)
            return;
        m_shutDown = true;
        m_done = true;
        delete m_timer;
        m_timer = nullptr;
        if (m_runner && m_batcher)
            m_runner->engine().removeObserver(m_batcher.get());
        if (m_runner)
            m_runner->abandon(); // a stopped run leaves no session behind
        m_batcher.reset();
        m_runner.reset();
        ThreadHost::quitCurrentThread();
    }

    // Max speed ticks every millisecond: about 400 steps a run, so even a short run shows
    // its course, and waiting for the UI to catch up does not spin.
    int interval() const { return m_shared->speed.load() > 0 ? kStepMs : 1; }

    void tick()
    {
        if (m_done || m_shared->stop) // stopping: onStopRequested() is queued behind
            return;
        const double speed = m_shared->speed.load();
        if (m_shared->paused || speed != m_pacedSpeed) {
            m_pacingValid = false; // re-anchor the pacing on resume or a new speed
            m_pacedSpeed = speed;
            if (m_timer->interval() != interval())
                m_timer->setInterval(interval());
            if (m_shared->paused)
                return;
        }
        // As fast as possible means as fast as the UI takes the steps: every step is shown.
        if (speed <= 0 && m_shared->batchesInFlight.load() >= 2)
            return;
        if (!m_pacingValid) {
            m_anchorVirtualS = m_virtualS;
            m_wall.restart();
            m_pacingValid = true;
        }
        const double duration = m_runner->durationS();
        double target = speed > 0 ? m_anchorVirtualS + speed * double(m_wall.elapsed()) / 1000.0
                                  : m_virtualS + maxChunk(duration);
        target = std::min(target, duration);
        if (target > m_virtualS) {
            m_runner->advanceTo(target);
            m_virtualS = target;
        }
        afterAdvance();
    }

    // Live: no pacing and no pause — the runner's own event loop waits out each step of
    // wall time, and the next step is queued behind whatever that loop left pending.
    void liveTick()
    {
        if (m_done)
            return;
        if (m_shared->stop)
            return shutdown();
        const double target = std::min(m_runner->durationS(), m_runner->elapsedS() + kStepMs / 1000.0);
        m_inRunnerLoop = true;
        m_runner->advanceTo(target);
        m_inRunnerLoop = false;
        if (m_shared->stop)
            return shutdown();
        m_virtualS = std::max(m_virtualS, target);
        afterAdvance();
        if (m_shared->stop)
            return shutdown();
        if (!m_done)
            QMetaObject::invokeMethod(this, [this] { liveTick(); }, Qt::QueuedConnection);
    }

    void afterAdvance()
    {
        const double duration = m_runner->durationS();
        const bool end = m_virtualS >= duration;
        // A slow UI skips steps (their changes wait in the batcher), never the last one.
        if (end || m_shared->batchesInFlight.load() < 2)
            sendStep();
        if (!end)
            return;
        m_done = true;
        if (m_timer)
            m_timer->stop();
        m_runner->engine().removeObserver(m_batcher.get()); // finish() stops the engine: not news
        m_inRunnerLoop = true; // live, finish() may run the event loop a last time
        auto run = QSharedPointer<VariantRun>::create(m_runner->finish());
        m_inRunnerLoop = false;
        QMetaObject::invokeMethod(
            m_owner, [owner = m_owner, shared = m_shared, run] { owner->onWorkerFinished(shared.get(), run); },
            Qt::QueuedConnection);
    }

    static double maxChunk(double duration)
    {
        // About 400 steps a run, so plots get enough points and stop stays prompt.
        return std::clamp(duration / 400.0, 0.05, 5.0);
    }

    void sendStep()
    {
        auto step = QSharedPointer<Step>::create();
        step->virtualS = m_virtualS;
        // The first step shows every tag and subscription; later ones what changed since.
        step->batch = m_sentFirst ? m_batcher->take() : m_batcher->snapshot();
        m_sentFirst = true;
        EngineBatch& b = step->batch;
        // Run time: a live scheduler's clock started before the run did.
        const double t0 = seconds(m_t0);
        for (SubscriptionSample& sample : b.samples)
            sample.tS -= t0;
        for (LogEntry& line : b.logs)
            line.tS -= t0;
        b.gateway.tS -= t0;

        const QDateTime wall = QDateTime::currentDateTime();
        for (LogEntry& line : m_pendingLogs)
            b.logs.push_back(std::move(line));
        m_pendingLogs.clear();
        step->markers = std::move(m_pendingMarkers);
        m_pendingMarkers.clear();
        step->timeline = std::exchange(m_pendingTimeline, {});
        while (m_nextTimeline < m_scenario.timeline.size() && m_scenario.timeline[m_nextTimeline].atS < m_virtualS) {
            const TimelineEvent& e = m_scenario.timeline[m_nextTimeline++];
            step->timeline.push_back(e);
            // A set_levers is marked by the lever change it makes (below), with what changed.
            if (e.action != TimelineAction::SetLevers)
                step->markers.push_back(Marker{e.atS, markerLabel(e)});
            b.logs.push_back(LogEntry{e.atS, wall, int(Severity::Info), QStringLiteral("timeline"),
                                      describeTimeline(e)});
        }
        if (const qint64 suppressed = m_batcher->takeSuppressedLogLines(); suppressed > 0)
            b.logs.push_back(LogEntry{m_virtualS, wall, int(Severity::Warning), QStringLiteral("playback"),
                                      QStringLiteral("%1 more engine log lines suppressed").arg(suppressed)});
        for (const ConnectionInfo& c : b.connections) {
            const QString before = m_connectionStates.value(c.name);
            if (before != c.state)
                b.logs.push_back(LogEntry{m_virtualS, wall,
                                          int(c.state == QLatin1String("connected") ? Severity::Info
                                                                                    : Severity::Warning),
                                          c.name, QStringLiteral("connection %1").arg(c.state)});
            m_connectionStates.insert(c.name, c.state);
        }
        if (const LeverSet& levers = m_runner->engine().levers(); !(levers == m_sentLevers)) {
            step->markers.push_back(Marker{m_virtualS, leverChangeLabel(m_sentLevers, levers)});
            m_sentLevers = levers;
            step->levers = levers;
        }

        step->gateway = GatewayPoint::fromSample(b.gateway); // the client's view: recovery state
        if (const auto gateways = m_runner->gatewaysNow(); gateways.size() > 1)
            for (const ScenarioRunner::GatewayNow& g : gateways) {
                GatewayPoint p;
                p.gateway = g.name;
                p.tS = step->gateway.tS;
                if (g.staQueueDepth)
                    p.staQueueDepth = double(*g.staQueueDepth);
                p.invokesTotal = g.invokes;
                p.deadlineExceededTotal = g.deadlineExceeded;
                p.suppressedTotal = g.suppressed;
                p.recoveryState = g.recoveryState;
                step->gateways.push_back(p);
            }
        step->series = seriesSinceLastStep();

        ++m_shared->batchesInFlight;
        QMetaObject::invokeMethod(
            m_owner, [owner = m_owner, shared = m_shared, step] { owner->onStep(shared.get(), step); },
            Qt::QueuedConnection);
    }

    // What the run's recorder added to each series since the last step. A point the
    // recorder took back (a change undone at the same instant) is restated at its time with
    // the value in force, so the receiver's step series collapses it the same way.
    QVector<SeriesUpdate> seriesSinceLastStep()
    {
        QVector<SeriesUpdate> updates;
        const SeriesSet& set = m_runner->series();
        if (m_sent.size() < set.size())
            m_sent.resize(set.size());
        for (std::size_t i = 0; i < set.size(); ++i) {
            const Series& s = set.at(i);
            const auto& pts = s.points();
            if (pts.empty())
                continue;
            Sent& sent = m_sent[i];
            SeriesUpdate u;
            if (!sent.any || pts.back().tS > sent.t) {
                // New points: from the last one sent (restated: it may have changed) on.
                const auto first = std::lower_bound(pts.begin(), pts.end(), sent.t,
                                                    [](const SeriesPoint& p, double t) { return p.tS < t; });
                for (auto p = first; p != pts.end(); ++p)
                    u.points.append(QPointF(p->tS, p->value));
                sent = Sent{true, pts.back().tS, pts.back().value};
            } else if (pts.back().value != sent.value) {
                // Changed at the instant last sent, or that point was taken back.
                u.points.append(QPointF(sent.t, pts.back().value));
                sent.value = pts.back().value;
            } else {
                continue;
            }
            u.metric = s.metric();
            const SeriesSubject subject = SeriesSubject::of(s.subject());
            u.label = subject.label;
            if (!subject.isGateway()) {
                u.instance = m_instanceOfSubject.value(s.subject(), -1);
                if (u.instance < 0)
                    continue;
            }
            updates.push_back(std::move(u));
        }
        return updates;
    }

    Scenario m_scenario;
    VariantSpec m_variant;
    RunnerFactory m_factory;
    const bool m_live;
    const int m_maxLogLines;
    std::shared_ptr<Shared> m_shared;
    RunHost* m_owner;
    std::unique_ptr<ScenarioRunner> m_runner;
    std::unique_ptr<EngineBatcher> m_batcher; // an observer of the runner's engine
    bool m_sentFirst = false;
    Time m_t0{0};
    QTimer* m_timer = nullptr; // virtual time only
    QElapsedTimer m_wall;
    double m_virtualS = 0;
    double m_anchorVirtualS = 0;
    double m_pacedSpeed = -1;
    bool m_pacingValid = false;
    bool m_inRunnerLoop = false;
    bool m_done = false;
    bool m_shutDown = false;
    qsizetype m_nextTimeline = 0;
    QHash<QString, QString> m_connectionStates;
    LeverSet m_sentLevers;
    QVector<LogEntry> m_pendingLogs; // injected events, said with the next step
    QVector<TimelineEvent> m_pendingTimeline; // injected events applied, with the next step
    QVector<Marker> m_pendingMarkers;
    QHash<QString, int> m_instanceOfSubject; // series subject "inst/conn" -> instance index
    struct Sent { // per series: the last point sent
        bool any = false;
        double t = -std::numeric_limits<double>::infinity();
        double value = 0;
    };
    std::vector<Sent> m_sent;
};

SeriesLimits RunHost::seriesLimitsFor(const Scenario& scenario)
{
    return scenario.durationS >= kOpenEndedS ? SeriesLimits::window(kOpenEndedSeriesWindowS) : SeriesLimits();
}

Scenario RunHost::openEndedLive(const Scenario& scenario, const LeverSet& levers)
{
    Scenario live = scenario;
    live.name = QStringLiteral("live");
    live.description = QStringLiteral("the console's live run");
    live.durationS = kOpenEndedS;
    live.timeline.clear();
    live.variants = {VariantSpec{QStringLiteral("live"), leverSetToJson(levers)}};
    for (ScenarioInstance& i : live.instances)
        i.startAtS = 0;
    return live;
}

RunHost::RunHost(QObject* parent) : QObject(parent)
{
    qRegisterMetaType<GatewayPoint>();
    qRegisterMetaType<QVector<SeriesUpdate>>();
    qRegisterMetaType<QSharedPointer<VariantRun>>();
}

RunHost::~RunHost()
{
    joinWorker();
}

bool RunHost::start(const Scenario& scenario, const QString& variant, double speed,
                             QString* error)
{
    return launch(scenario, variant, false, speed,
                  [limits = m_seriesLimits.value_or(seriesLimitsFor(scenario))](const Scenario& s, const VariantSpec& v) {
                      return std::make_unique<ScenarioRunner>(s, v, std::nullopt, limits);
                  },
                  error);
}

bool RunHost::startLive(const Scenario& scenario, const QString& variant,
                                 const LiveOptions& live, QString* error)
{
    LiveOptions options = live;
    options.progress = nullptr; // the steps report progress
    return launch(scenario, variant, true, 1.0,
                  [options, limits = m_seriesLimits.value_or(seriesLimitsFor(scenario))](const Scenario& s,
                                                                                         const VariantSpec& v) {
                      return std::make_unique<ScenarioRunner>(s, v, options, std::nullopt, limits);
                  },
                  error);
}

bool RunHost::launch(const Scenario& scenario, const QString& variant, bool live,
                              double speed, RunnerFactory makeRunner, QString* error)
{
    stop();
    const VariantSpec* spec = nullptr;
    for (const VariantSpec& v : scenario.variants)
        if (variant.isEmpty() ? !spec : v.name == variant)
            spec = &v;
    if (!spec) {
        QStringList names;
        for (const VariantSpec& v : scenario.variants)
            names << v.name;
        if (error)
            *error = QStringLiteral("scenario \"%1\" has no variant \"%2\" (variants: %3)")
                         .arg(scenario.name, variant, names.join(QStringLiteral(", ")));
        return false;
    }
    // Cheap checks here, so a bad variant does not start a gateway.
    QString configError;
    engineConfigFor(scenario, *spec, scenario.seed, &configError);
    if (!configError.isEmpty()) {
        if (error)
            *error = configError;
        return false;
    }

    m_shared = std::make_shared<Shared>();
    m_shared->speed = std::max(0.0, speed);
    m_thread.start(std::make_unique<Worker>(scenario, *spec, std::move(makeRunner), live, m_maxLogLines, m_shared, this));
    Worker* worker = m_thread.workerAs<Worker>();
    QString createError;
    Worker::Created created;
    // Blocking, but only while the runner is built (a live one starts its gateway here).
    m_thread.call([worker, &createError, &created] { createError = worker->create(&created); });
    if (!createError.isEmpty()) {
        joinWorker();
        if (error)
            *error = createError;
        return false;
    }
    m_live = live;
    m_levers = created.levers;
    m_gatewayAddress = created.gatewayAddress;
    m_faultsUnavailable = created.faultsUnavailable;
    m_instanceNames = created.instances;
    m_gatewayNames = created.gateways;
    m_state = State::Running;
    m_scenarioName = scenario.name;
    m_scenario = scenario;
    m_variantName = spec->name;
    m_durationS = scenario.durationS;
    m_virtualS = 0;
    m_thread.post([worker] { worker->begin(); });
    const QString how = live ? QStringLiteral("live over gRPC (%1 s of wall time)").arg(m_durationS)
                             : QStringLiteral("in virtual time at %1").arg(speedLabel(speed));
    emit logEntries({LogEntry{0, QDateTime::currentDateTime(), int(Severity::Info), QStringLiteral("playback"),
                              openEnded() ? QStringLiteral("live run on %1 (levers: %2)")
                                                .arg(m_gatewayAddress, describeLevers(m_levers))
                                          : QStringLiteral("playing %1 / %2 %3 (levers: %4)")
                                                .arg(m_scenarioName, m_variantName, how, describeLevers(m_levers))}});
    emit stateChanged();
    return true;
}

void RunHost::stop()
{
    if (!m_thread.running())
        return;
    joinWorker();
    m_state = State::Stopped;
    emit stopped();
    emit stateChanged();
}

void RunHost::inject(const TimelineEvent& event)
{
    if (!m_thread.running())
        return;
    m_thread.post([worker = m_thread.workerAs<Worker>(), event] { worker->inject(event); });
}

void RunHost::joinWorker()
{
    if (!m_thread.running())
        return;
    m_shared->stop = true;
    // Not a blocking call: in a live step it would run inside the runner's event loop.
    m_thread.joinWhen([worker = m_thread.workerAs<Worker>()] { worker->onStopRequested(); });
}

void RunHost::setPaused(bool paused)
{
    // Live, time goes on at the gateway and in the timeline: holding the steps would only
    // hide it, so a live run is not paused.
    if (m_shared && !m_live && m_thread.running() && m_shared->paused != paused) {
        m_shared->paused = paused;
        emit stateChanged();
    }
}

void RunHost::setSpeed(double speed)
{
    if (m_shared && !m_live && m_shared->speed != std::max(0.0, speed)) {
        m_shared->speed = std::max(0.0, speed);
        emit stateChanged();
    }
}

void RunHost::applyLevers(const LeverSet& levers)
{
    if (!m_thread.running())
        return;
    m_thread.post([worker = m_thread.workerAs<Worker>(), levers] { worker->applyLevers(levers); });
}

void RunHost::onStep(Shared* run, const QSharedPointer<Step>& step)
{
    --run->batchesInFlight;
    if (!m_thread.running() || run != m_shared.get() || run->stop)
        return; // queued before a stop: that run is over for the listeners
    m_virtualS = step->virtualS;
    const EngineBatch& b = step->batch;
    if (!b.logs.isEmpty())
        emit logEntries(b.logs);
    if (b.connectionsChanged)
        emit connectionInfo(b.connections);
    if (!b.samples.isEmpty())
        emit subscriptionSamples(b.samples);
    if (!b.tags.isEmpty())
        emit tagChanges(b.tags);
    if (!step->series.isEmpty())
        emit seriesUpdates(step->series);
    if (!step->timeline.isEmpty())
        emit timelinePassed(step->timeline);
    emit gatewayPoint(step->gateway);
    for (const GatewayPoint& p : step->gateways)
        emit gatewayPoint(p);
    if (!step->markers.isEmpty())
        emit markersAdded(step->markers);
    if (step->levers) {
        m_levers = *step->levers;
        emit leversChanged(m_levers);
    }
    emit progress(m_virtualS, m_durationS);
}

void RunHost::onWorkerFinished(Shared* which, const QSharedPointer<VariantRun>& run)
{
    if (!m_thread.running() || which != m_shared.get() || which->stop)
        return;
    joinWorker();
    m_state = State::Finished;
    emit finished(run);
    emit stateChanged();
}

} // namespace stormwatch
