// The runner in live mode: the same runner as in virtual time, on wall time and real gRPC —
// an embedded mock gateway on loopback, an external one reached with its address (faults
// through MockGatewayControl), and a gateway without the control service (faults skipped).
// Every scenario here lasts a few seconds of wall time; the waiting is the runner's own
// event loop.

#include "gateway/mock_gateway_server.h"
#include "scenario/scenario_parser.h"
#include "scenario/scenario_runner.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>
#include <functional>
#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>

using namespace stormwatch;

namespace {

// One instance of `tags` supervisory tags on one connection; a quick gateway (so 244 tags
// are advised in milliseconds) sending data 10 times a second.
QJsonObject liveScenario(double durationS, int tags, const QString& variant,
                         QJsonObject gateway = {})
{
    QJsonObject g{{"command_ms", 0.2}, {"per_item_ms", 0.01}, {"data_hz", 10}};
    for (auto it = gateway.begin(); it != gateway.end(); ++it)
        g.insert(it.key(), it.value());
    return QJsonObject{
        {"name", "live-test"},
        {"description", "a live test scenario"},
        {"duration_s", durationS},
        {"seed", 3},
        {"gateway", g},
        {"connections", QJsonArray{QJsonObject{{"name", "gw1"}, {"write_user_id", 0}}}},
        {"instances",
         QJsonArray{QJsonObject{{"name", "inst-a"}, {"connection", "gw1"}, {"tags", tags}}}},
        {"variants", QJsonArray{variant}},
    };
}

// A live site: inst-a's 4 tags on connection `a`, inst-b's on `b`, each its own gateway.
QJsonObject liveSite(double durationS, const QString& a, const QString& b)
{
    QJsonObject o = liveScenario(durationS, 4, "all");
    o["connections"] = QJsonArray{QJsonObject{{"name", a}, {"write_user_id", 0}},
                                  QJsonObject{{"name", b}, {"write_user_id", 0}}};
    o["instances"] = QJsonArray{QJsonObject{{"name", "inst-a"}, {"connection", a}, {"tags", 4}},
                                QJsonObject{{"name", "inst-b"}, {"connection", b}, {"tags", 4}}};
    return o;
}

Scenario parse(const QJsonObject& o)
{
    QList<ScenarioError> errors;
    auto s = parseScenario(QJsonDocument(o).toJson(), QStringLiteral("live.json"), &errors);
    for (const auto& e : errors)
        qWarning() << e.toString();
    return s.value_or(Scenario{});
}

QJsonObject action(double atS, const char* name, QJsonObject params = {})
{
    params.insert("at_s", atS);
    params.insert("action", name);
    return params;
}

// A gRPC server on loopback with the health service and a generic service that answers
// every other method UNIMPLEMENTED (server reflection too): an address that answers, but
// neither as an MXAccess gateway nor with MockGatewayControl.
struct BareGrpcServer {
    grpc::CallbackGenericService unimplemented;
    std::unique_ptr<grpc::Server> server;
    int port = 0;
    BareGrpcServer()
    {
        grpc::EnableDefaultHealthCheckService(true);
        grpc::ServerBuilder builder;
        builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
        builder.RegisterCallbackGenericService(&unimplemented);
        server = builder.BuildAndStart();
    }
    ~BareGrpcServer()
    {
        if (server)
            server->Shutdown(std::chrono::system_clock::now());
    }
    std::string address() const { return "127.0.0.1:" + std::to_string(port); }
};

const StaQueueGap* gapOf(const VariantMetrics& m, const QString& gateway)
{
    for (const StaQueueGap& g : m.staQueueGaps)
        if (g.gateway == gateway)
            return &g;
    return nullptr;
}

// Runs `runner` in 0.1 s steps and calls `stop` once the series of `subject`'s STA queue
// has a point (the runner read that gateway's queue), then runs it to its end. The stop
// comes 2.5 s before the end at the latest (checked), so that samples after it fail.
VariantMetrics runStoppingOnceRead(ScenarioRunner& runner, const QString& subject,
                                   const std::function<void()>& stop)
{
    runner.start();
    double t = 0;
    const auto read = [&] {
        const Series* s = runner.series().find(subject, "sta_queue_depth");
        return s && !s->points().empty();
    };
    while (!read() && t < runner.durationS() - 2.5)
        runner.advanceTo(t += 0.1);
    [&] { QVERIFY2(read(), qPrintable(subject + " was not read in time")); }();
    stop();
    runner.advanceTo(runner.durationS());
    return runner.finish().metrics;
}

} // namespace

