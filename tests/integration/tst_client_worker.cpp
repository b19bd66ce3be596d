// ClientWorker: the engine on its own thread (QtScheduler, wall time) against the mock
// model on that same thread; signals reach this (UI) thread batched and queued.
#include "client/client_worker.h"
#include "client/grpc_gateway_port.h"
#include "gateway/gateway_model.h"
#include "gateway/mock_gateway_server.h"
#include "scenario/in_process_gateway_port.h"
#include "support_virtual_gateway.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QtTest>

using namespace stormwatch;
using namespace std::chrono_literals;

namespace {

// The mock model and an in-process port on the worker's own scheduler.
class ModelPort final : public GatewayPort {
public:
    ModelPort(Scheduler& s, gateway::GatewayConfig c) : model(s, c), port(s, model, Duration(0)) {}
    void openSession(const mxgateway::v1::OpenSessionRequest& r, OpenDone d) override
    {
        port.openSession(r, std::move(d));
    }
    void closeSession(const mxgateway::v1::CloseSessionRequest& r, CloseDone d) override
    {
        port.closeSession(r, std::move(d));
    }
    void invoke(const mxgateway::v1::MxCommandRequest& r, InvokeDone d) override
    {
        port.invoke(r, std::move(d));
    }
    StreamId streamEvents(const mxgateway::v1::StreamEventsRequest& r, EventFn e,
                          EndFn end) override
    {
        return port.streamEvents(r, std::move(e), std::move(end));
    }
    void cancelStream(StreamId id) override { port.cancelStream(id); }
    std::string describe() const override { return "model on the worker thread"; }

    gateway::GatewayModel model;
    InProcessGatewayPort port;
};

EngineConfig engineConfig(int instances, int tags, const QString& preset)
{
    EngineConfig c;
    c.levers = *leverPreset(preset, nullptr);
    c.connections.push_back({"gw1", 0});
    for (int i = 0; i < instances; ++i)
        c.instances.push_back({"I" + std::to_string(i + 1), "gw1",
                               testing::makeTags("I" + std::to_string(i + 1), tags), false});
    return c;
}

ClientWorker::PortFactory factory(double dataHz, bool refuseSessions = false)
{
    return [dataHz, refuseSessions](Scheduler& s) {
        gateway::GatewayConfig g;
        g.dataHz = dataHz;
        auto port = std::make_unique<ModelPort>(s, g);
        if (refuseSessions)
            port->model.refuseSessions(std::chrono::hours(1));
        return std::unique_ptr<GatewayPort>(std::move(port));
    };
}

} // namespace

class TestClientWorker : public QObject {
    Q_OBJECT
private slots:
    void tagChangesArriveBatchedOnTheUiThread()
    {
        QObject context; // queued batches die with the test, not with the suite
        ClientWorker worker;
        // Counted on this thread: a QSignalSpy connects directly, so it would append on the
        // worker thread while this one reads its count (a data race TSan reports).
        int tagBatches = 0;
        QThread* receivedOn = nullptr;
        QHash<qint64, int> quality;
        connect(&worker, &ClientWorker::tagChanges, &context,
                [&](const QVector<TagChange>& changes) {
                    ++tagBatches;
                    receivedOn = QThread::currentThread();
                    for (const auto& c : changes)
                        quality[(qint64(c.instance) << 32) | c.tag] = c.quality;
                });
        QElapsedTimer wall;
        wall.start();
        worker.start(engineConfig(2, 100, "lever1+2"), factory(50)); // 10,000 updates/s
        QTRY_VERIFY_WITH_TIMEOUT(quality.size() == 200 &&
                                     std::all_of(quality.begin(), quality.end(),
                                                 [](int q) { return q == kQualityGood; }),
                                 10000);
        QElapsedTimer window;
        window.start();
        const int before = tagBatches;
        QTRY_VERIFY_WITH_TIMEOUT(window.elapsed() >= 1000, 5000);
        const int batches = tagBatches - before;
        const double seconds = window.elapsed() / 1000.0;
        worker.stop();
        QCOMPARE(receivedOn, QThread::currentThread());
        QVERIFY2(batches <= int(seconds * ClientWorker::kMaxBatchesPerSecond) + 2,
                 qPrintable(QString("%1 batches in %2 s").arg(batches).arg(seconds)));
        QVERIFY(batches >= 5); // data kept flowing, in batches
    }

    void subscriptionSamplesCarryTheGuardState()
    {
        QObject context; // queued batches die with the test, not with the suite
        ClientWorker worker;
        QVector<SubscriptionSample> last;
        connect(&worker, &ClientWorker::subscriptionSamples, &context,
                [&](const QVector<SubscriptionSample>& s) { last += s; });
        worker.start(engineConfig(1, 10, "lever1"), factory(1));
        QTRY_VERIFY_WITH_TIMEOUT(!last.isEmpty() && last.back().good == 10, 10000);
        QCOMPARE(last.back().instanceName, QString("I1"));
        QCOMPARE(last.back().connection, QString("gw1"));
        QVERIFY(last.back().confirmed);
        QCOMPARE(last.back().outstanding, 0);
        QCOMPARE(last.back().requestsSent, qint64(1));
        QCOMPARE(last.back().intervalMs, 5000.0);
        // the gateway echoed its 30 s default (Lever 3 off): 30 s + the 15 s margin
        QCOMPARE(last.back().ceilingMs, 45000.0);
        QCOMPARE(last.back().orphaned, 0);
    }

