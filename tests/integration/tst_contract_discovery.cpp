// The gateway's contract read from its gRPC server reflection, at the real boundary: a real
// mxgw-mock process serving stormwatch's own contract or the published one, with and without
// reflection, down and back. A port given no contract asks the gateway first; what it learns
// decides what it sends, and a gateway without reflection is told apart from a down one.
#include "client/gateway_connection.h"
#include "client/grpc_gateway_port.h"
#include "client/qt_scheduler.h"
#include "integration/support_mock_process.h"
#include "mock_control.grpc.pb.h"
#include "test_paths.h"
#include "wire/contract.h"
#include "wire/wire_codec.h"

#include <QTemporaryDir>
#include <QtTest>
#include <grpcpp/grpcpp.h>
#include <memory>
#include <optional>

using namespace stormwatch;
using testsupport::MockProcess;
using Source = GrpcGatewayPort::ContractSource;

namespace {

const QString kPublished = testpaths::contractFile(QStringLiteral("mxaccess-gateway-v1.proto"));

QStringList publishedArgs(QStringList more = {})
{
    return MockProcess::defaultArgs() + QStringList{"--contract", kPublished} + more;
}

// One OpenSession on the port, answered (the owner's loop runs meanwhile).
std::pair<RpcStatus, mxgateway::v1::OpenSessionReply> openOnce(GrpcGatewayPort& port)
{
    std::optional<std::pair<RpcStatus, mxgateway::v1::OpenSessionReply>> got;
    mxgateway::v1::OpenSessionRequest request;
    request.set_client_name("contract-discovery-test");
    port.openSession(request, [&](RpcStatus status, mxgateway::v1::OpenSessionReply reply) {
        got.emplace(std::move(status), std::move(reply));
    });
    if (!QTest::qWaitFor([&] { return got.has_value(); }, 20000))
        return {RpcStatus{grpc::StatusCode::UNKNOWN, "no answer within 20 s"}, {}};
    return *got;
}

// The mock's sessions right now, from its control service.
int mockSessions(const std::string& address)
{
    auto stub = mxgateway::mock::v1::MockGatewayControl::NewStub(
        grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    auto reader = stub->WatchStats(&context, mxgateway::mock::v1::WatchStatsRequest{});
    mxgateway::mock::v1::GatewayStats stats;
    const bool read = reader->Read(&stats);
    context.TryCancel();
    reader->Finish();
    return read ? stats.sessions() : -1;
}

} // namespace

class TestContractDiscovery : public QObject {
    Q_OBJECT
private slots:
    // Our mock describes stormwatch's own contract; the port sees it is the one compiled in
    // and keeps the compiled codec (its fast event path).
    void ownContractByReflectionKeepsTheCompiledCodec()
    {
        MockProcess mock{};
        QVERIFY(mock.start());
        QtScheduler scheduler;
        GrpcPortOptions options;
        options.address = mock.address();
        GrpcGatewayPort port(scheduler, options);
        QCOMPARE(port.contractSource(), Source::NotYetKnown);
        const auto [status, reply] = openOnce(port);
        QVERIFY2(status.ok(), status.toString().c_str());
        QVERIFY(!reply.session_id().empty());
        QCOMPARE(port.contractSource(), Source::Reflection);
        QVERIFY(port.codec()->check().contract->isCompiled());
        QVERIFY2(port.describe().find("reflection") == std::string::npos, port.describe().c_str());
    }

    // The published contract, never given to stormwatch: read from the gateway, checked, and
    // used end to end (a session, a subscribe, a value on the event stream).
    void publishedContractByReflectionSubscribesEndToEnd()
    {
        MockProcess mock(publishedArgs());
        QVERIFY(mock.start());
        QtScheduler scheduler;
        GrpcPortOptions options;
        options.address = mock.address();
        GrpcGatewayPort port(scheduler, options);
        GatewayConnection c(scheduler, port, ConnectionConfig{}, nullptr, [] { return 0.5; });
        c.start();
        int values = 0;
        const auto sub = c.addSubscriber(
            {"Area1.Pump1.Speed"},
            [&](const std::vector<TagUpdate>& updates) { values += int(updates.size()); },
            [](bool) {});
        bool subscribed = false;
        c.subscribe(sub, [&](const SubscribeOutcome& o) { subscribed = o.success; });
        QTRY_VERIFY_WITH_TIMEOUT(subscribed, 20000);
        QTRY_VERIFY_WITH_TIMEOUT(values >= 1, 20000);
        QCOMPARE(port.contractSource(), Source::Reflection);
        QCOMPARE(std::string(port.codec()->check().profile->name),
                 std::string("mxaccess-gateway-v1"));
        QVERIFY(!port.codec()->check().contract->isCompiled());
        QVERIFY2(port.describe().find("mxaccess-gateway-v1 from server reflection") !=
                     std::string::npos,
                 port.describe().c_str());
        c.stop();
    }

