// Scenario playback: a variant replayed on a worker thread in virtual time (paced or at max
// speed) or run live over gRPC against an embedded mock gateway, feeding the same store and
// models as the live client; the engine's own log lines and lever changes mid-run.

#include "gateway/gateway_model.h"
#include "gateway/mock_gateway_server.h"
#include "scenario/run_host.h"
#include "scenario/scenario_parser.h"
#include "scenario/support_short_live.h"
#include "support_fake_view.h"
#include "ui/console_controller.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QSignalSpy>
#include <QThread>
#include <QtTest>
#include <algorithm>
#include <cmath>

using namespace stormwatch;
using stormwatch::test::FakeView;
using stormwatch::testsupport::shortLive;

namespace {

constexpr int kTimeoutMs = 20000;

Scenario liveGate()
{
    QList<ScenarioError> errors;
    auto s = loadScenario(QStringLiteral("live-gate-lever1"), &errors);
    Q_ASSERT(s);
    return *s;
}

// The latest quality of every tag, as the stream of changes leaves it.
struct TagQualities {
    QHash<qint64, int> quality;
    void add(const QVector<TagChange>& changes)
    {
        for (const TagChange& t : changes)
            quality.insert((qint64(t.instance) << 32) | quint32(t.tag), t.quality);
    }
    int good() const { return int(std::count(quality.cbegin(), quality.cend(), 192)); }
};

bool anyLog(const QVector<LogEntry>& log, const QString& subject, const QString& fragment)
{
    return std::any_of(log.begin(), log.end(), [&](const LogEntry& e) {
        return (subject.isEmpty() || e.subject == subject) && e.message.contains(fragment);
    });
}

// Two gateways, as a site scenario has them: a connection per gateway, an instance each.
Scenario twoGateways()
{
    Scenario s;
    s.name = "two-gateways";
    s.description = "a console fault on one gateway";
    s.durationS = 600;
    s.gateway.dataHz = 2;
    s.connections = {ScenarioConnection{"gw-a", 0, "gw-a"}, ScenarioConnection{"gw-b", 0, "gw-b"}};
    for (const char* name : {"A", "B"}) {
        ScenarioInstance i;
        i.name = name;
        i.connection = QStringLiteral("gw-") + QString(name).toLower();
        i.tags = 10;
        i.tagPrefix = i.name + ".Attr";
        s.instances << i;
    }
    s.variants = {VariantSpec{"lever1+2", QJsonValue("lever1+2")}};
    return s;
}

double maxOf(const QVector<QPointF>& series)
{
    double m = 0;
    for (const QPointF& p : series)
        m = std::max(m, p.y());
    return m;
}

} // namespace

