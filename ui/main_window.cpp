#include "ui/main_window.h"

#include "models/event_log_model.h"
#include "models/series_store.h"
#include "models/tag_table_model.h"
#include "models/topology_model.h"
#include "ui/ab_view.h"
#include "ui/event_log_panel.h"
#include "ui/gateway_panel.h"
#include "ui/levers_panel.h"
#include "ui/plot_panel.h"
#include "ui/scenario_panel.h"
#include "ui/subscriptions_panel.h"
#include "ui/tags_panel.h"
#include "ui/topology_panel.h"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAbstractScrollArea>
#include <QAbstractSpinBox>
#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDateTime>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QSettings>
#include <QSlider>
#include <QStatusBar>
#include <QTextEdit>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <cmath>
#include <memory>

namespace stormwatch {

namespace {

constexpr int kStateVersion = 2; // bump when the dock set changes: old layouts are ignored

const char* kGeometryKey = "window/geometry";
const char* kStateKey = "window/state";
const char* kThemeKey = "window/theme";
const char* kAddressKey = "gateway/address";
const char* kLeversKey = "levers/last";
const char* kRetentionKey = "plots/retentionMinutes";
const char* kAggregateKey = "plots/aggregateAbove";
const char* kShownPlotsKey = "plots/shown";

} // namespace

QString MainWindow::abShownPlotsKey(int side)
{
    return side == 0 ? QStringLiteral("ab/shownA") : QStringLiteral("ab/shownB");
}

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent)
{
    setObjectName(QStringLiteral("MainWindow"));
    setWindowTitle(QStringLiteral("stormwatch"));
    setWindowIcon(appIcon());
    setDockNestingEnabled(true);

    m_store = new SeriesStore(this);
    m_tagModel = new TagTableModel(this);
    m_logModel = new EventLogModel(this);
    m_topologyModel = new TopologyModel(this);

    // Errors show as a dismissable banner above the plots: a modal box would stop a live run's
    // screen from updating while the engineer reads it.
    m_banner = new QWidget;
    m_banner->setObjectName(QStringLiteral("errorBannerRow"));
    m_bannerText = new QLabel;
    m_bannerText->setObjectName(QStringLiteral("errorBanner"));
    m_bannerText->setWordWrap(true);
    m_bannerText->setTextFormat(Qt::RichText);
    auto* dismiss = new QToolButton;
    dismiss->setText(QStringLiteral("✕"));
    dismiss->setToolTip(tr("Dismiss"));
    dismiss->setAutoRaise(true);
    connect(dismiss, &QToolButton::clicked, m_banner, &QWidget::hide);
    auto* bannerRow = new QHBoxLayout(m_banner);
    bannerRow->setContentsMargins(4, 4, 4, 0);
    bannerRow->addWidget(m_bannerText, 1);
    bannerRow->addWidget(dismiss, 0, Qt::AlignTop);
    m_banner->hide();

    m_plotArea = createPlotArea();
    auto* central = new QWidget;
    auto* centralColumn = new QVBoxLayout(central);
    centralColumn->setContentsMargins(0, 0, 0, 0);
    centralColumn->setSpacing(0);
    // Presenter mode's caption: what is shown and with which levers, in a large font.
    m_caption = new QLabel;
    m_caption->setObjectName(QStringLiteral("presenterCaption"));
    m_caption->setWordWrap(true);
    m_caption->setMargin(8);
    m_caption->hide();
    centralColumn->addWidget(m_caption);
    centralColumn->addWidget(m_banner);
    centralColumn->addWidget(m_plotArea, 1);
    setCentralWidget(central);

    createDocks();
    createActions();
    createMenus();
    createStatusBar();
    resize(1500, 950);
    setAcceptDrops(true); // a scenario file dropped on the window opens in the Scenario dock
    // Space is play / pause everywhere but in a text field; a value control changes under
    // the wheel only once a person has focused it (see eventFilter).
    qApp->installEventFilter(this);
}

