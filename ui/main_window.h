#pragma once
// The console window (ui-contract.md): plots in the middle over the window's SeriesStore,
// docks for Levers, Gateway, Scenario, Topology, Tags and Event log, a status bar with the
// session's facts. The window only shows and asks: the ConsoleController feeds it through
// the setters and acts on its signals.
//
// Habits kept from the consoles engineers already use: dock layout, geometry, theme, last
// gateway address and last lever set survive a restart (QSettings); Space plays/stops, F
// follows live, Ctrl+0/Home reset zoom, W fits the whole run, Ctrl+E / Ctrl+Shift+E export PNG /
// CSV, Ctrl+L jumps to the log filter.

#include "client/engine_samples.h"
#include "client/lever_set.h"
#include "scenario/scenario.h"
#include "ui/console_view.h"
#include "ui/plot_panel.h"
#include "ui/theme.h"

#include <QMainWindow>
#include <QMap>
#include <QPointer>

class QAction;
class QLabel;
class QSettings;

namespace stormwatch {

class AbView;
class EventLogModel;
class EventLogPanel;
class GatewayPanel;
class LeversPanel;
class PlotPanel;
class ScenarioPanel;
class SeriesStore;
class TagTableModel;
class TagsPanel;
class TopologyModel;
class TopologyPanel;
class SubscriptionsPanel;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    SeriesStore* store();
    PlotPanel* plots();
    TagTableModel* tagModel();
    EventLogModel* logModel();
    TopologyModel* topologyModel();

    // Fed by the controller.
    void setConnectionInfo(const QVector<ConnectionInfo>& infos); // status bar + topology
    void setGatewaySummary(const QString& address, const QString& recoveryState);
    void setFaultsAvailable(bool available, const QString& reasonWhenNot);
    void setLevers(const LeverSet& levers); // reflect the current set (no signal emitted)
    void setScenarioNames(const QStringList& bundled);
    void setRunState(const RunState& state);
    void setInstances(const QStringList& names);               // under the only / first connection
    void showError(const QString& title, const QString& text); // banner + event log line
    void fitWholeRun(); // the plots show the whole run (W, View › Fit whole run)
    void setRecordingFile(const QString& path); // File › Record runs reflects it ("" = off)

    // Added beyond the contract.
    void setInstancesByConnection(const QMap<QString, QStringList>& byConnection);
    void setAdvertiseBulkSupervisory(bool advertise); // reflect (no signal)
    LeverSet levers() const;
    bool loadScenario(const QString& nameOrPath); // select it in the Scenario dock
    ScenarioPanel* scenarioPanel() const { return m_scenario; }
    LeversPanel* leversPanel() const { return m_levers; }
    GatewayPanel* gatewayPanel() const { return m_gateway; }
    TopologyPanel* topologyPanel() const { return m_topology; }
    SubscriptionsPanel* subscriptionsPanel() const { return m_subscriptions; }
    TagsPanel* tagsPanel() const { return m_tags; }
    EventLogPanel* eventLogPanel() const { return m_log; }

    // Settings: QSettings(path, IniFormat) when a file is set (tests), else the user's
    // stormwatch settings. Restored on first show unless restoreSettings() ran before;
    // saved on close.
    void setSettingsFile(const QString& iniPath);
    void restoreSettings();
    void saveSettings() const;
    QString lastGatewayAddress() const; // from the settings; empty when none was seen

    void setTheme(Theme theme);
    Theme theme() const { return m_theme; }

    QString aboutText() const; // Help › About: names the version (the CMake project's)

    // The plot area with a title (the run caption and the range), at options.size (empty:
    // as shown) over the visible range or the whole run.
    bool exportPng(const QString& path, PlotPanel::ExportOptions options = {});
    // The plotted series over the visible range or the whole run; no file when there is
    // nothing recorded yet.
    bool exportCsv(const QString& path, PlotPanel::Range range = PlotPanel::Range::Visible);

    void addMarkers(const QVector<RunHost::Marker>& markers);
    void clearMarkers();
    void setRunCaption(const RunCaption& caption);
    const RunCaption& runCaption() const { return m_runCaption; }

    // Presenter mode (F5; Esc leaves): the four plots only, larger fonts and lines, and a
    // caption bar naming the run and its levers. The dock layout comes back as it was.
    void setPresenterMode(bool on);
    bool presenterMode() const { return m_presenting; }
    QLabel* presenterCaption() const { return m_caption; }

