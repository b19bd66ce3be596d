// The fault matrix in virtual time: every fault the console can show × every preset, run
// through the in-process port (the same client, connection and mock STA code as live).
// Per case, for the guarded presets: every tag Good within a stated bound after the fault,
// no tag ever orphaned, at most one subscribe per (instance, connection) outstanding as the
// gateway itself counts it, and every session closed at the end. levers-off is run too: it
// may orphan tags (the report says so), but it must close its sessions.
// tests/integration/tst_fault_matrix_live.cpp runs a subset against a real mxgw-mock
// process that the test kills and restarts, and compares with the same case here.

#include "scenario/scenario_parser.h"
#include "scenario/scenario_runner.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>
#include <algorithm>

using namespace stormwatch;

namespace {

QJsonObject action(double atS, const char* name, QJsonObject params = {})
{
    params.insert("at_s", atS);
    params.insert("action", name);
    return params;
}

// Two instances × 244 supervisory tags on one connection; the second deploys at 5 s.
QJsonObject matrixScenario(const QJsonArray& timeline, double durationS,
                           const QString& contractFamily = "stormwatch")
{
    return QJsonObject{
        {"name", "fault-matrix"},
        {"description", "one fault, every preset"},
        {"duration_s", durationS},
        {"seed", 11},
        {"gateway", QJsonObject{{"command_ms", 20},
                                {"per_item_ms", 0.5},
                                {"data_hz", 1},
                                {"default_command_timeout_s", 30},
                                {"network_latency_ms", 1},
                                {"contract_family", contractFamily}}},
        {"connections", QJsonArray{QJsonObject{{"name", "gw1"}, {"write_user_id", 0}}}},
        {"instances",
         QJsonArray{
             QJsonObject{{"name", "inst-a"}, {"connection", "gw1"}, {"tags", 244}},
             QJsonObject{
                 {"name", "inst-b"}, {"connection", "gw1"}, {"tags", 244}, {"start_at_s", 5}}}},
        {"timeline", timeline},
        {"variants", QJsonArray{"levers-off", "lever1", "lever1+2", "all"}},
    };
}

Scenario parse(const QJsonObject& o)
{
    QList<ScenarioError> errors;
    auto s = parseScenario(QJsonDocument(o).toJson(), QStringLiteral("matrix.json"), &errors);
    for (const auto& e : errors)
        qWarning() << e.toString();
    return s.value_or(Scenario{});
}

struct CaseResult {
    VariantMetrics metrics;
    std::size_t sessionsLeft = 0;
    std::int64_t streamsResumed = 0, sessionsFaulted = 0, eventsDropped = 0;
    // From the subscriptions' own series: the most tags any one showed orphaned / frozen, and
    // how many all of them ended the run with.
    double peakOrphaned = 0, peakFrozen = 0, orphanedAtEnd = 0, frozenAtEnd = 0;
};

CaseResult runCase(const Scenario& scenario, const QString& variant)
{
    VariantSpec spec;
    for (const VariantSpec& v : scenario.variants)
        if (v.name == variant)
            spec = v;
    ScenarioRunner runner(scenario, spec);
    if (!runner.ok())
        qFatal("%s", qPrintable(runner.error()));
    CaseResult r;
    const auto run = runner.run();
    r.metrics = run.metrics;
    r.sessionsLeft = runner.model().sessionCount();
    r.streamsResumed = runner.model().streamsResumed();
    r.sessionsFaulted = runner.model().sessionsFaulted();
    r.eventsDropped = runner.model().eventsDropped();
    for (const Series& s : run.series.all()) {
        const bool orphaned = s.metric() == QLatin1String("tags_orphaned");
        if (!orphaned && s.metric() != QLatin1String("tags_frozen"))
            continue;
        for (const SeriesPoint& p : s.points())
            (orphaned ? r.peakOrphaned : r.peakFrozen) =
                std::max(orphaned ? r.peakOrphaned : r.peakFrozen, p.value);
        if (!s.points().empty())
            (orphaned ? r.orphanedAtEnd : r.frozenAtEnd) += s.points().back().value;
    }
    return r;
}

bool guarded(const QString& variant)
{
    return variant != QLatin1String("levers-off");
}

} // namespace

