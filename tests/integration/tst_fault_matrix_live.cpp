// The fault matrix at the real boundary: a real mxgw-mock process, reached over gRPC, is
// SIGKILLed while subscribes are in flight and started again on the same port. The same
// case runs in virtual time through the in-process port (kill_gateway), and both must give
// the same outcome: every tag Good again, no tag orphaned, the same number of subscribe
// requests, and no session left open on the gateway once the client has gone. Each runs on
// stormwatch's own contract and on the published one (both sides given its file); on the
// published one, the event faults too: a stream ended (resumed, nothing subscribed again),
// events lost (counted), and the client's reader stalled past the gateway's event queue
// (the session faulted, the client back on a new one).

#include "integration/support_live_matrix.h"
#include "integration/support_mock_process.h"
#include "scenario/gateway_access.h"
#include "scenario/scenario_parser.h"
#include "scenario/scenario_runner.h"
#include "wire/support_contracts.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QRegularExpression>
#include <QTimer>
#include <QtTest>
#include <csignal>
#include <cstdlib>

using namespace stormwatch;
using testsupport::action;
using testsupport::MockProcess;
using testsupport::parse;

namespace {

// inst-a is subscribed before the wedge; inst-b's subscribe waits on the wedged STA when
// the gateway dies at kill_s.
constexpr double kKillS = 2.5;
constexpr double kDownS = 1.0;
constexpr double kDurationS = 12;

const char* kPublished = "mxaccess-gateway-v1";

QJsonObject scenarioJson(const QString& variant, bool virtualKill, const QString& family)
{
    QJsonArray timeline{action(0.5, "wedge", {{"duration_s", 60}})};
    if (virtualKill)
        timeline.append(action(kKillS, "kill_gateway", {{"downtime_s", kDownS}}));
    return QJsonObject{
        {"name", "killed-gateway"},
        {"description", "SIGKILL with a subscribe in flight, restart on the same port"},
        {"duration_s", kDurationS},
        {"seed", 5},
        {"gateway", QJsonObject{{"command_ms", 5},
                                {"per_item_ms", 0.1},
                                {"data_hz", 2},
                                {"network_latency_ms", 0.2},
                                {"contract_family", family}}},
        {"connections", QJsonArray{QJsonObject{{"name", "gw1"}, {"write_user_id", 0}}}},
        {"instances",
         QJsonArray{
             QJsonObject{{"name", "inst-a"}, {"connection", "gw1"}, {"tags", 50}},
             QJsonObject{
                 {"name", "inst-b"}, {"connection", "gw1"}, {"tags", 50}, {"start_at_s", 1}}}},
        {"timeline", timeline},
        {"variants", QJsonArray{variant}},
    };
}

// The published gateway's event faults: 2 × 100 tags, one message per change, one fault at
// 3 s, applied the same way in both modes (the gateway's through its control service or
// model, the reader's stall by the client's port). The stalled reader's case runs at 100 Hz
// (20,000 events a second: more in its 6 s than its transport's buffers absorb, which grow
// with the rate the reader kept up with, so the gateway's queue does overflow); the others at
// 20 Hz with no bound on the live mock's queue, so that a loaded test machine's hiccup is not
// taken for a stalled reader. Each run lasts long enough for the client to be back after its
// fault: an ended stream or lost events are over within a second, a stalled reader's session
// faults at the end of its stall and is subscribed again a few seconds later.
constexpr double kEventRunS = 8;
constexpr double kStalledReaderRunS = 18;

QJsonObject eventFaultJson(const QString& variant, const QJsonObject& fault, double dataHz,
                           double durationS)
{
    return QJsonObject{
        {"name", "published-event-fault"},
        {"description", "an event fault on the published contract"},
        {"duration_s", durationS},
        {"seed", 5},
        {"gateway", QJsonObject{{"command_ms", 5},
                                {"per_item_ms", 0.1},
                                {"data_hz", dataHz},
                                {"network_latency_ms", 0.2},
                                {"contract_family", kPublished}}},
        {"connections", QJsonArray{QJsonObject{{"name", "gw1"}, {"write_user_id", 0}}}},
        {"instances",
         QJsonArray{QJsonObject{{"name", "inst-a"}, {"connection", "gw1"}, {"tags", 100}},
                    QJsonObject{{"name", "inst-b"}, {"connection", "gw1"}, {"tags", 100}}}},
        {"timeline", QJsonArray{fault}},
        {"variants", QJsonArray{variant}},
    };
}

QStringList mockArgs(const QString& family, double dataHz)
{
    QStringList args{"--command-ms", "5",         "--per-item-ms",
                     "0.1",          "--data-hz", QString::number(dataHz)};
    if (family == kPublished)
        args << "--contract" << contracts::kV1;
    return args;
}

LiveOptions liveOptions(const MockProcess& mock, const QString& family)
{
    LiveOptions live = testsupport::liveOptions(mock);
    if (family == kPublished)
        live.gateway->contractFile = contracts::kV1.toStdString();
    return live;
}

} // namespace

