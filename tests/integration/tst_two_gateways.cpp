// Several gateways at once: one ClientEngine, one port per gateway. A gateway that fails —
// SIGKILLed mxgw-mock process, or killed in-process model in virtual time — takes down only
// its own connection: the other gateway's tags stay Good at every sample, its connection
// never leaves Connected, its data keeps flowing, and its recovery gate stays Normal. The
// same through the ScenarioRunner from a site scenario: tst_two_gateway_site.
#include "client/client_engine.h"
#include "client/grpc_gateway_port.h"
#include "client/qt_scheduler.h"
#include "client/virtual_scheduler.h"
#include "gateway/gateway_model.h"
#include "gateway/mock_gateway_server.h"
#include "integration/support_mock_process.h"
#include "scenario/gateway_access.h"
#include "scenario/in_process_gateway_port.h"
#include "scenario/scenario_parser.h"
#include "scenario/scenario_runner.h"
#include "scenario/site_live.h"
#include "support_virtual_gateway.h"

#include <QEventLoop>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>
#include <limits>
#include <set>

using namespace stormwatch;
using namespace stormwatch::testing;
using namespace std::chrono_literals;

namespace {

EngineConfig twoGatewayConfig(int tags)
{
    EngineConfig c;
    c.levers = *leverPreset("lever1+2", nullptr);
    c.options.reconnectBackoffFloorMs = 200;
    c.options.reconnectBackoffMaxMs = 1000;
    c.connections.push_back({"conn-a", 0, "gw-a"});
    c.connections.push_back({"conn-b", 0, "gw-b"});
    c.instances.push_back({"TankFarm", "conn-a", makeTags("TK101.Level", tags), false});
    c.instances.push_back({"Line3_Filler", "conn-b", makeTags("Line3_Filler.Speed", tags), false});
    return c;
}

// Every connection state the engine reported, per connection name.
struct States : EngineObserver {
    std::map<std::string, std::vector<ConnectionState>> seen;
    void onConnectionState(const GatewayConnection& c, ConnectionState s) override
    {
        seen[c.name()].push_back(s);
    }
};

// Samples instance B (index 1) and A (index 0) as the plots would: Good counts over time.
struct Samples {
    std::vector<int> goodA, goodB;
    std::vector<std::int64_t> changesB;
    void take(const ClientEngine& e)
    {
        goodA.push_back(e.instances()[0]->counts().good);
        goodB.push_back(e.instances()[1]->counts().good);
        changesB.push_back(e.connections()[1]->stats().dataChanges);
    }
};

bool allGood(const ClientEngine& e)
{
    for (const auto& i : e.instances())
        if (i->counts().good != int(i->tagNames().size()))
            return false;
    return true;
}

void spin(int ms)
{
    QEventLoop loop;
    QTimer::singleShot(ms, Qt::PreciseTimer, &loop, &QEventLoop::quit);
    loop.exec();
}

} // namespace

class TestTwoGateways : public QObject {
    Q_OBJECT
private slots:
    void validateNamesAConnectionsUnknownGateway();
    void eachConnectionReachesItsOwnGateway();
    void killedModelLeavesTheOtherGatewayUndisturbed();
    void killedProcessLeavesTheOtherGatewayUndisturbed();
    void oneGatewaysRecoveryPeriodLeavesTheOtherAlone();
    void theOnePortFormServesConnectionsThatNameAGateway();
};

void TestTwoGateways::validateNamesAConnectionsUnknownGateway()
{
    VirtualScheduler sched;
    gateway::GatewayModel model(sched);
    InProcessGatewayPort port(sched, model, 1ms);
    ClientEngine::GatewayPorts ports{{"gw-a", &port}};
    const std::string why = ClientEngine::validate(twoGatewayConfig(3), &ports);
    QCOMPARE(QString::fromStdString(why),
             QString("connection \"conn-b\" names unknown gateway \"gw-b\""));
    ports.emplace("gw-b", &port);
    QCOMPARE(ClientEngine::validate(twoGatewayConfig(3), &ports), std::string());
}