MainWindow::~MainWindow() = default;

bool MainWindow::eventFilter(QObject* watched, QEvent* event)
{
    auto* widget = qobject_cast<QWidget*>(watched);
    if (!widget)
        return QMainWindow::eventFilter(watched, event);
    // The window's dialogs (export choices, compare view) get the wheel rule too; Space is
    // the window's own (a dialog's focused button takes it).
    bool ourDialog = false;
    for (QWidget* top = widget->window(); top && top != this && !ourDialog;)
        if (QWidget* parent = top->parentWidget())
            ourDialog = (top = parent->window()) == this;
        else
            top = nullptr;
    if (widget->window() != this && !(ourDialog && event->type() == QEvent::Wheel))
        return QMainWindow::eventFilter(watched, event);
    if (event->type() == QEvent::Wheel) {
        // A lever, a fault duration or a plot setting must not change because a person
        // scrolled the dock over it: an unfocused combo, spin box or slider passes the wheel
        // to the scroll area it sits in (scroll bars are not value controls: they scroll).
        QWidget* control = widget;
        while (control && !qobject_cast<QComboBox*>(control) &&
               !qobject_cast<QAbstractSpinBox*>(control) && !qobject_cast<QSlider*>(control))
            control =
                control->parentWidget() && !control->isWindow() ? control->parentWidget() : nullptr;
        if (control && !control->hasFocus()) {
            for (QWidget* up = control->parentWidget(); up; up = up->parentWidget())
                if (auto* area = qobject_cast<QAbstractScrollArea*>(up)) {
                    QCoreApplication::sendEvent(area->viewport(), event);
                    break;
                }
            return true;
        }
    }
    if (event->type() == QEvent::ShortcutOverride) {
        // Space is play / pause for everything but text entry: a focused button, check box
        // or combo does not take it (a fault button clicked once never fires twice).
        const auto* key = static_cast<QKeyEvent*>(event);
        if (key->key() == Qt::Key_Space && key->modifiers() == Qt::NoModifier &&
            !qobject_cast<QLineEdit*>(widget) && !qobject_cast<QAbstractSpinBox*>(widget) &&
            !qobject_cast<QTextEdit*>(widget) && !qobject_cast<QPlainTextEdit*>(widget)) {
            event->ignore();
            return true;
        }
    }
    return QMainWindow::eventFilter(watched, event);
}

QWidget* MainWindow::createPlotArea()
{
    m_plots = new PlotPanel(m_store);
    m_plots->setObjectName(QStringLiteral("plotArea"));
    connect(this, &MainWindow::followLiveToggled, m_plots, &PlotPanel::setFollowLive);
    connect(this, &MainWindow::resetZoomRequested, m_plots, &PlotPanel::resetZoom);
    // The menu's Follow live shows what the plots do (a zoom, a pan or Fit whole run ends it).
    connect(m_plots, &PlotPanel::followLiveChanged, this, [this](bool follow) {
        if (m_followLive && m_followLive->isChecked() != follow) {
            const QSignalBlocker block(m_followLive);
            m_followLive->setChecked(follow);
        }
    });
    connect(m_plots, &PlotPanel::retentionMinutesChanged, m_store,
            [this](int minutes) { m_store->setRetentionSeconds(minutes * 60.0); });
    connect(m_plots, &PlotPanel::gatewayFilterChanged, this, [this] { updateCaption(); });
    return m_plots;
}

SeriesStore* MainWindow::store()
{
    return m_store;
}
PlotPanel* MainWindow::plots()
{
    return m_plots;
}
TagTableModel* MainWindow::tagModel()
{
    return m_tagModel;
}
EventLogModel* MainWindow::logModel()
{
    return m_logModel;
}
TopologyModel* MainWindow::topologyModel()
{
    return m_topologyModel;
}