    // A gateway without reflection is up: stormwatch's own contract is tried, and the failure
    // that follows says why and what to give.
    void aGatewayWithoutReflectionIsNamedAndTheFixGiven()
    {
        MockProcess mock(publishedArgs({"--no-reflection"}));
        QVERIFY(mock.start());
        QtScheduler scheduler;
        GrpcPortOptions options;
        options.address = mock.address();
        GrpcGatewayPort port(scheduler, options);
        const auto [status, reply] = openOnce(port);
        QCOMPARE(status.code, grpc::StatusCode::UNIMPLEMENTED);
        for (const char* said : {"serves no server reflection", "stormwatch's own contract",
                                 "--gateway-contract FILE"})
            QVERIFY2(status.message.find(said) != std::string::npos, status.message.c_str());
        QCOMPARE(port.contractSource(), Source::OwnWithoutReflection);
        const GatewayFailure failure = GrpcGatewayPort::explainFailure(status, options);
        QVERIFY(failure.setup);
        QVERIFY2(failure.text.find("serves no server reflection") != std::string::npos,
                 failure.text.c_str());
    }

    // Down is not "no reflection": the open fails as unreachable, nothing is concluded about
    // the contract, and when the gateway is back (another contract, same port) it is read then.
    void aDownGatewayIsNotTakenForOneWithoutReflection()
    {
        MockProcess mock{};
        QVERIFY(mock.start());
        mock.kill();
        QtScheduler scheduler;
        GrpcPortOptions options;
        options.address = mock.address();
        options.connectTimeout = std::chrono::seconds(3);
        GrpcGatewayPort port(scheduler, options);
        {
            const auto [status, reply] = openOnce(port);
            QVERIFY2(status.code == grpc::StatusCode::UNAVAILABLE ||
                         status.code == grpc::StatusCode::DEADLINE_EXCEEDED,
                     status.toString().c_str());
            QVERIFY2(status.message.find("could not be read by server reflection") !=
                         std::string::npos,
                     status.message.c_str());
            QVERIFY(status.message.find("serves no server reflection") == std::string::npos);
            QCOMPARE(port.contractSource(), Source::NotYetKnown);
        }
        mock.args = publishedArgs();
        QVERIFY(mock.start());
        // The channel may still be in its reconnect backoff for a moment: retry, as the
        // connection does.
        RpcStatus status{grpc::StatusCode::UNKNOWN, "not tried"};
        for (int attempt = 0; attempt < 20 && !status.ok(); ++attempt) {
            if (attempt > 0)
                QTest::qWait(500);
            status = openOnce(port).first;
        }
        QVERIFY2(status.ok(), status.toString().c_str());
        QCOMPARE(port.contractSource(), Source::Reflection);
        QCOMPARE(std::string(port.codec()->check().profile->name),
                 std::string("mxaccess-gateway-v1"));
    }

    // What the gateway describes is checked like a given contract: a token that is not the
    // published family's API key refuses the connection, and no OpenSession leaves.
    void aReflectedContractThatCannotBeUsedRefusesTheConnection()
    {
        MockProcess mock(publishedArgs());
        QVERIFY(mock.start());
        QTemporaryDir dir;
        const QString tokenFile = dir.filePath("token");
        {
            QFile f(tokenFile);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("not-an-api-key\n");
        }
        QtScheduler scheduler;
        GrpcPortOptions options;
        options.address = mock.address();
        options.tokenFile = tokenFile.toStdString();
        GrpcGatewayPort port(scheduler, options);
        QVERIFY(port.setupError().empty()); // not known before the gateway is asked
        GatewayConnection c(scheduler, port, ConnectionConfig{}, nullptr, [] { return 0.5; });
        c.start();
        QTRY_COMPARE_WITH_TIMEOUT(c.state(), ConnectionState::Refused, 20000);
        for (const char* said : {"server reflection", "MXAccess Gateway API key"})
            QVERIFY2(c.lastError().find(said) != std::string::npos, c.lastError().c_str());
        QVERIFY(c.lastError().find("not-an-api-key") ==
                std::string::npos); // a token is never shown
        QCOMPARE(mockSessions(mock.address()), 0);
        // Refused stays refused: nothing is retried.
        QTest::qWait(1500);
        QCOMPARE(c.state(), ConnectionState::Refused);
        QCOMPARE(mockSessions(mock.address()), 0);
        c.stop();
    }
};

QTEST_GUILESS_MAIN(TestContractDiscovery)
#include "tst_contract_discovery.moc"
