// Event numbering: a contract that numbers its events (worker_sequence, contiguous per
// session) lets the connection count what never arrived, and resume a stream that ends while
// the session is Ready. A gap is counted and logged once; a new session's stream numbers from
// its own start and is no gap; a resumed stream goes on from the last sequence on the same
// session with nothing subscribed again; a session the gateway no longer knows is replaced,
// named. Driven through a scripted port on the VirtualScheduler.
#include "client/gateway_connection.h"
#include "client/support_scripted_port.h"
#include "client/virtual_scheduler.h"

#include <QTest>
#include <algorithm>

using namespace stormwatch;
using namespace mxgateway::v1;
using namespace std::chrono_literals;
using testsupport::ScriptedPort;

namespace {

// A connection over the scripted port, started and connected, its log kept.
struct Harness {
    explicit Harness(bool resumable = false) : port(s)
    {
        port.resumable = resumable;
        c.setLogger([this](Severity severity, const std::string& m) {
            lines.push_back(m);
            if (severity == Severity::Warning)
                warnings.push_back(m);
        });
        c.start();
        s.runFor(1s);
    }
    ~Harness() { c.stop(); }
    bool logged(const std::string& fragment) const
    {
        return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) {
            return l.find(fragment) != std::string::npos;
        });
    }

    VirtualScheduler s;
    ScriptedPort port;
    GatewayConnection c{s, port, ConnectionConfig{}, nullptr, [] { return 0.5; }};
    std::vector<std::string> lines, warnings;
};

} // namespace

class TestEventSequence : public QObject {
    Q_OBJECT
private slots:
    void aGapInTheSequenceIsCountedAndLoggedOnce()
    {
        Harness h;
        QVERIFY(h.port.event);
        h.port.send(1);
        h.port.send(2);
        h.port.send(5); // 3 and 4 never came
        h.port.send(6);
        QCOMPARE(h.c.stats().eventsLost, std::int64_t(2));
        QCOMPARE(h.warnings.size(), std::size_t(1));
        QVERIFY2(h.warnings[0].find("worker_sequence went from 2 to 5 (2 events") !=
                     std::string::npos,
                 h.warnings[0].c_str());
        h.port.send(6); // a repeat is no loss
        QCOMPARE(h.c.stats().eventsLost, std::int64_t(2));
    }

    void aNewSessionsStreamStartsItsOwnCount()
    {
        Harness h;
        h.port.send(1);
        h.port.send(2);
        h.port.finish(RpcStatus{grpc::StatusCode::UNAVAILABLE, "gateway restarting"});
        h.s.runFor(10s); // reconnects: a new session and stream
        QCOMPARE(h.port.sessions, 2);
        QCOMPARE(h.port.streams, GatewayPort::StreamId(2));
        h.port.send(1);
        h.port.send(2);
        QCOMPARE(h.c.stats().eventsLost, std::int64_t(0));
    }

    void aStreamThatEndsWhileReadyResumesAfterTheLastSequence()
    {
        Harness h(/*resumable=*/true);
        const int invokesBefore = h.port.invokes;
        h.port.send(1);
        h.port.send(2);
        h.port.send(3);
        h.port.finish(RpcStatus{grpc::StatusCode::CANCELLED, "stream cancelled"});
        h.s.runFor(10s);
        QCOMPARE(h.port.resumedAfter, std::vector<std::uint64_t>{3});
        QCOMPARE(h.port.sessions, 1);            // the same session
        QCOMPARE(h.port.invokes, invokesBefore); // nothing registered nor subscribed again
        QCOMPARE(h.c.state(), ConnectionState::Connected);
        QCOMPARE(h.c.stats().streamResumes, std::int64_t(1));
        QCOMPARE(h.c.stats().reconnects, std::int64_t(0));
        h.port.send(4);
        QCOMPARE(h.c.stats().eventsLost, std::int64_t(0));
        // A second end, after events came on the resumed stream, resumes again.
        h.port.finish(RpcStatus{grpc::StatusCode::CANCELLED, "stream cancelled"});
        h.s.runFor(1s);
        QCOMPARE(h.port.resumedAfter, (std::vector<std::uint64_t>{3, 4}));
        QVERIFY(h.logged("resuming after worker_sequence 3 on the same session"));
    }

    void withoutResumeAStreamEndGivesUpTheSession()
    {
        Harness h;
        h.port.send(1);
        h.port.finish(RpcStatus{grpc::StatusCode::CANCELLED, "stream cancelled"});
        h.s.runFor(10s);
        QVERIFY(h.port.resumedAfter.empty());
        QCOMPARE(h.port.sessions, 2);
        QCOMPARE(h.c.stats().reconnects, std::int64_t(1));
    }

    void aSessionTheGatewayFaultedIsReplacedByName()
    {
        Harness h(/*resumable=*/true);
        h.port.send(1);
        h.port.finish(RpcStatus{
            grpc::StatusCode::RESOURCE_EXHAUSTED,
            "EventQueueOverflow: the subscriber fell 10001 events behind: session faulted"});
        h.s.runFor(1ms);
        QCOMPARE(h.port.resumedAfter.size(), std::size_t(1));
        h.port.finish(RpcStatus{grpc::StatusCode::NOT_FOUND, "unknown session s-1"});
        h.s.runFor(10s);
        QCOMPARE(h.port.sessions, 2);
        QCOMPARE(h.c.stats().reconnects, std::int64_t(1));
        QVERIFY(!h.warnings.empty());
        QVERIFY2(h.warnings.back().find("no longer knows session s-1") != std::string::npos,
                 h.warnings.back().c_str());
    }

    void aResumeThatEndsBeforeAnyEventGivesUpTheSession()
    {
        Harness h(/*resumable=*/true);
        h.port.send(7);
        h.port.finish(RpcStatus{grpc::StatusCode::UNAVAILABLE, "stream reset"});
        h.s.runFor(1ms);
        h.port.finish(
            RpcStatus{grpc::StatusCode::FAILED_PRECONDITION, "EventSubscriberAlreadyActive"});
        h.s.runFor(10s);
        QCOMPARE(h.port.resumedAfter, std::vector<std::uint64_t>{7}); // asked once, not forever
        QCOMPARE(h.port.sessions, 2);
    }

    void eventsWithoutASequenceCountNothing()
    {
        Harness h;
        h.port.send(0);
        h.port.send(0);
        QCOMPARE(h.c.stats().eventsLost, std::int64_t(0));
        QCOMPARE(h.c.stats().dataChanges, std::int64_t(2));
    }
};

QTEST_GUILESS_MAIN(TestEventSequence)
#include "tst_event_sequence.moc"