class TestRunHost : public QObject {
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
        emit view.intents()->playRequested(QStringLiteral("live-gate-lever1"), variant,
                                           RunHost::kMaxSpeed);
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
        QVERIFY(
            view.logContains(QStringLiteral("connection unreachable")));  // every session refused
        QCOMPARE(view.connectionState("gw1"), QStringLiteral("stopped")); // and the run is over
        QVERIFY(view.logContains(QStringLiteral("timeline")));
        QVERIFY(view.logContains(QStringLiteral("subscribe_requests %1,").arg(requests)));
        QVERIFY(!view.playing);
        QCOMPARE(view.progress, 1.0);
    }

    // One recorder: the console's plots and the run's report are the same series, point
    // for point (the store holds the retry interval in seconds, the recorder in ms).
    void plotsAndReportComeFromTheSameRecorder()
    {
        FakeView view;
        ConsoleController c(&view);
        QSignalSpy finished(&c, &ConsoleController::playbackFinished);
        emit view.intents()->playRequested(QStringLiteral("incident-2026-08-26"),
                                           QStringLiteral("lever1"), RunHost::kMaxSpeed);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeoutMs);
        const auto run = finished.first().first().value<QSharedPointer<VariantRun>>();
        const SeriesSet& recorded = run->series;
        int compared = 0;
        for (const Series& s : recorded.all()) {
            const QVector<QPointF>* plotted = nullptr;
            double scale = 1.0;
            if (s.subject() == QLatin1String("gateway")) {
                for (int m = 0; m < kGatewayMetricCount; ++m)
                    if (metricName(GatewayMetric(m)) == s.metric())
                        plotted = &view.store()->gatewaySeries(GatewayMetric(m));
            } else {
                const int instance = s.subject().startsWith(QLatin1String("Z28062/")) ? 0 : 1;
                for (int m = 0; m < kSubMetricCount; ++m)
                    if (metricName(SubMetric(m)) == s.metric()) {
                        plotted =
                            &view.store()->series(SubscriptionKey{instance, false}, SubMetric(m));
                        scale = SubMetric(m) == SubMetric::IntervalS ? 1000.0 : 1.0;
                    }
            }
            if (!plotted)
                continue; // a series the plots do not draw (suppressed_calls total, orphaned_tags)
            QCOMPARE(qsizetype(s.points().size()), plotted->size());
            for (std::size_t k = 0; k < s.points().size(); ++k) {
                QCOMPARE(plotted->at(qsizetype(k)).x(), s.points()[k].tS);
                QCOMPARE(plotted->at(qsizetype(k)).y() * scale, s.points()[k].value);
            }
            ++compared;
        }
        QVERIFY2(compared >= 2 * 6 + 4, qPrintable(QString::number(compared)));
    }

    void pacedAtTenTimesAdvancesAboutTenVirtualSecondsPerWallSecond()
    {
        RunHost playback;
        double virtualS = 0;
        connect(&playback, &RunHost::progress, this, [&](double t, double) { virtualS = t; });
        QString error;
        QElapsedTimer wall;
        wall.start();
        QVERIFY2(playback.start(liveGate(), QStringLiteral("lever1"), 10, &error),
                 qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(virtualS >= 10, 5000);
        const qint64 ms = wall.elapsed();
        // 10 virtual seconds take about one wall second at 10×: never much faster, and
        // not much slower either (loose for a loaded machine).
        QVERIFY2(ms >= 850, qPrintable(QString::number(ms)));
        QVERIFY2(ms <= 3000, qPrintable(QString::number(ms)));
        QVERIFY2(virtualS <= 10.0 * double(wall.elapsed()) / 1000.0 + 1.0,
                 qPrintable(QString::number(virtualS)));
        playback.stop();
    }

    void stopMidRunIsClean()
    {
        RunHost playback;
        QSignalSpy progress(&playback, &RunHost::progress);
        QSignalSpy stopped(&playback, &RunHost::stopped);
        QSignalSpy finished(&playback, &RunHost::finished);
        QString error;
        QVERIFY2(playback.start(liveGate(), QStringLiteral("levers-off"), 1, &error),
                 qPrintable(error));
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
        QVERIFY2(playback.start(liveGate(), QStringLiteral("lever1"), RunHost::kMaxSpeed, &error),
                 qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeoutMs);
    }

    void pauseHoldsVirtualTimeAndResumeContinues()
    {
        RunHost playback;
        QString error;
        QVERIFY2(playback.start(liveGate(), QStringLiteral("lever1"), 60, &error),
                 qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(playback.virtualS() > 0, 5000);
        playback.setPaused(true);
        QVERIFY(playback.paused());
        // Let any step taken before the pause arrive, then hold for a while.
        QElapsedTimer hold;
        hold.start();
        QTRY_VERIFY_WITH_TIMEOUT(hold.elapsed() >= 150, 2000);
        const double pausedAt = playback.virtualS();
        hold.restart();
        QTRY_VERIFY_WITH_TIMEOUT(hold.elapsed() >= 400,
                                 2000); // 24 virtual s at 60× were it running
        QCOMPARE(playback.virtualS(), pausedAt);
        playback.setPaused(false);
        QTRY_VERIFY_WITH_TIMEOUT(playback.virtualS() > pausedAt, 5000);
        playback.stop();
    }

    // Live over gRPC: the runner, its scheduler and its embedded mock live on the worker
    // thread; every tag goes Good, the steps reach the end in about the run's wall time.
    void liveRunFillsSamplesTagsGoGoodAndFinishes()
    {
        RunHost playback;
        TagQualities tags;
        QVector<LogEntry> log;
        QVector<SubscriptionSample> samples;
        double lastProgress = -1, lastDuration = 0;
        bool progressMonotonic = true;
        connect(&playback, &RunHost::tagChanges, this, [&](const auto& c) { tags.add(c); });
        connect(&playback, &RunHost::logEntries, this, [&](const auto& e) { log += e; });
        connect(&playback, &RunHost::subscriptionSamples, this,
                [&](const auto& s) { samples += s; });
        connect(&playback, &RunHost::progress, this, [&](double t, double d) {
            progressMonotonic = progressMonotonic && t >= lastProgress;
            lastProgress = t;
            lastDuration = d;
        });
        QSignalSpy gateway(&playback, &RunHost::gatewayPoint);
        QSignalSpy series(&playback, &RunHost::seriesUpdates);
        QSignalSpy connections(&playback, &RunHost::connectionInfo);
        QSignalSpy finished(&playback, &RunHost::finished);
        QString error;
        QElapsedTimer wall;
        wall.start();
        QVERIFY2(playback.startLive(shortLive(2.0, 20), QString(), LiveOptions{}, &error),
                 qPrintable(error));
        QVERIFY(playback.running());
        QVERIFY(playback.live());
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeoutMs);
        const qint64 ms = wall.elapsed();
        QVERIFY2(ms >= 1900, qPrintable(QString::number(ms))); // live: wall time
        QVERIFY(!playback.running());                          // the worker is joined

        QVERIFY(progressMonotonic);
        QCOMPARE(lastProgress, 2.0);
        QCOMPARE(lastDuration, 2.0);
        QCOMPARE(tags.quality.size(), 20);
        QCOMPARE(tags.good(), 20);
        QVERIFY2(samples.size() >= 10,
                 qPrintable(QString::number(samples.size()))); // a sample a step
        // Run times: from the start, within the run.
        for (const SubscriptionSample& s : samples)
            QVERIFY2(s.tS >= 0 && s.tS <= 2.1, qPrintable(QString::number(s.tS)));
        QCOMPARE(samples.last().good, 20);
        QCOMPARE(samples.last().requestsSent, qint64(1));
        QVERIFY(gateway.count() >= 10);
        // The embedded mock's own counters reach the plots through the run's recorder: its
        // STA queue, and the Invoke calls it served in the first second.
        bool staQueue = false;
        double invokes = 0;
        for (const QList<QVariant>& call : series)
            for (const SeriesUpdate& u : call.first().value<QVector<SeriesUpdate>>()) {
                staQueue =
                    staQueue || (u.instance < 0 && u.metric == QLatin1String("sta_queue_depth"));
                if (u.instance < 0 && u.metric == QLatin1String("invoke_rpcs_per_s"))
                    for (const QPointF& p : u.points)
                        invokes += p.y();
            }
        QVERIFY(staQueue);
        QVERIFY(invokes >= 2); // register + SubscribeBulk
        QVERIFY(connections.count() >= 1);
        // The engine's own lines, not only the timeline's and the connection states.
        QVERIFY(anyLog(log, QStringLiteral("engine"), QStringLiteral("levers:")));
        QVERIFY(anyLog(log, QStringLiteral("inst-a"), QStringLiteral("deployed with 20 tags")));
        QVERIFY(anyLog(log, QStringLiteral("gw1"), QStringLiteral("session")));
        QVERIFY(anyLog(log, QStringLiteral("playback"), QStringLiteral("live over gRPC")));

        const auto run = finished.first().first().value<QSharedPointer<VariantRun>>();
        QCOMPARE(run->metrics.subscribeRequests, qint64(1));
        QVERIFY(run->metrics.timeToAllGoodS.has_value());
        QCOMPARE(run->metrics.gatewayMetricsSource, QStringLiteral("gateway"));
        qInfo("live playback: 2 s run finished after %lld ms of wall time, %d samples", ms,
              int(samples.size()));
    }

    void liveStopMidRunIsPromptAndClean()
    {
        RunHost playback;
        TagQualities tags;
        connect(&playback, &RunHost::tagChanges, this, [&](const auto& c) { tags.add(c); });
        QSignalSpy progress(&playback, &RunHost::progress);
        QSignalSpy stopped(&playback, &RunHost::stopped);
        QSignalSpy finished(&playback, &RunHost::finished);
        QString error;
        QVERIFY2(playback.startLive(shortLive(30, 10), QString(), LiveOptions{}, &error),
                 qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(tags.good(), 10, kTimeoutMs);
        // A live run has no pause: time goes on at its gateway.
        playback.setPaused(true);
        QVERIFY(!playback.paused());
        QElapsedTimer wall;
        wall.start();
        playback.stop();
        const qint64 stopMs = wall.elapsed();
        QVERIFY(!playback.running());
        QCOMPARE(stopped.count(), 1);
        QVERIFY2(stopMs < 1000, qPrintable(QString::number(stopMs)));
        const int after = int(progress.count());
        QCoreApplication::processEvents(); // steps queued before the stop are dropped
        QCOMPARE(int(progress.count()), after);
        QCOMPARE(finished.count(), 0);
        QVERIFY(playback.virtualS() < 5);
        qInfo("live playback: stop() took %lld ms (the runner and its embedded gateway torn down)",
              stopMs);
        // And it plays again afterwards (in virtual time: quicker).
        QVERIFY2(playback.start(shortLive(2, 10), QString(), RunHost::kMaxSpeed, &error),
                 qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeoutMs);
        QVERIFY(!playback.live());
    }

    // The UI thread never sees a signal per tag update: at 10,000 updates a second the
    // changes arrive in at most one batch a step, on the thread that owns the host.
    void liveTagChangesArriveBatchedOnTheOwningThread()
    {
        Scenario s = shortLive(30, 200);
        s.gateway.dataHz = 50;
        RunHost host;
        int tagBatches = 0;
        QThread* receivedOn = nullptr;
        TagQualities tags;
        connect(&host, &RunHost::tagChanges, this, [&](const QVector<TagChange>& changes) {
            ++tagBatches;
            receivedOn = QThread::currentThread();
            tags.add(changes);
        });
        QString error;
        QVERIFY2(host.startLive(s, QString(), LiveOptions{}, &error), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(tags.good(), 200, kTimeoutMs);
        QElapsedTimer window;
        window.start();
        const int before = tagBatches;
        QTRY_VERIFY_WITH_TIMEOUT(window.elapsed() >= 1000, 5000);
        const int batches = tagBatches - before;
        const double seconds = window.elapsed() / 1000.0;
        host.stop();
        QCOMPARE(receivedOn, QThread::currentThread());
        QVERIFY2(batches <= int(seconds * 1000 / RunHost::kStepMs) + 2,
                 qPrintable(QString("%1 batches in %2 s").arg(batches).arg(seconds)));
        QVERIFY(batches >= 5); // data kept flowing, in batches
    }

    // What the Connections and Subscriptions panels read: the guard's state of a confirmed
    // subscription and the session the gateway opened.
    void liveSamplesCarryTheGuardStateAndTheSession()
    {
        RunHost host;
        QVector<SubscriptionSample> samples;
        QVector<ConnectionInfo> infos;
        connect(&host, &RunHost::subscriptionSamples, this, [&](const auto& s) { samples += s; });
        connect(&host, &RunHost::connectionInfo, this, [&](const auto& i) { infos = i; });
        QString error;
        QVERIFY2(host.startLive(shortLive(30, 10, QStringLiteral("all")), QString(), LiveOptions{},
                                &error),
                 qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(!samples.isEmpty() && samples.back().good == 10 &&
                                     !infos.isEmpty() && infos[0].state == "connected" &&
                                     !infos[0].sessionId.isEmpty(),
                                 kTimeoutMs);
        host.stop();
        const SubscriptionSample& last = samples.back();
        QCOMPARE(last.instanceName, QString("inst-a"));
        QCOMPARE(last.connection, QString("gw1"));
        QVERIFY(last.confirmed);
        QCOMPARE(last.outstanding, 0);
        QCOMPARE(last.requestsSent, qint64(1));
        QCOMPARE(last.orphaned, 0);
        // Lever 3 in "all": the gateway echoed 60 s, and the guard's ceiling is that plus
        // its 15 s margin.
        QCOMPARE(infos[0].echoedCommandTimeoutS, 60.0);
        QCOMPARE(last.ceilingMs, 75000.0);
        QCOMPARE(infos[0].capabilities.size(), 10);
        QVERIFY(infos[0].supportsSupervisoryBulk);
        QCOMPARE(infos[0].protocolVersion, 3);
    }

    // The console leaves nothing behind on a gateway it watched: stopping a live run closes
    // its session before stop() returns (and closing is not a redeploy), and a second stop
    // does nothing.
    void liveStopClosesTheSessionOnTheGatewayOnce()
    {
        gateway::GatewayConfig g;
        g.dataHz = 2;
        gateway::MockGatewayServer server(g);
        QVERIFY2(server.start(), server.lastError().c_str());
        const auto sessions = [&server] {
            return server.runOnModel([](gateway::GatewayModel& m) { return m.sessionCount(); });
        };
        LiveOptions live;
        live.gateway = GrpcPortOptions{};
        live.gateway->address = server.address();
        RunHost host;
        QSignalSpy stopped(&host, &RunHost::stopped);
        QString error;
        QVERIFY2(host.startLive(shortLive(30, 20), QString(), live, &error), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(sessions(), std::size_t(1), kTimeoutMs);
        host.stop();
        QCOMPARE(sessions(), std::size_t(0));
        QCOMPARE(server.runOnModel([](gateway::GatewayModel& m) {
            return m.invokeRpcs(gateway::CommandKind::RemoveItem);
        }),
                 std::int64_t(0));
        host.stop();
        QCOMPARE(stopped.count(), 1);
        QVERIFY(!host.running());
    }

    void liveRunOfABadGatewayIsRefusedWithTheReason()
    {
        RunHost playback;
        LiveOptions live;
        live.gateway = GrpcPortOptions{};
        live.gateway->address = "nowhere";
        QString error;
        QVERIFY(!playback.startLive(shortLive(2, 3), QString(), live, &error));
        QVERIFY2(error.contains("nowhere"), qPrintable(error));
        QVERIFY(!playback.running());
    }

    // The engine's lines come through, and a step carries at most the cap of them: the
    // rest are counted in one line.
    void engineLogLinesAreForwardedAndCapped()
    {
        RunHost playback;
        playback.setMaxLogLinesPerStep(1);
        QVector<QVector<LogEntry>> batches;
        connect(&playback, &RunHost::logEntries, this,
                [&](const auto& e) { batches.push_back(e); });
        QSignalSpy finished(&playback, &RunHost::finished);
        QString error;
        QVERIFY2(
            playback.start(liveGate(), QStringLiteral("levers-off"), RunHost::kMaxSpeed, &error),
            qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeoutMs);
        QVector<LogEntry> all;
        bool suppressed = false;
        for (const auto& batch : batches) {
            int engineLines = 0;
            for (const LogEntry& e : batch) {
                if (e.subject == QLatin1String("playback") &&
                    e.message.contains("more engine log lines suppressed"))
                    suppressed = true;
                else if (e.subject != QLatin1String("timeline") &&
                         !e.message.startsWith("connection ") && !e.message.startsWith("playing "))
                    ++engineLines;
            }
            QVERIFY2(engineLines <= 1, qPrintable(QString::number(engineLines)));
            all += batch;
        }
        QVERIFY(suppressed); // the first step alone logs the levers, a deploy and a refusal
        // The cap keeps a step's first lines: the run's first engine line is its levers.
        const auto firstEngine = std::find_if(all.begin(), all.end(), [](const LogEntry& e) {
            return e.subject != QLatin1String("playback") && e.subject != QLatin1String("timeline");
        });
        QVERIFY(firstEngine != all.end());
        QCOMPARE(firstEngine->subject, QStringLiteral("engine"));
        QVERIFY2(firstEngine->message.startsWith("levers: "), qPrintable(firstEngine->message));
    }

    // Lever 1 switched on at ~30 s of the levers-off run: the stack of outstanding
    // subscribes stops growing (levers off throughout: 22 requests, 22 outstanding).
    void leverOneSwitchedOnMidRunStopsOutstandingClimbing()
    {
        RunHost playback;
        QVector<SubscriptionSample> samples;
        connect(&playback, &RunHost::subscriptionSamples, this,
                [&](const auto& s) { samples += s; });
        QVector<LogEntry> log;
        connect(&playback, &RunHost::logEntries, this, [&](const auto& e) { log += e; });
        QSignalSpy levers(&playback, &RunHost::leversChanged);
        QSignalSpy finished(&playback, &RunHost::finished);
        QString error;
        QVERIFY2(
            playback.start(liveGate(), QStringLiteral("levers-off"), RunHost::kMaxSpeed, &error),
            qPrintable(error));
        QVERIFY(!playback.levers().inflightGuard);
        QTRY_VERIFY_WITH_TIMEOUT(playback.virtualS() >= 30, kTimeoutMs);
        // Held, so the change lands at a known time (steps already queued may add a few tenths).
        playback.setPaused(true);
        QElapsedTimer hold;
        hold.start();
        QTRY_VERIFY_WITH_TIMEOUT(hold.elapsed() >= 50, 1000);
        const double switchedAt = playback.virtualS();
        LeverSet lever1 = playback.levers();
        lever1.inflightGuard = true;
        lever1.backoff = true;
        playback.applyLevers(lever1);
        playback.setPaused(false);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeoutMs);
        QVERIFY(switchedAt < 35);

        // The engine's own lines (the default cap is far above this run's few).
        QVERIFY(!anyLog(log, QStringLiteral("playback"), QStringLiteral("suppressed")));
        QVERIFY(anyLog(log, QStringLiteral("engine"),
                       QStringLiteral("levers: ") +
                           describeLevers(*leverPreset("levers-off", nullptr))));
        QVERIFY(anyLog(log, QStringLiteral("rig-probe-1"), QStringLiteral("deployed with 3 tags")));
        QVERIFY(anyLog(log, QStringLiteral("gw1"),
                       QStringLiteral("OpenSession failed"))); // the refused sessions
        QVERIFY(anyLog(log, QStringLiteral("engine"),
                       QStringLiteral("levers changed: ") + describeLevers(lever1)));
        QCOMPARE(levers.count(), 1);
        QVERIFY(levers.first().first().value<LeverSet>().inflightGuard);
        QVERIFY(playback.levers().inflightGuard);
        const auto run = finished.first().first().value<QSharedPointer<VariantRun>>();
        // Levers off sends one every 5 s (7 by 30 s); Lever 1 holds until the 45 s ceiling.
        QVERIFY2(run->metrics.subscribeRequests >= 7 && run->metrics.subscribeRequests <= 12,
                 qPrintable(QString::number(run->metrics.subscribeRequests)));
        QVERIFY2(run->metrics.maxOutstanding <= 9,
                 qPrintable(QString::number(run->metrics.maxOutstanding)));
        int before = 0, after = 0; // the most outstanding before and after the switch
        for (const SubscriptionSample& s : samples) {
            int& most = s.tS <= switchedAt ? before : after;
            if (!s.alarm)
                most = std::max(most, s.outstanding);
        }
        QVERIFY2(before >= 6, qPrintable(QString::number(before)));
        QVERIFY2(after <= before + 1,
                 qPrintable(QStringLiteral("%1 after vs %2 before").arg(after).arg(before)));
        qInfo("lever 1 on at %.1f s: %lld requests, max outstanding %d (levers off throughout: 22, "
              "22)",
              switchedAt, run->metrics.subscribeRequests, run->metrics.maxOutstanding);
    }

    // The Gateway dock's fault, aimed at one gateway of a run on two, reaches that one only:
    // a source outage on gw-b turns B's tags Bad and back, A's stay Good at every change;
    // the marker and the log name the gateway; the run publishes each gateway's own points
    // and series ("gateway:NAME") beside the run's.
    void aConsoleFaultNamingAGatewayReachesOnlyThatGateway()
    {
        RunHost host;
        QVector<TagChange> changes;
        QVector<LogEntry> log;
        QVector<RunHost::Marker> markers;
        QSet<QString> pointGateways, seriesLabels;
        connect(&host, &RunHost::tagChanges, this, [&](const auto& c) { changes += c; });
        connect(&host, &RunHost::logEntries, this, [&](const auto& e) { log += e; });
        connect(&host, &RunHost::markersAdded, this, [&](const auto& m) { markers += m; });
        connect(&host, &RunHost::gatewayPoint, this,
                [&](const GatewayPoint& p) { pointGateways << p.gateway; });
        connect(&host, &RunHost::seriesUpdates, this, [&](const QVector<SeriesUpdate>& updates) {
            for (const SeriesUpdate& u : updates)
                if (u.instance < 0)
                    seriesLabels << u.label;
        });
        QString error;
        QVERIFY2(host.start(twoGateways(), QString(), 10, &error), qPrintable(error));
        QCOMPARE(host.gatewayNames(), QStringList({"gw-a", "gw-b"}));
        const auto good = [&](int instance) {
            TagQualities q;
            QVector<TagChange> mine;
            for (const TagChange& t : changes)
                if (t.instance == instance)
                    mine << t;
            q.add(mine);
            return q.good();
        };
        QTRY_VERIFY_WITH_TIMEOUT(good(0) == 10 && good(1) == 10, kTimeoutMs);
        const qsizetype before = changes.size();

        TimelineEvent outage;
        outage.action = TimelineAction::SourceOutage;
        outage.durationS = 5;
        outage.gateway = "gw-b";
        host.inject(outage);
        QTRY_VERIFY_WITH_TIMEOUT(good(1) == 0, kTimeoutMs);  // B's tags Bad ...
        QTRY_VERIFY_WITH_TIMEOUT(good(1) == 10, kTimeoutMs); // ... and back once it ends
        host.stop();

        // A's tags never left Good, and no tag was ever orphaned.
        for (qsizetype i = before; i < changes.size(); ++i)
            if (changes[i].instance == 0)
                QCOMPARE(changes[i].quality, 192);
        for (const TagChange& t : changes)
            QVERIFY2(!t.orphaned, qPrintable(t.tagName));
        QVERIFY(std::any_of(markers.begin(), markers.end(), [](const RunHost::Marker& m) {
            return m.label == "outage 5 s @gw-b";
        }));
        QVERIFY(
            anyLog(log, "timeline", "source_outage for 5 s on gateway gw-b (from the console)"));
        QCOMPARE(pointGateways, QSet<QString>({"", "gw-a", "gw-b"}));
        QCOMPARE(seriesLabels, QSet<QString>({"", "gateway:gw-a", "gateway:gw-b"}));
    }

    // A deployment's burst of tag changes frees its batches; that memory goes back to the
    // system after the burst, and a run too small for a burst never asks.
    void aBurstOfTagChangesGivesItsMemoryBackOnceOver()
    {
        Scenario small = twoGateways();
        RunHost quiet;
        int quietChanges = 0;
        connect(&quiet, &RunHost::tagChanges, this,
                [&](const QVector<TagChange>& c) { quietChanges += int(c.size()); });
        QString error;
        QVERIFY2(quiet.start(small, QString(), 10, &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(quietChanges >= 20, kTimeoutMs);
        quiet.stop();

        Scenario burst = twoGateways();
        for (ScenarioInstance& i : burst.instances)
            i.tags = RunHost::kBurstTags; // both deploy in the first steps
        RunHost host;
        int largest = 0;
        connect(&host, &RunHost::tagChanges, this,
                [&](const QVector<TagChange>& c) { largest = std::max(largest, int(c.size())); });
        QVERIFY2(host.start(burst, QString(), 10, &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(largest >= RunHost::kBurstTags, kTimeoutMs);
        QCOMPARE(host.memoryReturns(), 0); // not in the middle of the burst
        QTRY_COMPARE_WITH_TIMEOUT(host.memoryReturns(), 1,
                                  RunHost::kReturnMemoryAfterMs + kTimeoutMs);
        host.stop();
        QCOMPARE(quiet.memoryReturns(), 0);
    }

    // Events the published gateway numbered and never sent: a plot marker says how many,
    // where it was seen, and the log says which numbers.
    void lostEventsAreMarkedOnThePlots()
    {
        Scenario s = twoGateways();
        s.durationS = 30;
        s.gateway.contractFamily = QStringLiteral("mxaccess-gateway-v1");
        TimelineEvent lose;
        lose.action = TimelineAction::LoseEvents;
        lose.atS = 10;
        lose.durationS = 2;
        lose.gateway = "gw-b";
        s.timeline = {lose};
        RunHost host;
        QVector<RunHost::Marker> markers;
        QVector<LogEntry> log;
        connect(&host, &RunHost::markersAdded, this, [&](const auto& m) { markers += m; });
        connect(&host, &RunHost::logEntries, this, [&](const auto& e) { log += e; });
        QSignalSpy finished(&host, &RunHost::finished);
        QString error;
        QVERIFY2(host.start(s, QString(), RunHost::kMaxSpeed, &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() > 0, kTimeoutMs);
        const auto lost =
            std::find_if(markers.begin(), markers.end(),
                         [](const RunHost::Marker& m) { return m.label.endsWith(" events lost"); });
        QVERIFY(lost != markers.end());
        QVERIFY2(lost->tS >= 10 && lost->tS <= 14, qPrintable(QString::number(lost->tS)));
        // About 2 s of gw-b's 10 tags at 2 Hz (4 or 5 ticks, by where the window falls).
        const int count = lost->label.section(QLatin1Char(' '), 0, 0).toInt();
        QVERIFY2(count >= 30 && count <= 50, qPrintable(lost->label));
        QVERIFY(anyLog(log, QString(), QStringLiteral("events this client never received")));
    }

    // A gateway that stops answering while its session lives (a wedged STA, nothing changing,
    // a redeploy's subscribe past the session's command timeout): a plot marker names the
    // connection where it turned unresponsive, and the report counts the seconds.
    void anUnresponsiveGatewayIsMarkedOnThePlots()
    {
        Scenario s = twoGateways();
        s.durationS = 100;
        s.gateway.dataHz = 0;
        TimelineEvent wedge;
        wedge.action = TimelineAction::Wedge;
        wedge.atS = 10;
        wedge.durationS = 80;
        wedge.gateway = "gw-b";
        TimelineEvent redeploy;
        redeploy.action = TimelineAction::Redeploy;
        redeploy.atS = 11;
        redeploy.instance = "B";
        s.timeline = {wedge, redeploy};
        RunHost host;
        QVector<RunHost::Marker> markers;
        connect(&host, &RunHost::markersAdded, this, [&](const auto& m) { markers += m; });
        QSignalSpy finished(&host, &RunHost::finished);
        QString error;
        QVERIFY2(host.start(s, QString(), RunHost::kMaxSpeed, &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() > 0, kTimeoutMs);
        const auto silent =
            std::find_if(markers.begin(), markers.end(), [](const RunHost::Marker& m) {
                return m.label.endsWith(" unresponsive");
            });
        QVERIFY(silent != markers.end());
        QCOMPARE(silent->label, QStringLiteral("gw-b unresponsive"));
        QVERIFY2(silent->tS > 11 && silent->tS <= 90, qPrintable(QString::number(silent->tS)));
        QCOMPARE(std::count_if(
                     markers.begin(), markers.end(),
                     [](const RunHost::Marker& m) { return m.label.endsWith(" unresponsive"); }),
                 1);
    }

    // One unnamed gateway (every scenario without a site): nothing per gateway.
    void aRunOnOneGatewayHasNoGatewayNames()
    {
        RunHost host;
        QSet<QString> pointGateways;
        connect(&host, &RunHost::gatewayPoint, this,
                [&](const GatewayPoint& p) { pointGateways << p.gateway; });
        QString error;
        QVERIFY2(host.start(liveGate(), QString(), RunHost::kMaxSpeed, &error), qPrintable(error));
        QCOMPARE(host.gatewayNames(), QStringList());
        QTRY_VERIFY_WITH_TIMEOUT(!pointGateways.isEmpty(), kTimeoutMs);
        host.stop();
        QCOMPARE(pointGateways, QSet<QString>({""}));
    }

    void unknownVariantIsRefusedWithTheVariantList()
    {
        RunHost playback;
        QString error;
        QVERIFY(!playback.start(liveGate(), QStringLiteral("nope"), 1, &error));
        QVERIFY2(error.contains("levers-off") && error.contains("lever1"), qPrintable(error));
        QVERIFY(!playback.running());
    }
};

QTEST_MAIN(TestRunHost)
#include "tst_run_host.moc"