class TestFaultMatrixLive : public QObject {
    Q_OBJECT
private slots:
    void killedWithCallsInFlightRecoversLikeTheVirtualKill_data()
    {
        QTest::addColumn<QString>("variant");
        QTest::addColumn<QString>("family");
        for (const char* family : {"stormwatch", kPublished})
            for (const char* v : {"lever1", "lever1+2", "all"})
                QTest::newRow(qPrintable(QStringLiteral("%1 / %2").arg(family, v)))
                    << QString(v) << QString(family);
    }

    void killedWithCallsInFlightRecoversLikeTheVirtualKill()
    {
        QFETCH(QString, variant);
        QFETCH(QString, family);

        // Virtual time, in-process port: the model's kill ends the stream before the calls.
        const Scenario virtualScenario = parse(scenarioJson(variant, true, family));
        ScenarioRunner virtualRunner(virtualScenario, virtualScenario.variants[0]);
        QVERIFY2(virtualRunner.ok(), qPrintable(virtualRunner.error()));
        const VariantMetrics v = virtualRunner.run().metrics;

        // Live: the same case against a real process that dies and comes back.
        MockProcess mock(mockArgs(family, 2));
        QVERIFY(mock.start());
        const Scenario liveScenario = parse(scenarioJson(variant, false, family));
        ScenarioRunner liveRunner(liveScenario, liveScenario.variants[0],
                                  liveOptions(mock, family));
        QVERIFY2(liveRunner.ok(), qPrintable(liveRunner.error()));
        bool restarted = false;
        QTimer::singleShot(int(kKillS * 1000), [&] { mock.kill(); });
        QTimer::singleShot(int((kKillS + kDownS) * 1000), [&] { restarted = mock.start(); });
        const VariantMetrics l = liveRunner.run().metrics;
        QVERIFY(restarted);

        qInfo("%s: virtual good after %.2f s, %lld requests; live good after %.2f s, %lld requests",
              qPrintable(variant), v.timeToAllGoodS.value_or(-1),
              static_cast<long long>(v.subscribeRequests), l.timeToAllGoodS.value_or(-1),
              static_cast<long long>(l.subscribeRequests));
        for (const VariantMetrics* m : {&v, &l}) {
            QVERIFY2(m->timeToAllGoodS.has_value(), "every tag Good again");
            QCOMPARE(m->orphanedTagSeconds, 0.0);
            QVERIFY(m->maxOutstanding <= 1);
        }
        // The same recovery path: at most one request apart (a slow machine can let one
        // retry tick land before the restarted gateway answers; seen only under sanitizers).
        QVERIFY2(std::abs(l.subscribeRequests - v.subscribeRequests) <= 1,
                 qPrintable(QStringLiteral("live %1, virtual %2")
                                .arg(l.subscribeRequests)
                                .arg(v.subscribeRequests)));
        QCOMPARE(virtualRunner.model().sessionCount(), std::size_t(0));

        // The restarted gateway's own view once the client has gone: no session left open,
        // never more than one subscribe outstanding for one tag set.
        const auto access = remoteControlAccess(mock.address());
        const auto stats = access->stats();
        QVERIFY(stats.has_value());
        QCOMPARE(stats->sessions(), 0);
        QVERIFY(stats->max_outstanding_subscribes() <= 1);
    }

    void publishedEventFaultsRecoverLikeTheVirtualRun_data()
    {
        QTest::addColumn<QString>("variant");
        QTest::addColumn<QString>("fault");
        for (const char* fault : {"end_event_streams", "lose_events", "stall_reader"})
            for (const char* v : {"lever1", "lever1+2", "all"})
                QTest::newRow(qPrintable(QStringLiteral("%1 / %2").arg(fault, v)))
                    << QString(v) << QString(fault);
    }

