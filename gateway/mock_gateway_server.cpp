#include "mock_gateway_server.h"

#include "client/qt_scheduler.h"
#include "contract_service.h"
#include "grpc_services.h"
#include "logging.h"
#include "server_reflection_service.h"
#include "wire/contract.h"

#include <chrono>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>

namespace stormwatch::gateway {

// Every method no generated service of the server answers: server reflection, then the
// run-time contract's methods (when there is one); any other is UNIMPLEMENTED, as gRPC's own.
class GenericDispatch final : public grpc::CallbackGenericService {
public:
    GenericDispatch(const ServerReflectionService* reflection, ContractGatewayService* contract)
        : m_reflection(reflection), m_contract(contract)
    {
    }
    grpc::ServerGenericBidiReactor*
    CreateReactor(grpc::GenericCallbackServerContext* context) override
    {
        if (auto* reactor = m_reflection ? m_reflection->reactorFor(context->method()) : nullptr)
            return reactor;
        if (m_contract)
            return m_contract->CreateReactor(context);
        return refuseCall(grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                                       "no method " + context->method() + " on this gateway"));
    }

private:
    const ServerReflectionService* m_reflection; // null: not served
    ContractGatewayService* m_contract;
};

bool isLoopbackAddress(const std::string& address)
{
    const auto colon = address.rfind(':');
    const std::string host = colon == std::string::npos ? address : address.substr(0, colon);
    return host == "127.0.0.1" || host == "localhost" || host == "[::1]" ||
           host.starts_with("127.");
}

MockGatewayServer::MockGatewayServer(GatewayConfig config,
                                     std::shared_ptr<const wire::WireCodec> contract)
    : m_config(config), m_contract(std::move(contract))
{
}

MockGatewayServer::~MockGatewayServer()
{
    stop();
}

std::string MockGatewayServer::address() const
{
    return m_hostName + ":" + std::to_string(m_port);
}

bool MockGatewayServer::start(const std::string& address)
{
    if (m_server) {
        m_lastError = "already running on " + this->address();
        return false;
    }
    if (auto error = validateConfig(m_config); !error.empty()) {
        m_lastError = error;
        return false;
    }
    m_modelThread.start(std::make_unique<QObject>());
    // Source timestamps in wall time; the scheduler's epoch is its construction.
    GatewayConfig config = m_config;
    config.timestampEpochUs = std::chrono::duration_cast<std::chrono::microseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count();
    m_modelThread.call([this, config] {
        m_scheduler = std::make_unique<QtScheduler>();
        m_model = std::make_unique<GatewayModel>(*m_scheduler, config);
    });
    if (m_contract) {
        m_contractService =
            std::make_unique<ContractGatewayService>(*m_scheduler, *m_model, m_contract);
        m_contractService->setApiKeys(m_apiKeys);
    } else {
        m_gatewayService = std::make_unique<MxAccessGatewayService>(*m_scheduler, *m_model);
    }
    m_controlService =
        std::make_unique<MockGatewayControlService>(*m_scheduler, *m_model, m_freezeProcess);

    m_reflection.reset();
    if (m_serveReflection) {
        m_reflection = std::make_unique<ServerReflectionService>();
        const auto served =
            m_contract ? m_contract->check().contract : wire::GatewayContract::compiled();
        for (const auto* service : served->services())
            m_reflection->addService(service);
        m_reflection->addService(
            google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(
                mxgateway::mock::v1::MockGatewayControl::service_full_name()));
    }
    m_generic = std::make_unique<GenericDispatch>(m_reflection.get(), m_contractService.get());

    grpc::EnableDefaultHealthCheckService(true);
    grpc::ServerBuilder builder;
    // A second mock on a taken port must fail, not silently share it (gRPC's Linux default).
    builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
    // A client proves the mock alive with keepalive pings under a quiet event stream: allowed
    // as often as every 0.1 s, never answered with GOAWAY too_many_pings.
    builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 100);
    builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 0);
    int port = 0;
    builder.AddListeningPort(address, grpc::InsecureServerCredentials(), &port);
    if (m_gatewayService)
        builder.RegisterService(m_gatewayService.get());
    builder.RegisterCallbackGenericService(m_generic.get());
    builder.RegisterService(m_controlService.get());
    m_server = builder.BuildAndStart();
    if (!m_server || port == 0) {
        m_lastError = "cannot listen on " + address;
        m_server.reset();
        teardownThread();
        return false;
    }
    m_server->GetHealthCheckService()->SetServingStatus(true);
    m_port = port;
    const auto colon = address.rfind(':');
    m_hostName = colon == std::string::npos ? address : address.substr(0, colon);
    qCInfo(lcGateway) << "mock gateway listening on" << this->address().c_str();
    return true;
}

void MockGatewayServer::stop()
{
    if (!m_server)
        return;
    qCInfo(lcGateway) << "mock gateway stopping";
    // Answer every pending call and end every stream first: the server's shutdown waits for
    // all callback reactors to finish, and the model thread must keep running meanwhile.
    runOnModel([](GatewayModel& model) { model.shutdown(); });
    // gRPC also waits for idle client connections to close after its GOAWAY, which an idle
    // client in another process may never do: every call is answered by now, so the grace
    // period only needs to let those final writes go out.
    m_server->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(300));
    m_server.reset();
    teardownThread();
    m_port = 0;
}

void MockGatewayServer::teardownThread()
{
    if (!m_modelThread.running())
        return;
    m_modelThread.call([this] {
        m_model.reset();
        m_scheduler.reset(); // its timers belong to this thread
    });
    m_gatewayService.reset();
    m_generic.reset();
    m_contractService.reset();
    m_reflection.reset();
    m_controlService.reset();
    m_modelThread.join();
}

} // namespace stormwatch::gateway
