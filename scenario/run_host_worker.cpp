#include "scenario/run_host_worker.h"

// The worker on the run thread: builds the runner, paces it (virtual time) or steps it in
// wall time (live), applies the console's events through it, and sends the UI thread one
// batch a step — the batcher's changes and log lines, the timeline passed, the lever
// changes, each gateway's point and the series points the recorder added.

#include "client/lever_set.h"
#include "scenario/run_time.h"

#include <QDateTime>
#include <algorithm>
#include <limits>
#include <utility>

namespace stormwatch {

namespace {

// A timeline event as the event log says it ("wedge for 90 s on gateway B").
QString describeTimeline(const TimelineEvent& e)
{
    const QString what = e.describe(false);
    return e.atGateway() && !e.gateway.isEmpty()
               ? QStringLiteral("%1 on gateway %2").arg(what, e.gateway)
               : what;
}

} // namespace

RunHost::Worker::Worker(Scenario scenario, VariantSpec variant, RunnerFactory factory, bool live,
                        int maxLogLines, std::shared_ptr<Shared> shared, RunHost* owner)
    : m_scenario(std::move(scenario)), m_variant(std::move(variant)), m_factory(std::move(factory)),
      m_live(live), m_maxLogLines(maxLogLines), m_shared(std::move(shared)), m_owner(owner)
{
}

QString RunHost::Worker::create(Created* created)
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
            m_instanceOfSubject.insert(
                SeriesSubject::subscriptionSubject(
                    QString::fromStdString(instances[i]->name()),
                    QString::fromStdString(instances[i]->connection(g).name())),
                int(i));
    }
    // The batcher collects what changed (and the engine's log lines, capped per step) as an
    // observer beside the runner's metrics, in virtual and live runs alike.
    m_batcher = std::make_unique<EngineBatcher>(m_runner->engine());
    m_batcher->setMaxLogLines(m_maxLogLines);
    for (qsizetype i = 0; i < m_scenario.instances.size() && std::size_t(i) < instances.size(); ++i)
        if (instances[std::size_t(i)]->name() == m_scenario.instances[i].name.toStdString())
            m_batcher->shareTagNames(int(i), m_scenario.instances[i].tagAddresses);
    m_runner->engine().addObserver(m_batcher.get());
    m_sentLevers = m_runner->engine().levers();
    created->levers = m_sentLevers;
    return {};
}

void RunHost::Worker::inject(const TimelineEvent& event)
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
        m_pendingLogs.push_back(
            LogEntry{t, wall, int(Severity::Warning), QStringLiteral("timeline"),
                     QStringLiteral("%1 (from the console)").arg(describeTimeline(event))});
    }
    if (!skipped.isEmpty())
        m_pendingLogs.push_back(
            LogEntry{t, wall, int(Severity::Warning), QStringLiteral("timeline"), skipped});
}

void RunHost::Worker::begin()
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

void RunHost::Worker::onStopRequested()
{
    if (!m_inRunnerLoop)
        shutdown();
}

void RunHost::Worker::applyLevers(const LeverSet& levers)
{
    if (m_runner && !m_done && !m_shutDown)
        m_runner->engine().applyLevers(levers);
}

void RunHost::Worker::shutdown()
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

void RunHost::Worker::tick()
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

void RunHost::Worker::liveTick()
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
        QMetaObject::invokeMethod(
            this, [this] { liveTick(); }, Qt::QueuedConnection);
}

void RunHost::Worker::afterAdvance()
{
    const double duration = m_runner->durationS();
    const bool end = m_virtualS >= duration;
    // A slow UI skips steps (their changes wait in the batcher), never the last one.
    if (end || m_shared->batchesInFlight.load() < 2)
        sendStep(end);
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
        m_owner,
        [owner = m_owner, shared = m_shared, run] { owner->onWorkerFinished(shared.get(), run); },
        Qt::QueuedConnection);
}

double RunHost::Worker::maxChunk(double duration)
{
    // About 400 steps a run, so plots get enough points and stop stays prompt.
    return std::clamp(duration / 400.0, 0.05, 5.0);
}

