// MainWindow as the controller sees it (ui-contract.md): the docks and the plot area, the
// signals each panel emits, the setters, settings round-trip, theme switch. Offscreen.
#include "models/event_log_model.h"
#include "models/series_store.h"
#include "models/support_series_updates.h"
#include "models/tag_table_model.h"
#include "models/topology_model.h"
#include "scenario/run_host.h"
#include "scenario/scenario_parser.h"
#include "ui/console_controller.h"
#include "ui/eliding_label.h"
#include "ui/event_log_panel.h"
#include "ui/gateway_panel.h"
#include "ui/levers_panel.h"
#include "ui/main_window.h"
#include "ui/main_window_view.h"
#include "ui/plot_panel.h"
#include "ui/scenario_panel.h"
#include "ui/tags_panel.h"
#include "ui/topology_panel.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QHelpEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QToolButton>
#include <QToolTip>
#include <QTreeView>
#include <QtTest>

using namespace stormwatch;

namespace {

const QStringList kDocks{"dockLevers",        "dockGateway", "dockScenario", "dockTopology",
                         "dockSubscriptions", "dockTags",    "dockLog"};

ConnectionInfo connectionInfo()
{
    ConnectionInfo c;
    c.name = QStringLiteral("gw1");
    c.state = QStringLiteral("connected");
    c.address = QStringLiteral("127.0.0.1:50051");
    c.sessionId = QStringLiteral("s-7f3a");
    c.capabilities = {"unary-open-session", "unary-invoke", "server-stream-events",
                      "bulk-subscribe-commands", "bulk-subscribe-supervisory"};
    c.protocolVersion = 3;
    c.echoedCommandTimeoutS = 60;
    c.supportsSupervisoryBulk = true;
    return c;
}

template <typename T> T* child(const QObject& parent, const QString& name)
{
    T* found = parent.findChild<T*>(name);
    if (!found)
        qWarning("no child %s", qPrintable(name));
    return found;
}

LeverSet preset(const QString& name)
{
    return *leverPreset(name, nullptr);
}

// Some tags, log lines and series so the grabbed window shows real content.
void feedDemoData(MainWindow& w)
{
    w.setGatewaySummary(QStringLiteral("127.0.0.1:50051"), QStringLiteral("recovering"));
    w.setConnectionInfo({connectionInfo()});
    w.setInstances({"Z28061", "Z28062"});
    QVector<TagChange> tags;
    for (int i = 0; i < 2; ++i) {
        for (int t = 0; t < 30; ++t) {
            TagChange c;
            c.instance = i;
            c.tag = t;
            c.instanceName = i == 0 ? "Z28061" : "Z28062";
            c.tagName = QStringLiteral("%1.Attr%2").arg(c.instanceName).arg(t);
            c.value = 10.5 + t;
            c.quality = (t % 7 == 0) ? 0 : 192;
            c.sourceTimestampUs = 12'345'678;
            c.itemHandle = 100 + t;
            c.error = c.quality == 0 ? QStringLiteral("DEADLINE_EXCEEDED") : QString();
            tags << c;
        }
    }
    w.tagModel()->applyChanges(tags);
    QVector<LogEntry> logs;
    const QStringList messages{"session opened (command timeout 60 s echoed)",
                               "subscribe 244 tags (SubscribeBulk supervisory)",
                               "subscribe unanswered for 45091 ms, presuming lost, re-sending",
                               "DEADLINE_EXCEEDED on AdviseSupervisory"};
    for (int i = 0; i < 12; ++i)
        logs << LogEntry{i * 5.0, QDateTime::currentDateTime(), 1 + i % 3, i % 2 ? "Z28061" : "gw1",
                         messages[i % messages.size()]};
    w.logModel()->append(logs);
    QVector<testsupport::SubscriptionStep> steps;
    for (int s = 0; s < 60; ++s) {
        testsupport::SubscriptionStep x; // Z28061 × gw1
        x.t = s;
        x.outstanding = s < 30 ? s / 5 : 1;
        x.good = s < 30 ? 0 : 244;
        x.bad = 244 - x.good;
        steps << x;
    }
    testsupport::feed(*w.store(), steps);
}

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        // Windows constructed without a settings file must not touch the user's settings.
        QStandardPaths::setTestModeEnabled(true);
    }

    void init()
    {
        // Each test starts from a hermetic settings file and the light theme.
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
    }

    void buildsWithItsDocksAndThePlotArea()
    {
        MainWindow w;
        QStringList names;
        for (QDockWidget* d : w.findChildren<QDockWidget*>())
            names << d->objectName();
        names.sort();
        QStringList expected = kDocks;
        expected.sort();
        QCOMPARE(names, expected);
        QVERIFY(w.centralWidget());
        QVERIFY(w.centralWidget()->findChild<QWidget*>(QStringLiteral("plotArea")) || w.plots());
        QVERIFY(w.store());
        QVERIFY(w.tagModel() && w.logModel() && w.topologyModel());
        QCOMPARE(w.tagsPanel()->proxy()->sourceModel(), w.tagModel());
        QCOMPARE(w.eventLogPanel()->proxy()->sourceModel(), w.logModel());
        QCOMPARE(w.topologyPanel()->view()->model(), w.topologyModel());
    }

    void leverToggleEmitsTheWholeSetAndShowsCustom()
    {
        MainWindow w;
        w.setLevers(preset("lever1"));
        QSignalSpy spy(&w, &MainWindow::leversChanged);
        QCOMPARE(w.leversPanel()->presetText(), QStringLiteral("lever1"));
        child<QCheckBox>(w, "coalesce")->click();
        QCOMPARE(spy.count(), 1);
        LeverSet expected = preset("lever1");
        expected.coalesce = true;
        QCOMPARE(spy.at(0).at(0).value<LeverSet>(), expected);
        QCOMPARE(w.levers(), expected);
        QCOMPARE(w.leversPanel()->presetText(), QStringLiteral("custom"));
        // Undoing the edit lands on the preset again.
        child<QCheckBox>(w, "coalesce")->click();
        QCOMPARE(spy.count(), 2);
        QCOMPARE(spy.at(1).at(0).value<LeverSet>(), preset("lever1"));
        QCOMPARE(w.leversPanel()->presetText(), QStringLiteral("lever1"));
    }

    void choosingAPresetEmitsIt()
    {
        MainWindow w;
        w.setLevers(preset("levers-off"));
        QSignalSpy spy(&w, &MainWindow::leversChanged);
        auto* combo = child<QComboBox>(w, "leverPreset");
        emit combo->activated(combo->findText("lever1+2"));
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).value<LeverSet>(), preset("lever1+2"));
        QVERIFY(child<QCheckBox>(w, "bulk_supervisory")->isChecked());
        QVERIFY(!child<QCheckBox>(w, "recoveryEnabled")->isChecked());
    }

    void lever3AndRecoveryParametersAreLevers()
    {
        MainWindow w;
        w.setLevers(preset("all"));
        QSignalSpy spy(&w, &MainWindow::leversChanged);
        child<QCheckBox>(w, "sendCommandTimeout")->click();
        QCOMPARE(spy.last().at(0).value<LeverSet>().sessionCommandTimeoutMs, 0);
        child<QCheckBox>(w, "sendCommandTimeout")->click();
        child<QSpinBox>(w, "sessionCommandTimeoutMs")->setValue(90'000);
        QCOMPARE(spy.last().at(0).value<LeverSet>().sessionCommandTimeoutMs, 90'000);
        QVERIFY(child<QLabel>(w, "leverNote")->text().contains("next session open"));

        auto* strategy = child<QComboBox>(w, "recoveryStrategy");
        strategy->setCurrentIndex(strategy->findText("exponential"));
        child<QDoubleSpinBox>(w, "recoveryInitialSeconds")->setValue(7);
        child<QSpinBox>(w, "failuresToEnterRecovery")->setValue(3);
        const LeverSet last = spy.last().at(0).value<LeverSet>();
        QCOMPARE(last.recovery.strategy, RecoveryConfig::Strategy::Exponential);
        QCOMPARE(last.recovery.initialSeconds, 7.0);
        QCOMPARE(last.recovery.failuresToEnterRecovery, 3);
        QVERIFY(last.recovery.enabled);
        QVERIFY(child<QDoubleSpinBox>(w, "recoveryInitialSeconds")->isEnabled());
        QVERIFY(!child<QDoubleSpinBox>(w, "recoverySeconds")->isEnabled());
    }

    // The recovery Max is at least its Initial: a Max set below it is raised, and the spin
    // box shows the value in effect, not the one typed (the controller's refreshes, which
    // used to redraw it, now change nothing when the levers are unchanged).
    void recoveryMaxBelowInitialShowsTheMaxInEffect()
    {
        MainWindow w;
        w.setLevers(preset("all"));
        QSignalSpy spy(&w, &MainWindow::leversChanged);
        auto* strategy = child<QComboBox>(w, "recoveryStrategy");
        strategy->setCurrentIndex(strategy->findText("exponential"));
        child<QDoubleSpinBox>(w, "recoveryInitialSeconds")->setValue(5);
        child<QDoubleSpinBox>(w, "recoveryMaxSeconds")->setValue(2);
        const LeverSet inEffect = spy.last().at(0).value<LeverSet>();
        QCOMPARE(inEffect.recovery.maxSeconds, 5.0);
        w.setLevers(inEffect); // the controller's next refresh says the same set again
        QCOMPARE(child<QDoubleSpinBox>(w, "recoveryMaxSeconds")->value(), 5.0);
    }

    void setLeversReflectsWithoutEmitting()
    {
        MainWindow w;
        QSignalSpy spy(&w, &MainWindow::leversChanged);
        w.setLevers(preset("levers-off"));
        w.setLevers(preset("all"));
        QCOMPARE(spy.count(), 0);
        QVERIFY(child<QCheckBox>(w, "inflight_guard")->isChecked());
        QCOMPARE(w.leversPanel()->presetText(), QStringLiteral("all"));
    }

    void faultButtonsEmitTheirFaultWithDurations()
    {
        MainWindow w;
        QSignalSpy spy(&w, &MainWindow::faultRequested);
        child<QDoubleSpinBox>(w, "wedge_duration")->setValue(42);
        child<QPushButton>(w, "fault_wedge")->click();
        QCOMPARE(spy.count(), 1);
        auto fault = spy.at(0).at(0).value<TimelineEvent>();
        QCOMPARE(fault.action, TimelineAction::Wedge);
        QCOMPARE(fault.durationS, 42.0);

        child<QDoubleSpinBox>(w, "slow_duration")->setValue(90);
        child<QDoubleSpinBox>(w, "slow_factor")->setValue(200);
        child<QPushButton>(w, "fault_slow")->click();
        fault = spy.at(1).at(0).value<TimelineEvent>();
        QCOMPARE(fault.action, TimelineAction::Slow);
        QCOMPARE(fault.durationS, 90.0);
        QCOMPARE(fault.factor, 200.0);

        child<QDoubleSpinBox>(w, "drop_replies_probability")->setValue(0.25);
        child<QPushButton>(w, "fault_drop_replies")->click();
        QCOMPARE(spy.at(2).at(0).value<TimelineEvent>().probability, 0.25);

        child<QDoubleSpinBox>(w, "restart_gateway_downtime")->setValue(12);
        child<QPushButton>(w, "fault_restart_gateway")->click();
        fault = spy.at(3).at(0).value<TimelineEvent>();
        QCOMPARE(fault.action, TimelineAction::RestartGateway);
        QCOMPARE(fault.downtimeS, 12.0);

        for (const char* name :
             {"fault_end_event_streams", "fault_source_outage", "fault_refuse_sessions"})
            child<QPushButton>(w, name)->click();
        QCOMPARE(spy.count(), 7);
        QCOMPARE(spy.at(4).at(0).value<TimelineEvent>().action, TimelineAction::EndEventStreams);
        QCOMPARE(spy.at(5).at(0).value<TimelineEvent>().action, TimelineAction::SourceOutage);
        QCOMPARE(spy.at(6).at(0).value<TimelineEvent>().durationS, 30.0);

        child<QDoubleSpinBox>(w, "lose_events_duration")->setValue(3);
        child<QPushButton>(w, "fault_lose_events")->click();
        fault = spy.at(7).at(0).value<TimelineEvent>();
        QCOMPARE(fault.action, TimelineAction::LoseEvents);
        QCOMPARE(fault.durationS, 3.0);
        child<QDoubleSpinBox>(w, "stall_reader_duration")->setValue(20);
        child<QPushButton>(w, "fault_stall_reader")->click();
        fault = spy.at(8).at(0).value<TimelineEvent>();
        QCOMPARE(fault.action, TimelineAction::StallReader);
        QCOMPARE(fault.durationS, 20.0);
    }

    void faultsUnavailableDisablesTheButtonsAndSaysWhy()
    {
        MainWindow w;
        QSignalSpy spy(&w, &MainWindow::faultRequested);
        const QString reason = QStringLiteral("A real gateway: faults need the mock's control "
                                              "service");
        w.setFaultsAvailable(false, reason);
        for (TimelineAction a :
             {TimelineAction::Wedge, TimelineAction::Slow, TimelineAction::DropReplies,
              TimelineAction::RestartGateway, TimelineAction::EndEventStreams,
              TimelineAction::SourceOutage, TimelineAction::RefuseSessions})
            QVERIFY(!w.gatewayPanel()->faultButton(a)->isEnabled());
        auto* label = child<QLabel>(w, "faultsUnavailable");
        QCOMPARE(label->text(), reason);
        QVERIFY(!label->isHidden());
        QVERIFY(!child<QCheckBox>(w, "advertiseBulkSupervisory")->isEnabled());
        child<QPushButton>(w, "fault_wedge")->click();
        QCOMPARE(spy.count(), 0);
        w.setFaultsAvailable(true, {});
        QVERIFY(w.gatewayPanel()->faultButton(TimelineAction::Wedge)->isEnabled());
        QVERIFY(label->isHidden());
    }

    void capabilityToggleEmits()
    {
        MainWindow w;
        QSignalSpy spy(&w, &MainWindow::capabilityToggled);
        child<QCheckBox>(w, "advertiseBulkSupervisory")->click();
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).toBool(), false);
        w.setAdvertiseBulkSupervisory(true);
        QCOMPARE(spy.count(), 1);
        QVERIFY(child<QCheckBox>(w, "advertiseBulkSupervisory")->isChecked());
    }

    void scenarioDockListsVariantsAndPlays()
    {
        MainWindow w;
        QSignalSpy play(&w, &MainWindow::playRequested);
        QSignalSpy stop(&w, &MainWindow::stopRequested);
        QSignalSpy pause(&w, &MainWindow::pauseToggled);
        QSignalSpy compare(&w, &MainWindow::compareRequested);
        w.setScenarioNames(bundledScenarioNames());
        QVERIFY(w.loadScenario("live-gate-lever1"));
        ScenarioPanel* s = w.scenarioPanel();
        QCOMPARE(s->variants(), (QStringList{"levers-off", "lever1"}));
        QVERIFY(s->description().contains("live gate"));
        child<QComboBox>(w, "variant")->setCurrentIndex(1);
        s->setSpeed(60);
        child<QPushButton>(w, "play")->click();
        QCOMPARE(play.count(), 1);
        QCOMPARE(play.at(0).at(0).toString(), QStringLiteral("live-gate-lever1"));
        QCOMPARE(play.at(0).at(1).toString(), QStringLiteral("lever1"));
        QCOMPARE(play.at(0).at(2).toDouble(), 60.0);

        RunState playing{true, true, false, false, 0.5, 60, QStringLiteral("55 s / 110 s")};
        w.setRunState(playing);
        QVERIFY(!child<QPushButton>(w, "play")->isEnabled());
        QVERIFY(child<QPushButton>(w, "stop")->isEnabled());
        QVERIFY(child<QPushButton>(w, "pause")->isEnabled());
        QCOMPARE(child<QProgressBar>(w, "progress")->value(), 500);
        QCOMPARE(child<QProgressBar>(w, "progress")->text(), QStringLiteral("55 s / 110 s"));
        // Space pauses / resumes a virtual run, plays a stopped one, stops a live one.
        child<QAction>(w, "actionPlayPause")->trigger();
        QCOMPARE(pause.count(), 1);
        QCOMPARE(stop.count(), 0);
        child<QPushButton>(w, "stop")->click();
        QCOMPARE(stop.count(), 1);
        // Pause reads Resume while paused.
        playing.paused = true;
        w.setRunState(playing);
        QCOMPARE(child<QPushButton>(w, "pause")->text(), QStringLiteral("Resume"));
        // A finished playback: Stop becomes Back to live, Space plays again.
        w.setRunState(RunState{true, false, false, false, 1.0, 60, QString()});
        QVERIFY(child<QPushButton>(w, "stop")->isEnabled());
        QCOMPARE(child<QPushButton>(w, "stop")->text(), QStringLiteral("Back to live"));
        child<QAction>(w, "actionPlayPause")->trigger();
        QCOMPARE(play.count(), 2);
        w.setRunState(RunState{true, true, false, true, -1, -1, QStringLiteral("live 00:42")});
        QVERIFY(!child<QPushButton>(w, "pause")->isEnabled());
        child<QAction>(w, "actionPlayPause")->trigger();
        QCOMPARE(stop.count(), 2);
        QCOMPARE(pause.count(), 1);
        // The console's own live run: no Stop, no Pause, Play enabled.
        w.setRunState(RunState{false, true, false, true, -1, -1, QString()});
        QVERIFY(!child<QPushButton>(w, "stop")->isEnabled());
        QVERIFY(!child<QPushButton>(w, "pause")->isEnabled());
        QVERIFY(child<QPushButton>(w, "play")->isEnabled());

        child<QPushButton>(w, "compare")->click();
        QCOMPARE(compare.count(), 1);
        QCOMPARE(compare.at(0).at(0).toString(), QStringLiteral("live-gate-lever1"));
        s->setSpeed(-1);
        QCOMPARE(s->currentSpeed(), -1.0);
    }

    void badScenarioFileShowsItsErrors()
    {
        MainWindow w;
        const QString path = m_dir->filePath("broken.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"name": "x", "duration_s": -5})");
        f.close();
        QVERIFY(!w.loadScenario(path));
        QVERIFY(w.scenarioPanel()->description().contains("duration_s"));
        QVERIFY(!child<QPushButton>(w, "play")->isEnabled());
    }

    // A connection whose contract does not check sends nothing: the banner says which and why,
    // until it is no longer refused, and the topology shows its state in red.
    void aRefusedConnectionIsSaidInTheBanner()
    {
        QTemporaryDir dir;
        MainWindow w;
        w.setSettingsFile(dir.filePath("s.ini"));
        w.setGatewaySummary(QStringLiteral("gw-a 127.0.0.1:1, gw-b 127.0.0.1:2"),
                            QStringLiteral("normal"));
        ConnectionInfo refused = connectionInfo();
        refused.name = QStringLiteral("gw-a");
        refused.state = QStringLiteral("refused");
        refused.error =
            QStringLiteral("refused: contract site.proto: MxEvent has no field item_handle");
        refused.sessionId.clear();
        ConnectionInfo up = connectionInfo();
        up.name = QStringLiteral("gw-b");
        w.setConnectionInfo({refused, up});
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* banner = child<QLabel>(w, "errorBanner");
        QVERIFY(banner->isVisible());
        QVERIFY2(banner->text().contains(QStringLiteral("Nothing is sent to 1 connection")),
                 qPrintable(banner->text()));
        QVERIFY2(banner->text().contains(QStringLiteral(
                     "gw-a: refused: contract site.proto: MxEvent has no field item_handle")),
                 qPrintable(banner->text()));
        QVERIFY(banner->text().contains(QStringLiteral("--check-contract")));
        QCOMPARE(TopologyModel::stateColor(QStringLiteral("refused")),
                 TopologyModel::stateColor(QStringLiteral("unreachable")));
        // A long check (what the message has instead, field by field) is cut in the banner and
        // whole in its tooltip.
        const QString tail =
            QStringLiteral(" (there: session_id = 1 (string), worker_sequence = 2 (uint64)") +
            QString(300, QLatin1Char('x')) + QStringLiteral(")");
        refused.error += tail;
        w.setConnectionInfo({refused, up});
        QVERIFY2(!banner->text().contains(tail.right(40)), qPrintable(banner->text()));
        QVERIFY(banner->text().contains(QChar(0x2026)));
        QVERIFY(banner->toolTip().contains(tail));
        QVERIFY(banner->height() < w.height() / 4);
        // Fixed (a new run with the gateway's own contract): the banner goes.
        refused.state = QStringLiteral("connected");
        refused.error.clear();
        w.setConnectionInfo({refused, up});
        QTRY_VERIFY(!banner->isVisible());
    }

    // At 1024 px a site's long texts do not fit: the address and the sessions are elided
    // (the port and the count stay), never cut mid-character, and the tooltip has them whole.
    void narrowStatusBarElidesWithTheWholeTextInTheTooltip()
    {
        QTemporaryDir dir;
        MainWindow w;
        w.setSettingsFile(dir.filePath("s.ini"));
        const QString address =
            QStringLiteral("gw-packaging 127.0.0.1:35131, gw-utilities 127.0.0.1:35133");
        w.setGatewaySummary(address, QStringLiteral("normal"));
        ConnectionInfo down = connectionInfo();
        down.name = QStringLiteral("gw-packaging");
        down.state = QStringLiteral("unreachable");
        down.sessionId.clear();
        ConnectionInfo up = connectionInfo();
        up.name = QStringLiteral("gw-utilities");
        w.setConnectionInfo({down, up});
        w.resize(1024, 700);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* gateway = child<ElidingLabel>(w, "statusGateway");
        auto* session = child<ElidingLabel>(w, "statusSession");
        QCOMPARE(gateway->text(), QStringLiteral("gateway ") + address);
        QCOMPARE(session->text(), QStringLiteral("1 of 2 sessions, gw-packaging unreachable"));
        // Every label inside the status bar, the long ones elided to the width they got.
        QStatusBar* bar = w.statusBar();
        for (QLabel* label : bar->findChildren<QLabel*>())
            if (label->isVisible())
                QVERIFY2(label->geometry().right() <= bar->width(),
                         qPrintable(label->objectName()));
        QVERIFY(gateway->isElided());
        QVERIFY2(gateway->shownText().endsWith(QStringLiteral("127.0.0.1:35133")),
                 qPrintable(gateway->shownText()));
        QVERIFY2(gateway->shownText().contains(QChar(0x2026)), qPrintable(gateway->shownText()));
        for (ElidingLabel* label : {gateway, session})
            QVERIFY(label->fontMetrics().horizontalAdvance(label->shownText()) <=
                    label->contentsRect().width());
        // The sessions keep which gateway is down; the address gives way first.
        QVERIFY2(session->shownText().startsWith(QStringLiteral("1 of 2 sessions, gw-packaging")),
                 qPrintable(session->shownText()));
        // The tooltip, as hovering shows it: the whole text first.
        QHelpEvent help(QEvent::ToolTip, QPoint(5, 5), gateway->mapToGlobal(QPoint(5, 5)));
        QApplication::sendEvent(gateway, &help);
        QTRY_VERIFY(QToolTip::isVisible());
        QVERIFY2(QToolTip::text().startsWith(gateway->text()), qPrintable(QToolTip::text()));
        QToolTip::hideText();
        // Wide enough, nothing is elided and the tooltips are the labels' own.
        w.resize(2400, 700);
        QTRY_VERIFY(!gateway->isElided() && !session->isElided());
        QCOMPARE(gateway->shownText(), gateway->text());
    }

    void statusBarShowsTheSession()
    {
        MainWindow w;
        w.setGatewaySummary(QStringLiteral("127.0.0.1:50051"), QStringLiteral("recovering"));
        w.setConnectionInfo({connectionInfo()});
        QCOMPARE(child<QLabel>(w, "statusGateway")->text(),
                 QStringLiteral("gateway 127.0.0.1:50051"));
        QCOMPARE(child<QLabel>(w, "statusSession")->text(), QStringLiteral("session s-7f3a"));
        auto* caps = child<QLabel>(w, "statusCapabilities");
        QVERIFY2(caps->text().startsWith("5 "), qPrintable(caps->text()));
        QVERIFY(caps->toolTip().contains("bulk-subscribe-supervisory"));
        QCOMPARE(child<QLabel>(w, "statusProtocol")->text(), QStringLiteral("protocol v3"));
        QCOMPARE(child<QLabel>(w, "statusTimeout")->text(), QStringLiteral("cmd timeout 60 s"));
        ConnectionInfo withGuard = connectionInfo();
        withGuard.inFlightCeilingS = 75; // 60 s echoed + the 15 s margin
        w.setConnectionInfo({withGuard});
        QCOMPARE(child<QLabel>(w, "statusTimeout")->text(),
                 QStringLiteral("cmd timeout 60 s, ceiling 75 s"));
        QVERIFY(child<QLabel>(w, "statusTimeout")->toolTip().contains("in-flight ceiling"));
        auto* recovery = child<QLabel>(w, "statusRecovery");
        QCOMPARE(recovery->text(), QStringLiteral("recovery: recovering"));
        QVERIFY(recovery->styleSheet().contains(TopologyModel::stateColor("recovering").name()));
        QCOMPARE(w.topologyModel()
                     ->data(w.topologyModel()->connectionIndex("gw1"), TopologyModel::StateRole)
                     .toString(),
                 QStringLiteral("connected"));
    }

    void redeployFromTheTopologyTree()
    {
        MainWindow w;
        QSignalSpy spy(&w, &MainWindow::redeployRequested);
        w.setInstances({"Z28061", "Z28062"});
        w.setConnectionInfo({connectionInfo()});
        const QModelIndex z = w.topologyModel()->instanceIndex("gw1", "Z28062");
        QVERIFY(z.isValid());
        auto* button = child<QPushButton>(w, "redeploy");
        QVERIFY(!button->isEnabled());
        w.topologyPanel()->view()->setCurrentIndex(z);
        QVERIFY(button->isEnabled());
        button->click();
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).toString(), QStringLiteral("Z28062"));
    }

    void showErrorShowsABannerAndLogsALine()
    {
        MainWindow w;
        w.showError(QStringLiteral("Gateway unreachable"),
                    QStringLiteral("127.0.0.1:1 refused <x>"));
        auto* banner = child<QLabel>(w, "errorBanner");
        QVERIFY(banner->text().contains("Gateway unreachable"));
        QVERIFY(banner->text().contains("&lt;x&gt;"));
        QVERIFY(!child<QWidget>(w, "errorBannerRow")->isHidden());
        QCOMPARE(w.logModel()->rowCount(), 1);
        QCOMPARE(w.logModel()->entry(0).severity, int(LogSeverity::Error));
        QVERIFY(w.logModel()->entry(0).message.contains("Gateway unreachable"));
    }

    void tagAndLogFiltersNarrowTheTables()
    {
        MainWindow w;
        feedDemoData(w);
        QCOMPARE(w.tagsPanel()->proxy()->rowCount(), 60);
        w.tagsPanel()->qualityButton(QualityClass::Good)->click();
        QCOMPARE(w.tagsPanel()->proxy()->rowCount(), 10); // t % 7 == 0: 5 per instance
        QVERIFY(w.tagsPanel()->qualityButton(QualityClass::Bad)->text().contains("10"));
        w.tagsPanel()->filterEdit()->setText("Z28062");
        QCOMPARE(w.tagsPanel()->proxy()->rowCount(), 5);

        auto* severity = w.eventLogPanel()->severityCombo();
        severity->setCurrentIndex(severity->findData(int(LogSeverity::Warning)));
        for (int r = 0; r < w.eventLogPanel()->proxy()->rowCount(); ++r)
            QVERIFY(
                w.eventLogPanel()->proxy()->index(r, 0).data(EventLogModel::SeverityRole).toInt() >=
                2);
        w.eventLogPanel()->view()->selectAll();
        const QString tsv = w.eventLogPanel()->copySelection();
        QCOMPARE(tsv.count('\n'), w.eventLogPanel()->proxy()->rowCount() + 1);
    }

    void ctrlLFocusesTheLogFilter()
    {
        MainWindow w;
        w.setSettingsFile(m_dir->filePath("s.ini"));
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QTest::keyClick(&w, Qt::Key_L, Qt::ControlModifier);
        QVERIFY(w.eventLogPanel()->filterEdit()->hasFocus());
    }

    void plotShortcutsReachThePlots()
    {
        MainWindow w;
        w.setSettingsFile(m_dir->filePath("s.ini"));
        QSignalSpy follow(&w, &MainWindow::followLiveToggled);
        QSignalSpy reset(&w, &MainWindow::resetZoomRequested);
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        w.centralWidget()->setFocus();
        QTest::keyClick(&w, Qt::Key_F);
        QCOMPARE(follow.count(), 1);
        QCOMPARE(follow.at(0).at(0).toBool(), false);
        QTest::keyClick(&w, Qt::Key_0, Qt::ControlModifier);
        QTest::keyClick(&w, Qt::Key_Home);
        QCOMPARE(reset.count(), 2);
        // Typing in a filter field is typing, not a shortcut.
        w.tagsPanel()->filterEdit()->setFocus();
        QTest::keyClick(w.tagsPanel()->filterEdit(), Qt::Key_F);
        QCOMPARE(follow.count(), 1);
        QCOMPARE(w.tagsPanel()->filterEdit()->text(), QStringLiteral("f"));
    }

    // Space is play / pause everywhere but in a text field. After a
    // click on a fault button, Space pauses; it does not fire the fault again.
    void spaceIsPlayPauseEvenOnAFocusedButton()
    {
        MainWindow w;
        w.setSettingsFile(m_dir->filePath("s.ini"));
        w.setScenarioNames(bundledScenarioNames());
        QVERIFY(w.loadScenario("live-gate-lever1"));
        QSignalSpy play(&w, &MainWindow::playRequested);
        QSignalSpy levers(&w, &MainWindow::leversChanged);
        QSignalSpy faults(&w, &MainWindow::faultRequested);
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        auto* wedge = child<QPushButton>(w, "fault_wedge");
        QTest::mouseClick(wedge, Qt::LeftButton);
        QCOMPARE(faults.count(), 1);
        QTest::keyClick(QApplication::focusWidget() ? QApplication::focusWidget() : &w,
                        Qt::Key_Space);
        QCOMPARE(faults.count(), 1); // one click, one wedge
        QCOMPARE(play.count(), 1);   // Space was play
        // A focused lever check box does not take Space either.
        auto* guard = child<QCheckBox>(w, "inflight_guard");
        const bool before = guard->isChecked();
        guard->setFocus();
        QTest::keyClick(guard, Qt::Key_Space);
        QCOMPARE(guard->isChecked(), before);
        QCOMPARE(levers.count(), 0);
        QCOMPARE(play.count(), 2);
        // In a text field Space is a space.
        w.tagsPanel()->filterEdit()->setFocus();
        QTest::keyClick(w.tagsPanel()->filterEdit(), Qt::Key_Space);
        QCOMPARE(w.tagsPanel()->filterEdit()->text(), QStringLiteral(" "));
        QCOMPARE(play.count(), 2);
    }

    // Scrolling over the Levers dock must not move a combo or spin box
    // a person has not focused; once focused (a deliberate choice), the wheel changes it.
    void wheelOverAnUnfocusedLeverControlChangesNothing()
    {
        MainWindow w;
        w.setSettingsFile(m_dir->filePath("s.ini"));
        QSignalSpy levers(&w, &MainWindow::leversChanged);
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        auto* strategy = child<QComboBox>(w, "recoveryStrategy");
        auto* timeout = child<QSpinBox>(w, "sessionCommandTimeoutMs");
        const auto wheel = [](QWidget* target, int steps) {
            const QPoint at = target->rect().center();
            QWheelEvent e(QPointF(at), QPointF(target->mapToGlobal(at)), QPoint(0, 0),
                          QPoint(0, -120 * steps), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase,
                          false);
            QApplication::sendEvent(target, &e);
        };
        w.centralWidget()->setFocus();
        const int strategyBefore = strategy->currentIndex();
        const int timeoutBefore = timeout->value();
        wheel(strategy, 1);
        wheel(timeout, 3);
        QCOMPARE(strategy->currentIndex(), strategyBefore);
        QCOMPARE(timeout->value(), timeoutBefore);
        QCOMPARE(levers.count(), 0);
        // Focused on purpose: now the wheel is the person's choice.
        timeout->setFocus();
        wheel(timeout, 1);
        QVERIFY(timeout->value() != timeoutBefore);
    }

    // Nobody has chosen a value control when the window opens: none has the focus (Qt would
    // give it to the first in tab order, the plot window's spin box), so the wheel over the
    // plot toolbar changes nothing until a person clicks into it.
    void noValueControlHasTheFocusWhenTheWindowOpens()
    {
        MainWindow w;
        w.setSettingsFile(m_dir->filePath("focus.ini"));
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QWidget* focused = QApplication::focusWidget();
        QVERIFY(focused);
        QVERIFY2(!qobject_cast<QAbstractSpinBox*>(focused) && !qobject_cast<QComboBox*>(focused) &&
                     !qobject_cast<QSlider*>(focused),
                 focused->metaObject()->className());
        for (QAbstractSpinBox* spin : w.plots()->findChildren<QAbstractSpinBox*>()) {
            auto* box = qobject_cast<QSpinBox*>(spin);
            if (!box)
                continue;
            const int before = box->value();
            const QPoint at = box->rect().center();
            QWheelEvent e(QPointF(at), QPointF(box->mapToGlobal(at)), QPoint(0, 0),
                          QPoint(0, -120 * 2), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase,
                          false);
            QApplication::sendEvent(box, &e);
            QCOMPARE(box->value(), before);
        }
    }

    // The plots' history is bounded by a retention the engineer sets (default 1 h); it
    // survives a restart like the other habits.
    void retentionIsSetOnThePlotsAndRemembered()
    {
        const QString ini = m_dir->filePath("retention.ini");
        {
            MainWindow w;
            w.setSettingsFile(ini);
            w.restoreSettings();
            auto* spin = child<QSpinBox>(w, "retentionMinutes");
            QVERIFY(spin);
            QCOMPARE(spin->value(), 60);
            QCOMPARE(w.store()->retentionSeconds(), 3600.0);
            spin->setValue(15);
            QCOMPARE(w.store()->retentionSeconds(), 900.0);
            w.saveSettings();
        }
        MainWindow again;
        again.setSettingsFile(ini);
        again.restoreSettings();
        QCOMPARE(child<QSpinBox>(again, "retentionMinutes")->value(), 15);
        QCOMPARE(again.store()->retentionSeconds(), 900.0);
    }

    // W (and the plot toolbar's Fit whole run, and View › Fit whole run)
    // shows the whole recorded run, follow-live off; Home goes back to following.
    void fitWholeRunShowsEveryRecordedSecond()
    {
        MainWindow w;
        w.setSettingsFile(m_dir->filePath("s.ini"));
        feedDemoData(w); // 0..59 s
        w.plots()->setWindowSeconds(10);
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        w.plots()->refreshNow();
        QCOMPARE(w.plots()->xLower(), 49.0); // following the last 10 s
        auto* follow = child<QAction>(w, "actionFollowLive");
        QVERIFY(follow->isChecked());

        w.centralWidget()->setFocus();
        QTest::keyClick(&w, Qt::Key_W);
        QCOMPARE(w.plots()->xLower(), 0.0);
        QCOMPARE(w.plots()->xUpper(), 59.0);
        QVERIFY(!w.plots()->followLive());
        QVERIFY(!follow->isChecked()); // the menu says what the plots do

        QTest::keyClick(&w, Qt::Key_Home);
        w.plots()->refreshNow();
        QVERIFY(w.plots()->followLive());
        QVERIFY(follow->isChecked());
        QCOMPARE(w.plots()->xLower(), 49.0);

        // The plot toolbar's button, clicked.
        auto* fit = child<QAction>(*w.plots(), "plotFitWholeRun");
        QVERIFY(fit);
        QToolButton* button = nullptr;
        for (QToolButton* b : w.plots()->findChildren<QToolButton*>())
            if (b->defaultAction() == fit)
                button = b;
        QVERIFY(button);
        QTest::mouseClick(button, Qt::LeftButton);
        QCOMPARE(w.plots()->xLower(), 0.0);
        QCOMPARE(w.plots()->xUpper(), 59.0);

        // And it is in the View menu.
        bool inMenu = false;
        for (QAction* menu : w.menuBar()->actions())
            if (menu->menu())
                inMenu = inMenu ||
                         menu->menu()->actions().contains(child<QAction>(w, "actionFitWholeRun"));
        QVERIFY(inMenu);
    }

    // A playback that finishes is shown whole (the controller asks the
    // view), not through the follow window's last 300 s.
    void finishedPlaybackIsShownWhole()
    {
        MainWindow w;
        w.setSettingsFile(m_dir->filePath("s.ini"));
        MainWindowView view(w);
        ConsoleController c(&view);
        w.show();
        w.plots()->setWindowSeconds(30);
        QSignalSpy finished(&c, &ConsoleController::playbackFinished);
        emit view.intents()->playRequested(QStringLiteral("live-gate-lever1"),
                                           QStringLiteral("levers-off"), RunHost::kMaxSpeed);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
        w.plots()->refreshNow();
        const double end = w.store()->latestTime();
        QVERIFY2(end > 100, qPrintable(QString::number(end)));
        QVERIFY(!w.plots()->followLive());
        QCOMPARE(w.plots()->xLower(), w.store()->earliestTime());
        QCOMPARE(w.plots()->xUpper(), end);
        QVERIFY(w.store()->earliestTime() < 1);
    }

    // The lines the console writes itself (playback finished, a fault
    // the panel could not apply, an error) carry the shown run's time, not 0.000, so the
    // t (s) column stays in order.
    void consoleLinesCarryTheShownRunsTime()
    {
        MainWindow w;
        w.setSettingsFile(m_dir->filePath("s.ini"));
        MainWindowView view(w);
        ConsoleController c(&view);
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QSignalSpy finished(&c, &ConsoleController::playbackFinished);
        emit view.intents()->playRequested(QStringLiteral("live-gate-lever1"),
                                           QStringLiteral("lever1"), RunHost::kMaxSpeed);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
        const double end = w.store()->latestTime();
        QVERIFY2(end > 100, qPrintable(QString::number(end)));
        w.showError(QStringLiteral("Export failed"), QStringLiteral("disk full"));
        const EventLogModel& log = *w.logModel();
        bool sawFinished = false, sawError = false;
        double runMax = 0; // the run's own lines
        double previous = 0;
        for (int row = 0; row < log.rowCount(); ++row) {
            const LogEntry& e = log.entry(row);
            const bool console = e.subject == QLatin1String("playback") ||
                                 e.subject == QLatin1String("faults") ||
                                 e.subject == QLatin1String("console");
            if (!console) {
                runMax = std::max(runMax, e.tS);
                continue;
            }
            previous = std::max(previous, runMax);
            QVERIFY2(e.tS >= previous - 1e-9,
                     qPrintable(QStringLiteral("row %1 (%2: %3) at %4 s after %5 s")
                                    .arg(row)
                                    .arg(e.subject, e.message)
                                    .arg(e.tS)
                                    .arg(previous)));
            previous = e.tS;
            const bool atEnd = qAbs(e.tS - end) < 1e-6;
            if (e.message.contains(QStringLiteral("finished:")))
                sawFinished = atEnd;
            if (e.message.contains(QStringLiteral("disk full")))
                sawError = atEnd;
        }
        QVERIFY(sawFinished);
        QVERIFY(sawError);

        // Played at 1x and stopped with a click on Stop: "stopped at" is at the stop's time.
        emit view.intents()->playRequested(QStringLiteral("live-gate-lever1"),
                                           QStringLiteral("lever1"), 1);
        QTRY_VERIFY_WITH_TIMEOUT(w.store()->latestTime() > 1, 10000);
        auto* stop = child<QPushButton>(w, "stop");
        QTRY_VERIFY(stop->isEnabled());
        QTest::mouseClick(stop, Qt::LeftButton);
        const auto stoppedRow = [&log] {
            for (int row = log.rowCount() - 1; row >= 0; --row)
                if (log.entry(row).message.startsWith(QStringLiteral("stopped at")))
                    return row;
            return -1;
        };
        QTRY_VERIFY_WITH_TIMEOUT(stoppedRow() >= 0, 10000);
        const LogEntry& stopped = log.entry(stoppedRow());
        QVERIFY2(stopped.tS > 1, qPrintable(QString::number(stopped.tS)));
        QVERIFY2(
            qAbs(stopped.tS - w.store()->latestTime()) < 0.5,
            qPrintable(QStringLiteral("%1 vs %2").arg(stopped.tS).arg(w.store()->latestTime())));
    }

    // About names the version main() sets from the CMake project.
    void aboutNamesTheVersion()
    {
        const QString before = QCoreApplication::applicationVersion();
        QCoreApplication::setApplicationVersion(QStringLiteral("9.8.7"));
        MainWindow w;
        QVERIFY2(w.aboutText().contains(QStringLiteral("stormwatch 9.8.7")),
                 qPrintable(w.aboutText()));
        QCoreApplication::setApplicationVersion(QString());
        QVERIFY(w.aboutText().contains(QStringLiteral("version unknown")));
        QCoreApplication::setApplicationVersion(before);
    }

    // File › Record runs reflects the controller's state without emitting, and unchecking it
    // stops the recording; File › Open recording is beside it.
    void fileMenuRecordsRunsAndOpensRecordings()
    {
        MainWindow w;
        auto* record = w.findChild<QAction*>(QStringLiteral("actionRecord"));
        auto* open = w.findChild<QAction*>(QStringLiteral("actionOpenRecording"));
        QVERIFY(record && open);
        QVERIFY(record->isCheckable() && !record->isChecked());
        QMenu* file = w.menuBar()->actions().first()->menu();
        QVERIFY(file->actions().contains(record) && file->actions().contains(open));
        QSignalSpy requested(&w, &MainWindow::recordRequested);
        w.setRecordingFile(QStringLiteral("runs.sqlite"));
        QVERIFY(record->isChecked());
        QVERIFY(record->toolTip().contains(QStringLiteral("runs.sqlite")));
        QCOMPARE(requested.count(), 0); // reflecting the state asks for nothing
        record->trigger();
        QCOMPARE(requested.count(), 1);
        QVERIFY(requested.at(0).at(0).toString().isEmpty()); // stop
        w.setRecordingFile(QString());
        QVERIFY(!record->isChecked());
    }

    void viewForwardsEveryIntentToTheController()
    {
        MainWindow w;
        MainWindowView view(w);
        ConsoleIntents* intents = view.intents();
        QSignalSpy levers(intents, &ConsoleIntents::leversChanged);
        QSignalSpy fault(intents, &ConsoleIntents::faultRequested);
        QSignalSpy capability(intents, &ConsoleIntents::capabilityToggled);
        QSignalSpy redeploy(intents, &ConsoleIntents::redeployRequested);
        QSignalSpy play(intents, &ConsoleIntents::playRequested);
        QSignalSpy stop(intents, &ConsoleIntents::stopRequested);
        QSignalSpy pause(intents, &ConsoleIntents::pauseToggled);
        QSignalSpy compare(intents, &ConsoleIntents::compareRequested);
        QSignalSpy record(intents, &ConsoleIntents::recordRequested);
        QSignalSpy openRecording(intents, &ConsoleIntents::openRecordingRequested);
        emit w.leversChanged(preset("lever1"));
        emit w.faultRequested(TimelineEvent{});
        emit w.capabilityToggled(false);
        emit w.redeployRequested(QStringLiteral("Z28061"));
        emit w.playRequested(QStringLiteral("live-gate-lever1"), QStringLiteral("lever1"), 10);
        emit w.stopRequested();
        emit w.pauseToggled();
        emit w.compareRequested(QStringLiteral("live-gate-lever1"));
        emit w.recordRequested(QStringLiteral("runs.sqlite"));
        emit w.openRecordingRequested(QStringLiteral("old.sqlite"));
        for (QSignalSpy* spy : {&levers, &fault, &capability, &redeploy, &play, &stop, &pause,
                                &compare, &record, &openRecording})
            QCOMPARE(spy->count(), 1);
        QCOMPARE(record.at(0).at(0).toString(), QStringLiteral("runs.sqlite"));
        QCOMPARE(openRecording.at(0).at(0).toString(), QStringLiteral("old.sqlite"));
        QCOMPARE(redeploy.at(0).at(0).toString(), QStringLiteral("Z28061"));
        QCOMPARE(play.at(0).at(2).toDouble(), 10.0);
        // Every intent the interface declares is covered above.
        const QMetaObject& meta = ConsoleIntents::staticMetaObject;
        int declared = 0;
        for (int i = meta.methodOffset(); i < meta.methodCount(); ++i)
            declared += meta.method(i).methodType() == QMetaMethod::Signal;
        QCOMPARE(declared, 10);
    }

    void settingsRoundTripThroughAnIniFile()
    {
        const QString ini = m_dir->filePath("stormwatch.ini");
        LeverSet custom = preset("lever1");
        custom.sessionCommandTimeoutMs = 45'000;
        {
            MainWindow w;
            w.setSettingsFile(ini);
            w.restoreSettings();
            w.show();
            w.resize(1234, 777);
            w.setTheme(Theme::Dark);
            w.setLevers(custom);
            w.setGatewaySummary(QStringLiteral("gw.plant.local:5001"), QStringLiteral("normal"));
            w.findChild<QDockWidget*>("dockTopology")->hide();
            // The plots' aggregate limit, set in the Subscriptions dock as a person does.
            auto* lines = w.findChild<QSpinBox*>("aggregateAbove");
            lines->setFocus();
            lines->selectAll();
            QTest::keyClicks(lines, QStringLiteral("75"));
            QTest::keyClick(lines, Qt::Key_Enter);
            QCOMPARE(w.plots()->aggregateAbove(), 75);
            w.close(); // saves
        }
        QVERIFY(QFile::exists(ini));
        MainWindow w;
        w.setSettingsFile(ini);
        QSignalSpy levers(&w, &MainWindow::leversChanged);
        w.restoreSettings();
        w.show();
        QCOMPARE(w.levers(), custom);
        QCOMPARE(levers.count(), 1); // the restored set is applied, not only shown
        QCOMPARE(w.theme(), Theme::Dark);
        QVERIFY(child<QAction>(w, "actionDarkTheme")->isChecked());
        QCOMPARE(w.lastGatewayAddress(), QStringLiteral("gw.plant.local:5001"));
        QCOMPARE(w.size(), QSize(1234, 777));
        QVERIFY(!w.findChild<QDockWidget*>("dockTopology")->isVisible());
        QVERIFY(w.findChild<QDockWidget*>("dockLevers")->isVisible());
        QCOMPARE(w.plots()->aggregateAbove(), 75);
        QCOMPARE(w.findChild<QSpinBox*>("aggregateAbove")->value(), 75); // the dock says so too
        w.setTheme(Theme::Light);
    }

    void themeSwitchChangesThePalette()
    {
        MainWindow w;
        w.setTheme(Theme::Light);
        const QColor light = QApplication::palette().color(QPalette::Window);
        QCOMPARE(light, themePalette(Theme::Light).color(QPalette::Window));
        child<QAction>(w, "actionDarkTheme")->trigger();
        QCOMPARE(w.theme(), Theme::Dark);
        const QColor dark = QApplication::palette().color(QPalette::Window);
        QCOMPARE(dark, themePalette(Theme::Dark).color(QPalette::Window));
        QVERIFY(dark.lightness() < light.lightness());
        QCOMPARE(w.palette().color(QPalette::Window), dark);
        QVERIFY(qApp->styleSheet().contains("errorBanner"));
        w.setTheme(Theme::Light);
    }

    void exportsWriteFiles()
    {
        MainWindow w;
        w.setSettingsFile(m_dir->filePath("s.ini"));
        QVERIFY(!w.exportCsv(m_dir->filePath("empty.csv"))); // nothing yet
        feedDemoData(w);
        w.show();
        const QString png = m_dir->filePath("plots.png");
        QVERIFY(w.exportPng(png));
        QVERIFY(!QImage(png).isNull());
        const QString csv = m_dir->filePath("series.csv");
        QVERIFY(w.exportCsv(csv));
        QFile f(csv);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(f.readAll().contains("outstanding"));
    }

    void grabbedWindowLaysOutEveryDock()
    {
        // Also the screenshot helper: STORMWATCH_SCREENSHOT=path writes the grab there.
        MainWindow w;
        w.setSettingsFile(m_dir->filePath("s.ini"));
        w.setScenarioNames(bundledScenarioNames());
        feedDemoData(w);
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        const QImage image = w.grab().toImage();
        QVERIFY(!image.isNull());
        QCOMPARE(image.size(), QSize(1600, 1000));
        const QString out = qEnvironmentVariable("STORMWATCH_SCREENSHOT");
        if (!out.isEmpty())
            QVERIFY(image.save(out));
        // Every dock visible with room for its content; the plots get the biggest area.
        QWidget* plot = w.centralWidget();
        const int plotArea = plot->width() * plot->height();
        for (const QString& name : kDocks) {
            auto* d = w.findChild<QDockWidget*>(name);
            QVERIFY2(d->isVisible(), qPrintable(name));
            QVERIFY2(
                d->width() >= 200 && d->height() >= 120,
                qPrintable(QStringLiteral("%1 %2x%3").arg(name).arg(d->width()).arg(d->height())));
            QVERIFY2(d->width() * d->height() < plotArea, qPrintable(name));
        }
    }

private:
    std::unique_ptr<QTemporaryDir> m_dir;
};

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
