#include "ui/scenario_playback.h"

#include "client/engine_batcher.h"

#include <QElapsedTimer>
#include <QHash>
#include <QLoggingCategory>
#include <QThread>
#include <QTimer>

#include <algorithm>

namespace stormwatch {

Q_LOGGING_CATEGORY(lcPlayback, "stormwatch.ui.playback")

namespace {

QString speedLabel(double speed)
{
    return speed <= 0 ? QStringLiteral("max speed") : QStringLiteral("%1×").arg(speed);
}

QString describeTimeline(const TimelineEvent& e)
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
    case TimelineAction::Redeploy: return QStringLiteral("redeploy %1").arg(e.instance);
    case TimelineAction::SetCapability:
        return QStringLiteral("set_capability bulk-subscribe-supervisory %1")
            .arg(e.advertiseBulkSupervisory ? "on" : "off");
    case TimelineAction::SetLevers:
    case TimelineAction::EndEventStreams: break;
    }
    return name;
}

bool sameConnections(const QVector<ConnectionInfo>& a, const QVector<ConnectionInfo>& b)
{
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const ConnectionInfo& x, const ConnectionInfo& y) {
        return x.name == y.name && x.state == y.state && x.address == y.address && x.sessionId == y.sessionId
               && x.capabilities == y.capabilities && x.protocolVersion == y.protocolVersion
               && x.echoedCommandTimeoutS == y.echoedCommandTimeoutS
               && x.supportsSupervisoryBulk == y.supportsSupervisoryBulk;
    });
}

// What makes a tag row worth sending again.
struct TagFingerprint {
    double value = 0;
    int quality = -1;
    qint64 sourceTimestampUs = 0;
    int itemHandle = 0;
    QString text;
    QString error;
    bool operator==(const TagFingerprint&) const = default;
};

} // namespace

struct ScenarioPlayback::Step {
    EngineBatch batch;
    GatewayPoint gateway;
    double virtualS = 0;
};

// Lives on the playback thread; owns the runner from start() on.
class ScenarioPlayback::Worker : public QObject {
public:
    Worker(std::unique_ptr<ScenarioRunner> runner, QList<TimelineEvent> timeline,
           std::shared_ptr<Shared> shared, ScenarioPlayback* owner)
        : m_runner(std::move(runner)), m_timeline(std::move(timeline)), m_shared(std::move(shared)),
          m_owner(owner), m_batcher(m_runner->engine())
    {
    }

    // On the playback thread, before it ends: the timer and the runner go where they lived.
    void shutdown()
    {
        delete m_timer;
        m_timer = nullptr;
        m_done = true;
        m_runner.reset();
    }

    void begin()
    {
        m_runner->start();
        m_timer = new QTimer(this);
        connect(m_timer, &QTimer::timeout, this, [this] { tick(); });
        m_timer->start(interval());
        tick();
    }

private:
    // Max speed ticks every millisecond: about 400 steps a run, so even a short run shows
    // its course, and waiting for the UI to catch up does not spin.
    int interval() const { return m_shared->speed.load() > 0 ? kStepMs : 1; }

    void tick()
    {
        if (m_done || m_shared->stop)
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
        const bool end = m_virtualS >= duration;
        // Paced, a slow UI skips batches (each is the full state anyway), never the last one.
        if (end || m_shared->batchesInFlight.load() < 2)
            sendStep();
        if (end) {
            m_done = true;
            m_timer->stop();
            auto run = QSharedPointer<VariantRun>::create(m_runner->finish());
            QMetaObject::invokeMethod(
                m_owner, [owner = m_owner, shared = m_shared, run] { owner->onWorkerFinished(shared.get(), run); },
            Qt::QueuedConnection);
        }
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
        step->batch = m_batcher.snapshot();
        EngineBatch& b = step->batch;

        QVector<TagChange> changed;
        for (TagChange& t : b.tags) {
            const qint64 key = (qint64(t.instance) << 32) | quint32(t.tag);
            TagFingerprint fp{t.value, t.quality, t.sourceTimestampUs, t.itemHandle, t.text, t.error};
            auto it = m_sentTags.find(key);
            if (it != m_sentTags.end() && *it == fp)
                continue;
            m_sentTags.insert(key, fp);
            changed.push_back(std::move(t));
        }
        b.tags = std::move(changed);

        const QDateTime wall = QDateTime::currentDateTime();
        while (m_nextTimeline < m_timeline.size() && m_timeline[m_nextTimeline].atS < m_virtualS) {
            const TimelineEvent& e = m_timeline[m_nextTimeline++];
            b.logs.push_back(LogEntry{e.atS, wall, int(Severity::Info), QStringLiteral("timeline"),
                                      describeTimeline(e)});
        }
        for (const ConnectionInfo& c : b.connections) {
            const QString before = m_connectionStates.value(c.name);
            if (before != c.state)
                b.logs.push_back(LogEntry{m_virtualS, wall,
                                          int(c.state == QLatin1String("connected") ? Severity::Info
                                                                                    : Severity::Warning),
                                          c.name, QStringLiteral("connection %1").arg(c.state)});
            m_connectionStates.insert(c.name, c.state);
        }
        b.connectionsChanged = !sameConnections(b.connections, m_sentConnections);
        if (b.connectionsChanged)
            m_sentConnections = b.connections;

        gateway::GatewayModel& model = m_runner->model();
        const GatewaySample& g = b.gateway;
        step->gateway.tS = g.tS;
        step->gateway.staQueueDepth = double(model.staQueueDepth());
        step->gateway.invokesTotal = model.invokeRpcs();
        step->gateway.deadlineExceededTotal = model.deadlineExceeded();
        step->gateway.suppressedTotal = g.suppressedCalls;
        step->gateway.recoveryState = GatewayPoint::recoveryStateCode(g.recoveryState);

        ++m_shared->batchesInFlight;
        QMetaObject::invokeMethod(
            m_owner, [owner = m_owner, shared = m_shared, step] { owner->onStep(shared.get(), step); },
            Qt::QueuedConnection);
    }