    void leverChangeReachesTheEngine()
    {
        QObject context; // queued batches die with the test, not with the suite
        ClientWorker worker;
        EngineConfig config = engineConfig(1, 3, "levers-off");
        config.options.tagSubscribeRetryIntervalMs = 20; // a fast storm in wall time
        config.options.tagSubscribeInFlightCeilingMs = 60000;
        qint64 sent = 0;
        int maxOutstanding = 0;
        connect(&worker, &ClientWorker::subscriptionSamples, &context,
                [&](const QVector<SubscriptionSample>& s) {
                    for (const auto& x : s) {
                        sent = x.requestsSent;
                        maxOutstanding = std::max(maxOutstanding, x.outstanding);
                    }
                });
        worker.start(config, factory(1, /*refuseSessions=*/true)); // subscribes go unanswered
        QTRY_VERIFY_WITH_TIMEOUT(maxOutstanding >= 5, 10000);      // stacking with the lever off

        // Listen before the change: the worker thread may emit its log batch before a
        // connection made afterwards exists, and a queued signal goes only to the
        // connections present when it is emitted.
        QVector<LogEntry> logs;
        connect(&worker, &ClientWorker::logEntries, &context,
                [&](const QVector<LogEntry>& l) { logs += l; });
        worker.applyLevers(*leverPreset("lever1", nullptr));
        QTRY_VERIFY_WITH_TIMEOUT(
            std::any_of(logs.begin(), logs.end(),
                        [](const LogEntry& e) { return e.message.contains("levers changed"); }),
            5000);
        const qint64 atChange = sent;
        QElapsedTimer t;
        t.start();
        QTRY_VERIFY_WITH_TIMEOUT(t.elapsed() > 500, 5000);
        worker.stop();
        // With the guard on, the request in flight blocks re-sends for its 60 s ceiling.
        QVERIFY2(sent - atChange <= 1, qPrintable(QString::number(sent - atChange)));
    }

    void connectionInfoReportsTheSession()
    {
        QObject context; // queued batches die with the test, not with the suite
        ClientWorker worker;
        QVector<ConnectionInfo> infos;
        connect(&worker, &ClientWorker::connectionInfo, &context,
                [&](const QVector<ConnectionInfo>& i) { infos = i; });
        worker.start(engineConfig(1, 3, "all"), factory(1));
        QTRY_VERIFY_WITH_TIMEOUT(!infos.isEmpty() && infos[0].state == "connected" &&
                                     !infos[0].sessionId.isEmpty(),
                                 10000);
        QCOMPARE(infos[0].capabilities.size(), 10);
        QVERIFY(infos[0].supportsSupervisoryBulk);
        QCOMPARE(infos[0].echoedCommandTimeoutS, 60.0); // Lever 3 in "all"
        QCOMPARE(infos[0].protocolVersion, 3);
    }

    void stopIsCleanAndRepeatable()
    {
        QObject context; // queued batches die with the test, not with the suite
        ClientWorker worker;
        QSignalSpy stopped(&worker, &ClientWorker::stopped);
        worker.start(engineConfig(1, 3, "all"), factory(5));
        QTRY_VERIFY_WITH_TIMEOUT(worker.running(), 1000);
        worker.stop();
        worker.stop();
        QCOMPARE(stopped.count(), 1);
        QVERIFY(!worker.running());
    }

    // The console's client leaves nothing behind on a gateway it watched: stopping it closes
    // its session (answered before the worker thread ends), rather than leaking it.
    void stopClosesTheSessionOnTheGateway()
    {
        gateway::GatewayConfig g;
        g.dataHz = 2;
        gateway::MockGatewayServer server(g);
        QVERIFY2(server.start(), server.lastError().c_str());
        const std::string address = server.address();
        const auto sessions = [&server] {
            return server.runOnModel([](gateway::GatewayModel& m) { return m.sessionCount(); });
        };
        ClientWorker worker;
        worker.start(engineConfig(2, 20, "all"), [address](Scheduler& s) {
            GrpcPortOptions o;
            o.address = address;
            return std::unique_ptr<GatewayPort>(std::make_unique<GrpcGatewayPort>(s, o));
        });
        QTRY_COMPARE_WITH_TIMEOUT(sessions(), std::size_t(1), 5000);
        worker.stop();
        QCOMPARE(sessions(), std::size_t(0));
        QCOMPARE(server.runOnModel([](gateway::GatewayModel& m) {
            return m.invokeRpcs(gateway::CommandKind::RemoveItem);
        }),
                 std::int64_t(0)); // closing is not a redeploy
    }
};

QTEST_GUILESS_MAIN(TestClientWorker)
#include "tst_client_worker.moc"