class TestLiveRunner : public QObject {
    Q_OBJECT

private slots:
    // Lever 2 over real gRPC: one SubscribeBulk for 244 tags, all Good within 2 s.
    void bulkSubscribeOverLoopback()
    {
        const Scenario s = parse(liveScenario(2.5, 244, "lever1+2"));
        QString error;
        const ScenarioReport report = runScenarioLive(s, {}, std::nullopt, LiveOptions{}, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(report.live);
        QCOMPARE(report.variants.size(), 1);
        const VariantMetrics& m = report.variants[0];
        QCOMPARE(m.gatewayMetricsSource, QStringLiteral("gateway"));
        QCOMPARE(m.gatewayRpcsByKind.value(rpc_kind::kSubscribeBulk), 1);
        QCOMPARE(m.gatewayRpcsByKind.value(QStringLiteral("register")), 1);
        QCOMPARE(m.gatewayRpcsByKind.size(), 2); // nothing else: no fan-out
        QCOMPARE(m.gatewayRpcs, 2);
        QCOMPARE(m.deadlineExceeded, 0);
        QCOMPARE(m.subscribeRequests, 1);
        QVERIFY(m.skippedActions.isEmpty());
        QVERIFY2(m.timeToAllGoodS && *m.timeToAllGoodS <= 2.0,
                 qPrintable(QString::number(m.timeToAllGoodS.value_or(-1))));
        qInfo("live: 244 tags all Good %.3f s after the start", *m.timeToAllGoodS);
        const QJsonObject json = variantToJson(m);
        QCOMPARE(json.value("gateway_metrics_source").toString(), QStringLiteral("gateway"));
        QVERIFY(!json.contains("skipped_actions"));
    }

    // The gateway without the capability: the legacy fan-out, AddItemBulk + 244 advises.
    void fallbackWithoutTheCapability()
    {
        const Scenario s =
            parse(liveScenario(2, 244, "lever1+2", {{"advertise_bulk_supervisory", false}}));
        QString error;
        const ScenarioReport report = runScenarioLive(s, {}, std::nullopt, LiveOptions{}, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const VariantMetrics& m = report.variants.value(0);
        QCOMPARE(m.gatewayRpcsByKind.value(rpc_kind::kSubscribeBulk), 0);
        QCOMPARE(m.gatewayRpcsByKind.value(rpc_kind::kAddItemBulk), 1);
        QCOMPARE(m.gatewayRpcsByKind.value(rpc_kind::kAdviseSupervisory), 244);
        QVERIFY(m.timeToAllGoodS);
    }

    // A wedge on the timeline reaches the embedded mock: with the gateway's 1 s command
    // timeout (Lever 3 off), the register behind the wedge fails with DEADLINE_EXCEEDED.
    void faultReachesTheEmbeddedMock()
    {
        QJsonObject o = liveScenario(2.5, 4, "levers-off", {{"default_command_timeout_s", 1}});
        o["timeline"] = QJsonArray{action(0, "wedge", {{"duration_s", 2}})};
        QString error;
        const ScenarioReport report =
            runScenarioLive(parse(o), {}, std::nullopt, LiveOptions{}, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const VariantMetrics& m = report.variants.value(0);
        QVERIFY(m.skippedActions.isEmpty());
        QVERIFY2(m.deadlineExceeded > 0, qPrintable(QString::number(m.deadlineExceeded)));
        QVERIFY(m.maxStaQueueDepth >= 1);
    }

    // --gateway at a separately started mock: faults go through its MockGatewayControl,
    // and the counters are its own, counted from the run's start.
    void externalMockTakesFaultsByRemoteControl()
    {
        gateway::GatewayConfig config;
        config.defaultCommandTimeout = std::chrono::seconds(1);
        config.commandMs = 0.2;
        config.perItemMs = 0.01;
        config.dataHz = 10;
        gateway::MockGatewayServer server(config);
        QVERIFY2(server.start(), server.lastError().c_str());

        QJsonObject o = liveScenario(2.5, 4, "levers-off");
        o["timeline"] = QJsonArray{action(0, "wedge", {{"duration_s", 2}})};
        const Scenario s = parse(o);
        LiveOptions live;
        live.gateway = GrpcPortOptions{};
        live.gateway->address = server.address();
        ScenarioRunner runner(s, s.variants[0], live);
        QVERIFY2(runner.ok(), qPrintable(runner.error()));
        QVERIFY(runner.server() == nullptr); // not an embedded one
        const VariantMetrics m = runner.run().metrics;
        QVERIFY(m.skippedActions.isEmpty());
        QCOMPARE(m.gatewayMetricsSource, QStringLiteral("gateway"));
        QVERIFY(m.deadlineExceeded > 0);
        // The external mock's own counters saw it too.
        const auto expired = server.runOnModel(
            [](gateway::GatewayModel& g) { return g.stats().deadline_exceeded(); });
        QCOMPARE(expired, m.deadlineExceeded);
    }

    // An address without MockGatewayControl (a real gateway has none): the fault action is
    // skipped and listed, and the gateway metrics are the client's own counts.
    void gatewayWithoutControlSkipsFaults()
    {
        BareGrpcServer bare;
        QVERIFY(bare.server && bare.port > 0);
        QVERIFY(!remoteControlAccess(bare.address())->unavailableReason().isEmpty());

        QJsonObject o = liveScenario(1.5, 4, "all");
        o["timeline"] = QJsonArray{action(0.5, "wedge", {{"duration_s", 0.5}})};
        LiveOptions live;
        live.gateway = GrpcPortOptions{};
        live.gateway->address = bare.address();
        QList<double> elapsed;
        live.progress = [&](const QString& variant, double s, double total) {
            QCOMPARE(variant, QStringLiteral("all"));
            QCOMPARE(total, 1.5);
            elapsed << s;
        };
        QString error;
        const ScenarioReport report = runScenarioLive(parse(o), {}, std::nullopt, live, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const VariantMetrics& m = report.variants.value(0);
        QCOMPARE(m.skippedActions.size(), 1);
        QVERIFY2(m.skippedActions[0].startsWith("wedge at 0.5 s skipped: ") &&
                     m.skippedActions[0].contains("no mock control service"),
                 qPrintable(m.skippedActions[0]));
        QCOMPARE(m.gatewayMetricsSource, QStringLiteral("client"));
        QVERIFY(!m.timeToAllGoodS); // no session, no data: never Good
        // Defect 8: a gateway without counters has no queue to report: unknown, never 0;
        // and time_to_all_good_s cannot count from a fault that never happened.
        QVERIFY(!m.maxStaQueueDepth.has_value());
        QCOMPARE(m.timeToAllGoodFrom, QStringLiteral("start"));
        QVERIFY(m.notes.join(" ").contains("applied none of the timeline's faults"));
        const QJsonObject json = variantToJson(m);
        QCOMPARE(json.value("skipped_actions").toArray().size(), 1);
        QVERIFY(json.value("max_sta_queue_depth").isNull());
        QCOMPARE(json.value("gateway_metrics_source").toString(), QStringLiteral("client"));
        // Progress once per second of the run, ending at its length.
        QCOMPARE(elapsed, (QList<double>{1.0, 1.5}));
    }

    // A live site of one mxgw-mock (its queue read through its control service) and one
    // gateway without a control service (a real one; here an address that answers gRPC but
    // neither service): the site's max_sta_queue_depth is unknown, not the mock's queue
    // shown as the site's, and the report names the gateway it could not read.
    void mixedSitesQueueIsUnknownAndNamesTheUnreadGateway()
    {
        gateway::MockGatewayServer mock; // its queue is read, whatever it holds
        QVERIFY2(mock.start(), mock.lastError().c_str());
        BareGrpcServer real;
        QVERIFY(real.server && real.port > 0);

        const QJsonObject o = liveSite(2.5, "gw-mock", "gw-real");
        LiveOptions live;
        live.gateways["gw-mock"].address = mock.address();
        live.gateways["gw-real"].address = real.address();
        QString error;
        const ScenarioReport report = runScenarioLive(parse(o), {}, std::nullopt, live, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const VariantMetrics& m = report.variants.value(0);
        QCOMPARE(m.gatewayMetricsSource, QStringLiteral("client"));
        QVERIFY(!m.maxStaQueueDepth.has_value());
        // gw-real for what it is, from its access (it has no control service), not from an
        // empty series. The mock's first read may land after the first samples on a busy
        // machine: then it is a gap too, but never one of "no control service".
        const StaQueueGap* realGap = gapOf(m, "gw-real");
        QVERIFY(realGap);
        QCOMPARE(int(realGap->kind), int(StaQueueGap::Kind::NoControlService));
        QCOMPARE(realGap->readSamples, 0);
        QCOMPARE(realGap->samples, 3); // at 0, 1 and 2 s
        if (const StaQueueGap* mockGap = gapOf(m, "gw-mock"))
            QVERIFY(mockGap->kind != StaQueueGap::Kind::NoControlService);
        const QString notes = m.notes.join(" ");
        QVERIFY2(notes.contains("gw-real has no control service to read it from"),
                 qPrintable(notes));
        QVERIFY2(!notes.contains("gw-mock has no control service"), qPrintable(notes));
        if (m.maxStaQueueDepthAtLeast)
            QVERIFY2(notes.contains("a lower bound"), qPrintable(notes));
        const QJsonObject json = variantToJson(m);
        QVERIFY(json.value("max_sta_queue_depth").isNull());
        QVERIFY(json.value("notes").toArray().contains(QJsonValue(m.notes.last())));
        QVERIFY(json.value("sta_queue_gaps")
                    .toArray()
                    .contains(QJsonObject{{"gateway", "gw-real"},
                                          {"read", "no control service"},
                                          {"read_samples", 0},
                                          {"samples", 3}}));
    }

    // A site gateway read for part of the run (its mxgw-mock went away after its queue was
    // read): the deepest queue read is only a lower bound, and the report says whose queue
    // was read how often. Stopped once the runner has read it, so a slow first read on a
    // busy machine only moves the stop.
    void aSiteGatewayReadForPartOfTheRunIsALowerBound()
    {
        gateway::MockGatewayServer mockA, mockB;
        QVERIFY2(mockA.start(), mockA.lastError().c_str());
        QVERIFY2(mockB.start(), mockB.lastError().c_str());
        const QJsonObject o = liveSite(6, "gw-a", "gw-b");
        LiveOptions live;
        live.gateways["gw-a"].address = mockA.address();
        live.gateways["gw-b"].address = mockB.address();
        const Scenario scenario = parse(o);
        ScenarioRunner runner(scenario, scenario.variants.first(), live);
        QVERIFY2(runner.ok(), qPrintable(runner.error()));
        const VariantMetrics m =
            runStoppingOnceRead(runner, "gateway:gw-b", [&mockB] { mockB.stop(); });
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(m.gatewayMetricsSource, QStringLiteral("client"));
        QVERIFY(!m.maxStaQueueDepth.has_value());
        QVERIFY(m.maxStaQueueDepthAtLeast.has_value());
        const StaQueueGap* b = gapOf(m, "gw-b");
        QVERIFY(b);
        QCOMPARE(int(b->kind), int(StaQueueGap::Kind::Partly));
        QCOMPARE(b->samples, 6);
        QVERIFY2(b->readSamples >= 1 && b->readSamples < b->samples,
                 qPrintable(QString::number(b->readSamples)));
        if (const StaQueueGap* a = gapOf(m, "gw-a")) // read late, on a busy machine
            QVERIFY(a->kind != StaQueueGap::Kind::NoControlService);
        const QString notes = m.notes.join(" ");
        QVERIFY2(
            notes.contains(QStringLiteral("the STA queue of gw-b was read at only %1 of 6 samples")
                               .arg(b->readSamples)) &&
                notes.contains("a lower bound"),
            qPrintable(notes));
        const QJsonObject json = variantToJson(m);
        QVERIFY(json.value("max_sta_queue_depth").isNull());
        QCOMPARE(json.value("max_sta_queue_depth_at_least").toInteger(-1),
                 *m.maxStaQueueDepthAtLeast);
    }

    // The same with one gateway whose own counters are read (an mxgw-mock at an address):
    // once it is gone its maximum is what it said last, a lower bound for the run.
    void aLoneGatewayReadForPartOfTheRunIsALowerBound()
    {
        gateway::MockGatewayServer mock;
        QVERIFY2(mock.start(), mock.lastError().c_str());
        LiveOptions live;
        live.gateway = GrpcPortOptions{};
        live.gateway->address = mock.address();
        const Scenario scenario = parse(liveScenario(4, 4, "all"));
        ScenarioRunner runner(scenario, scenario.variants.first(), live);
        QVERIFY2(runner.ok(), qPrintable(runner.error()));
        const VariantMetrics m = runStoppingOnceRead(runner, "gateway", [&mock] { mock.stop(); });
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(m.gatewayMetricsSource, QStringLiteral("gateway"));
        QVERIFY(!m.maxStaQueueDepth.has_value());
        QVERIFY(m.maxStaQueueDepthAtLeast.has_value());
        QCOMPARE(m.staQueueGaps.size(), 1);
        const StaQueueGap& gap = m.staQueueGaps.front();
        QCOMPARE(gap.gateway, QString());
        QCOMPARE(int(gap.kind), int(StaQueueGap::Kind::Partly));
        QCOMPARE(gap.samples, 4);
        QVERIFY2(gap.readSamples >= 1 && gap.readSamples < gap.samples,
                 qPrintable(QString::number(gap.readSamples)));
        QVERIFY2(m.notes.join(" ").contains("the STA queue of the gateway was read at only"),
                 qPrintable(m.notes.join(" ")));
    }

    // Variants on one shared gateway: each closes its session at its end (the mock drops
    // the session's queued commands) and ends the faults it injected, so the next variant
    // opens its session at once on an idle STA; nothing stays open once the client is done.
    void variantsOnASharedGatewayStartClean()
    {
        gateway::GatewayConfig config;
        config.commandMs = 5;
        config.perItemMs = 0.1;
        config.dataHz = 2;
        gateway::MockGatewayServer server(config);
        QVERIFY2(server.start(), server.lastError().c_str());

        QJsonObject o = liveScenario(2.5, 50, "levers-off");
        QJsonArray instances = o["instances"].toArray();
        QJsonObject inst = instances[0].toObject();
        inst["start_at_s"] = 0.5; // its subscribes queue on the wedged STA
        instances[0] = inst;
        o["instances"] = instances;
        o["options"] = QJsonObject{{"TagSubscribeRetryIntervalMs", 300}};
        o["timeline"] = QJsonArray{action(0.2, "wedge", {{"duration_s", 60}})};
        o["variants"] = QJsonArray{"levers-off", "lever1"};
        LiveOptions live;
        live.gateway = GrpcPortOptions{};
        live.gateway->address = server.address();
        QString error;
        const ScenarioReport report = runScenarioLive(parse(o), {}, std::nullopt, live, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(report.variants.size(), 2);
        for (const VariantMetrics& m : report.variants) {
            QVERIFY2(m.connectedAfterS && *m.connectedAfterS < 0.5,
                     qPrintable(m.name + ": " + QString::number(m.connectedAfterS.value_or(-1))));
            QVERIFY(m.subscribeRequests >= 1);
        }
        QVERIFY(report.variants[0].subscribeRequests > 3); // levers-off stacked on the wedge
        const auto stats = server.runOnModel([](gateway::GatewayModel& g) { return g.stats(); });
        QCOMPARE(stats.sessions(), 0);
        QCOMPARE(stats.sta_queue_depth(), 0);
        QVERIFY(!stats.wedged()); // the variant's 60 s wedge ended with it
    }

    void unusableGatewayIsNamed()
    {
        const Scenario s = parse(liveScenario(1, 1, "all"));
        LiveOptions live;
        live.gateway = GrpcPortOptions{};
        live.gateway->address = "no-port-here";
        QString error;
        const ScenarioReport report = runScenarioLive(s, {}, std::nullopt, live, &error);
        QVERIFY(report.variants.isEmpty());
        QVERIFY2(error.startsWith("gateway: ") && error.contains("no-port-here"),
                 qPrintable(error));
    }
};

QTEST_GUILESS_MAIN(TestLiveRunner)
#include "tst_live_runner.moc"