void MainWindow::createDocks()
{
    m_levers = new LeversPanel;
    m_gateway = new GatewayPanel;
    m_scenario = new ScenarioPanel;
    m_topology = new TopologyPanel(m_topologyModel);
    m_subscriptions = new SubscriptionsPanel(m_store, m_plots);
    m_tags = new TagsPanel(m_tagModel);
    m_log = new EventLogPanel(m_logModel);

    auto dock = [this](const QString& title, const QString& name, QWidget* content) {
        auto* d = new QDockWidget(title, this);
        d->setObjectName(name); // saveState() keys docks by object name
        d->setWidget(content);
        return d;
    };
    QDockWidget* scenario = dock(tr("Scenario"), QStringLiteral("dockScenario"), m_scenario);
    QDockWidget* levers = dock(tr("Levers"), QStringLiteral("dockLevers"), m_levers);
    QDockWidget* gateway = dock(tr("Gateway"), QStringLiteral("dockGateway"), m_gateway);
    QDockWidget* topology = dock(tr("Topology"), QStringLiteral("dockTopology"), m_topology);
    QDockWidget* subscriptions =
        dock(tr("Subscriptions"), QStringLiteral("dockSubscriptions"), m_subscriptions);
    QDockWidget* tags = dock(tr("Tags"), QStringLiteral("dockTags"), m_tags);
    QDockWidget* log = dock(tr("Event log"), QStringLiteral("dockLog"), m_log);

    // Left: what to run and how the client behaves; right: the gateway and what is attached;
    // bottom, across the whole width: the data and the log side by side, wide enough for
    // the log's message column.
    setCorner(Qt::TopLeftCorner, Qt::LeftDockWidgetArea);
    setCorner(Qt::BottomLeftCorner, Qt::BottomDockWidgetArea);
    setCorner(Qt::TopRightCorner, Qt::RightDockWidgetArea);
    setCorner(Qt::BottomRightCorner, Qt::BottomDockWidgetArea);
    addDockWidget(Qt::LeftDockWidgetArea, scenario);
    splitDockWidget(scenario, levers, Qt::Vertical);
    addDockWidget(Qt::RightDockWidgetArea, gateway);
    splitDockWidget(gateway, topology, Qt::Vertical);
    tabifyDockWidget(topology, subscriptions);
    topology->raise();
    addDockWidget(Qt::BottomDockWidgetArea, tags);
    splitDockWidget(tags, log, Qt::Horizontal);
    resizeDocks({scenario, levers}, {260, 600}, Qt::Vertical);
    resizeDocks({gateway, topology}, {330, 500}, Qt::Vertical);
    resizeDocks({scenario, gateway}, {340, 380}, Qt::Horizontal);
    resizeDocks({tags}, {260}, Qt::Vertical);
    resizeDocks({tags, log}, {620, 880}, Qt::Horizontal);

    connect(m_levers, &LeversPanel::leversChanged, this, &MainWindow::leversChanged);
    connect(m_gateway, &GatewayPanel::faultRequested, this, &MainWindow::faultRequested);
    connect(m_gateway, &GatewayPanel::capabilityToggled, this, &MainWindow::capabilityToggled);
    connect(m_topology, &TopologyPanel::redeployRequested, this, &MainWindow::redeployRequested);
    // Past the in-plot legend's few entries the list is where subscriptions are named: it
    // comes to the front when a run grows past them (not again while it stays there).
    connect(m_store, &SeriesStore::subscriptionsChanged, this, [this, subscriptions] {
        const bool many = m_store->subscriptions().size() > PlotPanel::kMaxLegendEntries;
        if (many && !m_manySubscriptions)
            subscriptions->raise();
        m_manySubscriptions = many;
    });
    connect(m_scenario, &ScenarioPanel::playRequested, this, &MainWindow::playRequested);
    connect(m_scenario, &ScenarioPanel::stopRequested, this, &MainWindow::stopRequested);
    connect(m_scenario, &ScenarioPanel::pauseToggled, this, &MainWindow::pauseToggled);
    connect(m_scenario, &ScenarioPanel::compareRequested, this, &MainWindow::compareRequested);
}

