// The console controller against the embedded mock gateway (live gRPC on loopback) and
// against an external address nobody answers; the window is a recording fake.

#include "support_fake_view.h"

#include "client/lever_set.h"
#include "gateway/mock_gateway_server.h"
#include "scenario/scenario_parser.h"
#include "ui/console_controller.h"
#include "ui/scenario_playback.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QSignalSpy>
#include <QLoggingCategory>
#include <QtTest>

#include <cmath>

using namespace stormwatch;
using stormwatch::test::FakeView;

namespace {

constexpr int kLiveTimeoutMs = 15000;

// A short live scenario file: one instance of `tags` tags on a quick gateway.
QString writeShortLive(const QTemporaryDir& dir, double durationS, int tags)
{
    const QJsonObject o{
        {"name", "short-live"},
        {"description", "a short live scenario"},
        {"duration_s", durationS},
        {"seed", 5},
        {"gateway", QJsonObject{{"command_ms", 0.2}, {"per_item_ms", 0.01}, {"data_hz", 10}}},
        {"connections", QJsonArray{QJsonObject{{"name", "gw-short"}, {"write_user_id", 0}}}},
        {"instances", QJsonArray{QJsonObject{{"name", "inst-a"}, {"connection", "gw-short"}, {"tags", tags}}}},
        {"variants", QJsonArray{QStringLiteral("lever1+2")}},
    };
    const QString path = dir.filePath(QStringLiteral("short-live.json"));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(QJsonDocument(o).toJson()) < 0)
        return {};
    return path;
}

int demoTagCount(const ConsoleController& c)
{
    int n = 0;
    for (const ScenarioInstance& i : c.demoScenario().instances)
        n += i.tags;
    return n;
}

// A loopback port with nobody listening (a mock served there, then stopped).
int closedPort()
{
    gateway::MockGatewayServer server;
    if (!server.start("127.0.0.1:0"))
        return 1;
    const int port = server.port();
    server.stop();
    return port;
}

} // namespace

