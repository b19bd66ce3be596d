// The console controller around the one run host: its live run against an embedded mock
// gateway (live gRPC on loopback), an external mxgw-mock process (faults through its control
// service), and an address nobody answers; playbacks on the same host, and every panel
// describing the run that is shown. The window is a recording fake.

#include "client/lever_set.h"
#include "gateway/mock_gateway_server.h"
#include "integration/support_mock_process.h"
#include "scenario/run_host.h"
#include "scenario/scenario_parser.h"
#include "scenario/support_short_live.h"
#include "support_fake_view.h"
#include "test_paths.h"
#include "ui/console_controller.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

using namespace stormwatch;
using stormwatch::test::FakeView;

namespace {

constexpr int kLiveTimeoutMs = 15000;

// The short live scenario (tests/scenario/support_short_live.h) as a file the dock plays.
QString writeShortLive(const QTemporaryDir& dir, double durationS, int tags)
{
    const QJsonObject o = stormwatch::testsupport::shortLiveJson(durationS, tags);
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

// The largest STA queue depth the load plot has received.
double maxStaDepth(FakeView& view)
{
    double max = 0;
    for (const QPointF& p : view.store()->gatewaySeries(GatewayMetric::StaQueueDepth))
        if (!std::isnan(p.y()))
            max = std::max(max, p.y());
    return max;
}

TimelineEvent timelineEvent(TimelineAction action, double durationS = 0)
{
    TimelineEvent e;
    e.action = action;
    e.durationS = durationS;
    return e;
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

    void embeddedLiveRunConnectsAndTagsBecomeGood()
    {
        FakeView view;
        ConsoleController c(&view);
        QString error;
        QVERIFY2(c.startEmbedded(&error), qPrintable(error));
        QVERIFY(c.host()->running() && c.host()->live() && c.host()->openEnded());
        QVERIFY(!c.showingPlayback());
        QVERIFY(view.gatewayAddress.startsWith("127.0.0.1:"));
        QVERIFY(view.faultsAvailable);
        QVERIFY(!view.instances.isEmpty());
        QVERIFY(!view.run.playback && view.run.running && view.run.live);
        QVERIFY(demoTagCount(c) > 0);
        QTRY_COMPARE_WITH_TIMEOUT(view.goodTags(), demoTagCount(c), kLiveTimeoutMs);
        QTRY_COMPARE_WITH_TIMEOUT(view.connectionState("gw1"), QStringLiteral("connected"),
                                  kLiveTimeoutMs);
        QVERIFY(!view.store()->subscriptions().isEmpty());
        // The embedded model's own STA queue reached the store (a real gateway has none).
        QTRY_VERIFY_WITH_TIMEOUT(
            !view.store()->gatewaySeries(GatewayMetric::StaQueueDepth).isEmpty() &&
                !std::isnan(view.store()->gatewaySeries(GatewayMetric::StaQueueDepth).last().y()),
            kLiveTimeoutMs);
    }

    void leverToggleReachesTheEngine()
    {
        FakeView view;
        ConsoleController c(&view);
        QString error;
        QVERIFY2(c.startEmbedded(&error), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(view.connectionState("gw1"), QStringLiteral("connected"),
                                  kLiveTimeoutMs);
        const LeverSet off = *leverPreset(QStringLiteral("levers-off"), nullptr);
        emit view.intents()->leversChanged(off);
        QTRY_VERIFY_WITH_TIMEOUT(view.logContains("levers changed: " + describeLevers(off)),
                                 kLiveTimeoutMs);
        QTRY_COMPARE_WITH_TIMEOUT(view.levers, off, kLiveTimeoutMs);
    }

    // A fault from the panel is a timeline event of the shown run, at "now": a wedge, then a
    // redeploy whose RemoveItems and subscribe queue behind it — the load plot shows it.
    void wedgeFromThePanelQueuesTheEmbeddedSta()
    {
        FakeView view;
        ConsoleController c(&view);
        QString error;
        QVERIFY2(c.startEmbedded(&error), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(view.goodTags(), demoTagCount(c), kLiveTimeoutMs);
        emit view.intents()->faultRequested(timelineEvent(TimelineAction::Wedge, 30));
        QTRY_VERIFY_WITH_TIMEOUT(view.logContains("wedge for 30 s (from the console)"),
                                 kLiveTimeoutMs);
        emit view.intents()->redeployRequested(view.instances.value(0));
        QTRY_VERIFY_WITH_TIMEOUT(view.logContains("redeploy " + view.instances.value(0)),
                                 kLiveTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(maxStaDepth(view) >= 1, kLiveTimeoutMs);
    }

    // The capability toggle reaches the gateway: the next session no longer advertises it.
    void capabilityToggleReachesTheGateway()
    {
        FakeView view;
        ConsoleController c(&view);
        QString error;
        QVERIFY2(c.startEmbedded(&error), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(view.connectionState("gw1"), QStringLiteral("connected"),
                                  kLiveTimeoutMs);
        QVERIFY(view.connections.value(0).supportsSupervisoryBulk);
        emit view.intents()->capabilityToggled(false);
        QTRY_VERIFY_WITH_TIMEOUT(view.logContains("set_capability bulk-subscribe-supervisory off"),
                                 kLiveTimeoutMs);
        emit view.intents()->faultRequested(
            timelineEvent(TimelineAction::EndEventStreams)); // a new session
        QTRY_VERIFY_WITH_TIMEOUT(view.connections.value(0).state == QLatin1String("connected") &&
                                     !view.connections.value(0).supportsSupervisoryBulk,
                                 kLiveTimeoutMs);
    }

    // Connection truth: an address nobody answers is "unreachable" with the error within
    // 2 s, the gateway has no control service so faults are off with the reason, and
    // tearing down does not hang.
    void unreachableGatewayIsSaidWithin2Seconds()
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
            QElapsedTimer shown;
            shown.start();
            QVERIFY2(c.startExternal(port, &error), qPrintable(error));
            QVERIFY(c.external());
            QTRY_COMPARE_WITH_TIMEOUT(view.connectionState("gw1"), QStringLiteral("unreachable"),
                                      2000);
            qInfo("unreachable shown after %lld ms", static_cast<long long>(shown.elapsed()));
            QVERIFY(!view.connections.value(0).error.isEmpty());
            QCOMPARE(view.goodTags(), 0);
            QVERIFY(!view.faultsAvailable);
            QVERIFY2(view.faultsReason.contains("control service"), qPrintable(view.faultsReason));
            emit view.intents()->faultRequested(timelineEvent(TimelineAction::Wedge, 5));
            QTRY_VERIFY_WITH_TIMEOUT(view.logContains("wedge at"),
                                     kLiveTimeoutMs); // skipped, and why
        }
        QVERIFY2(wall.elapsed() < kLiveTimeoutMs + 5000,
                 "tearing down against a dead gateway must not hang");
    }

    // A gateway whose contract does not check: the console still opens, its connection is
    // refused with the element named, and the gateway gets no session and no Invoke.
    void aContractThatDoesNotCheckIsRefusedOnItsConnection()
    {
        gateway::MockGatewayServer server;
        QVERIFY2(server.start("127.0.0.1:0"), server.lastError().c_str());
        QTemporaryDir dir;
        QFile in(testpaths::contractFile(QStringLiteral("mxaccess-gateway-v1.proto")));
        QVERIFY(in.open(QIODevice::ReadOnly));
        QString text = QString::fromUtf8(in.readAll());
        const QString line = QStringLiteral("  int32 item_handle = 5;\n");
        QVERIFY(text.contains(line));
        text.remove(line);
        QFile out(dir.filePath("broken.proto"));
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(text.toUtf8());
        out.close();

        FakeView view;
        ConsoleController c(&view);
        GrpcPortOptions port;
        port.address = server.address();
        port.contractFile = out.fileName().toStdString();
        QString error;
        QVERIFY2(c.startExternal(port, &error), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(view.connectionState("gw1"), QStringLiteral("refused"),
                                  kLiveTimeoutMs);
        QVERIFY2(view.connections.value(0).error.contains("MxEvent has no field item_handle"),
                 qPrintable(view.connections.value(0).error));
        QTRY_VERIFY_WITH_TIMEOUT(view.logContains("no command is sent"), kLiveTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(
            view.logContains("nothing is sent to this gateway: refused: contract"), kLiveTimeoutMs);
        QTest::qWait(500);
        const auto stats = server.runOnModel([](gateway::GatewayModel& m) {
            return std::pair{m.sessionCount(), m.invokeRpcs()};
        });
        QCOMPARE(stats.first, std::size_t(0));
        QCOMPARE(stats.second, std::int64_t(0));
        QCOMPARE(view.goodTags(), 0);
    }

    // An external mxgw-mock process serves MockGatewayControl: faults, the capability toggle
    // and the gateway's own counters work against it as against the embedded one. A wedge
    // from the panel, then a redeploy, and its STA queue rises in the load plot.
    void externalMockProcessTakesFaultsFromThePanel()
    {
        ::testsupport::MockProcess mock({"--command-ms", "2", "--per-item-ms", "0.1"});
        QVERIFY(mock.start());

        FakeView view;
        ConsoleController c(&view);
        GrpcPortOptions port;
        port.address = mock.address();
        QString error;
        QVERIFY2(c.startExternal(port, &error), qPrintable(error));
        QVERIFY2(view.faultsAvailable, qPrintable(view.faultsReason));
        QCOMPARE(view.gatewayAddress, mock.endpoint());
        QTRY_COMPARE_WITH_TIMEOUT(view.goodTags(), demoTagCount(c), kLiveTimeoutMs);
        emit view.intents()->faultRequested(timelineEvent(TimelineAction::Wedge, 30));
        QTRY_VERIFY_WITH_TIMEOUT(view.logContains("wedge for 30 s (from the console)"),
                                 kLiveTimeoutMs);
        emit view.intents()->redeployRequested(view.instances.value(0));
        QTRY_VERIFY_WITH_TIMEOUT(maxStaDepth(view) >= 1, kLiveTimeoutMs);
        mock.process.terminate();
        mock.process.waitForFinished(5000);
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
        QVERIFY(!c.host()->running());
    }

    // The Scenario panel's "Live (gRPC)" choice (speed -1) runs the scenario live on the
    // host, against a mock gateway embedded for the run; a lever change mid-run reaches that
    // run's engine; Pause is refused; when it ends, Back to live returns to the live run.
    void livePlaybackRunsOnItsOwnEmbeddedGateway()
    {
        QTemporaryDir dir;
        const QString path = writeShortLive(dir, 3.0, 6);
        FakeView view;
        ConsoleController c(&view);
        QSignalSpy finished(&c, &ConsoleController::playbackFinished);
        emit view.intents()->playRequested(path, QString(), -1);
        QVERIFY2(view.errors.isEmpty(), qPrintable(view.errors.join('\n')));
        QVERIFY(c.host()->running());
        QVERIFY(c.host()->live());
        QVERIFY(c.showingPlayback());
        QVERIFY(view.playing);
        QVERIFY(view.playbackLabel.contains("live"));
        QCOMPARE(view.levers,
                 *leverPreset(QStringLiteral("lever1+2"), nullptr)); // the run's levers
        QTRY_COMPARE_WITH_TIMEOUT(view.goodTags(), 6, kLiveTimeoutMs);

        emit view.intents()->pauseToggled();
        QVERIFY(!c.host()->paused());
        QVERIFY(view.logContains("cannot be paused"));

        LeverSet lever3 = view.levers;
        lever3.sessionCommandTimeoutMs = 45000;
        emit view.intents()->leversChanged(lever3);
        QTRY_VERIFY_WITH_TIMEOUT(view.logContains("levers changed: " + describeLevers(lever3)),
                                 kLiveTimeoutMs);
        QVERIFY(view.logContains("applies at the next session open")); // the engine's own line
        QTRY_COMPARE_WITH_TIMEOUT(view.levers, lever3, kLiveTimeoutMs);

        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kLiveTimeoutMs);
        QVERIFY(!c.host()->running());
        QCOMPARE(view.progress, 1.0);
        QVERIFY(view.logContains("short-live / lever1+2 finished"));
        QVERIFY(view.store()->contains(SubscriptionKey{0, false}));
        QCOMPARE(view.levers, lever3); // the panels still describe the finished run
        QVERIFY(view.run.playback && !view.run.running);
    }

    // On an external gateway (--gateway) the live playback uses that gateway: the live run
    // ends (its session closes) while the playback's session runs, and closes at its end.
    void livePlaybackOnAnExternalGatewayUsesThatGateway()
    {
        gateway::GatewayConfig config;
        config.commandMs = 0.2;
        config.perItemMs = 0.01;
        config.dataHz = 10;
        gateway::MockGatewayServer server(config);
        QVERIFY2(server.start("127.0.0.1:0"), server.lastError().c_str());
        const auto sessions = [&] {
            return server.runOnModel([](gateway::GatewayModel& m) { return m.sessionCount(); });
        };
        QTemporaryDir dir;
        const QString path = writeShortLive(dir, 2.0, 5);

        FakeView view;
        ConsoleController c(&view);
        GrpcPortOptions port;
        port.address = server.address();
        QString error;
        QVERIFY2(c.startExternal(port, &error), qPrintable(error));
        const std::size_t live = std::size_t(c.demoScenario().connections.size());
        QTRY_COMPARE_WITH_TIMEOUT(sessions(), live, kLiveTimeoutMs); // the live run's
        QSignalSpy finished(&c, &ConsoleController::playbackFinished);
        emit view.intents()->playRequested(path, QString(), -1);
        QVERIFY2(view.errors.isEmpty(), qPrintable(view.errors.join('\n')));
        QTRY_COMPARE_WITH_TIMEOUT(view.goodTags(), 5, kLiveTimeoutMs);
        QCOMPARE(sessions(), std::size_t(1)); // the playback's only: one run at a time
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kLiveTimeoutMs);
        QTRY_COMPARE_WITH_TIMEOUT(sessions(), std::size_t(0), kLiveTimeoutMs);
        emit view.intents()->stopRequested(); // Back to live
        QTRY_COMPARE_WITH_TIMEOUT(sessions(), live, kLiveTimeoutMs);
    }

    // A lever change while a virtual playback runs goes to the playback's engine; after
    // it, the live run starts with the console's own levers again.
    // A run over several connections (a site's gateways) has its instances grouped by them
    // in the topology; a run over one keeps the flat list.
    void instancesAreGroupedByConnectionWhenThereAreSeveral()
    {
        QTemporaryDir dir;
        const QJsonObject o{
            {"name", "two-gateways"},
            {"description", "instances on two connections"},
            {"duration_s", 20},
            {"connections",
             QJsonArray{QJsonObject{{"name", "gw-north"}}, QJsonObject{{"name", "gw-south"}}}},
            {"instances",
             QJsonArray{QJsonObject{{"name", "n1"}, {"connection", "gw-north"}, {"tags", 4}},
                        QJsonObject{{"name", "s1"}, {"connection", "gw-south"}, {"tags", 4}},
                        QJsonObject{{"name", "s2"}, {"connection", "gw-south"}, {"tags", 4}}}},
            {"variants", QJsonArray{QStringLiteral("all")}},
        };
        const QString path = dir.filePath(QStringLiteral("two.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QJsonDocument(o).toJson());
        f.close();
        FakeView view;
        ConsoleController c(&view);
        c.play(path, QStringLiteral("all"), 0);
        QVERIFY2(view.errors.isEmpty(), qPrintable(view.errors.join('\n')));
        const QMap<QString, QStringList> expected{{"gw-north", {"n1"}}, {"gw-south", {"s1", "s2"}}};
        QCOMPARE(view.instancesByConnection, expected);
        c.play(QStringLiteral("live-gate-lever1"), QStringLiteral("lever1"), 0);
        QVERIFY(view.instancesByConnection.isEmpty());
        QCOMPARE(view.instances, QStringList{QStringLiteral("rig-probe-1")});
    }

    void leverChangeDuringAPlaybackReachesItsEngine()
    {
        FakeView view;
        ConsoleController c(&view);
        QString error;
        QVERIFY2(c.startEmbedded(&error), qPrintable(error));
        emit view.intents()->playRequested(QStringLiteral("live-gate-lever1"),
                                           QStringLiteral("levers-off"), 1);
        QVERIFY(c.host()->running());
        const LeverSet off = *leverPreset(QStringLiteral("levers-off"), nullptr);
        const LeverSet lever1 = *leverPreset(QStringLiteral("lever1"), nullptr);
        QCOMPARE(view.levers, off);
        emit view.intents()->leversChanged(lever1);
        QTRY_VERIFY_WITH_TIMEOUT(view.logContains("levers changed: " + describeLevers(lever1)),
                                 kLiveTimeoutMs);
        QTRY_COMPARE_WITH_TIMEOUT(c.host()->levers(), lever1, kLiveTimeoutMs);
        QCOMPARE(view.levers, lever1);
        emit view.intents()->stopRequested();
        QVERIFY(!c.host()->running());
        QCOMPARE(c.host()->state(), RunHost::State::Stopped);
        QCOMPARE(view.levers, lever1);        // the stopped run's
        emit view.intents()->stopRequested(); // Back to live
        QVERIFY(c.host()->running() && c.host()->openEnded());
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

    // The walk: live → play the incident at max → finished → back to live. At each
    // step the levers, speed, topology, status bar and fault controls describe the shown run.
    void everyPanelDescribesTheShownRun()
    {
        FakeView view;
        ConsoleController c(&view);
        QString error;
        QVERIFY2(c.startEmbedded(&error), qPrintable(error));
        const QString liveAddress = view.gatewayAddress;
        const QStringList liveInstances = view.instances;
        QTRY_COMPARE_WITH_TIMEOUT(view.connectionState("gw1"), QStringLiteral("connected"),
                                  kLiveTimeoutMs);
        QCOMPARE(view.levers, LeverSet{});
        QVERIFY(view.faultsAvailable);
        QVERIFY(!view.run.playback && view.run.live && view.run.speed < 0);
        QVERIFY(liveAddress.startsWith("127.0.0.1:"));

        QSignalSpy finished(&c, &ConsoleController::playbackFinished);
        emit view.intents()->playRequested(QStringLiteral("incident-2026-08-26"),
                                           QStringLiteral("levers-off"), 0);
        const LeverSet off = *leverPreset(QStringLiteral("levers-off"), nullptr);
        QCOMPARE(view.levers, off);
        QCOMPARE(view.instances, (QStringList{"Z28062", "Z28061"}));
        QCOMPARE(view.gatewayAddress, QStringLiteral("in-process mock"));
        QVERIFY(view.faultsAvailable); // the replay's gateway model takes faults
        QVERIFY(view.run.playback && view.run.running && !view.run.live);
        QCOMPARE(view.run.speed, 0.0); // max, as played
        QVERIFY(view.connections.isEmpty() ||
                view.connectionState("gw1") != QLatin1String("connected") ||
                view.connections.value(0).address == QLatin1String("in-process mock"));

        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        QCOMPARE(view.levers, off); // still the finished run's
        QCOMPARE(view.instances, (QStringList{"Z28062", "Z28061"}));
        QVERIFY(view.run.playback && !view.run.running);
        QCOMPARE(view.progress, 1.0);
        QVERIFY(!view.faultsAvailable); // nothing runs to take a fault
        QCOMPARE(view.connectionState("gw1"), QStringLiteral("stopped")); // no session is left
        QVERIFY(view.playbackLabel.contains("Back to live"));

        emit view.intents()->stopRequested(); // Back to live
        QVERIFY(!view.run.playback && view.run.running && view.run.live);
        QCOMPARE(view.levers, LeverSet{});
        QCOMPARE(view.instances, liveInstances);
        QVERIFY(view.gatewayAddress.startsWith("127.0.0.1:"));
        QVERIFY(view.faultsAvailable);
        QTRY_COMPARE_WITH_TIMEOUT(view.connectionState("gw1"), QStringLiteral("connected"),
                                  kLiveTimeoutMs);
        QTRY_COMPARE_WITH_TIMEOUT(view.goodTags(), demoTagCount(c), kLiveTimeoutMs);
    }
};

QTEST_MAIN(TestConsoleController)
#include "tst_console_controller.moc"