    std::unique_ptr<ScenarioRunner> m_runner;
    QList<TimelineEvent> m_timeline;
    std::shared_ptr<Shared> m_shared;
    ScenarioPlayback* m_owner;
    EngineBatcher m_batcher; // not the engine's observer: used to build snapshots only
    QTimer* m_timer = nullptr;
    QElapsedTimer m_wall;
    double m_virtualS = 0;
    double m_anchorVirtualS = 0;
    double m_pacedSpeed = -1;
    bool m_pacingValid = false;
    bool m_done = false;
    qsizetype m_nextTimeline = 0;
    QHash<qint64, TagFingerprint> m_sentTags;
    QHash<QString, QString> m_connectionStates;
    QVector<ConnectionInfo> m_sentConnections;
};

ScenarioPlayback::ScenarioPlayback(QObject* parent) : QObject(parent)
{
    qRegisterMetaType<GatewayPoint>();
    qRegisterMetaType<QSharedPointer<VariantRun>>();
}

ScenarioPlayback::~ScenarioPlayback()
{
    joinWorker();
}

bool ScenarioPlayback::start(const Scenario& scenario, const QString& variant, double speed,
                            QString* error)
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
    auto runner = std::make_unique<ScenarioRunner>(scenario, *spec);
    if (!runner->ok()) {
        if (error)
            *error = runner->error();
        return false;
    }
    m_scenarioName = scenario.name;
    m_variantName = spec->name;
    m_durationS = scenario.durationS;
    m_virtualS = 0;
    m_shared = std::make_shared<Shared>();
    m_shared->speed = std::max(0.0, speed);

    const QVector<LogEntry> opening{LogEntry{
        0, QDateTime::currentDateTime(), int(Severity::Info), QStringLiteral("playback"),
        QStringLiteral("playing %1 / %2 in virtual time at %3 (levers: %4)")
            .arg(m_scenarioName, m_variantName, speedLabel(speed),
                 describeLevers(runner->engine().levers()))}};

    m_thread = new QThread;
    m_thread->setObjectName(QStringLiteral("stormwatch-playback"));
    m_worker = new Worker(std::move(runner), scenario.timeline, m_shared, this);
    m_worker->moveToThread(m_thread);
    connect(m_thread, &QThread::started, m_worker, [worker = m_worker] { worker->begin(); });
    m_thread->start();
    emit logEntries(opening);
    return true;
}

void ScenarioPlayback::stop()
{
    if (!m_thread)
        return;
    joinWorker();
    emit stopped();
}

void ScenarioPlayback::joinWorker()
{
    if (!m_thread)
        return;
    m_shared->stop = true;
    QMetaObject::invokeMethod(m_worker, [worker = m_worker] { worker->shutdown(); }, Qt::BlockingQueuedConnection);
    m_thread->quit();
    m_thread->wait();
    delete m_worker;
    delete m_thread;
    m_worker = nullptr;
    m_thread = nullptr;
}

void ScenarioPlayback::setPaused(bool paused)
{
    if (m_shared)
        m_shared->paused = paused;
}

void ScenarioPlayback::setSpeed(double speed)
{
    if (m_shared)
        m_shared->speed = std::max(0.0, speed);
}

void ScenarioPlayback::onStep(Shared* run, const QSharedPointer<Step>& step)
{
    --run->batchesInFlight;
    if (!m_thread || run != m_shared.get() || run->stop)
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
    emit gatewayPoint(step->gateway);
    emit progress(m_virtualS, m_durationS);
}

void ScenarioPlayback::onWorkerFinished(Shared* which, const QSharedPointer<VariantRun>& run)
{
    if (!m_thread || which != m_shared.get() || which->stop)
        return;
    joinWorker();
    emit finished(run);
}

} // namespace stormwatch
