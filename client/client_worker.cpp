#include "client_worker.h"

#include "qt_scheduler.h"

#include <QMetaObject>

namespace stormwatch {

namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

} // namespace

class ClientWorker::Host : public QObject, public EngineObserver {
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
        m_engine->setObserver(this);
        m_connectionsDirty = true;
        m_engine->startConnections();
        if (m_deploy)
            m_engine->deployAll();
        armFlush();
        emit m_worker->started();
    }

    void shutdown()
    {
        if (m_engine) {
            m_engine->stop();
            flush();
            m_engine->setObserver(nullptr);
        }
        m_engine.reset();
        m_port.reset();
        m_scheduler.reset();
    }

    ClientEngine* engine() { return m_engine.get(); }

    // --- EngineObserver (worker thread): only remember what changed ---
    void onGuardEvent(const Instance& instance, const GatewayConnection&, const GuardEvent&,
                      bool alarm) override
    {
        m_dirtySubscriptions.insert(key(m_engine->instanceIndex(instance.name()), alarm));
    }
    void onTagsChanged(const Instance&, int instance, const std::vector<int>& tags) override
    {
        for (int t : tags)
            m_dirtyTags.insert((qint64(instance) << 32) | quint32(t));
        m_dirtySubscriptions.insert(key(instance, false));
    }
    void onConnectionState(const GatewayConnection&, ConnectionState) override
    {
        m_connectionsDirty = true;
    }
    void onRecoveryState(RecoveryGate::State, const std::string&) override {}
    void onLog(Severity severity, const std::string& subject, const std::string& message) override
    {
        m_logs.push_back(LogEntry{seconds(), QDateTime::currentDateTime(), int(severity),
                                  qs(subject), qs(message)});
        if (message.find("session ") == 0 || message.find("connection lost") == 0)
            m_connectionsDirty = true;
    }

private:
    static qint64 key(int instance, bool alarm) { return (qint64(instance) << 1) | (alarm ? 1 : 0); }
    double seconds() const { return double(m_scheduler->now().count()) / 1e6; }

    void armFlush()
    {
        m_scheduler->callAfter(std::chrono::milliseconds(1000 / kMaxBatchesPerSecond), [this] {
            flush();
            armFlush();
        });
    }

    SubscriptionSample sample(int index, bool alarm) const
    {
        const Instance& instance = *m_engine->instances()[std::size_t(index)];
        SubscriptionSample s;
        s.tS = seconds();
        s.instance = index;
        s.alarm = alarm;
        s.instanceName = qs(instance.name());
        if (instance.groupCount() > 0)
            s.connection = qs(instance.connection(0).name());
        const TagSubscribeGuard* guard = alarm ? instance.alarmGuard()
                                               : (instance.groupCount() ? instance.guard(0) : nullptr);
        if (guard) {
            s.outstanding = guard->outstanding();
            s.intervalMs = double(guard->interval().count()) / 1000.0;
            s.confirmed = guard->confirmed();
        }
        if (alarm) {
            s.requestsSent = instance.alarmRequestsSent();
        } else if (instance.groupCount() > 0) {
            const QualityCounts c = instance.counts(0);
            s.good = c.good;
            s.uncertain = c.uncertain;
            s.bad = c.bad;
            s.requestsSent = instance.requestsSent(0);
        }
        return s;
    }

    void flush()
    {
        if (!m_engine)
            return;
        if (!m_dirtySubscriptions.isEmpty()) {
            QVector<SubscriptionSample> samples;
            samples.reserve(m_dirtySubscriptions.size());
            for (qint64 k : std::as_const(m_dirtySubscriptions))
                if ((k >> 1) >= 0)
                    samples.push_back(sample(int(k >> 1), k & 1));
            m_dirtySubscriptions.clear();
            emit m_worker->subscriptionSamples(samples);
        }
        if (!m_dirtyTags.isEmpty()) {
            QVector<TagChange> changes;
            changes.reserve(m_dirtyTags.size());
            for (qint64 k : std::as_const(m_dirtyTags)) {
                const int i = int(k >> 32), t = int(k & 0xffffffff);
                const Instance& instance = *m_engine->instances()[std::size_t(i)];
                const TagState& tag = instance.tags()[std::size_t(t)];
                changes.push_back(TagChange{i, t, qs(instance.name()),
                                            qs(instance.tagNames()[std::size_t(t)]), tag.value,
                                            qs(tag.text), tag.quality, tag.sourceTimestampUs,
                                            tag.itemHandle, qs(tag.error)});
            }
            m_dirtyTags.clear();
            emit m_worker->tagChanges(changes);
        }
        if (!m_logs.isEmpty()) {
            emit m_worker->logEntries(m_logs);
            m_logs.clear();
        }
        if (m_connectionsDirty) {
            m_connectionsDirty = false;
            QVector<ConnectionInfo> infos;
            for (const auto& c : m_engine->connections()) {
                ConnectionInfo info;
                info.name = qs(c->name());
                info.state = toString(c->state());
                info.address = qs(c->describePort());
                info.sessionId = qs(c->sessionId());
                for (const auto& cap : c->capabilities())
                    info.capabilities << qs(cap);
                info.protocolVersion = c->protocolVersion();
                if (c->echoedCommandTimeout())
                    info.echoedCommandTimeoutS = double(c->echoedCommandTimeout()->count()) / 1e6;
                info.supportsSupervisoryBulk = c->supportsSupervisoryBulk();
                infos.push_back(info);
            }
            emit m_worker->connectionInfo(infos);
        }
        GatewaySample g;
        g.tS = seconds();
        for (const auto& c : m_engine->connections()) {
            g.invokes += c->stats().invokes;
            g.deadlineExceeded += c->stats().deadlineExceeded;
        }
        g.suppressedCalls = qint64(m_engine->gate().suppressedCalls());
        g.recoveryState = toString(m_engine->gate().state());
        emit m_worker->gatewaySample(g);
    }

    ClientWorker* m_worker;
    EngineConfig m_config;
    PortFactory m_factory;
    bool m_deploy;
    std::unique_ptr<QtScheduler> m_scheduler;
    std::unique_ptr<GatewayPort> m_port;
    std::unique_ptr<ClientEngine> m_engine;
    QSet<qint64> m_dirtySubscriptions;
    QSet<qint64> m_dirtyTags;
    QVector<LogEntry> m_logs;
    bool m_connectionsDirty = false;
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
    m_thread = new QThread;
    m_thread->setObjectName("stormwatch-client");
    m_host = new Host(this, std::move(config), std::move(portFactory), deploy);
    m_host->moveToThread(m_thread);
    connect(m_thread, &QThread::started, m_host, [host = m_host] { host->init(); });
    m_thread->start();
}

void ClientWorker::stop()
{
    if (!m_thread)
        return;
    QMetaObject::invokeMethod(m_host, [host = m_host] { host->shutdown(); },
                              Qt::BlockingQueuedConnection);
    m_thread->quit();
    m_thread->wait();
    delete m_host;
    delete m_thread;
    m_host = nullptr;
    m_thread = nullptr;
    emit stopped();
}

void ClientWorker::post(std::function<void(ClientEngine&)> fn)
{
    if (!m_host)
        return;
    QMetaObject::invokeMethod(
        m_host,
        [host = m_host, fn = std::move(fn)] {
            if (host->engine())
                fn(*host->engine());
        },
        Qt::QueuedConnection);
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