class TestFaultMatrix : public QObject {
    Q_OBJECT
private slots:
    void everyFaultEveryPreset_data()
    {
        QTest::addColumn<QJsonArray>("timeline");
        QTest::addColumn<double>("boundS"); // every tag Good this long after the last fault
        QTest::addColumn<QString>("variant");
        struct Fault {
            const char* name;
            QJsonArray timeline;
            double boundS;
        };
        const QList<Fault> faults{
            // inst-b's subscribe is on the wedged STA when the process dies
            {"killed with calls in flight",
             {action(4, "wedge", {{"duration_s", 60}}),
              action(20, "kill_gateway", {{"downtime_s", 5}})},
             60},
            {"wedge", {action(20, "wedge", {{"duration_s", 60}})}, 90},
            {"slow", {action(20, "slow", {{"factor", 50}, {"duration_s", 120}})}, 90},
            {"drop replies",
             {action(20, "drop_replies", {{"probability", 0.5}, {"duration_s", 120}})},
             120},
            {"stream end", {action(20, "end_event_streams")}, 30},
            {"refuse sessions", {action(0, "refuse_sessions", {{"duration_s", 110}})}, 60},
            {"restart", {action(20, "restart_gateway", {{"downtime_s", 5}})}, 60},
            {"capability change",
             {action(20, "set_capability", {{"advertise_bulk_supervisory", false}}),
              action(25, "restart_gateway", {{"downtime_s", 5}})},
             60},
            {"restart then slow",
             {action(30, "restart_gateway", {{"downtime_s", 5}}),
              action(35, "slow", {{"factor", 400}, {"duration_s", 120}})},
             150},
            {"source outage", {action(20, "source_outage", {{"duration_s", 30}})}, 30},
            {"redeploy in a wedge",
             {action(20, "wedge", {{"duration_s", 40}}),
              action(25, "redeploy", {{"instance", "inst-a"}})},
             120},
            // The process stopped: keepalive closes the transport, the tags stay last-usable,
            // a new session subscribes them after it continues.
            {"freeze", {action(20, "freeze", {{"duration_s", 30}})}, 60},
            // Pings answered, nothing else: only an unanswered command tells (the redeploy's,
            // past the longest command timeout of the presets, Lever 3's 60 s).
            {"half-open",
             {action(20, "half_open", {{"duration_s", 90}}),
              action(22, "redeploy", {{"instance", "inst-a"}})},
             120},
            // Streams and calls reset while inst-b's subscribe is queued on the wedged STA:
            // the STA still runs it after the reset.
            {"reset peer",
             {action(4, "wedge", {{"duration_s", 20}}), action(10, "reset_peer")},
             60},
        };
        for (const Fault& f : faults)
            for (const char* v : {"levers-off", "lever1", "lever1+2", "all"})
                QTest::newRow(qPrintable(QStringLiteral("%1 / %2").arg(f.name, v)))
                    << f.timeline << f.boundS << QString(v);
    }

    void everyFaultEveryPreset()
    {
        QFETCH(QJsonArray, timeline);
        QFETCH(double, boundS);
        QFETCH(QString, variant);
        const Scenario scenario = parse(matrixScenario(timeline, 600));
        QVERIFY(!scenario.name.isEmpty());
        const CaseResult r = runCase(scenario, variant);
        const VariantMetrics& m = r.metrics;
        qInfo("%s: good after %s s, orphaned %.1f tag·s, frozen %.1f tag·s, unresponsive %.1f s, "
              "gateway max outstanding %lld, %lld subscribe requests",
              qPrintable(variant),
              m.timeToAllGoodS ? qPrintable(QString::number(*m.timeToAllGoodS, 'f', 1)) : "never",
              m.orphanedTagSeconds, m.frozenTagSeconds, m.unresponsiveSeconds,
              static_cast<long long>(m.maxGatewayOutstandingSubscribes.value_or(-1)),
              static_cast<long long>(m.subscribeRequests));
        QCOMPARE(r.sessionsLeft, std::size_t(0)); // every variant closes what it opened
        // The subscriptions' series name the orphaned and frozen tags the run counted.
        QCOMPARE(r.peakOrphaned > 0, m.orphanedTagSeconds > 0);
        QCOMPARE(r.peakFrozen > 0, m.frozenTagSeconds > 0);
        // A silent gateway is named: unresponsive while it is, its tags never Good meanwhile
        // (a slow or wedged one may be too, when nothing else proves it alive).
        const QString first = timeline.first().toObject()["action"].toString();
        if (first == "freeze" || first == "half_open")
            QVERIFY2(m.unresponsiveSeconds > 0, "the silent gateway was never unresponsive");
        if (!guarded(variant))
            return;
        QCOMPARE(m.orphanedTagSeconds, 0.0);
        QCOMPARE(m.frozenTagSeconds, 0.0);
        QVERIFY2(m.timeToAllGoodS && *m.timeToAllGoodS <= boundS,
                 qPrintable(QString::number(m.timeToAllGoodS.value_or(-1))));
        QVERIFY(m.maxGatewayOutstandingSubscribes.has_value());
        QCOMPARE(*m.maxGatewayOutstandingSubscribes, qint64(1));
        QVERIFY(m.maxOutstanding <= 1);
    }