    // View › A/B side by side (Ctrl+B): the Scenario dock's scenario, its chosen variant (A)
    // against the first other one (B), in place of the plots until "Back".
    void showAb();
    void showAb(const QString& scenarioNameOrPath, const QString& a, const QString& b);
    AbView* abView() const { return m_ab; }

    // Below this width the side docks are tabbed together on the left, so the plots keep
    // most of the width (1024×700 stays usable).
    static constexpr int kCompactWidth = 1300;

signals:
    void leversChanged(const stormwatch::LeverSet& levers);
    // wedge/slow/drop_replies/restart_gateway/end_event_streams/source_outage/refuse_sessions
    // with durations from the panel; atS = 0 means "now".
    void faultRequested(const stormwatch::TimelineEvent& fault);
    void capabilityToggled(bool advertiseBulkSupervisory);
    void redeployRequested(const QString& instance);
    // speed: 1, 10, 60, 0 = max (virtual); -1 = live over gRPC
    void playRequested(const QString& scenarioNameOrPath, const QString& variant, double speed);
    void stopRequested();
    void pauseToggled(); // Space / Pause while a virtual playback runs
    void compareRequested(const QString& scenarioNameOrPath);
    void recordRequested(const QString& path); // "" = stop recording
    void openRecordingRequested(const QString& path);
    // View actions the plot panel acts on (also wired to it directly once it exists).
    void followLiveToggled(bool follow);
    void resetZoomRequested();

protected:
    void closeEvent(QCloseEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    QWidget* createPlotArea();
    void createDocks();
    void createActions();
    void createRecordingActions(); // main_window_recording.cpp
    void createMenus();
    void createStatusBar();
    QSettings* openSettings() const;
    static QString abShownPlotsKey(int side); // each A/B side's plots, in the settings
    void updateInstancesTree();
    void updateGatewayState(); // the gateway row: unreachable, or the recovery gate's state
    void logLocal(int severity, const QString& message);
    void exportPngInteractive();
    void exportCsvInteractive();
    void showAbout();
    void fitToScreenSize(); // compact dock layout below kCompactWidth
    void updateCaption();

    SeriesStore* m_store = nullptr;
    PlotPanel* m_plots = nullptr;
    QWidget* m_plotArea = nullptr;
    TagTableModel* m_tagModel = nullptr;
    EventLogModel* m_logModel = nullptr;
    TopologyModel* m_topologyModel = nullptr;

    LeversPanel* m_levers = nullptr;
    GatewayPanel* m_gateway = nullptr;
    ScenarioPanel* m_scenario = nullptr;
    TopologyPanel* m_topology = nullptr;
    SubscriptionsPanel* m_subscriptions = nullptr;
    bool m_manySubscriptions = false;
    TagsPanel* m_tags = nullptr;
    EventLogPanel* m_log = nullptr;
    QWidget* m_banner = nullptr;
    QLabel* m_bannerText = nullptr;

    QLabel* m_statusGateway = nullptr;
    QLabel* m_statusSession = nullptr;
    QLabel* m_statusCapabilities = nullptr;
    QLabel* m_statusProtocol = nullptr;
    QLabel* m_statusTimeout = nullptr;
    QLabel* m_statusRecovery = nullptr;

    QAction* m_followLive = nullptr;
    QAction* m_recordAction = nullptr;
    QAction* m_lightTheme = nullptr;
    QAction* m_darkTheme = nullptr;
    QMenu* m_viewMenu = nullptr;
    QAction* m_presenterAction = nullptr;
    QAction* m_leavePresenter = nullptr;
    QLabel* m_caption = nullptr;
    AbView* m_ab = nullptr;
    RunCaption m_runCaption;
    bool m_presenting = false;
    QByteArray m_statePresenting; // the dock layout to return to
    bool m_compact = false;       // the side docks are tabbed (narrow window)
    bool m_initialFocusSet = false;

    QString m_settingsFile;
    bool m_settingsRestored = false;
    bool m_layoutRestored = false;       // a saved dock layout was applied
    bool m_defaultLayoutApplied = false; // the first-start dock sizes were set
    Theme m_theme = Theme::Light;
    QString m_gatewayAddress;
    QString m_recoveryState = QStringLiteral("normal");
    // Set once the controller has said them: later calls with the same values change nothing.
    bool m_gatewaySummaryShown = false;
    bool m_runStateShown = false;
    bool m_unreachableBanner = false; // the banner says the gateway is unreachable
    QStringList m_instanceNames;
    QMap<QString, QStringList> m_instancesByConnection;
    QVector<ConnectionInfo> m_connections;
};

} // namespace stormwatch
