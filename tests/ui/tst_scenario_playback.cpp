// Virtual playback: a scenario variant replayed on a worker thread, paced or at max speed,
// feeding the same store and models as the live client.

#include "support_fake_view.h"

#include "scenario/scenario_parser.h"
#include "ui/console_controller.h"
#include "ui/scenario_playback.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QLoggingCategory>
#include <QtTest>

#include <algorithm>

using namespace stormwatch;
using stormwatch::test::FakeView;

namespace {

constexpr int kTimeoutMs = 20000;

Scenario liveGate()
{
    QList<ScenarioError> errors;
    auto s = loadScenario(QStringLiteral("live-gate-lever1"), &errors);
    Q_ASSERT(s);
    return *s;
}

double maxOf(const QVector<QPointF>& series)
{
    double m = 0;
    for (const QPointF& p : series)
        m = std::max(m, p.y());
    return m;
}

} // namespace

class TestScenarioPlayback : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        // The replays refuse sessions on purpose: their client warnings are expected.
        QLoggingCategory::setFilterRules(QStringLiteral("stormwatch.*.warning=false"));
    }

    void maxSpeedFillsTheStoreAndFinishesWithTheLiveGateFigures_data()
    {
        QTest::addColumn<QString>("variant");
        QTest::addColumn<int>("requests");
        QTest::addColumn<int>("maxOutstanding");
        QTest::addColumn<int>("minSteps"); // of the outstanding series
        // Levers off: 1, 2, ... 22 outstanding, one more every 5 s; lever1: 1 throughout.
        QTest::newRow("levers-off") << "levers-off" << 22 << 22 << 10;
        QTest::newRow("lever1") << "lever1" << 3 << 1 << 1;
    }

    void maxSpeedFillsTheStoreAndFinishesWithTheLiveGateFigures()
    {
        QFETCH(QString, variant);
        QFETCH(int, requests);
        QFETCH(int, maxOutstanding);
        QFETCH(int, minSteps);
        FakeView view;
        ConsoleController c(&view);
        QSignalSpy finished(&c, &ConsoleController::playbackFinished);
        emit view.intents()->playRequested(QStringLiteral("live-gate-lever1"), variant, ScenarioPlayback::kMaxSpeed);
        QVERIFY2(view.errors.isEmpty(), qPrintable(view.errors.join('\n')));
        QVERIFY(view.playing);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeoutMs);
        const auto run = finished.first().first().value<QSharedPointer<VariantRun>>();
        QCOMPARE(run->metrics.subscribeRequests, qint64(requests));
        QCOMPARE(run->metrics.maxOutstanding, maxOutstanding);

        const SubscriptionKey key{0, false};
        QVERIFY(view.store()->contains(key));
        const QVector<QPointF>& outstanding = view.store()->series(key, SubMetric::Outstanding);
        QVERIFY2(outstanding.size() >= minSteps, qPrintable(QString::number(outstanding.size())));
        QCOMPARE(maxOf(outstanding), double(maxOutstanding));
        QCOMPARE(view.store()->series(key, SubMetric::RequestsSent).last().y(), double(requests));
        QVERIFY(view.store()->latestTime() > 100); // virtual seconds of the 110 s run
        QCOMPARE(view.connectionState("gw1"), QStringLiteral("waiting to reconnect"));
        QVERIFY(view.logContains(QStringLiteral("timeline")));
        QVERIFY(view.logContains(QStringLiteral("subscribe_requests %1,").arg(requests)));
        QVERIFY(!view.playing);
        QCOMPARE(view.progress, 1.0);
    }

    void pacedAtTenTimesAdvancesAboutTenVirtualSecondsPerWallSecond()
    {
        ScenarioPlayback playback;
        double virtualS = 0;
        connect(&playback, &ScenarioPlayback::progress, this, [&](double t, double) { virtualS = t; });
        QString error;
        QElapsedTimer wall;
        wall.start();
        QVERIFY2(playback.start(liveGate(), QStringLiteral("lever1"), 10, &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(virtualS >= 10, 5000);
        const qint64 ms = wall.elapsed();
        // 10 virtual seconds take about one wall second at 10×: never much faster, and
        // not much slower either (loose for a loaded machine).
        QVERIFY2(ms >= 850, qPrintable(QString::number(ms)));
        QVERIFY2(ms <= 3000, qPrintable(QString::number(ms)));
        QVERIFY2(virtualS <= 10.0 * double(wall.elapsed()) / 1000.0 + 1.0, qPrintable(QString::number(virtualS)));
        playback.stop();
    }

    void stopMidRunIsClean()
    {
        ScenarioPlayback playback;
        QSignalSpy progress(&playback, &ScenarioPlayback::progress);
        QSignalSpy stopped(&playback, &ScenarioPlayback::stopped);
        QSignalSpy finished(&playback, &ScenarioPlayback::finished);
        QString error;
        QVERIFY2(playback.start(liveGate(), QStringLiteral("levers-off"), 1, &error), qPrintable(error));
        QVERIFY(playback.running());
        QTRY_VERIFY_WITH_TIMEOUT(progress.count() >= 2, 5000);
        playback.stop();
        QVERIFY(!playback.running());
        QCOMPARE(stopped.count(), 1);
        const int after = int(progress.count());
        QCoreApplication::processEvents(); // steps queued before the stop are dropped
        QCOMPARE(int(progress.count()), after);
        QCOMPARE(finished.count(), 0);
        QVERIFY(playback.virtualS() < playback.durationS());
        // And it plays again afterwards.
        QVERIFY2(playback.start(liveGate(), QStringLiteral("lever1"), ScenarioPlayback::kMaxSpeed, &error), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeoutMs);
    }

    void pauseHoldsVirtualTimeAndResumeContinues()
    {
        ScenarioPlayback playback;
        QString error;
        QVERIFY2(playback.start(liveGate(), QStringLiteral("lever1"), 60, &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(playback.virtualS() > 0, 5000);
        playback.setPaused(true);
        QVERIFY(playback.paused());
        // Let any step taken before the pause arrive, then hold for a while.
        QElapsedTimer hold;
        hold.start();
        QTRY_VERIFY_WITH_TIMEOUT(hold.elapsed() >= 150, 2000);
        const double pausedAt = playback.virtualS();
        hold.restart();
        QTRY_VERIFY_WITH_TIMEOUT(hold.elapsed() >= 400, 2000); // 24 virtual s at 60× were it running
        QCOMPARE(playback.virtualS(), pausedAt);
        playback.setPaused(false);
        QTRY_VERIFY_WITH_TIMEOUT(playback.virtualS() > pausedAt, 5000);
        playback.stop();
    }

    void unknownVariantIsRefusedWithTheVariantList()
    {
        ScenarioPlayback playback;
        QString error;
        QVERIFY(!playback.start(liveGate(), QStringLiteral("nope"), 1, &error));
        QVERIFY2(error.contains("levers-off") && error.contains("lever1"), qPrintable(error));
        QVERIFY(!playback.running());
    }
};

QTEST_MAIN(TestScenarioPlayback)
#include "tst_scenario_playback.moc"
