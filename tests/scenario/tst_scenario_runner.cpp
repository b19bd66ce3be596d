#include "client/lever_set.h"
#include "scenario/scenario_parser.h"
#include "scenario/scenario_runner.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace stormwatch;

namespace {

// A small scenario in the file form, so every test also goes through the real parser.
QJsonObject baseScenario(double durationS = 30, int tags = 4)
{
    return QJsonObject{
        {"name", "hand-made"},
        {"description", "a test scenario"},
        {"duration_s", durationS},
        {"seed", 7},
        {"gateway", QJsonObject{{"network_latency_ms", 1}}},
        {"connections", QJsonArray{QJsonObject{{"name", "gw1"}}}},
        {"instances",
         QJsonArray{QJsonObject{{"name", "probe"}, {"connection", "gw1"}, {"tags", tags}}}},
        {"variants", QJsonArray{"all"}},
    };
}

// The gateway answers in zero time over a zero-latency network: tag qualities change at
// exactly the instants the timeline names, so metric values can be worked out by hand.
QJsonObject instantGateway()
{
    return QJsonObject{
        {"network_latency_ms", 0}, {"command_ms", 0}, {"per_item_ms", 0}, {"data_hz", 1}};
}

std::optional<Scenario> parse(const QJsonObject& o)
{
    QList<ScenarioError> errors;
    auto s = parseScenario(QJsonDocument(o).toJson(), QStringLiteral("test.json"), &errors);
    for (const auto& e : errors)
        qWarning() << e.toString();
    return s;
}

QJsonObject action(double atS, const char* name, QJsonObject params = {})
{
    params.insert("at_s", atS);
    params.insert("action", name);
    return params;
}

VariantSpec variant(const QString& preset)
{
    return VariantSpec{preset, QJsonValue(preset)};
}

std::int64_t kind(const VariantMetrics& m, const QString& k)
{
    return m.gatewayRpcsByKind.value(k, 0);
}

} // namespace

