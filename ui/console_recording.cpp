// The console's recordings: File › Record runs writes the shown run and every run after it
// to one SQLite file (recording/Recorder: one more consumer of the run host's steps), and
// File › Open recording shows a recorded run read-only in the same plots, tag table, log
// and markers. Back to live (or any new run) leaves it.
#include "client/lever_set.h"
#include "models/series_store.h"
#include "recording/recording.h"
#include "recording/scenario_skeleton.h"
#include "ui/console_controller.h"
#include "ui/console_view.h"

#include <QFileInfo>

namespace stormwatch {

void ConsoleController::connectRecording()
{
    ConsoleIntents* intents = m_view->intents();
    connect(intents, &ConsoleIntents::recordRequested, this, [this](const QString& path) {
        QString error;
        if (!setRecording(path, &error))
            m_view->showError(QStringLiteral("Record runs"), error);
    });
    connect(intents, &ConsoleIntents::openRecordingRequested, this, [this](const QString& path) {
        QString error;
        if (!openRecording(path, &error))
            m_view->showError(QStringLiteral("Open recording"), error);
    });
}

bool ConsoleController::setRecording(const QString& path, QString* error)
{
    const QString current = recordingPath();
    if (path.isEmpty()) {
        m_recorder.reset(); // closes the file: its run ends "recording stopped"
        m_view->setRecordingFile({});
        if (!current.isEmpty())
            log(int(Severity::Info), QStringLiteral("recording"),
                QStringLiteral("recording stopped"));
        return true;
    }
    if (!current.isEmpty() &&
        QFileInfo(path).absoluteFilePath() == QFileInfo(current).absoluteFilePath())
        return true; // already recording there (opening it again would replace the file)
    // The new file first: a path that cannot be written leaves the recording in progress as it is.
    auto next = std::make_unique<Recorder>();
    if (!next->open(path, error)) {
        m_view->setRecordingFile(current);
        return false;
    }
    m_recorder = std::move(next); // the previous one, if any, closes
    connect(m_recorder.get(), &Recorder::failed, this, [this](const QString& why) {
        m_view->setRecordingFile({});
        m_view->showError(QStringLiteral("Recording stopped"), why);
    });
    m_recorder->attach(m_host);
    m_view->setRecordingFile(path);
    log(int(Severity::Info), QStringLiteral("recording"),
        QStringLiteral("recording to %1: the shown run from its next step, and every run after it")
            .arg(path));
    return true;
}

QString ConsoleController::recordingPath() const
{
    return m_recorder && m_recorder->isOpen() ? m_recorder->path() : QString();
}

bool ConsoleController::openRecording(const QString& path, QString* error)
{
    const auto recording = Recording::open(path, error);
    if (!recording)
        return false;
    if (recording->runs().isEmpty()) {
        if (error)
            *error = path + QStringLiteral(": the recording holds no run");
        return false;
    }
    // The last run: a console session's file ends with what was on screen last.
    const RecordedRun run = recording->runs().last();
    const auto data = recording->load(run.id, error);
    if (!data)
        return false;

    m_host->stop();
    m_showingLive = false;
    startOver();
    // The recorded run's gateways, from the scenario it ran (the file form, gateways named).
    QString sourceError;
    const auto source = scenarioOfRecordedRun(run, &sourceError);
    m_view->setRunGateways(source ? gatewaysOf(*source) : QMap<QString, QList<int>>{});
    SeriesStore* store = m_view->store();
    m_retentionBeforeRecording = store->retentionSeconds();
    store->setRetentionSeconds(0); // a recorded run is shown whole
    store->appendSeries(data->series);
    store->advanceTo(run.endS);
    QVector<TagChange> tags;
    tags.reserve(data->tags.size());
    for (const RecordedTag& tag : data->tags)
        tags << tag.state;
    m_view->applyTagChanges(tags);
    // Ages as the run ended; a live run's wall clock then, for a real gateway's timestamps.
    m_view->setTagClock(run.endS, run.live && run.startedUtc.isValid()
                                      ? run.startedUtc.toMSecsSinceEpoch() + qint64(run.endS * 1000)
                                      : 0);
    m_view->appendLog(data->logs);
    m_connections = data->connections;
    m_view->setConnectionInfo(m_connections);
    QVector<RunHost::Marker> markers;
    for (const TimelineEvent& event : data->timeline)
        markers << RunHost::Marker{event.atS, RunHost::markerLabel(event)};
    std::optional<LeverSet> before = leverSetFromJson(run.levers, nullptr);
    for (const LeverChange& change : data->leverChanges) {
        const auto after = leverSetFromJson(change.levers, nullptr);
        if (after && before)
            markers << RunHost::Marker{change.tS, RunHost::leverChangeLabel(*before, *after)};
        before = after;
    }
    m_view->addMarkers(markers);
    m_shownRecording = ShownRecording{QFileInfo(path).fileName(), run};
    for (const QString& warning : recording->warnings())
        log(int(Severity::Warning), QStringLiteral("recording"), warning);
    if (!source) // the plots still show the run, only not per gateway
        log(int(Severity::Warning), QStringLiteral("recording"),
            QStringLiteral("the run's scenario could not be read, so no Gateway filter: %1")
                .arg(sourceError));
    log(int(Severity::Info), QStringLiteral("recording"),
        QStringLiteral("showing %1, run %2 (%3 / %4, %5): read-only; Back to live leaves it")
            .arg(path)
            .arg(run.id)
            .arg(run.scenario, run.variant,
                 run.ended.isEmpty() ? QStringLiteral("never closed") : run.ended));
    refresh();
    m_view->fitWholeRun();
    return true;
}

void ConsoleController::refreshRecording()
{
    const RecordedRun& run = m_shownRecording->run;
    for (ConnectionInfo& c : m_connections) {
        c.state = QStringLiteral("stopped"); // as it was, but nothing of it is live now
        c.sessionId.clear();
        c.retryInS = -1;
    }
    m_view->setConnectionInfo(m_connections);
    const auto levers = leverSetFromJson(run.levers, nullptr);
    if (levers)
        m_view->setLevers(*levers);
    m_view->setInstances({});
    m_view->setGatewaySummary(run.gateway, m_recoveryState);
    m_view->setFaultsAvailable(false,
                               QStringLiteral("a recording is shown (Back to live ends it)"));
    RunState state;
    state.playback = true;
    state.running = false;
    state.live = run.live;
    state.progress = 1.0;
    state.speed = run.live ? -1.0 : 0.0;
    state.label = QStringLiteral("recording %1: %2 / %3, %4 s (%5)")
                      .arg(m_shownRecording->file, run.scenario, run.variant,
                           QString::number(run.endS, 'f', 0),
                           run.ended.isEmpty() ? QStringLiteral("never closed") : run.ended);
    m_view->setRunState(state);
    RunCaption caption;
    caption.scenario = run.scenario;
    caption.variant = run.variant;
    if (levers) {
        const auto preset = presetNameOf(*levers);
        caption.levers = preset ? *preset : describeLevers(*levers);
    }
    caption.gateway = run.gateway;
    caption.start = run.startedUtc;
    caption.virtualTime = !run.live;
    m_view->setRunCaption(caption);
}

} // namespace stormwatch