void MainWindow::createActions()
{
    auto action = [this](const QString& name, const QString& text,
                         const QList<QKeySequence>& keys) {
        auto* a = new QAction(text, this);
        a->setObjectName(name);
        a->setShortcuts(keys);
        addAction(a); // shortcuts work with the menu bar hidden too
        return a;
    };
    QAction* open =
        action(QStringLiteral("actionOpenScenario"), tr("&Open scenario…"), {QKeySequence::Open});
    connect(open, &QAction::triggered, m_scenario, &ScenarioPanel::openFile);
    QAction* png = action(QStringLiteral("actionExportPng"), tr("Export plots as &PNG…"),
                          {QKeySequence(Qt::CTRL | Qt::Key_E)});
    connect(png, &QAction::triggered, this, &MainWindow::exportPngInteractive);
    QAction* csv = action(QStringLiteral("actionExportCsv"), tr("Export series as &CSV…"),
                          {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E)});
    connect(csv, &QAction::triggered, this, &MainWindow::exportCsvInteractive);
    createRecordingActions();
    QAction* quit = action(QStringLiteral("actionQuit"), tr("&Quit"), {QKeySequence::Quit});
    connect(quit, &QAction::triggered, this, &QWidget::close);

    QAction* play = action(QStringLiteral("actionPlayPause"), tr("&Play / pause"),
                           {QKeySequence(Qt::Key_Space)});
    connect(play, &QAction::triggered, m_scenario, &ScenarioPanel::togglePlay);
    m_followLive =
        action(QStringLiteral("actionFollowLive"), tr("&Follow live"), {QKeySequence(Qt::Key_F)});
    m_followLive->setCheckable(true);
    m_followLive->setChecked(true);
    connect(m_followLive, &QAction::toggled, this, &MainWindow::followLiveToggled);
    QAction* reset = action(QStringLiteral("actionResetZoom"), tr("&Reset zoom"),
                            {QKeySequence(Qt::CTRL | Qt::Key_0), QKeySequence(Qt::Key_Home)});
    connect(reset, &QAction::triggered, this, &MainWindow::resetZoomRequested);
    // W (whole): Ctrl+Shift+0 is ')' on many layouts, and F is Follow live.
    QAction* fit = action(QStringLiteral("actionFitWholeRun"), tr("Fit &whole run"),
                          {QKeySequence(Qt::Key_W)});
    fit->setToolTip(tr("Show the whole run, from its first second to its last (W)"));
    connect(fit, &QAction::triggered, this, &MainWindow::fitWholeRun);
    QAction* focusLog = action(QStringLiteral("actionFocusLogFilter"), tr("Filter the &log"),
                               {QKeySequence(Qt::CTRL | Qt::Key_L)});
    connect(focusLog, &QAction::triggered, this, [this] {
        if (auto* d = findChild<QDockWidget*>(QStringLiteral("dockLog"))) {
            d->show();
            d->raise();
        }
        m_log->filterEdit()->setFocus(Qt::ShortcutFocusReason);
        m_log->filterEdit()->selectAll();
    });

    // F5, as in presentation software; Esc leaves (only while presenting: Esc elsewhere
    // stays with dialogs and editors).
    m_presenterAction = action(QStringLiteral("actionPresenterMode"), tr("&Presenter mode"),
                               {QKeySequence(Qt::Key_F5)});
    m_presenterAction->setCheckable(true);
    m_presenterAction->setToolTip(tr("The four plots only, larger, with a caption naming the run "
                                     "and its levers (F5; Esc leaves)"));
    connect(m_presenterAction, &QAction::toggled, this, &MainWindow::setPresenterMode);
    QAction* leave = m_leavePresenter =
        action(QStringLiteral("actionLeavePresenter"), tr("Leave presenter mode"),
               {QKeySequence(Qt::Key_Escape)});
    leave->setEnabled(false); // Esc is the dialogs' and editors' until presenting
    connect(leave, &QAction::triggered, this, [this] { setPresenterMode(false); });

    QAction* ab = action(QStringLiteral("actionAbSideBySide"), tr("&A/B side by side"),
                         {QKeySequence(Qt::CTRL | Qt::Key_B)});
    ab->setToolTip(tr("Two variants of the scenario side by side on one time axis (Ctrl+B)"));
    connect(ab, &QAction::triggered, this, qOverload<>(&MainWindow::showAb));

    auto* themes = new QActionGroup(this);
    m_lightTheme = new QAction(tr("&Light theme"), themes);
    m_lightTheme->setObjectName(QStringLiteral("actionLightTheme"));
    m_darkTheme = new QAction(tr("&Dark theme"), themes);
    m_darkTheme->setObjectName(QStringLiteral("actionDarkTheme"));
    for (QAction* a : {m_lightTheme, m_darkTheme})
        a->setCheckable(true);
    m_lightTheme->setChecked(true);
    connect(m_lightTheme, &QAction::triggered, this, [this] { setTheme(Theme::Light); });
    connect(m_darkTheme, &QAction::triggered, this, [this] { setTheme(Theme::Dark); });
}

