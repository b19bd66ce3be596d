#include "client_worker.h"

#include "engine_batcher.h"
#include "qt_scheduler.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QMetaObject>
#include <QTimer>

namespace stormwatch {

class ClientWorker::Host : public QObject {
public:
    Host(ClientWorker* worker, EngineConfig config, PortFactory factory, bool deploy)
        : m_worker(worker), m_config(std::move(config)), m_factory(std::move(factory)),
          m_deploy(deploy)
    {
    }

    void init()
    {
        m_scheduler = std::make_unique<QtScheduler>();
        m_port = m_factory(*m_scheduler);
        m_engine = std::make_unique<ClientEngine>(*m_scheduler, *m_port, m_config);
        m_batcher = std::make_unique<EngineBatcher>(*m_engine);
        m_engine->setObserver(m_batcher.get());
        m_engine->startConnections();
        if (m_deploy)
            m_engine->deployAll();
        armFlush();
        emit m_worker->started();
    }

    void shutdown()
    {
        if (m_engine) {
            // Close every session and wait (at most 1 s) for the gateway to answer, so it
            // does not keep our session, items and queued commands after we are gone. Not
            // a redeploy: no RemoveItem per tag.
            bool closed = false;
            m_engine->close([&closed] { closed = true; });
            QElapsedTimer waited;
            waited.start();
            while (!closed && waited.elapsed() < 1000) {
                QEventLoop loop;
                QTimer::singleShot(10, &loop, &QEventLoop::quit);
                loop.exec();
            }
            flush();
            m_engine->setObserver(nullptr);
        }
        m_engine.reset();
        m_batcher.reset();
        m_port.reset();
        m_scheduler.reset();
    }

    ClientEngine* engine() { return m_engine.get(); }

private:
    void armFlush()
    {
        m_scheduler->callAfter(std::chrono::milliseconds(1000 / kMaxBatchesPerSecond), [this] {
            flush();
            armFlush();
        });
    }

    void flush()
    {
        if (!m_batcher)
            return;
        EngineBatch batch = m_batcher->take();
        if (!batch.samples.isEmpty())
            emit m_worker->subscriptionSamples(batch.samples);
        if (!batch.tags.isEmpty())
            emit m_worker->tagChanges(batch.tags);
        if (!batch.logs.isEmpty())
            emit m_worker->logEntries(batch.logs);
        if (batch.connectionsChanged)
            emit m_worker->connectionInfo(batch.connections);
        emit m_worker->gatewaySample(batch.gateway);
    }

    ClientWorker* m_worker;
    EngineConfig m_config;
    PortFactory m_factory;
    bool m_deploy;
    std::unique_ptr<QtScheduler> m_scheduler;
    std::unique_ptr<GatewayPort> m_port;
    std::unique_ptr<ClientEngine> m_engine;
    std::unique_ptr<EngineBatcher> m_batcher;
};

ClientWorker::ClientWorker(QObject* parent) : QObject(parent)
{
    qRegisterMetaType<SubscriptionSample>();
    qRegisterMetaType<TagChange>();
    qRegisterMetaType<LogEntry>();
    qRegisterMetaType<ConnectionInfo>();
    qRegisterMetaType<GatewaySample>();
    qRegisterMetaType<QVector<SubscriptionSample>>();
    qRegisterMetaType<QVector<TagChange>>();
    qRegisterMetaType<QVector<LogEntry>>();
    qRegisterMetaType<QVector<ConnectionInfo>>();
}

ClientWorker::~ClientWorker()
{
    stop();
}

void ClientWorker::start(EngineConfig config, PortFactory portFactory, bool deploy)
{
    stop();
    m_thread.start(std::make_unique<Host>(this, std::move(config), std::move(portFactory), deploy));
    m_thread.post([host = m_thread.workerAs<Host>()] { host->init(); });
}

void ClientWorker::stop()
{
    if (!m_thread.running())
        return;
    m_thread.call([host = m_thread.workerAs<Host>()] { host->shutdown(); });
    m_thread.join();
    emit stopped();
}

void ClientWorker::post(std::function<void(ClientEngine&)> fn)
{
    if (!m_thread.running())
        return;
    m_thread.post([host = m_thread.workerAs<Host>(), fn = std::move(fn)] {
        if (host->engine())
            fn(*host->engine());
    });
}

void ClientWorker::applyLevers(const LeverSet& levers)
{
    post([levers](ClientEngine& engine) { engine.applyLevers(levers); });
}

void ClientWorker::redeploy(const QString& instance)
{
    post([name = instance.toStdString()](ClientEngine& engine) { engine.redeploy(name); });
}

void ClientWorker::deployAll()
{
    post([](ClientEngine& engine) { engine.deployAll(); });
}

} // namespace stormwatch
