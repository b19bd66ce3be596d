// The in-process port as the transport in front of a frozen gateway: its keepalive ping goes
// unanswered, so every stream and call on the connection ends UNAVAILABLE "timed out" (what
// gRPC gives over a real socket), and a new connection attempt times out unless the gateway
// continues first (the kernel accepted the connection; its first frame comes when the process
// runs again). A half-open gateway answers the pings: nothing ends.
#include "client/virtual_scheduler.h"
#include "gateway/gateway_model.h"
#include "scenario/in_process_gateway_port.h"

#include <QTest>

using namespace stormwatch;
using namespace std::chrono_literals;
using namespace mxgateway::v1;

namespace {
struct Rig {
    VirtualScheduler sched;
    gateway::GatewayModel model{sched, quiet()};
    InProcessGatewayPort port{sched, model, 1ms};
    std::string session;

    static gateway::GatewayConfig quiet()
    {
        gateway::GatewayConfig c;
        c.dataHz = 0; // nothing but pings would prove the gateway there
        return c;
    }
    void openSession()
    {
        port.openSession(OpenSessionRequest{}, [this](RpcStatus st, OpenSessionReply r) {
            QVERIFY(st.ok());
            session = r.session_id();
        });
        sched.runUntil(sched.now() + 1s);
    }
    // Opens a session and its stream, freezes the gateway for `freezeFor` and runs until
    // `runFor` after the freeze (past the 1 s + 1 s keepalive: the transport is closed).
    // Returns when the freeze began.
    Time freezeUntilTheTransportCloses(Duration freezeFor, Duration runFor)
    {
        port.setKeepalive(1s, 1s);
        openSession();
        const Time frozeAt = sched.now();
        model.silence(freezeFor, false);
        StreamEventsRequest request;
        request.set_session_id(session);
        port.streamEvents(
            request, [](const MxEventBatch&) {}, [](RpcStatus) {});
        sched.runUntil(frozeAt + runFor);
        return frozeAt;
    }
    MxCommandRequest registerCommand() const
    {
        MxCommandRequest invoke;
        invoke.set_session_id(session);
        invoke.mutable_command()->mutable_register_();
        return invoke;
    }
};

struct Ended {
    bool ended = false;
    RpcStatus status;
    Time at{-1};
};
} // namespace

class TestInProcessPort : public QObject {
    Q_OBJECT
private slots:
    void aFrozenGatewaysStreamEndsWhenItsKeepaliveGoesUnanswered();
    void aCallToAGatewayStillFrozenTimesOutConnecting();
    void aConnectionAttemptGoesOnWhenTheGatewayContinues();
    void aHalfOpenGatewayKeepsTheStreamOpen();
};

void TestInProcessPort::aFrozenGatewaysStreamEndsWhenItsKeepaliveGoesUnanswered()
{
    Rig rig;
    rig.port.setKeepalive(10s, 5s);
    rig.openSession();
    StreamEventsRequest request;
    request.set_session_id(rig.session);
    auto ended = std::make_shared<Ended>();
    rig.port.streamEvents(
        request, [](const MxEventBatch&) {},
        [&, ended](RpcStatus st) {
            ended->ended = true;
            ended->status = st;
            ended->at = rig.sched.now();
        });
    rig.sched.runUntil(rig.sched.now() + 1s);
    const Time frozeAt = rig.sched.now();
    rig.model.silence(60s, false);
    // An invoke in flight on the connection: failed with it, not answered later.
    RpcStatus invokeStatus;
    int invokeAnswers = 0;
    MxCommandRequest invoke;
    invoke.set_session_id(rig.session);
    invoke.mutable_command()->mutable_register_();
    rig.port.invoke(invoke, [&](RpcStatus st, MxCommandReply) {
        invokeStatus = st;
        ++invokeAnswers;
    });
    rig.sched.runUntil(frozeAt + 60s + 5s);
    QVERIFY(ended->ended);
    QCOMPARE(ended->status.code, grpc::StatusCode::UNAVAILABLE);
    QVERIFY(ended->status.transportTimedOut && ended->status.unanswered());
    // The last frame came at the session's open (about 1 s before the freeze): its ping 10 s
    // later, given up 5 s after that.
    QVERIFY2(
        ended->at > frozeAt && ended->at <= frozeAt + 15s,
        qPrintable(QString::number(std::chrono::duration<double>(ended->at - frozeAt).count())));
    QCOMPARE(invokeAnswers, 1); // the gateway's late answer after it continued reaches nobody
    QVERIFY(invokeStatus.transportTimedOut);
}

void TestInProcessPort::aCallToAGatewayStillFrozenTimesOutConnecting()
{
    Rig rig;
    const Time frozeAt = rig.freezeUntilTheTransportCloses(20s, 5s);
    const std::int64_t rpcsBefore = rig.model.invokeRpcs();
    RpcStatus status;
    Time at{-1};
    const MxCommandRequest invoke = rig.registerCommand();
    const Time sent = rig.sched.now();
    rig.port.invoke(invoke, [&](RpcStatus st, MxCommandReply) {
        status = st;
        at = rig.sched.now();
    });
    rig.sched.runUntil(sent + 3s);
    QVERIFY(at > sent && at <= sent + 1s);
    QVERIFY(status.transportTimedOut);
    QVERIFY(QString::fromStdString(status.message).contains("SETTINGS"));
    QCOMPARE(rig.model.invokeRpcs(), rpcsBefore); // it never reached the gateway

    // Once the gateway continues, a new connection carries calls again.
    rig.sched.runUntil(frozeAt + 21s);
    bool answered = false;
    rig.port.invoke(invoke, [&](RpcStatus st, MxCommandReply) { answered = st.ok(); });
    rig.sched.runUntil(rig.sched.now() + 1s);
    QVERIFY(answered);
}

void TestInProcessPort::aConnectionAttemptGoesOnWhenTheGatewayContinues()
{
    Rig rig;
    const Time frozeAt = rig.freezeUntilTheTransportCloses(5s, 4700ms);
    RpcStatus status;
    Time at{-1};
    const MxCommandRequest invoke = rig.registerCommand();
    const std::int64_t rpcsBefore = rig.model.invokeRpcs();
    rig.port.invoke(invoke, [&](RpcStatus st, MxCommandReply) {
        status = st;
        at = rig.sched.now();
    });
    rig.sched.runUntil(frozeAt + 4900ms);
    QCOMPARE(at, Time{-1}); // waiting for the gateway's first frame
    rig.sched.runUntil(frozeAt + 7s);
    QVERIFY2(status.ok(), status.message.c_str());
    QVERIFY(at >= frozeAt + 5s && at < frozeAt + 5100ms); // answered as soon as it continued
    QCOMPARE(rig.model.invokeRpcs(), rpcsBefore + 1);
}

void TestInProcessPort::aHalfOpenGatewayKeepsTheStreamOpen()
{
    Rig rig;
    rig.port.setKeepalive(1s, 1s);
    rig.openSession();
    StreamEventsRequest request;
    request.set_session_id(rig.session);
    bool ended = false;
    rig.port.streamEvents(
        request, [](const MxEventBatch&) {}, [&](RpcStatus) { ended = true; });
    rig.model.silence(30s, true);
    rig.sched.runUntil(rig.sched.now() + 29s);
    QVERIFY(!ended);
}

QTEST_GUILESS_MAIN(TestInProcessPort)
#include "tst_in_process_port.moc"