void TestTwoGateways::eachConnectionReachesItsOwnGateway()
{
    VirtualScheduler sched;
    gateway::GatewayConfig gc;
    gc.dataHz = 0;
    gateway::GatewayModel a(sched, gc), b(sched, gc);
    InProcessGatewayPort portA(sched, a, 1ms), portB(sched, b, 1ms);
    ClientEngine engine(sched, ClientEngine::GatewayPorts{{"gw-a", &portA}, {"gw-b", &portB}},
                        twoGatewayConfig(20));
    engine.startConnections();
    engine.deployAll();
    sched.runUntil(sched.now() + 5s);
    QVERIFY(allGood(engine));
    QCOMPARE(a.sessionCount(), std::size_t(1));
    QCOMPARE(b.sessionCount(), std::size_t(1));
    // Each gateway holds exactly its own instance's items.
    const auto& sa = *a.session(engine.connections()[0]->sessionId());
    const auto& sb = *b.session(engine.connections()[1]->sessionId());
    QCOMPARE(sa.items.size(), std::size_t(20));
    QCOMPARE(sb.items.size(), std::size_t(20));
    QCOMPARE(sa.items.begin()->second.tag.rfind("TK101.Level.", 0), std::size_t(0));
    QCOMPARE(sb.items.begin()->second.tag.rfind("Line3_Filler.Speed.", 0), std::size_t(0));
    QVERIFY(engine.gate("gw-a") && engine.gate("gw-b") &&
            engine.gate("gw-a") != engine.gate("gw-b"));
}

void TestTwoGateways::killedModelLeavesTheOtherGatewayUndisturbed()
{
    VirtualScheduler sched;
    gateway::GatewayConfig gc;
    gc.dataHz = 2;
    gateway::GatewayModel a(sched, gc), b(sched, gc);
    InProcessGatewayPort portA(sched, a, 1ms), portB(sched, b, 1ms);
    ClientEngine engine(sched, ClientEngine::GatewayPorts{{"gw-a", &portA}, {"gw-b", &portB}},
                        twoGatewayConfig(50));
    States states;
    engine.addObserver(&states);
    engine.startConnections();
    engine.deployAll();
    sched.runUntil(sched.now() + 5s);
    QVERIFY(allGood(engine));
    states.seen.clear();

    a.kill(20s); // gateway A's process dies and comes back 20 s later
    Samples samples;
    for (int i = 0; i < 400; ++i) { // 40 s in 100 ms steps
        sched.runUntil(sched.now() + 100ms);
        samples.take(engine);
    }
    // A was disturbed (the fault took effect) and recovered ...
    QVERIFY(*std::min_element(samples.goodA.begin(), samples.goodA.end()) < 50);
    QCOMPARE(samples.goodA.back(), 50);
    QVERIFY(!states.seen["conn-a"].empty());
    // ... while B never noticed: every sample all Good, no state change, data flowing.
    QCOMPARE(*std::min_element(samples.goodB.begin(), samples.goodB.end()), 50);
    QVERIFY2(states.seen["conn-b"].empty(), "conn-b changed state");
    QVERIFY(samples.changesB.back() > samples.changesB.front() + 50 * 2 * 30);
    QCOMPARE(engine.gate("gw-b")->state(), RecoveryGate::State::Normal);
    engine.removeObserver(&states);
}