class TestScenarioRunner : public QObject {
    Q_OBJECT

private slots:
    // The seed's live gate: an unanswered subscribe for 110 s.
    void liveGateLever1()
    {
        QList<ScenarioError> errors;
        const auto s = loadScenario(QStringLiteral("live-gate-lever1"), &errors);
        QVERIFY(s);
        QString error;
        const ScenarioReport report = runScenario(*s, {}, std::nullopt, {}, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(report.variants.size(), 2);
        const VariantMetrics& off = report.variants[0];
        const VariantMetrics& l1 = report.variants[1];
        QCOMPARE(off.name, QStringLiteral("levers-off"));
        QCOMPARE(off.subscribeRequests, 22); // 0, 5, ..., 105 s
        QCOMPARE(off.maxOutstanding, 22);    // none is ever answered
        QCOMPARE(l1.name, QStringLiteral("lever1"));
        QCOMPARE(l1.subscribeRequests, 3);
        QCOMPARE(l1.maxOutstanding, 1);
        // No session ever opens: 3 tags not Good for the whole 110 s, and never all Good.
        QCOMPARE(off.badTagSeconds, 330.0);
        QCOMPARE(l1.badTagSeconds, 330.0);
        QVERIFY(!off.timeToAllGoodS);
        QVERIFY(!l1.timeToAllGoodS);
        QCOMPARE(off.gatewayRpcs, 0);
    }

    // The bundled storm: each lever cuts the load the one before it left.
    void subscribeStormLeverEffects()
    {
        QList<ScenarioError> errors;
        const auto s = loadScenario(QStringLiteral("subscribe-storm"), &errors);
        QVERIFY(s);
        const ScenarioReport r =
            runScenario(*s, {"levers-off", "lever1", "lever1+2"}, std::nullopt);
        QCOMPARE(r.variants.size(), 3);
        const VariantMetrics& off = r.variants[0];
        const VariantMetrics& l1 = r.variants[1];
        const VariantMetrics& l12 = r.variants[2];
        QVERIFY(off.maxOutstanding > 1);
        QCOMPARE(l1.maxOutstanding, 1);
        QVERIFY(off.subscribeRequests > 5 * l1.subscribeRequests);
        QVERIFY(off.gatewayRpcs > l1.gatewayRpcs);
        QVERIFY(l1.gatewayRpcs > l12.gatewayRpcs);
        QCOMPARE(kind(l12, rpc_kind::kAdviseSupervisory), 0);
        QVERIFY(off.deadlineExceeded > l1.deadlineExceeded);
        for (const VariantMetrics* m : {&off, &l1, &l12})
            QVERIFY(m->timeToAllGoodS); // all recover well before the 30 minutes are up
    }

    void subscribeRequestsMatchTheEngineAndLeaveAlarmsApart()
    {
        QJsonObject o = baseScenario(60);
        o["instances"] = QJsonArray{
            QJsonObject{{"name", "probe"}, {"connection", "gw1"}, {"tags", 3}, {"alarms", true}}};
        o["timeline"] = QJsonArray{action(0, "refuse_sessions", {{"duration_s", 60}})};
        const auto s = parse(o);
        QVERIFY(s);
        ScenarioRunner runner(*s, variant("levers-off"));
        QVERIFY2(runner.ok(), qPrintable(runner.error()));
        runner.start();
        runner.advanceTo(60);
        const std::int64_t engineTags = runner.engine().subscribeRequests();
        const std::int64_t alarms = runner.engine().instances()[0]->alarmRequestsSent();
        const VariantRun run = runner.finish();
        QVERIFY(alarms > 0); // the alarm guard sent too, and is not counted
        QCOMPARE(run.metrics.subscribeRequests, engineTags);
        QCOMPARE(run.metrics.subscribeRequests, 12); // 0, 5, ..., 55 s
    }

    // Tags deploy at 10 s and stay not Good until a source outage ends at 20 s: with an
    // instant gateway every one of the 4 tags is not Good for exactly 10 s.
    void badTagSecondsIsExact()
    {
        QJsonObject o = baseScenario(30, 4);
        o["gateway"] = instantGateway();
        o["instances"] = QJsonArray{
            QJsonObject{{"name", "probe"}, {"connection", "gw1"}, {"tags", 4}, {"start_at_s", 10}}};
        o["timeline"] = QJsonArray{action(0, "source_outage", {{"duration_s", 20}})};
        const auto s = parse(o);
        QVERIFY(s);
        ScenarioRunner runner(*s, variant("all"));
        QVERIFY2(runner.ok(), qPrintable(runner.error()));
        runner.start();
        runner.advanceTo(10);
        QCOMPARE(runner.badTagSecondsSoFar(), 0.0); // not deployed yet: nothing counts
        runner.advanceTo(15);
        QCOMPARE(runner.notGoodTags(), 4);
        const VariantRun run = runner.finish();
        QCOMPARE(run.metrics.badTagSeconds, 40.0);
        QVERIFY(run.metrics.timeToAllGoodS);
        QCOMPARE(*run.metrics.timeToAllGoodS, 0.0); // Good the instant the outage ended
    }

    // The last fault ends at 5 s; the instance deploys at 25 s and is Good at once: the
    // tags are all Good (and stay so) 20 s after the fault ended.
    void timeToAllGoodCountsFromTheLastFaultEnd()
    {
        QJsonObject o = baseScenario(40, 3);
        o["gateway"] = instantGateway();
        o["instances"] = QJsonArray{
            QJsonObject{{"name", "probe"}, {"connection", "gw1"}, {"tags", 3}, {"start_at_s", 25}}};
        o["timeline"] = QJsonArray{action(0, "wedge", {{"duration_s", 5}})};
        const auto s = parse(o);
        QVERIFY(s);
        const ScenarioReport report = runScenario(*s, {}, std::nullopt);
        QCOMPARE(report.variants.size(), 1);
        const VariantMetrics& m = report.variants[0];
        QVERIFY(m.timeToAllGoodS);
        QCOMPARE(*m.timeToAllGoodS, 20.0);
        QCOMPARE(m.badTagSeconds, 0.0);
    }

    void timeToAllGoodIsNullWhenAnOutageOutlastsTheRun()
    {
        QJsonObject o = baseScenario(30, 4);
        o["gateway"] = instantGateway();
        o["timeline"] = QJsonArray{action(5, "source_outage", {{"duration_s", 100}})};
        const auto s = parse(o);
        QVERIFY(s);
        const ScenarioReport report = runScenario(*s, {}, std::nullopt);
        const VariantMetrics& m = report.variants[0];
        QVERIFY(!m.timeToAllGoodS);
        // Good from 0 until the outage at 5 s, Bad for the remaining 25 s.
        QCOMPARE(m.badTagSeconds, 4 * 25.0);
    }

    void timeToAllGoodIsNullWhenTagsGoBadAfterBeingGood()
    {
        // All Good early on, then the gateway restarts at 19.5 s while refusing sessions
        // from 19 s to the end: the connection never comes back, its tags stay Bad.
        QJsonObject o = baseScenario(30, 2);
        o["gateway"] = instantGateway();
        o["timeline"] = QJsonArray{action(19, "refuse_sessions", {{"duration_s", 11}}),
                                   action(19.5, "restart_gateway", {{"downtime_s", 0.1}})};
        const auto s = parse(o);
        QVERIFY(s);
        ScenarioRunner runner(*s, variant("all"));
        runner.start();
        runner.advanceTo(15);
        QCOMPARE(runner.notGoodTags(), 0);
        runner.advanceTo(21);
        QCOMPARE(runner.notGoodTags(), 2);
        QVERIFY(!runner.finish().metrics.timeToAllGoodS);
    }

    void sameSeedGivesByteIdenticalReports()
    {
        QJsonObject o = baseScenario(120, 20);
        o["timeline"] =
            QJsonArray{action(10, "drop_replies", {{"probability", 0.5}, {"duration_s", 60}}),
                       action(20, "restart_gateway", {{"downtime_s", 3}})};
        o["variants"] = QJsonArray{"levers-off", "lever1", "all"};
        const auto s = parse(o);
        QVERIFY(s);
        const QByteArray a = reportToJsonBytes(runScenario(*s, {}, std::nullopt), false);
        const QByteArray b = reportToJsonBytes(runScenario(*s, {}, std::nullopt), false);
        QCOMPARE(a, b);
        // The seed is used: the dropped replies and the jitter follow it.
        const QByteArray c = reportToJsonBytes(runScenario(*s, {}, quint64(12345)), false);
        QVERIFY(a != c);
    }

    // --- every timeline action reaches the model or the engine ---

    void wedgeAction()
    {
        QJsonObject o = baseScenario();
        o["timeline"] = QJsonArray{action(5, "wedge", {{"duration_s", 3}})};
        const auto s = parse(o);
        QVERIFY(s);
        ScenarioRunner runner(*s, variant("all"));
        runner.start();
        runner.advanceTo(5);
        QVERIFY(!runner.model().wedged());
        runner.advanceTo(6);
        QVERIFY(runner.model().wedged());
        runner.advanceTo(8.5);
        QVERIFY(!runner.model().wedged());
    }

    void slowAction()
    {
        QJsonObject o = baseScenario();
        o["timeline"] = QJsonArray{action(5, "slow", {{"factor", 4}, {"duration_s", 3}})};
        const auto s = parse(o);
        QVERIFY(s);
        ScenarioRunner runner(*s, variant("all"));
        runner.start();
        runner.advanceTo(6);
        QCOMPARE(runner.model().slowFactor(), 4.0);
        runner.advanceTo(8.5);
        QCOMPARE(runner.model().slowFactor(), 1.0);
    }

    void dropRepliesAction()
    {
        // Every reply is lost from 0 s: the first command of the session (register) times
        // out at the session's command timeout (Lever 3: 2 s) instead of being answered.
        QJsonObject o = baseScenario();
        o["variants"] = QJsonArray{QJsonObject{
            {"name", "short-timeout"},
            {"levers", QJsonObject{{"preset", "lever1"}, {"session_command_timeout_ms", 2000}}}}};
        const auto quiet = parse(o);
        o["timeline"] =
            QJsonArray{action(0, "drop_replies", {{"probability", 1}, {"duration_s", 10}})};
        const auto dropping = parse(o);
        QVERIFY(quiet && dropping);
        QCOMPARE(runScenario(*quiet, {}, std::nullopt).variants[0].deadlineExceeded, 0);
        QVERIFY(runScenario(*dropping, {}, std::nullopt).variants[0].deadlineExceeded > 0);
    }

    void restartGatewayAction()
    {
        QJsonObject o = baseScenario();
        o["timeline"] = QJsonArray{action(5, "restart_gateway", {{"downtime_s", 2}})};
        const auto s = parse(o);
        QVERIFY(s);
        ScenarioRunner runner(*s, variant("all"));
        runner.start();
        runner.advanceTo(5);
        QCOMPARE(runner.model().sessionCount(), std::size_t(1));
        runner.advanceTo(5.5);
        QVERIFY(runner.model().down());
        QCOMPARE(runner.model().sessionCount(), std::size_t(0));
        runner.advanceTo(20);
        QVERIFY(!runner.model().down());
        QVERIFY(runner.engine().connections()[0]->connected()); // reconnected after the downtime
        QVERIFY(runner.engine().connections()[0]->stats().sessionsOpened >= 2);
    }

    void endEventStreamsAction()
    {
        QJsonObject o = baseScenario();
        o["gateway"] = QJsonObject{{"network_latency_ms", 5}};
        o["timeline"] = QJsonArray{action(5, "end_event_streams")};
        const auto s = parse(o);
        QVERIFY(s);
        ScenarioRunner runner(*s, variant("all"));
        runner.start();
        runner.advanceTo(5);
        QCOMPARE(runner.model().streamCount(), std::size_t(1));
        runner.advanceTo(5.001); // the client's new stream is still on the wire
        QCOMPARE(runner.model().streamCount(), std::size_t(0));
    }

    void sourceOutageAction()
    {
        QJsonObject o = baseScenario(30, 4);
        o["timeline"] = QJsonArray{action(5, "source_outage", {{"duration_s", 10}})};
        const auto s = parse(o);
        QVERIFY(s);
        ScenarioRunner runner(*s, variant("all"));
        runner.start();
        runner.advanceTo(5);
        QVERIFY(!runner.model().sourceOutage());
        QCOMPARE(runner.notGoodTags(), 0);
        runner.advanceTo(6);
        QVERIFY(runner.model().sourceOutage());
        QCOMPARE(runner.notGoodTags(), 4);
        runner.advanceTo(16); // off again at 5 + 10 s
        QVERIFY(!runner.model().sourceOutage());
        QCOMPARE(runner.notGoodTags(), 0);
    }

    void refuseSessionsAction()
    {
        QJsonObject o = baseScenario();
        o["timeline"] = QJsonArray{action(0, "refuse_sessions", {{"duration_s", 10}})};
        const auto s = parse(o);
        QVERIFY(s);
        ScenarioRunner runner(*s, variant("all"));
        runner.start();
        runner.advanceTo(9.9);
        QVERIFY(!runner.engine().connections()[0]->connected());
        QCOMPARE(runner.model().sessionCount(), std::size_t(0));
        runner.advanceTo(30);
        QVERIFY(runner.engine().connections()[0]->connected());
    }

    void redeployAction()
    {
        QJsonObject o = baseScenario(30, 4);
        o["timeline"] = QJsonArray{action(10, "redeploy", {{"instance", "probe"}})};
        const auto s = parse(o);
        QVERIFY(s);
        ScenarioRunner runner(*s, variant("all"));
        runner.start();
        runner.advanceTo(10);
        QCOMPARE(runner.engine().subscribeRequests(), 1);
        QCOMPARE(runner.notGoodTags(), 0);
        runner.advanceTo(10.000001);                      // just the instant of the redeploy
        QCOMPARE(runner.engine().subscribeRequests(), 2); // subscribed afresh
        QCOMPARE(runner.notGoodTags(), 4);                // every tag starts over
        const VariantRun run = runner.finish();
        QCOMPARE(run.metrics.subscribeRequests, 2);
    }

    void setLeversAction()
    {
        QJsonObject o = baseScenario();
        o["variants"] = QJsonArray{"levers-off"};
        o["timeline"] = QJsonArray{action(5, "set_levers", {{"levers", "lever1+2"}})};
        const auto s = parse(o);
        QVERIFY(s);
        ScenarioRunner runner(*s, variant("levers-off"));
        runner.start();
        runner.advanceTo(5);
        QCOMPARE(runner.engine().levers(), *leverPreset("levers-off", nullptr));
        runner.advanceTo(6);
        QCOMPARE(runner.engine().levers(), *leverPreset("lever1+2", nullptr));
        // The report names the variant's levers (what the run started with).
        QCOMPARE(runner.finish().metrics.levers,
                 leverSetToJson(*leverPreset("levers-off", nullptr)));
    }

    void setCapabilityAction()
    {
        QJsonObject o = baseScenario();
        o["timeline"] =
            QJsonArray{action(5, "set_capability", {{"advertise_bulk_supervisory", false}})};
        const auto s = parse(o);
        QVERIFY(s);
        ScenarioRunner runner(*s, variant("all"));
        runner.start();
        runner.advanceTo(5);
        QVERIFY(runner.model().config().advertiseBulkSupervisory);
        runner.advanceTo(6);
        QVERIFY(!runner.model().config().advertiseBulkSupervisory);
    }

    // Lever 2 with and without the gateway's capability: one SubscribeBulk for 244 tags,
    // or the legacy AddItemBulk + 244 × AdviseSupervisory.
    void capabilityFallback()
    {
        QJsonObject o = baseScenario(30, 244);
        o["variants"] = QJsonArray{"lever1+2"};
        const auto modern = parse(o);
        o["gateway"] = QJsonObject{{"advertise_bulk_supervisory", false}};
        const auto old = parse(o);
        QVERIFY(modern && old);
        const VariantMetrics m = runScenario(*modern, {}, std::nullopt).variants[0];
        const VariantMetrics f = runScenario(*old, {}, std::nullopt).variants[0];
        QCOMPARE(kind(m, rpc_kind::kSubscribeBulk), 1);
        QCOMPARE(kind(m, rpc_kind::kAddItemBulk) + kind(m, rpc_kind::kAdviseSupervisory), 0);
        QCOMPARE(kind(f, rpc_kind::kSubscribeBulk), 0);
        QCOMPARE(kind(f, rpc_kind::kAddItemBulk), 1);
        QCOMPARE(kind(f, rpc_kind::kAdviseSupervisory), 244);
        QCOMPARE(m.subscribeRequests, 1);
        QCOMPARE(f.subscribeRequests, 1);
    }

    // The bundled capability-fallback scenario: the gateway is rolled back to a build without
    // bulk-subscribe-supervisory at 30 s. With Lever 2 a 244-tag subscribe is 1 Invoke
    // before and 245 after (AddItemBulk + 244 AdviseSupervisory); levers off, 245 both times.
    void capabilityFallbackScenario()
    {
        QList<ScenarioError> errors;
        const auto s = loadScenario(QStringLiteral("capability-fallback"), &errors);
        QVERIFY(s);
        QCOMPARE(s->durationS, 60.0);
        const ScenarioReport report = runScenario(*s, {}, std::nullopt);
        QCOMPARE(report.variants.size(), 2);
        const VariantMetrics& off = report.variants[0];
        const VariantMetrics& lever2 = report.variants[1];
        QCOMPARE(lever2.name, QStringLiteral("lever1+2"));
        QCOMPARE(kind(lever2, rpc_kind::kSubscribeBulk), 1);
        QCOMPARE(kind(lever2, rpc_kind::kAddItemBulk), 1);
        QCOMPARE(kind(lever2, rpc_kind::kAdviseSupervisory), 244);
        QCOMPARE(kind(off, rpc_kind::kSubscribeBulk), 0);
        QCOMPARE(kind(off, rpc_kind::kAddItemBulk), 2);
        QCOMPARE(kind(off, rpc_kind::kAdviseSupervisory), 488);
        for (const VariantMetrics& m : report.variants) {
            QVERIFY(m.timeToAllGoodS); // both recover after the restart
            QVERIFY(m.skippedActions.isEmpty());
            QVERIFY(m.gatewayMetricsSource.isEmpty()); // virtual: the model's counters
        }
    }

    void progressReachesOne()
    {
        const auto s = parse(baseScenario(60));
        QVERIFY(s);
        QList<double> seen;
        ScenarioRunner runner(*s, variant("all"));
        runner.run([&](double f) { seen << f; });
        QVERIFY(!seen.isEmpty());
        QVERIFY(seen.size() <= 50);
        QCOMPARE(seen.last(), 1.0);
        QVERIFY(std::is_sorted(seen.begin(), seen.end()));

        // Across variants, runScenario's progress covers the whole run once.
        QJsonObject o = baseScenario(20);
        o["variants"] = QJsonArray{"levers-off", "all"};
        const auto two = parse(o);
        QList<double> all;
        runScenario(*two, {}, std::nullopt, [&](double f) { all << f; });
        QCOMPARE(all.last(), 1.0);
        QVERIFY(std::is_sorted(all.begin(), all.end()));
        QVERIFY(all.contains(0.5)); // the first variant ends half way
    }

    // The compare view's Close: asked between steps, a cancel ends the run there.
    void cancelStopsBetweenSteps()
    {
        QJsonObject o = baseScenario(20);
        o["variants"] = QJsonArray{"levers-off", "all"};
        const auto two = parse(o);
        QVERIFY(two);
        QList<double> seen;
        QString error;
        const ScenarioReport report = runScenario(
            *two, {}, std::nullopt, [&](double f) { seen << f; }, &error, nullptr,
            [&] { return seen.size() >= 3; });
        QCOMPARE(error, QStringLiteral("cancelled"));
        QCOMPARE(seen.size(), 3);
        QVERIFY(report.variants.isEmpty()); // the first variant never finished
    }

    void variantSelectionAndErrors()
    {
        QJsonObject o = baseScenario(10);
        o["variants"] = QJsonArray{"levers-off", "lever1", "all"};
        const auto s = parse(o);
        QVERIFY(s);
        QString error;
        const ScenarioReport r = runScenario(*s, {"all", "levers-off"}, std::nullopt, {}, &error);
        QVERIFY(error.isEmpty());
        QCOMPARE(r.variants.size(), 2);
        QCOMPARE(r.variants[0].name, QStringLiteral("all")); // in the order asked for
        const ScenarioReport bad = runScenario(*s, {"nope"}, std::nullopt, {}, &error);
        QVERIFY(bad.variants.isEmpty());
        QVERIFY2(error.contains("nope") && error.contains("levers-off, lever1, all"),
                 qPrintable(error));
        QCOMPARE(runScenario(*s, {}, quint64(99)).seed, quint64(99));
    }

    void seriesRecordTheSubscriptionAndTheGateway()
    {
        QList<ScenarioError> errors;
        const auto s = loadScenario(QStringLiteral("live-gate-lever1"), &errors);
        QVERIFY(s);
        ScenarioRunner runner(*s, variant("levers-off"));
        const VariantRun run = runner.run();
        const Series* outstanding = run.series.find("rig-probe-1/gw1", "outstanding");
        QVERIFY(outstanding);
        QCOMPARE(outstanding->maxValue(), 22.0);
        QCOMPARE(outstanding->points().back().value, 22.0);
        const Series* sent = run.series.find("rig-probe-1/gw1", "requests_sent");
        QVERIFY(sent);
        QCOMPARE(sent->points().size(), std::size_t(22)); // one step per request
        QCOMPARE(sent->valueAt(50), 11.0);                // 0, 5, ..., 50 s
        const Series* uncertain = run.series.find("rig-probe-1/gw1", "tags_uncertain");
        QVERIFY(uncertain);
        QCOMPARE(uncertain->valueAt(100), 3.0);
        for (const char* metric : {"sta_queue_depth", "invoke_rpcs_per_s",
                                   "deadline_exceeded_per_s", "recovery_state", "suppressed_calls"})
            QVERIFY2(run.series.find("gateway", metric), metric);
        QCOMPARE(run.series.endS, 110.0);
    }
};

QTEST_GUILESS_MAIN(TestScenarioRunner)
#include "tst_scenario_runner.moc"
