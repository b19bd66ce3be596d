// A frozen gateway at the real boundary: a real mxgw-mock process stopped with SIGSTOP (the
// kernel still holds its sockets open, so nothing but keepalive can tell) under a quiet event
// stream. The port's keepalive ends the stream within keepalive time + timeout, and a gateway
// that is only quiet keeps its stream however long it stays quiet. A gateway whose process
// answers but whose STA does not (wedged, nothing changing) makes the connection unresponsive
// and its tags last usable values; the same case runs in virtual time in
// integration.client_engine (anUnansweringGatewayMakesGoodTagsLastUsableUntilItAnswers).
#include "client/gateway_connection.h"
#include "client/grpc_gateway_port.h"
#include "client/qt_scheduler.h"
#include "integration/support_mock_process.h"
#include "mock_control.grpc.pb.h"

#include <QElapsedTimer>
#include <QtTest>
#include <csignal>
#include <grpcpp/grpcpp.h>
#include <memory>
#include <optional>
#include <sys/types.h>

using namespace stormwatch;
using namespace std::chrono_literals;
using testsupport::MockProcess;

namespace {

// No data changes: the event stream is quiet unless something is subscribed.
QStringList quietArgs()
{
    return {"--command-ms", "5", "--per-item-ms", "0.1", "--data-hz", "0"};
}

GrpcPortOptions keepaliveOptions(const std::string& address)
{
    GrpcPortOptions options;
    options.address = address;
    options.keepaliveTime = 1s;
    options.keepaliveTimeout = 1s;
    options.connectTimeout = 2s;
    return options;
}

// A session with its event stream open; the stream's end, when it comes, lands in `end`.
struct OpenStream {
    std::optional<RpcStatus> end;
    int events = 0;
    bool open(GrpcGatewayPort& port)
    {
        std::optional<RpcStatus> opened;
        std::string session;
        mxgateway::v1::OpenSessionRequest request;
        request.set_client_name("frozen-gateway-test");
        port.openSession(request, [&](RpcStatus status, mxgateway::v1::OpenSessionReply reply) {
            session = reply.session_id();
            opened = std::move(status);
        });
        if (!QTest::qWaitFor([&] { return opened.has_value(); }, 20000) || !opened->ok())
            return false;
        mxgateway::v1::StreamEventsRequest stream;
        stream.set_session_id(session);
        port.streamEvents(
            stream, [this](const MxEventBatch&) { ++events; },
            [this](const RpcStatus& status) { end = status; });
        return true;
    }
};

// A quiet mxgw-mock process and a port to it with a 1 s + 1 s keepalive.
struct QuietGateway {
    MockProcess mock{quietArgs()};
    QtScheduler scheduler;
    std::unique_ptr<GrpcGatewayPort> port;
    bool start()
    {
        if (!mock.start())
            return false;
        port = std::make_unique<GrpcGatewayPort>(scheduler, keepaliveOptions(mock.address()));
        return true;
    }
};

} // namespace

class TestFrozenGateway : public QObject {
    Q_OBJECT
private slots:
    void aStoppedGatewayEndsTheStreamWithinTheKeepaliveBound()
    {
        QuietGateway gw;
        QVERIFY(gw.start());
        GrpcGatewayPort& port = *gw.port;
        OpenStream stream;
        QVERIFY(stream.open(port));
        QTest::qWait(1500); // the stream is up and quiet
        QVERIFY(!stream.end);

        const pid_t pid = pid_t(gw.mock.process.processId());
        QCOMPARE(::kill(pid, SIGSTOP), 0);
        QElapsedTimer frozen;
        frozen.start();
        const bool ended = QTest::qWaitFor([&] { return stream.end.has_value(); }, 15000);
        const qint64 tookMs = frozen.elapsed();
        ::kill(pid, SIGCONT);
        QVERIFY2(ended, "the stream of a stopped gateway did not end within 15 s");
        QVERIFY2(!stream.end->ok(), stream.end->toString().c_str());
        // Told apart from a reset or refused transport: the gateway is silent, not gone.
        QVERIFY2(stream.end->transportTimedOut, stream.end->toString().c_str());
        // keepalive time + timeout is 2 s; the ping timer runs from the last frame read, and
        // a loaded machine adds its own delay. A stream that ends only on the OS's TCP timeout
        // would take minutes.
        QVERIFY2(tookMs < 8000, qPrintable(QStringLiteral("took %1 ms").arg(tookMs)));
        qInfo("frozen gateway detected after %lld ms (keepalive 1 s + 1 s)",
              static_cast<long long>(tookMs));
    }