void TestTwoGateways::killedProcessLeavesTheOtherGatewayUndisturbed()
{
    testsupport::MockProcess mockA{}, mockB{};
    QVERIFY(mockA.start());
    QVERIFY(mockB.start());
    QtScheduler sched;
    GrpcPortOptions oa, ob;
    oa.address = mockA.address();
    ob.address = mockB.address();
    auto portA = std::make_unique<GrpcGatewayPort>(sched, oa);
    auto portB = std::make_unique<GrpcGatewayPort>(sched, ob);
    {
        ClientEngine engine(
            sched, ClientEngine::GatewayPorts{{"gw-a", portA.get()}, {"gw-b", portB.get()}},
            twoGatewayConfig(50));
        States states;
        engine.addObserver(&states);
        engine.startConnections();
        engine.deployAll();
        QTRY_VERIFY_WITH_TIMEOUT(allGood(engine), 20000);
        states.seen.clear();

        mockA.kill(); // SIGKILL: A's calls and stream break at the transport
        Samples samples;
        for (int i = 0; i < 60; ++i) { // 3 s in 50 ms steps
            spin(50);
            samples.take(engine);
        }
        QVERIFY(!states.seen["conn-a"].empty());
        QVERIFY(engine.connections()[0]->state() != ConnectionState::Connected);
        QCOMPARE(*std::min_element(samples.goodB.begin(), samples.goodB.end()), 50);
        QVERIFY2(states.seen["conn-b"].empty(), "conn-b changed state");
        QVERIFY(engine.connections()[1]->connected());
        QVERIFY(samples.changesB.back() >
                samples.changesB.front()); // its data keeps flowing (2 Hz)
        QCOMPARE(engine.gate("gw-b")->state(), RecoveryGate::State::Normal);

        bool closed = false;
        engine.close([&closed] { closed = true; });
        QTRY_VERIFY_WITH_TIMEOUT(closed, 5000);
        engine.removeObserver(&states);
    }
}

// A gate per gateway: gateway A in its recovery period refuses A's calls only; B subscribes
// and stays Normal. The engine's own view (what a run's recovery series and metrics report)
// is the most severe state and the refusals of every gate.
void TestTwoGateways::oneGatewaysRecoveryPeriodLeavesTheOtherAlone()
{
    VirtualScheduler sched;
    gateway::GatewayConfig gc;
    gc.dataHz = 0;
    gateway::GatewayModel a(sched, gc), b(sched, gc);
    InProcessGatewayPort portA(sched, a, 1ms), portB(sched, b, 1ms);
    EngineConfig c = twoGatewayConfig(10);
    c.levers.recovery.enabled = true;
    c.levers.recovery.strategy = RecoveryConfig::Strategy::Simple;
    c.levers.recovery.failHandler = RecoveryConfig::FailHandler::Simple;
    c.levers.recovery.recoverySeconds = 60;
    ClientEngine engine(sched, ClientEngine::GatewayPorts{{"gw-a", &portA}, {"gw-b", &portB}}, c);
    engine.startConnections();
    sched.runUntil(sched.now() + 1s);
    engine.gate().recordFailure("DEADLINE_EXCEEDED: test"); // the first connection's: gw-a's
    QVERIFY(engine.gate("gw-a")->recovering());
    QCOMPARE(engine.gate("gw-b")->state(), RecoveryGate::State::Normal);
    QCOMPARE(engine.recoveryState(), RecoveryGate::State::Recovering);

    engine.deployAll();
    sched.runUntil(sched.now() + 30s);
    QCOMPARE(engine.instances()[0]->counts().good, 0);  // A's subscribes refused
    QCOMPARE(engine.instances()[1]->counts().good, 10); // B's went through
    QVERIFY(engine.gate("gw-a")->suppressedCalls() > 0);
    QCOMPARE(engine.gate("gw-b")->suppressedCalls(), std::uint64_t(0));
    QCOMPARE(engine.suppressedCalls(), std::int64_t(engine.gate("gw-a")->suppressedCalls()));

    sched.runUntil(sched.now() + 60s); // A's period is over: its guard retries
    QCOMPARE(engine.instances()[0]->counts().good, 10);
    QCOMPARE(engine.recoveryState(), RecoveryGate::State::Normal);
}

// Given one port, every connection reaches it, whatever gateway it names.
void TestTwoGateways::theOnePortFormServesConnectionsThatNameAGateway()
{
    VirtualScheduler sched;
    gateway::GatewayConfig gc;
    gc.dataHz = 0;
    gateway::GatewayModel model(sched, gc);
    InProcessGatewayPort port(sched, model, 1ms);
    ClientEngine engine(sched, port, twoGatewayConfig(5));
    QCOMPARE(engine.connections().size(), std::size_t(2));
    engine.startConnections();
    engine.deployAll();
    sched.runUntil(sched.now() + 5s);
    QVERIFY(allGood(engine));
    QCOMPARE(model.sessionCount(), std::size_t(2));
}

QTEST_GUILESS_MAIN(TestTwoGateways)
#include "tst_two_gateways.moc"
