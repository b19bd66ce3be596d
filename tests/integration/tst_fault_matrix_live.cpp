// The fault matrix at the real boundary: a real mxgw-mock process, reached over gRPC, is
// SIGKILLed while subscribes are in flight and started again on the same port. The same
// case runs in virtual time through the in-process port (kill_gateway), and both must give
// the same outcome: every tag Good again, no tag orphaned, the same number of subscribe
// requests, and no session left open on the gateway once the client has gone.

#include "scenario/gateway_access.h"
#include "scenario/scenario_parser.h"
#include "scenario/scenario_runner.h"

#include "integration/support_mock_process.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QRegularExpression>
#include <QTimer>
#include <QtTest>

#include <csignal>
#include <cstdlib>

#ifndef MXGW_MOCK_PATH
#error "MXGW_MOCK_PATH is set by app/CMakeLists.txt"
#endif

using namespace stormwatch;
using testsupport::MockProcess;

namespace {

QJsonObject action(double atS, const char* name, QJsonObject params = {})
{
    params.insert("at_s", atS);
    params.insert("action", name);
    return params;
}

// inst-a is subscribed before the wedge; inst-b's subscribe waits on the wedged STA when
// the gateway dies at kill_s.
constexpr double kKillS = 2.5;
constexpr double kDownS = 1.0;
constexpr double kDurationS = 12;

QJsonObject scenarioJson(const QString& variant, bool virtualKill)
{
    QJsonArray timeline{action(0.5, "wedge", {{"duration_s", 60}})};
    if (virtualKill)
        timeline.append(action(kKillS, "kill_gateway", {{"downtime_s", kDownS}}));
    return QJsonObject{
        {"name", "killed-gateway"},
        {"description", "SIGKILL with a subscribe in flight, restart on the same port"},
        {"duration_s", kDurationS},
        {"seed", 5},
        {"gateway", QJsonObject{{"command_ms", 5}, {"per_item_ms", 0.1}, {"data_hz", 2},
                                {"network_latency_ms", 0.2}}},
        {"connections", QJsonArray{QJsonObject{{"name", "gw1"}, {"write_user_id", 0}}}},
        {"instances",
         QJsonArray{QJsonObject{{"name", "inst-a"}, {"connection", "gw1"}, {"tags", 50}},
                    QJsonObject{{"name", "inst-b"}, {"connection", "gw1"}, {"tags", 50},
                                {"start_at_s", 1}}}},
        {"timeline", timeline},
        {"variants", QJsonArray{variant}},
    };
}

Scenario parse(const QJsonObject& o)
{
    QList<ScenarioError> errors;
    auto s = parseScenario(QJsonDocument(o).toJson(), QStringLiteral("killed.json"), &errors);
    for (const auto& e : errors)
        qWarning() << e.toString();
    return s.value_or(Scenario{});
}

} // namespace

class TestFaultMatrixLive : public QObject {
    Q_OBJECT
private slots:
    void killedWithCallsInFlightRecoversLikeTheVirtualKill_data()
    {
        QTest::addColumn<QString>("variant");
        for (const char* v : {"lever1", "lever1+2", "all"})
            QTest::newRow(v) << QString(v);
    }

    void killedWithCallsInFlightRecoversLikeTheVirtualKill()
    {
        QFETCH(QString, variant);

        // Virtual time, in-process port: the model's kill ends the stream before the calls.
        const Scenario virtualScenario = parse(scenarioJson(variant, true));
        ScenarioRunner virtualRunner(virtualScenario, virtualScenario.variants[0]);
        QVERIFY2(virtualRunner.ok(), qPrintable(virtualRunner.error()));
        const VariantMetrics v = virtualRunner.run().metrics;

        // Live: the same case against a real process that dies and comes back.
        MockProcess mock(MXGW_MOCK_PATH);
        QVERIFY(mock.start());
        const Scenario liveScenario = parse(scenarioJson(variant, false));
        LiveOptions live;
        live.gateway = GrpcPortOptions{};
        live.gateway->address = mock.address();
        ScenarioRunner liveRunner(liveScenario, liveScenario.variants[0], live);
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
                 qPrintable(QStringLiteral("live %1, virtual %2").arg(l.subscribeRequests).arg(v.subscribeRequests)));
        QCOMPARE(virtualRunner.model().sessionCount(), std::size_t(0));

        // The restarted gateway's own view once the client has gone: no session left open,
        // never more than one subscribe outstanding for one tag set.
        const auto access = remoteControlAccess(mock.address());
        const auto stats = access->stats();
        QVERIFY(stats.has_value());
        QCOMPARE(stats->sessions(), 0);
        QVERIFY(stats->max_outstanding_subscribes() <= 1);
    }
};

QTEST_GUILESS_MAIN(TestFaultMatrixLive)
#include "tst_fault_matrix_live.moc"
