#pragma once
// Wires the console window to the one run host (scenario/run_host.h): the console's own
// live run — an open-ended scenario of the demo's connections and instances — against an
// embedded mock gateway or an external one, a scenario played in virtual time or live, and
// the compare view. The view is an interface (console_view.h): MainWindow implements it.
//
// One run is shown at a time, and every panel describes it: levers, speed, instances,
// topology, status bar, fault controls and plots are read from the host whenever its state
// changes. Playing a scenario ends the live run (its session closes) and starts the views
// over; Stop ends a playback; once it is over, the same button (Back to live) starts the
// live run again. Faults, redeploys, lever and capability changes from the panels are
// timeline events at "now", applied by the host's runner through its GatewayAccess.

#include "client/engine_samples.h"
#include "client/grpc_port_options.h"
#include "client/lever_set.h"
#include "recording/recorder.h"
#include "recording/recording.h"
#include "scenario/scenario.h"
#include "scenario/scenario_runner.h"

#include <QDateTime>
#include <QMap>
#include <QObject>
#include <QPointer>
#include <QSharedPointer>
#include <map>
#include <optional>

namespace stormwatch {

class CompareView;
class ConsoleView;
class RunHost;

class ConsoleController : public QObject {
    Q_OBJECT
public:
    explicit ConsoleController(ConsoleView* view, QObject* parent = nullptr);
    ~ConsoleController() override;

    // The lever set the live run starts with (default: the "all" preset).
    void setInitialLevers(const LeverSet& levers) { m_levers = levers; }
    // The scenario whose connections and instances the live run uses and which is
    // preselected for playback: a bundled name or a file ("" = the default demo scenario).
    // False with *error when it does not load.
    bool setDemoScenario(const QString& nameOrPath, QString* error);

    // The live run against a mock gateway embedded for it (127.0.0.1, a free port).
    bool startEmbedded(QString* error);
    // The live run against an external gateway: an mxgw-mock (faults, capability and the
    // gateway's own counters through its MockGatewayControl) or a real gateway (fault
    // controls disabled with the reason).
    bool startExternal(const GrpcPortOptions& port, QString* error);
    // The live run on a site: `shape` (siteScenario) for its connections and instances, and
    // each connection reaching its own gateway (sitePortOptions). Before startEmbedded().
    void setSite(const Scenario& shape, std::map<std::string, GrpcPortOptions> gateways)
    {
        m_site = shape;
        m_siteGateways = std::move(gateways);
    }
    // Records the shown run (from its next step) and every run after it to `path` ("" stops
    // recording); false with *error when the file cannot be written (console_recording.cpp).
    bool setRecording(const QString& path, QString* error);
    QString recordingPath() const; // "" when not recording
    // Shows the last run of a recording read-only (plots, tags, log, markers); the shown run
    // ends. Back to live, or any new run, leaves it. False with *error for a bad file.
    bool openRecording(const QString& path, QString* error);
    // The demo scenario listed, selected and ready to play.
    void loadDemoScenario();

    // A scenario played live over gRPC: against a mock embedded for the run or, when the
    // console is on an external gateway, that gateway.
    // nameOrPath: how it was asked for (bundled name or file), for the Scenario dock; ""
    // = the scenario's name. False (the error shown) when it cannot start.
    bool playLive(const Scenario& scenario, const QString& variant, const QString& nameOrPath = {});

    bool external() const { return m_externalPort.has_value(); }
    // True while the host shows a scenario (running or over), false for the live run.
    bool showingPlayback() const { return !m_showingLive; }
    const Scenario& demoScenario() const { return m_demo; }
    QString demoScenarioName() const { return m_demoName; } // bundled name or path
    QString gatewayAddress() const;
    RunHost* host() const { return m_host; }
    CompareView* compareView() const;

public slots:
    void applyLevers(const stormwatch::LeverSet& levers);
    void injectFault(const stormwatch::TimelineEvent& fault);
    void setAdvertiseBulkSupervisory(bool advertise);
    void redeploy(const QString& instance);
    void play(const QString& scenarioNameOrPath, const QString& variant, double speed);
    void stop();
    void togglePause();
    void compare(const QString& scenarioNameOrPath);

signals:
    void playbackFinished(QSharedPointer<stormwatch::VariantRun> run);

private:
    bool startLiveRun(QString* error);
    void connectHost();
    void connectRecording();
    void startOver();        // a new run on the host: the views start empty
    void refresh();          // every panel, from the host's state
    void refreshRecording(); // every panel, from the recording shown
    void log(int severity, const QString& subject, const QString& message);
    void onPlaybackFinished(const QSharedPointer<VariantRun>& run);
    std::optional<Scenario> loadScenarioOrSay(const QString& nameOrPath);
    QString siteSummary() const; // the Scenario dock's text while a site is shown
    QString runLabel(double t) const;
    // The run's gateways and the instances (by index) on each, when it has several: the
    // plots' gateway filter.
    QMap<QString, QList<int>> runGateways() const;
    // A scenario's named gateways and the instances on each (empty with fewer than two).
    static QMap<QString, QList<int>> gatewaysOf(const Scenario& run);

    ConsoleView* m_view;
    RunHost* m_host;
    LeverSet m_levers; // the live run's; the "all" preset by default
    Scenario m_demo;
    QString m_demoName; // as given: bundled name or path
    QString m_played;   // the scenario played last, as asked for (bundled name or path)
    std::optional<GrpcPortOptions> m_externalPort;
    std::optional<Scenario> m_site; // the live run's shape when on a site
    std::map<std::string, GrpcPortOptions> m_siteGateways;
    // A recording shown read-only: its file name and run (refresh() describes it).
    struct ShownRecording {
        QString file;
        RecordedRun run;
    };
    std::optional<ShownRecording> m_shownRecording;
    std::optional<double> m_retentionBeforeRecording; // the plots' retention, restored by startOver
    std::unique_ptr<Recorder> m_recorder;             // set while File › Record runs is on
    bool m_showingLive = false;
    QDateTime m_runStart;   // when the shown run started (wall clock, UTC): exports' time column
    bool m_started = false; // startEmbedded/startExternal succeeded once
    QString m_recoveryState;
    QVector<ConnectionInfo> m_connections; // the shown run's, as last reported
    QPointer<CompareView> m_compare;
};

} // namespace stormwatch