    // The published gateway's event policy (contract_family): a stream that ends is resumed
    // on the same session with nothing subscribed again; events it numbered and lost are
    // counted; a reader stalled past its event queue (10,000) has its session faulted, and the
    // client comes back through a new session, re-subscribed by its guards, no tag orphaned.
    void publishedGatewayEventFaults_data()
    {
        QTest::addColumn<QJsonArray>("timeline");
        QTest::addColumn<QString>("variant");
        QTest::addColumn<QString>("fault");
        struct Fault {
            const char* name;
            QJsonArray timeline;
        };
        const QList<Fault> faults{
            {"stream end", {action(20, "end_event_streams")}},
            {"lose events", {action(20, "lose_events", {{"duration_s", 5}})}},
            {"stall reader", {action(20, "stall_reader", {{"duration_s", 30}})}},
            {"killed with calls in flight",
             {action(4, "wedge", {{"duration_s", 60}}),
              action(20, "kill_gateway", {{"downtime_s", 5}})}},
        };
        for (const Fault& f : faults)
            for (const char* v : {"lever1", "lever1+2", "all"})
                QTest::newRow(qPrintable(QStringLiteral("%1 / %2").arg(f.name, v)))
                    << f.timeline << QString(v) << QString(f.name);
    }

    void publishedGatewayEventFaults()
    {
        QFETCH(QJsonArray, timeline);
        QFETCH(QString, variant);
        QFETCH(QString, fault);
        const Scenario scenario = parse(matrixScenario(timeline, 300, "mxaccess-gateway-v1"));
        QVERIFY(!scenario.name.isEmpty());
        const CaseResult r = runCase(scenario, variant);
        const VariantMetrics& m = r.metrics;
        qInfo(
            "%s: good after %s s, %lld add_item_bulk, %lld events lost, %lld resumed, %lld faulted",
            qPrintable(variant),
            m.timeToAllGoodS ? qPrintable(QString::number(*m.timeToAllGoodS, 'f', 1)) : "never",
            static_cast<long long>(m.gatewayRpcsByKind.value("add_item_bulk")),
            static_cast<long long>(m.eventsLost), static_cast<long long>(r.streamsResumed),
            static_cast<long long>(r.sessionsFaulted));
        QCOMPARE(r.sessionsLeft, std::size_t(0));
        QCOMPARE(m.orphanedTagSeconds, 0.0);
        QVERIFY2(m.timeToAllGoodS && *m.timeToAllGoodS <= 60,
                 qPrintable(QString::number(m.timeToAllGoodS.value_or(-1))));
        QVERIFY(m.maxOutstanding <= 1);
        // No supervisory flag in the published contract: every preset fans out per item.
        QCOMPARE(m.gatewayRpcsByKind.value("subscribe_bulk"), qint64(0));
        const qint64 subscribes = m.gatewayRpcsByKind.value("add_item_bulk");
        if (fault == "stream end") {
            QCOMPARE(r.streamsResumed, std::int64_t(1));
            QCOMPARE(subscribes, qint64(2)); // one per instance: nothing subscribed again
            QCOMPARE(m.eventsLost, qint64(0));
        } else if (fault == "lose events") {
            // What the gateway numbered and dropped, as the client counted it: 5 s of 488 tags at 1
            // Hz.
            QVERIFY(r.eventsDropped >= 4 * 488 && r.eventsDropped <= 6 * 488);
            QCOMPARE(m.eventsLost, qint64(r.eventsDropped));
            QCOMPARE(subscribes, qint64(2));
        } else if (fault == "stall reader") {
            QCOMPARE(r.sessionsFaulted, std::int64_t(1));
            QCOMPARE(subscribes, qint64(4)); // both instances again, on the new session
        }
    }

