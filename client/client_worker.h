#pragma once
// Hosts a ClientEngine on its own QThread with a QtScheduler (live mode) and turns the
// engine's observer calls into batched, queued signals — at most 20 per second — so the
// UI thread is never blocked by the client and never sees a per-tag-update signal.

#include "client_engine.h"
#include "engine_samples.h"
#include "gateway_port.h"
#include "thread_host.h"

#include <QHash>
#include <QObject>
#include <QSet>
#include <QThread>
#include <functional>
#include <memory>

namespace stormwatch {

class QtScheduler;

class ClientWorker : public QObject {
    Q_OBJECT
public:
    // Called on the worker thread: builds the port (gRPC) on the scheduler it will post to.
    using PortFactory = std::function<std::unique_ptr<GatewayPort>(Scheduler&)>;

    explicit ClientWorker(QObject* parent = nullptr);
    ~ClientWorker() override;

    // Starts the thread, the engine's connections and (when deploy) every instance.
    void start(EngineConfig config, PortFactory portFactory, bool deploy = true);
    void stop();
    bool running() const { return m_thread.running(); }

    // From the thread that owns the worker: queued onto the worker thread.
    void applyLevers(const LeverSet& levers);
    void redeploy(const QString& instance);
    void deployAll();
    // Runs fn on the worker thread with the engine (tests, advanced panels).
    void post(std::function<void(ClientEngine&)> fn);

    static constexpr int kMaxBatchesPerSecond = 20;

signals:
    void subscriptionSamples(const QVector<stormwatch::SubscriptionSample>& samples);
    void tagChanges(const QVector<stormwatch::TagChange>& changes);
    void logEntries(const QVector<stormwatch::LogEntry>& entries);
    void connectionInfo(const QVector<stormwatch::ConnectionInfo>& connections);
    void gatewaySample(const stormwatch::GatewaySample& sample);
    void started();
    void stopped();

private:
    class Host; // lives on the worker thread
    ThreadHost m_thread{QStringLiteral("stormwatch-client")};
};

} // namespace stormwatch
