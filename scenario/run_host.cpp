#include "scenario/run_host.h"

// The run host on its owner's (the UI) thread: starting a run on the worker (run_host_worker),
// stopping, pausing and steering it, re-emitting each step's batch as signals, and the words
// and markers the console shows for a run's timeline.

#include "client/lever_set.h"
#include "scenario/process_memory.h"
#include "scenario/run_host_worker.h"

#include <QDateTime>
#include <algorithm>

namespace stormwatch {

namespace {

QString speedLabel(double speed)
{
    return speed <= 0 ? QStringLiteral("max speed") : QStringLiteral("%1×").arg(speed);
}

} // namespace

QString RunHost::markerLabel(const TimelineEvent& e)
{
    const QString what = actionLabel(e);
    // A fault aimed at one gateway says which ("wedge 90 s @B").
    return e.atGateway() && !e.gateway.isEmpty() ? QStringLiteral("%1 @%2").arg(what, e.gateway)
                                                 : what;
}

QString RunHost::actionLabel(const TimelineEvent& e)
{
    if (e.action == TimelineAction::SetLevers) {
        if (e.levers.isString())
            return QStringLiteral("%1 on").arg(e.levers.toString());
        // An inline set starts from levers-off: what it turns on is what it says.
        if (const auto set = leverSetFromJson(e.levers, nullptr))
            if (const auto off = leverPreset(QStringLiteral("levers-off"), nullptr))
                if (const QString label = leverChangeLabel(*off, *set); !label.isEmpty())
                    return label;
        return QStringLiteral("levers changed");
    }
    return e.describe(true);
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
    return changed.isEmpty() ? QStringLiteral("levers changed")
                             : changed.join(QStringLiteral(", "));
}

QVector<RunHost::Marker> RunHost::timelineMarkers(const Scenario& scenario)
{
    QVector<Marker> markers;
    for (const TimelineEvent& e : scenario.timeline)
        if (e.atS <= scenario.durationS)
            markers.push_back(Marker{e.atS, markerLabel(e)});
    return markers;
}

SeriesLimits RunHost::seriesLimitsFor(const Scenario& scenario)
{
    return scenario.durationS >= kOpenEndedS ? SeriesLimits::window(kOpenEndedSeriesWindowS)
                                             : SeriesLimits();
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
    qRegisterMetaType<QVector<ConnectionCounters>>();
    qRegisterMetaType<QVector<SeriesUpdate>>();
    qRegisterMetaType<QSharedPointer<VariantRun>>();
    m_returnMemory.setSingleShot(true);
    m_returnMemory.setInterval(kReturnMemoryAfterMs);
    // On the run's thread while there is one: walking every heap takes 15-20 ms at a site's
    // scale, a pause the engine absorbs and the window would show.
    connect(&m_returnMemory, &QTimer::timeout, this, [this] {
        if (m_thread.running())
            m_thread.post([] { returnFreedMemory(); });
        else
            returnFreedMemory();
        ++m_memoryReturns;
    });
}

RunHost::~RunHost()
{
    joinWorker();
}

bool RunHost::start(const Scenario& scenario, const QString& variant, double speed, QString* error)
{
    return launch(
        scenario, variant, false, speed,
        [limits = m_seriesLimits.value_or(seriesLimitsFor(scenario))](const Scenario& s,
                                                                      const VariantSpec& v) {
            return std::make_unique<ScenarioRunner>(s, v, std::nullopt, limits);
        },
        error);
}

bool RunHost::startLive(const Scenario& scenario, const QString& variant, const LiveOptions& live,
                        QString* error)
{
    LiveOptions options = live;
    options.progress = nullptr; // the steps report progress
    return launch(
        scenario, variant, true, 1.0,
        [options, limits = m_seriesLimits.value_or(seriesLimitsFor(scenario))](
            const Scenario& s, const VariantSpec& v) {
            return std::make_unique<ScenarioRunner>(s, v, options, std::nullopt, limits);
        },
        error);
}

bool RunHost::launch(const Scenario& scenario, const QString& variant, bool live, double speed,
                     RunnerFactory makeRunner, QString* error)
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
    m_thread.start(std::make_unique<Worker>(scenario, *spec, std::move(makeRunner), live,
                                            m_maxLogLines, m_shared, this));
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
    emit logEntries({LogEntry{
        0, QDateTime::currentDateTime(), int(Severity::Info), QStringLiteral("playback"),
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
    if (!b.counters.isEmpty())
        emit connectionCounters(b.counters);
    if (!b.tags.isEmpty())
        emit tagChanges(b.tags);
    if (b.tags.size() >= kBurstTags && !m_returnMemory.isActive())
        m_returnMemory.start(); // the batch itself is freed when this step is
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