    // Defect 1: the kill instant swept across inst-b's deploy window (its subscribe out at
    // 5 s, answered ~0.14 s later on an idle STA): whatever is in flight when the transport
    // breaks, every guarded variant brings every tag back and orphans none.
    void killSweptAcrossTheDeployWindow()
    {
        int cases = 0;
        for (int k = 0; k <= 30; ++k) {
            const double killAt = 4.9 + 0.01 * k;
            const Scenario scenario = parse(matrixScenario(
                QJsonArray{action(killAt, "kill_gateway", {{"downtime_s", 0.4}})}, 90));
            for (const char* v : {"lever1", "lever1+2", "all"}) {
                const CaseResult r = runCase(scenario, v);
                const VariantMetrics& m = r.metrics;
                QVERIFY2(m.timeToAllGoodS && m.orphanedTagSeconds == 0.0,
                         qPrintable(QStringLiteral("%1 killed at %2 s: good after %3, orphaned %4")
                                        .arg(v)
                                        .arg(killAt)
                                        .arg(m.timeToAllGoodS.value_or(-1))
                                        .arg(m.orphanedTagSeconds)));
                ++cases;
            }
        }
        QCOMPARE(cases, 93);
    }

    // Defect 2 with the plan's Lever 1 as literally written (resubscribe_guard off): the
    // connection's own re-subscribe fails on the slowed STA and nothing retries it; the
    // tags stay orphaned to the end. With the lever (in lever1), the guard retries.
    void failedReSubscribeOrphansTagsWithoutTheLever()
    {
        QJsonObject o =
            matrixScenario(QJsonArray{action(30, "restart_gateway", {{"downtime_s", 5}}),
                                      action(35, "slow", {{"factor", 400}, {"duration_s", 120}})},
                           600);
        o["variants"] =
            QJsonArray{QJsonObject{{"name", "lever1-as-planned"},
                                   {"levers", QJsonObject{{"preset", "lever1"},
                                                          {"resubscribe_guard", false}}}},
                       "lever1"};
        const Scenario scenario = parse(o);
        const CaseResult planned = runCase(scenario, "lever1-as-planned");
        QVERIFY(!planned.metrics.timeToAllGoodS);
        QVERIFY(planned.metrics.orphanedTagSeconds > 400 * 488);
        // Orphaned to the end: the subscriptions' series end on every one of them.
        QCOMPARE(planned.orphanedAtEnd, 488.0);
        const CaseResult fixed = runCase(scenario, "lever1");
        QVERIFY(fixed.metrics.timeToAllGoodS);
        QCOMPARE(fixed.metrics.orphanedTagSeconds, 0.0);
        QCOMPARE(fixed.peakOrphaned, 0.0);
    }

    // Defect 3: sessions refused 0–110 s; the guard supersedes its unanswered request at
    // the ceiling, and without drop_superseded every superseded one goes out on reconnect.
    void supersededHeldSubscribesStackWithoutTheLever()
    {
        QJsonObject o =
            matrixScenario(QJsonArray{action(0, "refuse_sessions", {{"duration_s", 110}})}, 300);
        o["variants"] = QJsonArray{QJsonObject{{"name", "lever1+2-as-planned"},
                                               {"levers", QJsonObject{{"preset", "lever1+2"},
                                                                      {"drop_superseded", false}}}},
                                   "lever1+2"};
        const Scenario scenario = parse(o);
        const VariantMetrics planned = runCase(scenario, "lever1+2-as-planned").metrics;
        const VariantMetrics fixed = runCase(scenario, "lever1+2").metrics;
        QVERIFY(planned.gatewayRpcsByKind.value("subscribe_bulk") >= 4); // 2 per instance at least
        QVERIFY(*planned.maxGatewayOutstandingSubscribes >= 2);
        QCOMPARE(fixed.gatewayRpcsByKind.value("subscribe_bulk"), qint64(2)); // one per instance
        QCOMPARE(*fixed.maxGatewayOutstandingSubscribes, qint64(1));
    }
};

QTEST_GUILESS_MAIN(TestFaultMatrix)
#include "tst_fault_matrix.moc"