void RunHost::Worker::sendStep(bool last)
{
    auto step = QSharedPointer<Step>::create();
    step->virtualS = m_virtualS;
    // The first step shows every tag and subscription; later ones what changed since. Tag
    // changes past a batch's bound wait for the next step; the last step has no next one.
    const std::size_t maxTags =
        last ? std::numeric_limits<std::size_t>::max() : EngineBatcher::kMaxTagsPerBatch;
    step->batch = m_sentFirst ? m_batcher->take(maxTags) : m_batcher->snapshot(maxTags);
    m_sentFirst = true;
    EngineBatch& b = step->batch;
    // Run time: a live scheduler's clock started before the run did.
    const double t0 = run_time::toSeconds(m_t0);
    for (SubscriptionSample& sample : b.samples)
        sample.tS -= t0;
    for (LogEntry& line : b.logs)
        line.tS -= t0;
    for (TagChange& c : b.tags)
        if (c.receivedUs >= 0)
            c.receivedUs = std::max<qint64>(0, c.receivedUs - m_t0.count());
    b.gateway.tS -= t0;

    const QDateTime wall = QDateTime::currentDateTime();
    for (LogEntry& line : m_pendingLogs)
        b.logs.push_back(std::move(line));
    m_pendingLogs.clear();
    step->markers = std::move(m_pendingMarkers);
    m_pendingMarkers.clear();
    step->timeline = std::exchange(m_pendingTimeline, {});
    while (m_nextTimeline < m_scenario.timeline.size() &&
           m_scenario.timeline[m_nextTimeline].atS < m_virtualS) {
        const TimelineEvent& e = m_scenario.timeline[m_nextTimeline++];
        step->timeline.push_back(e);
        // A set_levers is marked by the lever change it makes (below), with what changed.
        if (e.action != TimelineAction::SetLevers)
            step->markers.push_back(Marker{e.atS, markerLabel(e)});
        b.logs.push_back(LogEntry{e.atS, wall, int(Severity::Info), QStringLiteral("timeline"),
                                  describeTimeline(e)});
    }
    if (const qint64 suppressed = m_batcher->takeSuppressedLogLines(); suppressed > 0)
        b.logs.push_back(
            LogEntry{m_virtualS, wall, int(Severity::Warning), QStringLiteral("playback"),
                     QStringLiteral("%1 more engine log lines suppressed").arg(suppressed)});
    for (const ConnectionInfo& c : b.connections) {
        const QString before = m_connectionStates.value(c.name);
        if (before != c.state)
            b.logs.push_back(LogEntry{
                m_virtualS, wall,
                int(c.state == QLatin1String("connected") ? Severity::Info : Severity::Warning),
                c.name,
                c.state == QLatin1String("refused")
                    ? QStringLiteral("nothing is sent to this gateway: %1").arg(c.error)
                    : QStringLiteral("connection %1").arg(c.state)});
        // A silent gateway is what a plot of tags turning Uncertain should name.
        if (before != c.state && c.state == QLatin1String("unresponsive"))
            step->markers.push_back(
                Marker{m_virtualS, QStringLiteral("%1 unresponsive").arg(c.name)});
        m_connectionStates.insert(c.name, c.state);
    }
    // Events the gateway numbered and this client never got: a marker where it was seen (the
    // connection's own warning says which numbers).
    std::int64_t eventsLost = 0;
    for (const auto& c : m_runner->engine().connections())
        eventsLost += c->stats().eventsLost;
    if (eventsLost > m_markedEventsLost) {
        step->markers.push_back(Marker{
            m_virtualS, QStringLiteral("%1 events lost").arg(eventsLost - m_markedEventsLost)});
        m_markedEventsLost = eventsLost;
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

QVector<SeriesUpdate> RunHost::Worker::seriesSinceLastStep()
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
            const auto first =
                std::lower_bound(pts.begin(), pts.end(), sent.t,
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
} // namespace stormwatch
