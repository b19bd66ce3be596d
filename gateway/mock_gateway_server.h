#pragma once
// The mock gateway served over gRPC: the model runs on its own thread (a ThreadHost, the one
// way stormwatch starts threads) with a QtScheduler;
// the MxAccessGateway and MockGatewayControl services (callback API), the gRPC health
// service (SERVING) and server reflection (describing the contract served) are on. Embeddable (the
// console starts one on a free port) and the heart of mxgw-mock.

#include "client/thread_host.h"
#include "gateway_model.h"
#include "mock_control.h"

#include <QThread>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

namespace grpc {
class Server;
}

namespace stormwatch {
class QtScheduler;
namespace wire {
class WireCodec;
}
} // namespace stormwatch

namespace stormwatch::gateway {

class MxAccessGatewayService;
class MockGatewayControlService;
class ContractGatewayService;
class ServerReflectionService;
class GenericDispatch;
class ApiKeys;

// "127.0.0.1:N", "localhost:N", "[::1]:N": the only addresses served without --allow-remote.
bool isLoopbackAddress(const std::string& address);

class MockGatewayServer {
public:
    // contract: the wire contract served (mxgw-mock --contract); null = stormwatch's own,
    // compiled in. Either way the same model answers, with `config` as given: what the
    // contract can carry is configForContract's (contract_service.h), the caller's to apply.
    explicit MockGatewayServer(GatewayConfig config = {},
                               std::shared_ptr<const wire::WireCodec> contract = nullptr);
    ~MockGatewayServer(); // stop()
    MockGatewayServer(const MockGatewayServer&) = delete;
    MockGatewayServer& operator=(const MockGatewayServer&) = delete;

    // The contract's calls need one of these keys with the method's scope (ApiKeys); before
    // start(). Stormwatch's own contract and the control service take no keys.
    void setApiKeys(std::shared_ptr<const ApiKeys> keys) { m_apiKeys = std::move(keys); }
    // Server reflection describes the contract served (the default); off, its calls are
    // UNIMPLEMENTED, as on a gateway without it. Before start().
    void setServeReflection(bool serve) { m_serveReflection = serve; }
    // How a freeze fault stops this gateway's process (mxgw-mock sets one); unset, a freeze
    // is refused: a server inside another program cannot stop its process. Before start().
    void setFreezeProcess(FreezeProcessFn freeze) { m_freezeProcess = std::move(freeze); }

    // Binds `address` (port 0 picks a free one) and starts serving. False (see lastError())
    // when already running, the config is invalid or the port cannot be bound.
    bool start(const std::string& address = "127.0.0.1:0");
    // Finishes every call and stream (UNAVAILABLE), shuts the server down, joins the thread.
    void stop();
    bool running() const { return m_server != nullptr; }
    int port() const { return m_port; }
    // "127.0.0.1:<port>" with the resolved port.
    std::string address() const;
    std::string lastError() const { return m_lastError; }

    // Runs `f(model)` on the model thread and returns its result, blocking the caller.
    // Only while running; safe to call from the model thread itself.
    template <class F> auto runOnModel(F&& f) -> std::invoke_result_t<F, GatewayModel&>
    {
        using R = std::invoke_result_t<F, GatewayModel&>;
        Q_ASSERT(m_model); // only while running
        if (QThread::currentThread() == m_modelThread.worker()->thread())
            return f(*m_model);
        if constexpr (std::is_void_v<R>) {
            m_modelThread.call([&] { f(*m_model); });
        } else {
            std::optional<R> result;
            m_modelThread.call([&] { result.emplace(f(*m_model)); });
            return std::move(*result);
        }
    }

private:
    void teardownThread();

    GatewayConfig m_config;
    ThreadHost m_modelThread{
        QStringLiteral("mxgw-model")};        // its worker is a bare QObject: runOnModel's target
    std::unique_ptr<QtScheduler> m_scheduler; // created, used and destroyed on the model thread
    std::unique_ptr<GatewayModel> m_model;
    std::unique_ptr<MxAccessGatewayService> m_gatewayService;
    std::unique_ptr<MockGatewayControlService> m_controlService;
    std::shared_ptr<const wire::WireCodec> m_contract;
    std::shared_ptr<const ApiKeys> m_apiKeys;
    std::unique_ptr<ContractGatewayService> m_contractService;
    std::unique_ptr<ServerReflectionService> m_reflection; // null when not served
    bool m_serveReflection = true;
    FreezeProcessFn m_freezeProcess;
    std::unique_ptr<GenericDispatch> m_generic; // reflection and the run-time contract's methods
    std::unique_ptr<grpc::Server> m_server;
    int m_port = 0;
    std::string m_hostName;
    std::string m_lastError;
};

} // namespace stormwatch::gateway
