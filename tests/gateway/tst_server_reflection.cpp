// The mock's server reflection, one request at a time (ServerReflectionService::answer): what
// it lists, the files it hands out for a symbol or a name (with every import, so a client can
// build the pool), and the error replies; for stormwatch's own contract and for one read from
// a .proto at run time, which gRPC's own reflection service cannot describe.
#include "gateway/server_reflection_service.h"
#include "mock_control.pb.h"
#include "mxaccess_gateway.pb.h"
#include "test_paths.h"
#include "wire/contract.h"
#include "wire/server_reflection.h"

#include <QtTest>
#include <google/protobuf/descriptor.pb.h>
#include <set>

using namespace stormwatch;
namespace refl = wire::reflection;
namespace gp = google::protobuf;

namespace {

refl::Response ask(const gateway::ServerReflectionService& service, const std::string& request)
{
    refl::Response response;
    std::string error;
    if (!refl::decodeResponse(service.answer(request), response, error))
        qWarning("%s", error.c_str());
    return response;
}

std::vector<std::string> fileNames(const refl::Response& response)
{
    std::vector<std::string> names;
    for (const auto& bytes : response.files) {
        gp::FileDescriptorProto proto;
        names.push_back(proto.ParseFromString(bytes) ? proto.name() : "(unreadable)");
    }
    return names;
}

gateway::ServerReflectionService servingOwnContract()
{
    gateway::ServerReflectionService service;
    for (const auto* s : wire::GatewayContract::compiled()->services())
        service.addService(s);
    service.addService(mxgateway::mock::v1::GatewayStats::descriptor()->file()->FindServiceByName(
        "MockGatewayControl"));
    return service;
}

} // namespace

class TestServerReflection : public QObject {
    Q_OBJECT
private slots:
    void listsEveryServedService()
    {
        const auto response = ask(servingOwnContract(), refl::encodeListServices());
        QCOMPARE(int(response.kind), int(refl::Response::Kind::Services));
        QCOMPARE(response.services,
                 (std::vector<std::string>{"mxgateway.v1.MxAccessGateway",
                                           "mxgateway.mock.v1.MockGatewayControl"}));
    }

    // The file first, then what it imports: a client's pool needs every one of them.
    void aSymbolsFileComesWithEveryImport()
    {
        const auto service = servingOwnContract();
        const gp::FileDescriptor* file = mxgateway::v1::MxEvent::descriptor()->file();
        for (const char* symbol :
             {"mxgateway.v1.MxAccessGateway", "mxgateway.v1.MxAccessGateway.OpenSession",
              "mxgateway.v1.MxEvent"}) {
            const auto response = ask(service, refl::encodeFileContainingSymbol(symbol));
            QCOMPARE(int(response.kind), int(refl::Response::Kind::Files));
            const auto names = fileNames(response);
            QVERIFY(!names.empty());
            QCOMPARE(names.front(), file->name());
            std::set<std::string> expected{file->name()};
            for (int i = 0; i < file->dependency_count(); ++i)
                expected.insert(file->dependency(i)->name());
            QVERIFY(file->dependency_count() > 0); // the check below means something
            QCOMPARE(std::set<std::string>(names.begin(), names.end()), expected);
            // What a client builds from them is the contract served.
            std::string error;
            auto contract = wire::GatewayContract::fromFileProtos(response.files, "test", error);
            QVERIFY2(contract, error.c_str());
            QVERIFY(wire::sameFiles(*contract, *wire::GatewayContract::compiled()));
        }
    }

    void unknownNamesAndOtherRequestsGetErrorReplies()
    {
        const auto service = servingOwnContract();
        auto response = ask(service, refl::encodeFileContainingSymbol("no.such.Symbol"));
        QCOMPARE(int(response.kind), int(refl::Response::Kind::Error));
        QCOMPARE(response.errorCode, int(grpc::StatusCode::NOT_FOUND));
        QVERIFY(response.errorMessage.find("no.such.Symbol") != std::string::npos);

        // all_extension_numbers_of_type (field 6): not something a contract reader asks.
        response = ask(service, std::string("\x32\x03"
                                            "abc",
                                            5));
        QCOMPARE(int(response.kind), int(refl::Response::Kind::Error));
        QCOMPARE(response.errorCode, int(grpc::StatusCode::UNIMPLEMENTED));

        // Bytes that are no message at all (a length past the end).
        response = ask(service, std::string("\x3a\x7f", 2));
        QCOMPARE(int(response.kind), int(refl::Response::Kind::Error));
        QCOMPARE(response.errorCode, int(grpc::StatusCode::INVALID_ARGUMENT));
    }

    // A contract read from a .proto at run time is described from its own pool.
    void aRunTimeContractIsDescribedFromItsOwnPool()
    {
        std::string error;
        auto published = wire::GatewayContract::fromFile(
            testpaths::contractFile(QStringLiteral("mxaccess-gateway-v1.proto")).toStdString(),
            error);
        QVERIFY2(published, error.c_str());
        gateway::ServerReflectionService service;
        for (const auto* s : published->services())
            service.addService(s);
        const auto listed = ask(service, refl::encodeListServices());
        QCOMPARE(listed.services.size(), std::size_t(1));
        const auto response =
            ask(service, refl::encodeFileContainingSymbol(listed.services.front()));
        QCOMPARE(int(response.kind), int(refl::Response::Kind::Files));
        auto read = wire::GatewayContract::fromFileProtos(response.files, "test", error);
        QVERIFY2(read, error.c_str());
        QVERIFY(wire::sameFiles(*read, *published));
        QVERIFY(!wire::sameFiles(*read, *wire::GatewayContract::compiled()));
    }

    void aTruncatedReplyDoesNotDecode()
    {
        const std::string whole = servingOwnContract().answer(refl::encodeListServices());
        refl::Response response;
        std::string error;
        QVERIFY(refl::decodeResponse(whole, response, error));
        QVERIFY(!refl::decodeResponse(whole.substr(0, whole.size() - 3), response, error));
        QVERIFY(!error.empty());
    }
};

QTEST_GUILESS_MAIN(TestServerReflection)
#include "tst_server_reflection.moc"
