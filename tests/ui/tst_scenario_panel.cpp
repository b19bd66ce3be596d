// The Scenario dock's transport for a scenario played live over gRPC: a bounded run (its
// progress fills) that has Stop but no Pause — its gateway and timeline go on in wall time.

#include "scenario/scenario_parser.h"
#include "ui/scenario_panel.h"

#include <QPushButton>
#include <QSignalSpy>
#include <QtTest>

using namespace stormwatch;

class TestScenarioPanel : public QObject {
    Q_OBJECT

private slots:
    void liveRunHasStopButNoPause()
    {
        ScenarioPanel panel;
        panel.setScenarioNames(bundledScenarioNames());
        QVERIFY(panel.loadScenario(QStringLiteral("live-gate-lever1")));
        auto* pause = panel.findChild<QPushButton*>(QStringLiteral("pause"));
        auto* stop = panel.findChild<QPushButton*>(QStringLiteral("stop"));
        QVERIFY(pause && stop);
        QSignalSpy play(&panel, &ScenarioPanel::playRequested);
        QSignalSpy paused(&panel, &ScenarioPanel::pauseToggled);
        QSignalSpy stopped(&panel, &ScenarioPanel::stopRequested);

        panel.setSpeed(-1);
        panel.togglePlay();
        QCOMPARE(play.count(), 1);
        QCOMPARE(play.first().at(2).toDouble(), -1.0); // reaches ConsoleController::playLive
        panel.setRunState(RunState{true, true, false, true, 0.25, -1, QStringLiteral("live-gate-lever1 / lever1 — live")});
        QVERIFY(!pause->isEnabled());
        QVERIFY(stop->isEnabled());
        panel.togglePlay(); // Space
        QCOMPARE(paused.count(), 0);
        QCOMPARE(stopped.count(), 1);

        panel.setRunState(RunState{true, false, false, true, 1.0, -1, QString()});
        panel.setSpeed(10);
        panel.setRunState(RunState{true, true, false, false, 0.25, 10, QString()});
        QVERIFY(pause->isEnabled()); // a virtual run pauses
        panel.togglePlay();
        QCOMPARE(paused.count(), 1);
    }
};

QTEST_MAIN(TestScenarioPanel)
#include "tst_scenario_panel.moc"