void MainWindow::createMenus()
{
    auto find = [this](const char* name) { return findChild<QAction*>(QLatin1String(name)); };
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(find("actionOpenScenario"));
    file->addAction(find("actionOpenRecording"));
    file->addAction(find("actionRecord"));
    file->addSeparator();
    file->addAction(find("actionExportPng"));
    file->addAction(find("actionExportCsv"));
    file->addSeparator();
    file->addAction(find("actionQuit"));

    m_viewMenu = menuBar()->addMenu(tr("&View"));
    m_viewMenu->addAction(find("actionPlayPause"));
    m_viewMenu->addAction(m_followLive);
    m_viewMenu->addAction(find("actionResetZoom"));
    m_viewMenu->addAction(find("actionFitWholeRun"));
    m_viewMenu->addAction(find("actionFocusLogFilter"));
    m_viewMenu->addAction(m_presenterAction);
    m_viewMenu->addAction(find("actionAbSideBySide"));
    m_viewMenu->addMenu(m_plots->plotsMenu());
    m_viewMenu->addSeparator();
    for (QDockWidget* d : findChildren<QDockWidget*>())
        m_viewMenu->addAction(d->toggleViewAction());
    m_viewMenu->addSeparator();
    m_viewMenu->addAction(m_lightTheme);
    m_viewMenu->addAction(m_darkTheme);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About stormwatch"), this, &MainWindow::showAbout);
}

void MainWindow::setFaultsAvailable(bool available, const QString& reasonWhenNot)
{
    m_gateway->setFaultsAvailable(available, reasonWhenNot);
}

void MainWindow::setLevers(const LeverSet& levers)
{
    m_levers->setLevers(levers);
}

LeverSet MainWindow::levers() const
{
    return m_levers->levers();
}

void MainWindow::setAdvertiseBulkSupervisory(bool advertise)
{
    m_gateway->setAdvertiseBulkSupervisory(advertise);
}

void MainWindow::setScenarioNames(const QStringList& bundled)
{
    m_scenario->setScenarioNames(bundled);
}

bool MainWindow::loadScenario(const QString& nameOrPath)
{
    return m_scenario->loadScenario(nameOrPath);
}

void MainWindow::setRunState(const RunState& state)
{
    if (m_runStateShown && state == m_scenario->runState())
        return; // said again at every refresh
    m_runStateShown = true;
    m_scenario->setRunState(state);
}

void MainWindow::setInstances(const QStringList& names)
{
    m_instanceNames = names;
    m_instancesByConnection.clear();
    updateInstancesTree();
}

