#pragma once
// The mock gateway served over gRPC: the model runs on its own QThread with a QtScheduler;
// the MxAccessGateway and MockGatewayControl services (callback API), the gRPC health
// service (SERVING) and server reflection are on. Embeddable (the console starts one on a
// free port) and the heart of mxgw-mock.

#include "gateway_model.h"

#include <QMetaObject>
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
}

namespace stormwatch::gateway {

class MxAccessGatewayService;
class MockGatewayControlService;

// "127.0.0.1:N", "localhost:N", "[::1]:N": the only addresses served without --allow-remote.
bool isLoopbackAddress(const std::string& address);

class MockGatewayServer {
public:
    explicit MockGatewayServer(GatewayConfig config = {});
    ~MockGatewayServer(); // stop()
    MockGatewayServer(const MockGatewayServer&) = delete;
    MockGatewayServer& operator=(const MockGatewayServer&) = delete;

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
    template <class F>
    auto runOnModel(F&& f) -> std::invoke_result_t<F, GatewayModel&>
    {
        using R = std::invoke_result_t<F, GatewayModel&>;
        Q_ASSERT(m_model); // only while running
        if (QThread::currentThread() == m_thread)
            return f(*m_model);
        if constexpr (std::is_void_v<R>) {
            QMetaObject::invokeMethod(m_context, [&] { f(*m_model); }, Qt::BlockingQueuedConnection);
        } else {
            std::optional<R> result;
            QMetaObject::invokeMethod(m_context, [&] { result.emplace(f(*m_model)); }, Qt::BlockingQueuedConnection);
            return std::move(*result);
        }
    }

private:
    void runOnThread(std::function<void()> f);
    void teardownThread();

    GatewayConfig m_config;
    QThread* m_thread = nullptr;
    QObject* m_context = nullptr; // lives on m_thread: target of runOnModel
    QtScheduler* m_scheduler = nullptr;
    std::unique_ptr<GatewayModel> m_model;
    std::unique_ptr<MxAccessGatewayService> m_gatewayService;
    std::unique_ptr<MockGatewayControlService> m_controlService;
    std::unique_ptr<grpc::Server> m_server;
    int m_port = 0;
    std::string m_host;
    std::string m_lastError;
};

} // namespace stormwatch::gateway