class TestConsoleController : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        // The replays refuse sessions on purpose: their client warnings are expected.
        QLoggingCategory::setFilterRules(QStringLiteral("stormwatch.*.warning=false"));
    }

    void embeddedClientConnectsAndTagsBecomeGood()
    {
        FakeView view;
        ConsoleController c(&view);
        QString error;
        QVERIFY2(c.startEmbedded(&error), qPrintable(error));
        QVERIFY(c.embeddedGateway() && c.embeddedGateway()->running());
        QVERIFY(view.gatewayAddress.startsWith("127.0.0.1:"));
        QVERIFY(view.faultsAvailable);
        QVERIFY(!view.instances.isEmpty());
        QVERIFY(demoTagCount(c) > 0);
        QTRY_COMPARE_WITH_TIMEOUT(view.goodTags(), demoTagCount(c), kLiveTimeoutMs);
        QTRY_COMPARE_WITH_TIMEOUT(view.connectionState("gw1"), QStringLiteral("connected"), kLiveTimeoutMs);
        QVERIFY(!view.store()->subscriptions().isEmpty());
        // The embedded model's own STA queue reached the store (a real gateway has none).
        QTRY_VERIFY_WITH_TIMEOUT(!view.store()->gatewaySeries(GatewayMetric::StaQueueDepth).isEmpty()
                                     && !std::isnan(view.store()->gatewaySeries(GatewayMetric::StaQueueDepth).last().y()),
                                 kLiveTimeoutMs);
    }

    void leverToggleReachesTheEngine()
    {
        FakeView view;
        ConsoleController c(&view);
        QString error;
        QVERIFY2(c.startEmbedded(&error), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(view.connectionState("gw1"), QStringLiteral("connected"), kLiveTimeoutMs);
        const LeverSet off = *leverPreset(QStringLiteral("levers-off"), nullptr);
        emit view.intents()->leversChanged(off);
        QTRY_VERIFY_WITH_TIMEOUT(view.logContains("levers changed: " + describeLevers(off)), kLiveTimeoutMs);
    }

    void wedgeReachesTheEmbeddedModel()
    {
        FakeView view;
        ConsoleController c(&view);
        QString error;
        QVERIFY2(c.startEmbedded(&error), qPrintable(error));
        auto wedged = [&] { return c.embeddedGateway()->runOnModel([](gateway::GatewayModel& m) { return m.wedged(); }); };
        QVERIFY(!wedged());
        TimelineEvent wedge;
        wedge.action = TimelineAction::Wedge;
        wedge.durationS = 30;
        emit view.intents()->faultRequested(wedge);
        QVERIFY(wedged());
        QVERIFY(view.logContains("injected wedge"));
        // Its stats say so too (what the fault panel's status reads).
        const auto stats = c.embeddedGateway()->runOnModel([](gateway::GatewayModel& m) { return m.stats(); });
        QVERIFY(stats.wedged());
    }

    void capabilityToggleReachesTheEmbeddedModel()
    {
        FakeView view;
        ConsoleController c(&view);
        QString error;
        QVERIFY2(c.startEmbedded(&error), qPrintable(error));
        auto advertised = [&] {
            return c.embeddedGateway()->runOnModel([](gateway::GatewayModel& m) { return m.config().advertiseBulkSupervisory; });
        };
        QVERIFY(advertised());
        emit view.intents()->capabilityToggled(false);
        QVERIFY(!advertised());
    }

    void externalUnreachableGatewayWaitsToReconnectWithoutHanging()
    {
        QElapsedTimer wall;
        wall.start();
        {
            FakeView view;
            ConsoleController c(&view);
            GrpcPortOptions port;
            port.address = "127.0.0.1:" + std::to_string(closedPort());
            port.connectTimeout = std::chrono::seconds(2);
            QString error;
            QVERIFY2(c.startExternal(port, &error), qPrintable(error));
            QVERIFY(c.external());
            QVERIFY(!c.embeddedGateway());
            QTRY_COMPARE_WITH_TIMEOUT(view.connectionState("gw1"), QStringLiteral("waiting to reconnect"),
                                      kLiveTimeoutMs);
            QCOMPARE(view.goodTags(), 0);
        }
        QVERIFY2(wall.elapsed() < kLiveTimeoutMs + 5000, "tearing down against a dead gateway must not hang");
    }

    void faultsAreDisabledForAnExternalGateway()
    {
        FakeView view;
        ConsoleController c(&view);
        GrpcPortOptions port;
        port.address = "127.0.0.1:" + std::to_string(closedPort());
        QString error;
        QVERIFY2(c.startExternal(port, &error), qPrintable(error));
        QVERIFY(!view.faultsAvailable);
        QCOMPARE(view.faultsReason, ConsoleController::kExternalFaultsReason);
        TimelineEvent wedge;
        wedge.action = TimelineAction::Wedge;
        wedge.durationS = 5;
        emit view.intents()->faultRequested(wedge);
        QVERIFY(view.logContains(ConsoleController::kExternalFaultsReason));
    }

    void badExternalOptionsAreRefusedWithTheReason()
    {
        FakeView view;
        ConsoleController c(&view);
        GrpcPortOptions port;
        port.address = "nowhere";
        QString error;
        QVERIFY(!c.startExternal(port, &error));
        QVERIFY2(error.contains("nowhere"), qPrintable(error));
        QVERIFY(!c.worker());
    }

    // The Scenario panel's "Live (gRPC)" choice (speed -1) runs the live runner on the
    // playback's thread, against a mock gateway embedded for the run; a lever change
    // mid-run reaches that run's engine; Pause is refused, Stop works.
    void livePlaybackRunsOnItsOwnEmbeddedGateway()
    {
        QTemporaryDir dir;
        const QString path = writeShortLive(dir, 3.0, 6);
        FakeView view;
        ConsoleController c(&view);
        QSignalSpy finished(&c, &ConsoleController::playbackFinished);
        emit view.intents()->playRequested(path, QString(), -1);
        QVERIFY2(view.errors.isEmpty(), qPrintable(view.errors.join('\n')));
        QVERIFY(c.playback()->running());
        QVERIFY(c.playback()->live());
        QVERIFY(c.showingPlayback());
        QVERIFY(view.playing);
        QVERIFY(view.playbackLabel.contains("live"));
        QCOMPARE(view.levers, *leverPreset(QStringLiteral("lever1+2"), nullptr)); // the run's levers
        QTRY_COMPARE_WITH_TIMEOUT(view.goodTags(), 6, kLiveTimeoutMs);

        emit view.intents()->pauseToggled();
        QVERIFY(!c.playback()->paused());
        QVERIFY(view.logContains("cannot be paused"));

        LeverSet lever3 = view.levers;
        lever3.sessionCommandTimeoutMs = 45000;
        emit view.intents()->leversChanged(lever3);
        QTRY_VERIFY_WITH_TIMEOUT(view.logContains("levers changed: " + describeLevers(lever3)), kLiveTimeoutMs);
        QVERIFY(view.logContains("applies at the next session open")); // the engine's own line
        QTRY_COMPARE_WITH_TIMEOUT(view.levers, lever3, kLiveTimeoutMs);

        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kLiveTimeoutMs);
        QVERIFY(!c.playback()->running());
        QCOMPARE(view.progress, 1.0);
        QVERIFY(view.logContains("short-live / lever1+2 finished"));
        QVERIFY(view.store()->contains(SubscriptionKey{0, false}));
        QCOMPARE(view.levers, LeverSet{}); // the panel drives the live client again
    }

    // On an external gateway (--gateway) the live playback uses that gateway, not one of
    // its own: its session appears there and is closed at the end.
    void livePlaybackOnAnExternalGatewayUsesThatGateway()
    {
        gateway::GatewayConfig config;
        config.commandMs = 0.2;
        config.perItemMs = 0.01;
        config.dataHz = 10;
        gateway::MockGatewayServer server(config);
        QVERIFY2(server.start("127.0.0.1:0"), server.lastError().c_str());
        const auto sessions = [&] { return server.runOnModel([](gateway::GatewayModel& m) { return m.sessionCount(); }); };
        QTemporaryDir dir;
        const QString path = writeShortLive(dir, 2.0, 5);

        FakeView view;
        ConsoleController c(&view);
        GrpcPortOptions port;
        port.address = server.address();
        QString error;
        QVERIFY2(c.startExternal(port, &error), qPrintable(error));
        const std::size_t live = std::size_t(c.demoScenario().connections.size());
        QTRY_COMPARE_WITH_TIMEOUT(sessions(), live, kLiveTimeoutMs); // the console's own client
        QSignalSpy finished(&c, &ConsoleController::playbackFinished);
        emit view.intents()->playRequested(path, QString(), -1);
        QVERIFY2(view.errors.isEmpty(), qPrintable(view.errors.join('\n')));
        QTRY_COMPARE_WITH_TIMEOUT(sessions(), live + 1, kLiveTimeoutMs);
        QTRY_COMPARE_WITH_TIMEOUT(view.goodTags(), 5, kLiveTimeoutMs);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kLiveTimeoutMs);
        QTRY_COMPARE_WITH_TIMEOUT(sessions(), live, kLiveTimeoutMs);
    }

    // A lever change while a virtual playback runs goes to the playback's engine (the
    // panel shows its levers meanwhile), not to the live client.
    void leverChangeDuringAPlaybackReachesItsEngine()
    {
        FakeView view;
        ConsoleController c(&view);
        emit view.intents()->playRequested(QStringLiteral("live-gate-lever1"), QStringLiteral("levers-off"), 1);
        QVERIFY(c.playback()->running());
        const LeverSet off = *leverPreset(QStringLiteral("levers-off"), nullptr);
        const LeverSet lever1 = *leverPreset(QStringLiteral("lever1"), nullptr);
        QCOMPARE(view.levers, off);
        emit view.intents()->leversChanged(lever1);
        QTRY_VERIFY_WITH_TIMEOUT(view.logContains("levers changed: " + describeLevers(lever1)), kLiveTimeoutMs);
        QTRY_COMPARE_WITH_TIMEOUT(c.playback()->levers(), lever1, kLiveTimeoutMs);
        QCOMPARE(view.levers, lever1);
        emit view.intents()->stopRequested();
        QVERIFY(!c.playback()->running());
        QCOMPARE(view.levers, LeverSet{}); // the live levers ("all") are untouched
    }

    void demoScenarioIsListedAndSelected()
    {
        FakeView view;
        ConsoleController c(&view);
        c.loadDemoScenario();
        QCOMPARE(view.scenarioNames, bundledScenarioNames());
        QVERIFY(bundledScenarioNames().contains(view.selectedScenario));
        QString error;
        QVERIFY(!c.setDemoScenario(QStringLiteral("no-such-scenario"), &error));
        QVERIFY2(error.contains("no-such-scenario"), qPrintable(error));
    }

    void playbackMutesTheLiveFeedAndStopReturnsToIt()
    {
        FakeView view;
        ConsoleController c(&view);
        QString error;
        QVERIFY2(c.startEmbedded(&error), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(view.goodTags(), demoTagCount(c), kLiveTimeoutMs);
        QSignalSpy finished(&c, &ConsoleController::playbackFinished);
        emit view.intents()->playRequested(QStringLiteral("live-gate-lever1"), QStringLiteral("levers-off"), 0);
        QVERIFY(c.showingPlayback());
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kLiveTimeoutMs);
        // The replay's gateway refuses every session: its tags are never Good, and the
        // live feed (Good tags) did not leak into the table meanwhile.
        QCOMPARE(view.goodTags(), 0);
        QVERIFY(!view.tags.isEmpty());
        emit view.intents()->stopRequested();
        QVERIFY(!c.showingPlayback());
        QCOMPARE(view.progress, -1.0);
        QCOMPARE(view.goodTags(), demoTagCount(c)); // restored at once from the live feed
        QTRY_VERIFY_WITH_TIMEOUT(!view.store()->subscriptions().isEmpty(), kLiveTimeoutMs);
    }
};

QTEST_MAIN(TestConsoleController)
#include "tst_console_controller.moc"