void MainWindow::setInstancesByConnection(const QMap<QString, QStringList>& byConnection)
{
    m_instanceNames.clear();
    m_instancesByConnection = byConnection;
    updateInstancesTree();
}

void MainWindow::updateInstancesTree()
{
    if (!m_instancesByConnection.isEmpty()) {
        m_topologyModel->setInstances(m_instancesByConnection);
        return;
    }
    // A flat list hangs under the first connection (the demo has one); until a connection
    // is known there is nowhere to hang it.
    if (m_connections.isEmpty())
        return;
    m_topologyModel->setInstances({{m_connections.front().name, m_instanceNames}});
}

void MainWindow::showError(const QString& title, const QString& text)
{
    m_unreachableBanner = false;
    m_bannerText->setText(
        QStringLiteral("<b>%1</b> — %2").arg(title.toHtmlEscaped(), text.toHtmlEscaped()));
    m_banner->show();
    logLocal(int(LogSeverity::Error), title + QStringLiteral(": ") + text);
}

void MainWindow::fitWholeRun()
{
    m_plots->fitWholeRun();
}

void MainWindow::logLocal(int severity, const QString& message)
{
    LogEntry e;
    const double t = m_store->latestTime();
    e.tS = std::isnan(t) ? 0 : t;
    e.wall = QDateTime::currentDateTime();
    e.severity = severity;
    e.subject = QStringLiteral("console");
    e.message = message;
    m_logModel->append({e});
}

void MainWindow::setTheme(Theme theme)
{
    m_theme = theme;
    applyTheme(theme);
    m_plots->setTheme(theme); // QCustomPlot paints its own background: not from the palette
    if (m_ab)
        m_ab->setTheme(theme);
    (theme == Theme::Dark ? m_darkTheme : m_lightTheme)->setChecked(true);
}

QSettings* MainWindow::openSettings() const
{
    if (!m_settingsFile.isEmpty())
        return new QSettings(m_settingsFile, QSettings::IniFormat);
    return new QSettings(QStringLiteral("stormwatch"), QStringLiteral("stormwatch"));
}

void MainWindow::setSettingsFile(const QString& iniPath)
{
    m_settingsFile = iniPath;
}

void MainWindow::restoreSettings()
{
    m_settingsRestored = true;
    std::unique_ptr<QSettings> s(openSettings());
    restoreGeometry(s->value(QLatin1String(kGeometryKey)).toByteArray());
    m_layoutRestored =
        restoreState(s->value(QLatin1String(kStateKey)).toByteArray(), kStateVersion);
    setTheme(themeFromName(s->value(QLatin1String(kThemeKey)).toString()));
    m_plots->setRetentionMinutes(s->value(QLatin1String(kRetentionKey), 60).toInt());
    m_plots->setAggregateAbove(
        s->value(QLatin1String(kAggregateKey), PlotPanel::kDefaultAggregateAbove).toInt());
    m_plots->setShownPlotsText(s->value(QLatin1String(kShownPlotsKey)).toString());
    const QByteArray json = s->value(QLatin1String(kLeversKey)).toByteArray();
    if (!json.isEmpty()) {
        QString error;
        const auto doc = QJsonDocument::fromJson(json);
        if (const auto set = leverSetFromJson(doc.object(), &error)) {
            if (*set != m_levers->levers()) {
                m_levers->setLevers(*set);
                emit leversChanged(*set); // the last session's levers apply again
            }
        } else {
            logLocal(int(LogSeverity::Warning), tr("Saved lever set ignored: %1").arg(error));
        }
    }
}