    void publishedEventFaultsRecoverLikeTheVirtualRun()
    {
        QFETCH(QString, variant);
        QFETCH(QString, fault);
        QJsonObject params;
        if (fault == "lose_events")
            params = {{"duration_s", 1}};
        const bool stall = fault == "stall_reader";
        if (stall)
            params = {{"duration_s", 6}}; // 120,000 events against a queue of 10,000
        const double hz = stall ? 100 : 20;
        const Scenario scenario =
            parse(eventFaultJson(variant, action(3, qPrintable(fault), params), hz,
                                 stall ? kStalledReaderRunS : kEventRunS));

        ScenarioRunner virtualRunner(scenario, scenario.variants[0]);
        QVERIFY2(virtualRunner.ok(), qPrintable(virtualRunner.error()));
        const VariantMetrics v = virtualRunner.run().metrics;
        const std::int64_t vResumed = virtualRunner.model().streamsResumed();
        const std::int64_t vFaulted = virtualRunner.model().sessionsFaulted();

        QStringList args = mockArgs(kPublished, hz);
        if (!stall)
            args << "--event-queue"
                 << "0";
        MockProcess mock(args);
        QVERIFY(mock.start());
        ScenarioRunner liveRunner(scenario, scenario.variants[0], liveOptions(mock, kPublished));
        QVERIFY2(liveRunner.ok(), qPrintable(liveRunner.error()));
        const VariantMetrics l = liveRunner.run().metrics;
        const auto stats = remoteControlAccess(mock.address())->stats();
        QVERIFY(stats.has_value());

        qInfo("%s %s: virtual good after %.2f s, %lld add_item_bulk, %lld lost, %lld resumed, %lld "
              "faulted; "
              "live good after %.2f s, %lld add_item_bulk, %lld lost, %lld resumed, %lld faulted",
              qPrintable(fault), qPrintable(variant), v.timeToAllGoodS.value_or(-1),
              static_cast<long long>(v.gatewayRpcsByKind.value("add_item_bulk")),
              static_cast<long long>(v.eventsLost), static_cast<long long>(vResumed),
              static_cast<long long>(vFaulted), l.timeToAllGoodS.value_or(-1),
              static_cast<long long>(l.gatewayRpcsByKind.value("add_item_bulk")),
              static_cast<long long>(l.eventsLost),
              static_cast<long long>(stats->streams_resumed()),
              static_cast<long long>(stats->sessions_faulted()));
        for (const VariantMetrics* m : {&v, &l}) {
            QVERIFY2(m->timeToAllGoodS.has_value(), "every tag Good again");
            QCOMPARE(m->orphanedTagSeconds, 0.0);
            QVERIFY(m->maxOutstanding <= 1);
        }
        QCOMPARE(stats->streams_resumed(), vResumed);
        if (!stall) {
            // The gateway's own count of subscribes: the same in both modes.
            QCOMPARE(l.gatewayRpcsByKind.value("add_item_bulk"),
                     v.gatewayRpcsByKind.value("add_item_bulk"));
            QCOMPARE(stats->sessions_faulted(), vFaulted);
        }
        if (fault == "end_event_streams") {
            QCOMPARE(vResumed, std::int64_t(1));
            QCOMPARE(l.gatewayRpcsByKind.value("add_item_bulk"),
                     qint64(2)); // nothing subscribed again
        } else if (fault == "lose_events") {
            QVERIFY(v.eventsLost > 0);
            QCOMPARE(l.eventsLost, qint64(stats->events_dropped()));
            QCOMPARE(v.eventsLost, qint64(virtualRunner.model().eventsDropped()));
        } else {
            // Faulted by the overflow, and every instance subscribed again on the new session.
            // Live, a loaded machine's reader can also fall behind outside the stall: each
            // fault then costs one more subscribe per instance, never more.
            QCOMPARE(vFaulted, std::int64_t(1));
            QCOMPARE(v.gatewayRpcsByKind.value("add_item_bulk"), qint64(4));
            QVERIFY(stats->sessions_faulted() >= 1);
            QCOMPARE(l.gatewayRpcsByKind.value("add_item_bulk"),
                     qint64(2 * (1 + stats->sessions_faulted())));
        }
        QCOMPARE(stats->sessions(), 0);
    }
};

QTEST_GUILESS_MAIN(TestFaultMatrixLive)
#include "tst_fault_matrix_live.moc"