    // The connection over it: a stopped gateway's connection is unresponsive within the
    // keepalive bound and its Good tag Uncertain, never Bad, however many attempts go
    // unanswered; after SIGCONT a new session subscribes the tag again, without a restart.
    void aStoppedGatewaysTagsAreLastUsableAndGoodAgainAfterItContinues()
    {
        QuietGateway gw;
        QVERIFY(gw.start());
        GatewayConnection c(gw.scheduler, *gw.port, ConnectionConfig{}, nullptr,
                            [] { return 0.5; });
        std::vector<bool> quality, liveness;
        int changes = 0;
        c.start();
        const auto sub = c.addSubscriber(
            {"Area1.Pump1.Speed"},
            [&](const std::vector<TagUpdate>& u) { changes += int(u.size()); },
            [&](bool good) { quality.push_back(good); },
            [&](bool responsive) { liveness.push_back(responsive); });
        bool subscribed = false;
        c.subscribe(sub, [&](const SubscribeOutcome& o) { subscribed = o.success; });
        QTRY_VERIFY_WITH_TIMEOUT(subscribed && changes > 0, 20000);
        quality.clear();
        const std::string session = c.sessionId();

        const pid_t pid = pid_t(gw.mock.process.processId());
        QCOMPARE(::kill(pid, SIGSTOP), 0);
        QElapsedTimer frozen;
        frozen.start();
        const bool unresponsive =
            QTest::qWaitFor([&] { return c.stateText() == "unresponsive"; }, 15000);
        const qint64 tookMs = frozen.elapsed();
        if (!unresponsive)
            ::kill(pid, SIGCONT);
        QVERIFY2(unresponsive, c.stateText().c_str());
        QCOMPARE(liveness, std::vector<bool>{false});
        QTest::qWait(6000); // several attempts at a new session, each unanswered
        const std::string during = c.stateText();
        const auto qualityDuring = quality;
        ::kill(pid, SIGCONT);
        QCOMPARE(during, std::string("unresponsive"));
        QVERIFY(qualityDuring.empty()); // never Bad
        qInfo("unresponsive %lld ms after SIGSTOP (keepalive 1 s + 1 s)",
              static_cast<long long>(tookMs));

        QTRY_VERIFY_WITH_TIMEOUT(c.stateText() == "connected" && c.routed(sub, 0), 30000);
        QVERIFY(c.sessionId() != session);
        QCOMPARE(quality, std::vector<bool>{true});
        QCOMPARE(liveness, std::vector<bool>{false}); // subscribed anew, not declared Good
        c.stop();
    }

    // Pings under a quiet stream are what a frozen gateway is caught by: the mock answers
    // them however often they come, and the stream stays up.
    void aQuietGatewayKeepsItsStream()
    {
        QuietGateway gw;
        QVERIFY(gw.start());
        GrpcGatewayPort& port = *gw.port;
        OpenStream stream;
        QVERIFY(stream.open(port));
        QTest::qWait(6000); // several pings past gRPC's default of two without data
        QVERIFY2(!stream.end, stream.end ? stream.end->toString().c_str() : "");
    }

    void aWedgedGatewayIsUnresponsiveUntilItAnswers()
    {
        QuietGateway gw;
        QVERIFY(gw.start());
        GrpcGatewayPort& port = *gw.port;
        ConnectionConfig config;
        config.sessionCommandTimeout = 2s; // Lever 3: the gateway gives up on a command after 2 s
        GatewayConnection c(gw.scheduler, port, config, nullptr, [] { return 0.5; });
        std::vector<bool> liveness;
        auto subscriber = [&](const std::string& tag, bool record) {
            GatewayConnection::LivenessFn onLiveness;
            if (record) // the first subscriber's, whose tag is Good when the gateway stops
                        // answering
                onLiveness = [&](bool responsive) { liveness.push_back(responsive); };
            return c.addSubscriber(
                {tag}, [](const std::vector<TagUpdate>&) {}, [](bool) {}, onLiveness);
        };
        c.start();
        const auto first = subscriber("Area1.Pump1.Speed", true);
        bool subscribed = false;
        c.subscribe(first, [&](const SubscribeOutcome& o) { subscribed = o.success; });
        QTRY_VERIFY_WITH_TIMEOUT(subscribed, 20000);
        const std::string session = c.sessionId();

        auto control = mxgateway::mock::v1::MockGatewayControl::NewStub(
            grpc::CreateChannel(gw.mock.address(), grpc::InsecureChannelCredentials()));
        {
            grpc::ClientContext context;
            mxgateway::mock::v1::FaultRequest wedge;
            wedge.mutable_wedge()->set_duration_s(6);
            mxgateway::mock::v1::FaultReply reply;
            QVERIFY(control->InjectFault(&context, wedge, &reply).ok());
        }
        const auto second = subscriber("Area1.Pump2.Speed", false);
        c.subscribe(second, [](const SubscribeOutcome&) {});
        QTRY_COMPARE_WITH_TIMEOUT(c.stateText(), std::string("unresponsive"), 10000);
        QCOMPARE(liveness, std::vector<bool>{false});
        QTRY_COMPARE_WITH_TIMEOUT(c.stateText(), std::string("connected"), 20000); // the wedge ends
        QCOMPARE(liveness, (std::vector<bool>{false, true}));
        QCOMPARE(c.sessionId(), session);
        c.stop();
    }
};

QTEST_GUILESS_MAIN(TestFrozenGateway)
#include "tst_frozen_gateway.moc"