void MainWindow::saveSettings() const
{
    std::unique_ptr<QSettings> s(openSettings());
    s->setValue(QLatin1String(kGeometryKey), saveGeometry());
    s->setValue(QLatin1String(kStateKey), saveState(kStateVersion));
    s->setValue(QLatin1String(kThemeKey), themeName(m_theme));
    s->setValue(QLatin1String(kRetentionKey), m_plots->retentionMinutes());
    s->setValue(QLatin1String(kAggregateKey), m_plots->aggregateAbove());
    s->setValue(QLatin1String(kShownPlotsKey), m_plots->shownPlotsText());
    if (m_ab)
        for (int side = 0; side < 2; ++side)
            s->setValue(abShownPlotsKey(side), m_ab->panel(side)->shownPlotsText());
    if (!m_gatewayAddress.isEmpty())
        s->setValue(QLatin1String(kAddressKey), m_gatewayAddress);
    s->setValue(QLatin1String(kLeversKey),
                QJsonDocument(leverSetToJson(m_levers->levers())).toJson(QJsonDocument::Compact));
    s->sync();
}

QString MainWindow::lastGatewayAddress() const
{
    std::unique_ptr<QSettings> s(openSettings());
    return s->value(QLatin1String(kAddressKey)).toString();
}

void MainWindow::showEvent(QShowEvent* event)
{
    if (!m_settingsRestored)
        restoreSettings();
    QMainWindow::showEvent(event);
    fitToScreenSize();
    // The window opens with the plots focused, not the first value control in tab order (the
    // plot window's spin box, a dock's combo): a value control takes the wheel only once a
    // person has focused it, and nobody chose it yet.
    if (!m_initialFocusSet) {
        m_initialFocusSet = true;
        m_plotArea->setFocusPolicy(Qt::ClickFocus); // a click on the plots takes the focus back too
        m_plotArea->setFocus(Qt::OtherFocusReason);
    }
    // First start: dock sizes only hold once the window has its real size.
    if (!m_layoutRestored && !m_defaultLayoutApplied) {
        m_defaultLayoutApplied = true;
        QTimer::singleShot(0, this, [this] {
            auto* tags = findChild<QDockWidget*>(QStringLiteral("dockTags"));
            auto* log = findChild<QDockWidget*>(QStringLiteral("dockLog"));
            resizeDocks({tags}, {height() / 4}, Qt::Vertical);
            resizeDocks({tags, log}, {width() * 2 / 5, width() * 3 / 5}, Qt::Horizontal);
        });
    }
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    saveSettings();
    event->accept();
}

QString MainWindow::aboutText() const
{
    // The version is the CMake project's: main() sets it as the application version.
    const QString version = QCoreApplication::applicationVersion();
    return tr("<h3>stormwatch %1</h3>")
               .arg(version.isEmpty() ? tr("(version unknown)") : version.toHtmlEscaped()) +
           tr("<p>A console for engineers who run a SCADA bridge against an MXAccess gateway: "
              "it runs the bridge's guarded subscribe client against a real or a mock gateway, "
              "plots what every subscription does, and lets you switch each protective lever "
              "on and off — live, or replayed in virtual time.</p>"
              "<p><b>The levers</b></p><ul>"
              "<li><b>In-flight guard</b> (Lever 1): one outstanding subscribe per instance and "
              "connection until the ceiling.</li>"
              "<li><b>Backoff</b> (Lever 1): retries double with jitter instead of a fixed 5 "
              "s.</li>"
              "<li><b>Confirmed flag</b>: a retry already queued when Success arrived does "
              "nothing.</li>"
              "<li><b>Bulk supervisory</b> (Lever 2): one SubscribeBulk{supervisory} instead of "
              "1 + N RPCs, when the gateway advertises it.</li>"
              "<li><b>Session command timeout</b> (Lever 3): sent at OpenSession, applies to the "
              "next session.</li>"
              "<li><b>Recovery gate</b>: after failures, calls wait out a recovery period.</li>"
              "<li><b>Alarm guard</b>: the same guard on the alarm subscription.</li>"
              "<li><b>Coalesce</b>: identical concurrent subscribes are merged.</li></ul>");
}

void MainWindow::showAbout()
{
    QMessageBox::about(this, tr("About stormwatch"), aboutText());
}

} // namespace stormwatch
