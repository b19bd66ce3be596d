// stormwatch's reading of a contract by server reflection against gRPC's own reflection
// service (Debian's libgrpc++_reflection), not ours: a server with the stock plugin and a
// generated MxAccessGateway service (every method UNIMPLEMENTED: only reflection is read).
// The stock plugin is switched on for every server this process builds, which is why this
// suite has its own process and starts no mock.
#include "client/grpc_gateway_port.h"
#include "client/qt_scheduler.h"
#include "mxaccess_gateway.grpc.pb.h"
#include "wire/contract.h"
#include "wire/wire_codec.h"

#include <QtTest>
#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <optional>

using namespace stormwatch;

namespace {

class Unanswering final : public mxgateway::v1::MxAccessGateway::CallbackService {};

} // namespace

class TestReflectionInterop : public QObject {
    Q_OBJECT
private slots:
    void gRpcsOwnReflectionIsReadAsTheCompiledContract()
    {
        grpc::reflection::InitProtoReflectionServerBuilderPlugin();
        Unanswering service;
        grpc::ServerBuilder builder;
        int port = 0;
        builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
        builder.RegisterService(&service);
        auto server = builder.BuildAndStart();
        QVERIFY(server && port > 0);

        QtScheduler scheduler;
        GrpcPortOptions options;
        options.address = "127.0.0.1:" + std::to_string(port);
        GrpcGatewayPort gatewayPort(scheduler, options);
        std::optional<RpcStatus> opened;
        mxgateway::v1::OpenSessionRequest request;
        gatewayPort.openSession(
            request, [&](RpcStatus status, mxgateway::v1::OpenSessionReply) { opened = status; });
        QTRY_VERIFY_WITH_TIMEOUT(opened.has_value(), 20000);
        // Read, listed and described by gRPC's service, byte for byte the contract compiled in.
        QCOMPARE(gatewayPort.contractSource(), GrpcGatewayPort::ContractSource::Reflection);
        QVERIFY(gatewayPort.codec()->check().contract->isCompiled());
        // The OpenSession that followed went to the service, which does not implement it; the
        // port does not say "no reflection" about a gateway that has it.
        QCOMPARE(opened->code, grpc::StatusCode::UNIMPLEMENTED);
        QVERIFY2(opened->message.find("reflection") == std::string::npos, opened->message.c_str());
        server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
    }
};

QTEST_GUILESS_MAIN(TestReflectionInterop)
#include "tst_reflection_interop.moc"
