// A gateway that goes silent is unresponsive, not gone. An event stream whose keepalive went
// unacknowledged (a frozen process, a dead link) leaves the tags their last usable values
// (Uncertain) while the session is resumed or replaced; attempts that go unanswered keep them
// so; a refused or reset attempt makes them Bad (the gateway is there and refusing, or gone);
// a new session subscribes them again. A stream reset or ended by the gateway is a lost
// session as before. Driven through a scripted port on the VirtualScheduler; the same case at
// the real boundary (a SIGSTOPped mxgw-mock) is in integration.frozen_gateway.
#include "client/gateway_connection.h"
#include "client/support_scripted_port.h"
#include "client/virtual_scheduler.h"

#include <QTest>

using namespace stormwatch;
using namespace std::chrono_literals;
using testsupport::ScriptedPort;

namespace {

RpcStatus keepaliveTimeout()
{
    RpcStatus s{grpc::StatusCode::UNAVAILABLE, "keepalive watchdog timeout"};
    s.transportTimedOut = true;
    return s;
}

// A started, connected connection with one subscriber whose quality and liveness are kept.
struct Harness {
    explicit Harness(bool resumable = false) : port(s)
    {
        port.resumable = resumable;
        c.start();
        sub = c.addSubscriber(
            {"Area1.Pump1.Speed"}, [](const std::vector<TagUpdate>&) {},
            [this](bool good) { quality.push_back(good); },
            [this](bool responsive) { liveness.push_back(responsive); });
        s.runFor(1s);
        quality.clear(); // the first session's
    }
    ~Harness() { c.stop(); }

    VirtualScheduler s;
    ScriptedPort port;
    GatewayConnection c{s, port, ConnectionConfig{}, nullptr, [] { return 0.5; }};
    GatewayConnection::SubscriberId sub = 0;
    std::vector<bool> quality, liveness;
};

} // namespace

class TestSilentGateway : public QObject {
    Q_OBJECT
private slots:
    void aKeepaliveTimeoutLeavesTheTagsLastUsableUntilANewSession()
    {
        Harness h;
        QCOMPARE(h.c.stateText(), std::string("connected"));
        h.port.finish(keepaliveTimeout());
        QCOMPARE(h.liveness, std::vector<bool>{false});
        QVERIFY(h.quality.empty()); // not Bad: nothing says the gateway is gone
        QCOMPARE(h.c.stateText(), std::string("unresponsive"));
        const Time since = *h.c.unresponsiveSince();

        // The process stays frozen: every attempt goes unanswered.
        h.port.openFails = RpcStatus{grpc::StatusCode::DEADLINE_EXCEEDED, "Deadline Exceeded"};
        h.s.runFor(60s);
        QVERIFY(h.port.opens >= 3);
        QVERIFY(h.quality.empty());
        QCOMPARE(h.c.stateText(), std::string("unresponsive"));
        QCOMPARE(*h.c.unresponsiveSince(), since);

        // It thaws: a new session, its tags subscribed again from the quality callback.
        h.port.openFails.reset();
        h.s.runFor(31s);
        QCOMPARE(h.c.stateText(), std::string("connected"));
        QVERIFY(!h.c.unresponsiveSince());
        QCOMPARE(h.quality, std::vector<bool>{true});
        // The old session's values were never called Good again: they are subscribed anew.
        QCOMPARE(h.liveness, std::vector<bool>{false});
        QCOMPARE(h.c.sessionId(), std::string("s-2"));
    }

    void aRefusedAttemptAfterSilenceMakesTheTagsBad()
    {
        Harness h;
        h.port.finish(keepaliveTimeout());
        h.port.openFails =
            RpcStatus{grpc::StatusCode::UNAVAILABLE, "failed to connect to all addresses; last "
                                                     "error: Connection refused"};
        h.s.runFor(5s);
        QCOMPARE(h.quality, std::vector<bool>{false});
        QCOMPARE(h.c.stateText(), std::string("unreachable"));
        QVERIFY(!h.c.unresponsiveSince());
    }

    void aStreamResetIsALostSessionNotSilence()
    {
        Harness h;
        h.port.finish(RpcStatus{grpc::StatusCode::UNAVAILABLE, "Socket closed"});
        QCOMPARE(h.quality, std::vector<bool>{false});
        QVERIFY(h.liveness.empty());
        QCOMPARE(h.c.stateText(), std::string("reconnecting"));
    }

    void aResumedStreamsFirstEventMakesTheGatewayResponsiveOnTheSameSession()
    {
        Harness h(/*resumable=*/true);
        h.port.send(1);
        h.port.finish(keepaliveTimeout());
        QCOMPARE(h.c.stateText(), std::string("unresponsive"));
        QCOMPARE(h.port.resumedAfter, std::vector<std::uint64_t>{1});
        h.s.runFor(5s);
        h.port.send(2);
        QCOMPARE(h.liveness, (std::vector<bool>{false, true}));
        QVERIFY(h.quality.empty());
        QCOMPARE(h.c.stateText(), std::string("connected"));
        QCOMPARE(h.c.sessionId(), std::string("s-1"));
    }

    void aResumeThatGoesSilentTooGivesUpTheSessionKeepingTheTagsLastUsable()
    {
        Harness h(/*resumable=*/true);
        h.port.send(1);
        h.port.finish(keepaliveTimeout());
        h.s.runFor(1ms);
        h.port.finish(RpcStatus{grpc::StatusCode::DEADLINE_EXCEEDED, "Deadline Exceeded"});
        QCOMPARE(h.c.stats().reconnects, std::int64_t(1));
        QVERIFY(h.quality.empty());
        QCOMPARE(h.c.stateText(), std::string("unresponsive"));
        h.s.runFor(5s);
        QCOMPARE(h.c.sessionId(), std::string("s-2"));
        QCOMPARE(h.quality, std::vector<bool>{true});
        QCOMPARE(h.liveness, std::vector<bool>{false});
    }

    void stoppingForgetsTheSilence()
    {
        Harness h;
        h.port.finish(keepaliveTimeout());
        h.c.stop();
        QVERIFY(!h.c.unresponsiveSince());
        QCOMPARE(h.c.stateText(), std::string("stopped"));
    }
};

QTEST_GUILESS_MAIN(TestSilentGateway)
#include "tst_silent_gateway.moc"
