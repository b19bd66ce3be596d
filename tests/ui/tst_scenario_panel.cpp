// The Scenario dock's transport for a scenario played live over gRPC: a bounded run (its
// progress fills) that has Stop but no Pause — its gateway and timeline go on in wall time.
// After a playback the dock shows the scenario and variant just played, however it was
// started and whatever was opened while it ran (real clicks, keys and a real drop).

#include "scenario/run_host.h"
#include "scenario/scenario_parser.h"
#include "ui/console_controller.h"
#include "ui/main_window.h"
#include "ui/main_window_view.h"
#include "ui/scenario_panel.h"

#include <QAbstractItemView>
#include <QComboBox>
#include <QDropEvent>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLoggingCategory>
#include <QMimeData>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace stormwatch;

namespace {

constexpr int kRunTimeoutMs = 120000;

// Picks the item whose data (or text) is `value` as a person does: a click opens the list,
// the arrow keys move to it, Return takes it.
void choose(QComboBox* combo, const QString& value)
{
    int target = combo->findData(value);
    if (target < 0)
        target = combo->findText(value);
    QVERIFY2(target >= 0, qPrintable(value));
    QTest::mouseClick(combo, Qt::LeftButton);
    QAbstractItemView* list = combo->view();
    QTRY_VERIFY(list->isVisible());
    for (int i = combo->currentIndex(); i < target; ++i)
        QTest::keyClick(list, Qt::Key_Down);
    for (int i = combo->currentIndex(); i > target; --i)
        QTest::keyClick(list, Qt::Key_Up);
    QTest::keyClick(list, Qt::Key_Return);
    QTRY_VERIFY(!list->isVisible());
    QCOMPARE(combo->currentIndex(), target);
}

#define CHOOSE(combo, value)                                                                       \
    do {                                                                                           \
        choose(combo, value);                                                                      \
        if (QTest::currentTestFailed())                                                            \
            return;                                                                                \
    } while (false)

QString writeOtherScenario(const QTemporaryDir& dir)
{
    const QJsonObject o{
        {"name", "dropped"},
        {"description", "a scenario dropped on the window"},
        {"duration_s", 30},
        {"seed", 5},
        {"gateway", QJsonObject{{"command_ms", 0.2}, {"per_item_ms", 0.01}, {"data_hz", 10}}},
        {"connections", QJsonArray{QJsonObject{{"name", "gw1"}, {"write_user_id", 0}}}},
        {"instances",
         QJsonArray{QJsonObject{{"name", "inst-d"}, {"connection", "gw1"}, {"tags", 5}}}},
        {"variants", QJsonArray{QStringLiteral("lever1")}},
    };
    const QString path = dir.filePath(QStringLiteral("dropped.json"));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(QJsonDocument(o).toJson()) < 0)
        return {};
    return path;
}

void drop(QWidget& window, const QString& path)
{
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(path)});
    const QPoint at = window.rect().center();
    QDragEnterEvent enter(at, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent event(at, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &event);
}

} // namespace

