#pragma once
// What the ConsoleController needs from the main window, as an interface: the window
// (MainWindow) implements it, tests use a small fake. The intents the window raises are
// signals of ConsoleIntents, a QObject the view owns (an interface cannot declare signals
// of the QMainWindow it is mixed into); the window re-emits its own signals there.

#include "client/engine_samples.h"
#include "client/lever_set.h"
#include "scenario/run_host.h"
#include "scenario/scenario.h"

#include <QDateTime>
#include <QMap>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QVector>

class QWidget;

namespace stormwatch {

class SeriesStore;

// What the transport controls show of the run on the host (RunHost): the console's live
// run, or a scenario played, running or over.
struct RunState {
    bool playback = false; // a scenario; false: the console's own live run
    bool running = false;  // steps are coming
    bool paused = false;
    bool live = false;    // wall time (the live run, or a scenario played live): no pause
    double progress = -1; // 0..1; < 0 unbounded
    double speed = -1;    // as played: 1, 10, 60, 0 = max, -1 = live over gRPC
    QString label;
    // The scenario played (bundled name or file) and its variant; "" for the live run and a
    // recording. The Scenario dock moves its selection to it. (Initialised: {playback, …,
    // label} stays a complete aggregate init.)
    QString scenario = {};
    QString variant = {};
    // The site whose live run is shown ("" otherwise), and what is on it: its gateways with
    // their addresses, its instances and tags, its description.
    QString site = {};
    QString siteSummary = {};
    bool operator==(const RunState&) const = default;
};

// What the shown run is, for export titles and the presenter caption.
struct RunCaption {
    QString scenario; // "live" for the console's own live run
    QString variant;
    QString levers;  // a preset's name, else the levers described
    QString gateway; // "in-process mock" or the address
    QDateTime start; // wall clock (UTC) when the run started
    bool virtualTime = false;
    bool operator==(const RunCaption&) const = default;
    // "incident-30min — levers-off · levers: levers-off · gateway in-process mock"
    QString text() const;
};

class ConsoleIntents : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;

signals:
    void leversChanged(const stormwatch::LeverSet& levers);
    // wedge / slow / drop_replies / restart_gateway / end_event_streams / source_outage /
    // refuse_sessions with the panel's durations (redeploy, set_levers, set_capability too).
    void faultRequested(const stormwatch::TimelineEvent& fault);
    void capabilityToggled(bool advertiseBulkSupervisory);
    void redeployRequested(const QString& instance);
    // speed: 1, 10, 60, 0 = as fast as possible (virtual time); -1 = live over gRPC.
    void playRequested(const QString& scenarioNameOrPath, const QString& variant, double speed);
    void stopRequested();
    void pauseToggled(); // pause or resume the pacing of a virtual playback
    void compareRequested(const QString& scenarioNameOrPath);
    void recordRequested(const QString& path); // record every run from now on; "" = stop
    void openRecordingRequested(const QString& path);
};

class ConsoleView {
public:
    virtual ~ConsoleView() = default;

    virtual QWidget* widget() = 0;         // parent of dialogs
    virtual ConsoleIntents* intents() = 0; // the window's intent signals
    virtual SeriesStore* store() = 0;      // owned by the view; the plots read it

    virtual void applyTagChanges(const QVector<TagChange>& changes) = 0;
    virtual void clearTags() = 0; // a playback or a fresh live run starts the table over
    // The run's clock for the tags' ages: run seconds, and the wall clock then (ms since the
    // epoch; 0 when unknown, as for a virtual run).
    virtual void setTagClock(double runS, qint64 wallMs) = 0;
    virtual void appendLog(const QVector<LogEntry>& entries) = 0;

    virtual void setConnectionInfo(const QVector<ConnectionInfo>& infos) = 0;
    virtual void setGatewaySummary(const QString& address, const QString& recoveryState) = 0;
    virtual void setFaultsAvailable(bool available, const QString& reasonWhenNot) = 0;
    // The run's gateways (RunHost::gatewayNames): with several, the fault panel chooses one.
    virtual void setFaultGateways(const QStringList& names) { Q_UNUSED(names); }
    virtual void setLevers(const LeverSet& levers) = 0; // reflect, emit nothing
    virtual void setScenarioNames(const QStringList& bundled) = 0;
    virtual void selectScenario(const QString& nameOrPath) = 0; // preselected, ready to play
    // The transport: Play, Pause/Resume, Stop (a running playback) or Back to live (a
    // playback that is over), the speed it plays at, progress and a label.
    virtual void setRunState(const RunState& state) = 0;
    virtual void setInstances(const QStringList& names) = 0;
    // The same, grouped by the connection (a site: the gateway) each subscribes through.
    virtual void setInstancesByConnection(const QMap<QString, QStringList>& byConnection) = 0;
    // A run on several gateways: each gateway and the instances (by index) subscribing
    // through it, for the plots' gateway filter; empty or one gateway: no filter.
    virtual void setRunGateways(const QMap<QString, QList<int>>& instancesByGateway)
    {
        Q_UNUSED(instancesByGateway);
    }
    virtual void showError(const QString& title, const QString& text) = 0;
    // The plots show the whole run (follow-live off): a playback that finished is seen
    // from its first second to its last, not through the follow window's last minutes.
    virtual void fitWholeRun() = 0;
    // Moments on the plots' time axis (faults, redeploys, lever changes) as the run passes
    // them; cleared when a run starts over.
    virtual void addMarkers(const QVector<RunHost::Marker>& markers) = 0;
    virtual void clearMarkers() = 0;
    virtual void setRunCaption(const RunCaption& caption) = 0;
    virtual void
    setRecordingFile(const QString& path) = 0; // the file runs are recorded to; "" = none
};

} // namespace stormwatch
