// Silent gateways at the real boundary, beside the same case in virtual time: a real
// mxgw-mock process frozen (SIGSTOP, then SIGCONT by the process's own waker, through its
// control service), half-open (its transport answers keepalive pings, nothing else comes) or
// with every connection reset, against every preset. Both modes must give the same outcome:
// the silent gateway named unresponsive (a reset one is gone at once, never unresponsive),
// every tag Good again, no tag orphaned or frozen under the guarded presets, every session
// closed on the gateway, and the unresponsive time within half a keepalive round of each other.

#include "integration/support_live_matrix.h"
#include "scenario/gateway_access.h"

#include <QJsonArray>
#include <QtTest>
#include <cmath>

using namespace stormwatch;
using testsupport::action;
using testsupport::liveOptions;
using testsupport::MockProcess;
using testsupport::parse;

namespace {

// A silent gateway: frozen (SIGSTOP live), half-open (pings answered, nothing else) or its
// connections reset, at 2 s, with 2 × 50 tags, data at 2 Hz. A 1 s keepalive and a 1 s
// command timeout (the gateway's, which the session echoes) keep each case a few seconds
// long, and a 1 s retry interval lets a subscribe failed by the silence be retried within
// the run. Half-open is told only by an unanswered command, so inst-a is redeployed in it
// (not under `all`: Lever 3's 60 s command timeout outlasts it). The reset comes while
// inst-b's subscribe waits on a wedged STA.
constexpr double kSilenceRunS = 10;
constexpr double kSilenceAtS = 2;
constexpr double kSilenceS = 4;

QJsonObject silenceJson(const QString& variant, const QString& fault)
{
    QJsonArray timeline;
    if (fault == "reset_peer")
        timeline = {action(0.5, "wedge", {{"duration_s", 2}}), action(1.5, "reset_peer")};
    else
        timeline = {action(kSilenceAtS, qPrintable(fault), {{"duration_s", kSilenceS}})};
    if (fault == "half_open")
        timeline.append(action(kSilenceAtS + 0.5, "redeploy", {{"instance", "inst-a"}}));
    return QJsonObject{
        {"name", "silent-gateway"},
        {"description", "a gateway that goes silent, then speaks again"},
        {"duration_s", kSilenceRunS},
        {"seed", 5},
        {"gateway", QJsonObject{{"command_ms", 5},
                                {"per_item_ms", 0.1},
                                {"data_hz", 2},
                                {"default_command_timeout_s", 1},
                                {"network_latency_ms", 0.2}}},
        {"client_model", QJsonObject{{"keepalive_s", 1}, {"keepalive_timeout_s", 1}}},
        {"options", QJsonObject{{"TagSubscribeRetryIntervalMs", 1000}}},
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

} // namespace

class TestSilentGatewaysLive : public QObject {
    Q_OBJECT
private slots:
    void silentGatewaysRecoverLikeTheVirtualRun_data()
    {
        QTest::addColumn<QString>("variant");
        QTest::addColumn<QString>("fault");
        for (const char* fault : {"freeze", "half_open", "reset_peer"})
            for (const char* v : {"levers-off", "lever1", "lever1+2", "all"})
                QTest::newRow(qPrintable(QStringLiteral("%1 / %2").arg(fault, v)))
                    << QString(v) << QString(fault);
    }

    void silentGatewaysRecoverLikeTheVirtualRun()
    {
        QFETCH(QString, variant);
        QFETCH(QString, fault);
        const Scenario scenario = parse(silenceJson(variant, fault));
        QVERIFY(!scenario.name.isEmpty());

        ScenarioRunner virtualRunner(scenario, scenario.variants[0]);
        QVERIFY2(virtualRunner.ok(), qPrintable(virtualRunner.error()));
        const VariantMetrics v = virtualRunner.run().metrics;

        MockProcess mock(QStringList{"--command-ms", "5", "--per-item-ms", "0.1", "--data-hz", "2",
                                     "--default-command-timeout-s", "1"});
        QVERIFY(mock.start());
        ScenarioRunner liveRunner(scenario, scenario.variants[0], liveOptions(mock));
        QVERIFY2(liveRunner.ok(), qPrintable(liveRunner.error()));
        const VariantMetrics l = liveRunner.run().metrics;
        const auto stats = remoteControlAccess(mock.address())->stats();
        QVERIFY(stats.has_value());

        qInfo("%s %s: virtual good after %.2f s, unresponsive %.2f s, frozen %.1f tag·s, %lld "
              "requests; "
              "live good after %.2f s, unresponsive %.2f s, frozen %.1f tag·s, %lld requests",
              qPrintable(fault), qPrintable(variant), v.timeToAllGoodS.value_or(-1),
              v.unresponsiveSeconds, v.frozenTagSeconds,
              static_cast<long long>(v.subscribeRequests), l.timeToAllGoodS.value_or(-1),
              l.unresponsiveSeconds, l.frozenTagSeconds,
              static_cast<long long>(l.subscribeRequests));
        // Every session closed in both modes, the frozen one's included.
        QCOMPARE(virtualRunner.model().sessionCount(), std::size_t(0));
        QCOMPARE(stats->sessions(), 0);
        for (const VariantMetrics* m : {&v, &l}) {
            // A silent gateway is named unresponsive in both modes; a reset one is gone at once.
            if (fault == "reset_peer" || (fault == "half_open" && variant == "all"))
                QCOMPARE(m->unresponsiveSeconds, 0.0);
            else
                QVERIFY2(m->unresponsiveSeconds > 0, "the silent gateway was never unresponsive");
            QVERIFY2(m->timeToAllGoodS.has_value(), "every tag Good again");
            if (variant == "levers-off")
                continue;
            QCOMPARE(m->orphanedTagSeconds, 0.0);
            QCOMPARE(m->frozenTagSeconds, 0.0);
            QVERIFY(m->maxOutstanding <= 1);
        }
        // The same detection: the keepalive or the liveness rule fires within one keepalive
        // period of where the virtual run's does.
        QVERIFY2(std::abs(l.unresponsiveSeconds - v.unresponsiveSeconds) <= 1.0,
                 qPrintable(QStringLiteral("live %1 s, virtual %2 s")
                                .arg(l.unresponsiveSeconds)
                                .arg(v.unresponsiveSeconds)));
    }
};

QTEST_GUILESS_MAIN(TestSilentGatewaysLive)
#include "tst_silent_gateways_live.moc"