class TestScenarioPanel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QLoggingCategory::setFilterRules(QStringLiteral("stormwatch.*.warning=false"));
    }

    // A scenario chosen and played from the dock; another file dropped on the window while
    // it runs. Once it is over, the dock shows what was played, not the dropped file; a
    // choice made after that is the person's and stays.
    void playedScenarioIsSelectedWhenThePlaybackEnds()
    {
        QTemporaryDir dir;
        const QString other = writeOtherScenario(dir);
        QVERIFY(!other.isEmpty());
        MainWindow w;
        w.setSettingsFile(dir.filePath("s.ini"));
        w.restoreSettings();
        MainWindowView view(w);
        ConsoleController controller(&view);
        controller.loadDemoScenario();
        QString error;
        QVERIFY2(controller.startEmbedded(&error), qPrintable(error));
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        ScenarioPanel* panel = w.scenarioPanel();
        auto* scenario = panel->findChild<QComboBox*>(QStringLiteral("scenario"));
        auto* variant = panel->findChild<QComboBox*>(QStringLiteral("variant"));
        auto* speed = panel->findChild<QComboBox*>(QStringLiteral("speed"));
        auto* play = panel->findChild<QPushButton*>(QStringLiteral("play"));
        QVERIFY(scenario && variant && speed && play);

        CHOOSE(scenario, QStringLiteral("capability-fallback"));
        CHOOSE(variant, QStringLiteral("lever1+2"));
        CHOOSE(speed, QStringLiteral("10×"));
        QTest::mouseClick(play, Qt::LeftButton);
        QTRY_VERIFY(controller.host()->running() && controller.showingPlayback());
        QCOMPARE(controller.host()->scenarioName(), QStringLiteral("capability-fallback"));
        QVERIFY(controller.host()->running());
        drop(w, other); // opens in the dock while the playback runs
        QVERIFY2(panel->currentScenario() == other, qPrintable(panel->description()));
        // The dock shows the dropped file, and still says what plays.
        QCOMPARE(panel->findChild<QLabel*>(QStringLiteral("nowRunning"))->text(),
                 QStringLiteral("Now playing: capability-fallback / lever1+2"));
        QTRY_VERIFY_WITH_TIMEOUT(controller.host()->state() == RunHost::State::Finished,
                                 kRunTimeoutMs);
        QTRY_COMPARE(panel->currentScenario(), QStringLiteral("capability-fallback"));
        QCOMPARE(scenario->currentText(), QStringLiteral("capability-fallback"));
        QCOMPARE(panel->currentVariant(), QStringLiteral("lever1+2"));
        QVERIFY(play->isEnabled());

        CHOOSE(scenario, QStringLiteral("live-gate-lever1"));
        // A refresh says the same state again (the window passes on only a change, and a
        // finished playback sends none): the dock itself keeps the person's choice.
        panel->setRunState(panel->runState());
        QCOMPARE(panel->currentScenario(), QStringLiteral("live-gate-lever1"));
        QVERIFY(play->isEnabled());
    }

    // A playback started elsewhere than the dock (the screenshots, --play): the dock moves to
    // it when it starts and still shows it when it is over.
    void playbackStartedElsewhereIsSelected()
    {
        QTemporaryDir dir;
        MainWindow w;
        w.setSettingsFile(dir.filePath("s.ini"));
        w.restoreSettings();
        MainWindowView view(w);
        ConsoleController controller(&view);
        controller.loadDemoScenario();
        QString error;
        QVERIFY2(controller.startEmbedded(&error), qPrintable(error));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        ScenarioPanel* panel = w.scenarioPanel();
        auto* now = panel->findChild<QLabel*>(QStringLiteral("nowRunning"));
        QVERIFY(now && now->isVisible());
        QCOMPARE(panel->currentScenario(), QStringLiteral("subscribe-storm"));
        // The dock says what runs now: the scenario chosen below is only what Play plays.
        QCOMPARE(now->text(),
                 QStringLiteral("Now: the live run. Play plays the scenario chosen below."));
        emit view.intents()->playRequested(QStringLiteral("capability-fallback"),
                                           QStringLiteral("levers-off"), 0);
        QCOMPARE(panel->currentScenario(), QStringLiteral("capability-fallback"));
        QCOMPARE(panel->currentVariant(), QStringLiteral("levers-off"));
        QTRY_VERIFY_WITH_TIMEOUT(controller.host()->state() == RunHost::State::Finished,
                                 kRunTimeoutMs);
        QCOMPARE(panel->currentScenario(), QStringLiteral("capability-fallback"));
        QCOMPARE(panel->currentVariant(), QStringLiteral("levers-off"));
        QCOMPARE(panel->findChild<QComboBox*>(QStringLiteral("scenario"))->toolTip(),
                 QStringLiteral("capability-fallback"));
        QTRY_COMPARE(
            now->text(),
            QStringLiteral("Shown: capability-fallback / levers-off, a playback that is over."));
        // Back to live: the dock keeps the last choice (nothing is played), and says the
        // live run is what runs.
        QTest::mouseClick(panel->findChild<QPushButton*>(QStringLiteral("stop")), Qt::LeftButton);
        QTRY_VERIFY(!controller.showingPlayback());
        QCOMPARE(panel->currentScenario(), QStringLiteral("capability-fallback"));
        QTRY_COMPARE(now->text(),
                     QStringLiteral("Now: the live run. Play plays the scenario chosen below."));
    }

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
        panel.setRunState(RunState{true, true, false, true, 0.25, -1,
                                   QStringLiteral("live-gate-lever1 / lever1 — live")});
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
