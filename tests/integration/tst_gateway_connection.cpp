// GatewayConnection against the mock model through the in-process port, in virtual time:
// Lever 2 and its capability fallback, Lever 3, per-tag results, held subscribes,
// reconnect, the recovery gate and coalescing.
#include "support_virtual_gateway.h"

#include <QtTest>

using namespace stormwatch;
using namespace stormwatch::testing;
using namespace std::chrono_literals;
using gateway::CommandKind;

namespace {

gateway::GatewayConfig gatewayConfig(bool advertise = true, double dataHz = 1)
{
    gateway::GatewayConfig c;
    c.advertiseBulkSupervisory = advertise;
    c.commandMs = 2;
    c.perItemMs = 0.1;
    c.dataHz = dataHz;
    return c;
}

int supervisoryItems(const gateway::GatewayModel& model, const std::string& session)
{
    int n = 0;
    for (const auto& [handle, item] : model.session(session)->items)
        n += item.advise.supervisory;
    return n;
}

int plainOnlyItems(const gateway::GatewayModel& model, const std::string& session)
{
    int n = 0;
    for (const auto& [handle, item] : model.session(session)->items)
        n += item.advise.plain && !item.advise.supervisory;
    return n;
}

} // namespace

class TestGatewayConnection : public QObject {
    Q_OBJECT
private slots:
    void opensASessionAndCapturesCapabilities()
    {
        VirtualGateway gw(gatewayConfig(true));
        ConnectionHarness h(gw);
        h.connection.start();
        gw.sched.runFor(1s);
        QVERIFY(h.connection.connected());
        QCOMPARE(h.connection.capabilities().size(), std::size_t(10));
        QVERIFY(h.connection.supportsSupervisoryBulk());
        QCOMPARE(h.qualityEvents.size(), std::size_t(0)); // no subscriber yet
    }

    void oldGatewayHasNineCapabilities()
    {
        VirtualGateway gw(gatewayConfig(false));
        ConnectionHarness h(gw);
        h.connection.start();
        gw.sched.runFor(1s);
        QCOMPARE(h.connection.capabilities().size(), std::size_t(9));
        QVERIFY(!h.connection.supportsSupervisoryBulk());
    }

    void withCapabilityOneSubscribeBulkFor244SupervisoryTags()
    {
        VirtualGateway gw(gatewayConfig(true));
        ConnectionHarness h(gw);
        h.connection.start();
        const auto sub = h.addSubscriber(makeTags("Z28061.Attr", 244));
        auto outcome = h.subscribe(sub);
        gw.sched.runFor(2s);
        QVERIFY(outcome->has_value());
        QVERIFY((*outcome)->success);
        QCOMPARE((*outcome)->tags.size(), std::size_t(244));
        for (const auto& t : (*outcome)->tags)
            QVERIFY(t.ok && t.itemHandle != 0);
        QCOMPARE(gw.model.invokeRpcs(CommandKind::SubscribeBulk), std::int64_t(1));
        QCOMPARE(gw.model.invokeRpcs(CommandKind::AddItemBulk), std::int64_t(0));
        QCOMPARE(gw.model.invokeRpcs(CommandKind::AdviseSupervisory), std::int64_t(0));
        QCOMPARE(supervisoryItems(gw.model, h.connection.sessionId()), 244);
        QCOMPARE(h.goodTags(sub), 244); // data flows to every tag
    }

    void withoutCapabilityFansOutAtMost16InFlight()
    {
        VirtualGateway gw(gatewayConfig(false));
        ConnectionHarness h(gw);
        h.connection.start();
        const auto sub = h.addSubscriber(makeTags("Z28061.Attr", 244));
        auto outcome = h.subscribe(sub);
        gw.sched.runFor(5s);
        QVERIFY(outcome->has_value() && (*outcome)->success);
        QCOMPARE(gw.model.invokeRpcs(CommandKind::AddItemBulk), std::int64_t(1));
        QCOMPARE(gw.model.invokeRpcs(CommandKind::AdviseSupervisory), std::int64_t(244));
        QCOMPARE(gw.model.invokeRpcs(CommandKind::SubscribeBulk), std::int64_t(0));
        QCOMPARE(h.connection.stats().maxAdviseInFlight, 16);
        QCOMPARE(supervisoryItems(gw.model, h.connection.sessionId()), 244);
        QCOMPARE(h.goodTags(sub), 244);
    }

    void parallelismOptionBoundsTheFanOut()
    {
        VirtualGateway gw(gatewayConfig(false));
        ConnectionConfig config;
        config.adviseParallelism = 3;
        ConnectionHarness h(gw, config);
        h.connection.start();
        auto outcome = h.subscribe(h.addSubscriber(makeTags("A", 20)));
        gw.sched.runFor(5s);
        QVERIFY(outcome->has_value() && (*outcome)->success);
        QCOMPARE(h.connection.stats().maxAdviseInFlight, 3);
    }

    void lever2OffFansOutEvenWhenAdvertised()
    {
        VirtualGateway gw(gatewayConfig(true));
        ConnectionConfig config;
        config.bulkSupervisory = false;
        ConnectionHarness h(gw, config);
        h.connection.start();
        auto outcome = h.subscribe(h.addSubscriber(makeTags("A", 244)));
        gw.sched.runFor(5s);
        QVERIFY(outcome->has_value() && (*outcome)->success);
        QCOMPARE(gw.model.invokeRpcs(CommandKind::SubscribeBulk), std::int64_t(0));
        QCOMPARE(gw.model.invokeRpcs(CommandKind::AdviseSupervisory), std::int64_t(244));
    }

    void writeUserUsesPlainSubscribeBulk()
    {
        VirtualGateway gw(gatewayConfig(true));
        ConnectionConfig config;
        config.writeUserId = 7;
        ConnectionHarness h(gw, config);
        h.connection.start();
        auto outcome = h.subscribe(h.addSubscriber(makeTags("A", 10)));
        gw.sched.runFor(2s);
        QVERIFY(outcome->has_value() && (*outcome)->success);
        QCOMPARE(gw.model.invokeRpcs(CommandKind::SubscribeBulk), std::int64_t(1));
        QCOMPARE(plainOnlyItems(gw.model, h.connection.sessionId()), 10);
        QCOMPARE(supervisoryItems(gw.model, h.connection.sessionId()), 0);
    }

    void handleBookkeepingIsTheSameOnBothPaths()
    {
        std::vector<std::int32_t> handles[2];
        for (int path = 0; path < 2; ++path) {
            VirtualGateway gw(gatewayConfig(path == 0));
            ConnectionHarness h(gw);
            h.connection.start();
            auto tags = makeTags("A", 30);
            tags[4] = "A.missing.5";
            const auto sub = h.addSubscriber(tags);
            auto first = h.subscribe(sub);
            gw.sched.runFor(2s);
            QVERIFY(first->has_value() && (*first)->success);
            auto second = h.subscribe(sub); // a retry re-adds cleanly, same items
            gw.sched.runFor(2s);
            QVERIFY(second->has_value() && (*second)->success);
            for (const auto& t : (*second)->tags)
                handles[path].push_back(t.itemHandle);
            QCOMPARE(h.goodTags(sub), 29);
            QVERIFY(!(*second)->tags[4].ok);
            QVERIFY(QString::fromStdString((*second)->tags[4].error).contains("missing"));
            QCOMPARE(h.quality[sub][4], kQualityUncertain); // never routed
        }
        QCOMPARE(handles[0], handles[1]);
    }

    void partialFailureKeepsPerTagResults()
    {
        VirtualGateway gw(gatewayConfig(true));
        ConnectionHarness h(gw);
        h.connection.start();
        auto tags = makeTags("A", 5);
        tags[1] = "A.missing.2";
        tags[3] = "A.missing.4";
        auto outcome = h.subscribe(h.addSubscriber(tags));
        gw.sched.runFor(2s);
        QVERIFY(outcome->has_value());
        QVERIFY((*outcome)->success); // partial success is normal
        QList<bool> ok;
        for (const auto& t : (*outcome)->tags)
            ok << t.ok;
        QCOMPARE(ok, (QList<bool>{true, false, true, false, true}));
        QVERIFY(!(*outcome)->tags[1].error.empty());
    }

    void lever3SendsTheCommandTimeoutAndRecordsTheEcho()
    {
        VirtualGateway gw(gatewayConfig());
        ConnectionConfig config;
        config.sessionCommandTimeout = 60s;
        ConnectionHarness h(gw, config);
        h.connection.start();
        gw.sched.runFor(1s);
        QCOMPARE(h.connection.echoedCommandTimeout(), std::optional<Duration>(60s));
        QCOMPARE(gw.model.session(h.connection.sessionId())->commandTimeout, Duration(60s));
    }

    void withoutLever3TheGatewayDefaultApplies()
    {
        VirtualGateway gw(gatewayConfig());
        ConnectionHarness h(gw);
        h.connection.start();
        gw.sched.runFor(1s);
        QCOMPARE(h.connection.echoedCommandTimeout(), std::optional<Duration>(30s));
    }

    void lever3ChangeAppliesAtTheNextSessionOpen()
    {
        VirtualGateway gw(gatewayConfig());
        ConnectionHarness h(gw);
        std::vector<std::string> logs;
        h.connection.setLogger([&](Severity, const std::string& m) { logs.push_back(m); });
        h.connection.start();
        gw.sched.runFor(1s);
        ConnectionConfig config = h.connection.config();
        config.sessionCommandTimeout = 45s;
        h.connection.setConfig(config);
        QCOMPARE(h.connection.echoedCommandTimeout(), std::optional<Duration>(30s));
        QVERIFY(std::any_of(logs.begin(), logs.end(), [](const std::string& m) {
            return m.find("next session open") != std::string::npos;
        }));
        gw.model.restart(1s);
        gw.sched.runFor(10s);
        QVERIFY(h.connection.connected());
        QCOMPARE(h.connection.echoedCommandTimeout(), std::optional<Duration>(45s));
    }

    void restartReconnectsAndAllTagsAreGoodAgain()
    {
        VirtualGateway gw(gatewayConfig(true));
        ConnectionHarness h(gw);
        h.connection.start();
        const auto sub = h.addSubscriber(makeTags("A", 244));
        auto outcome = h.subscribe(sub);
        gw.sched.runFor(2s);
        QCOMPARE(h.goodTags(sub), 244);
        const std::string firstSession = h.connection.sessionId();

        gw.model.restart(5s);
        gw.sched.runFor(1s);
        QVERIFY(!h.connection.connected());
        QCOMPARE(h.qualityEvents.back(), false);
        gw.sched.runFor(30s);
        QVERIFY(h.connection.connected());
        QVERIFY(h.connection.sessionId() != firstSession);
        QCOMPARE(h.qualityEvents.back(), true);
        QCOMPARE(h.connection.stats().reconnects, std::int64_t(1));
        QCOMPARE(h.goodTags(sub), 244); // re-subscribed transparently on the new session
        QCOMPARE(supervisoryItems(gw.model, h.connection.sessionId()), 244);
    }

    void gracefulStreamEndAlsoReconnects()
    {
        VirtualGateway gw(gatewayConfig(true));
        ConnectionHarness h(gw);
        h.connection.start();
        const auto sub = h.addSubscriber(makeTags("A", 10));
        h.subscribe(sub);
        gw.sched.runFor(2s);
        gw.model.endEventStreams();
        gw.sched.runFor(10s);
        QVERIFY(h.connection.connected());
        QCOMPARE(h.connection.stats().sessionsOpened, std::int64_t(2));
        QCOMPARE(h.goodTags(sub), 10);
    }

    void subscribeIsHeldUnansweredWhileNotConnected()
    {
        VirtualGateway gw(gatewayConfig(true));
        gw.model.refuseSessions(60s);
        ConnectionHarness h(gw);
        h.connection.start();
        auto outcome = h.subscribe(h.addSubscriber(makeTags("A", 3)));
        gw.sched.runFor(59s);
        QVERIFY(!outcome->has_value());
        QCOMPARE(h.connection.heldRequests(), std::size_t(1));
        QCOMPARE(gw.model.invokeRpcs(), std::int64_t(0));
        gw.sched.runFor(60s); // refusal over; the reconnect backoff (≤ 30 s) opens a session
        QVERIFY(h.connection.connected());
        QVERIFY(outcome->has_value() && (*outcome)->success);
        QCOMPARE(h.connection.heldRequests(), std::size_t(0));
    }

    // A graceful restart answers the calls it holds (UNAVAILABLE) before it ends the
    // streams: the caller hears the failure and retries (its guard does).
    void subscribeInFlightWhenTheGatewayRestartsFailsUnavailable()
    {
        auto config = gatewayConfig(true);
        config.perItemMs =
            1000; // Register is quick; the subscribe is still on the STA when the gateway restarts
        VirtualGateway gw(config);
        ConnectionHarness h(gw);
        h.connection.start();
        gw.sched.runFor(1s);
        auto outcome = h.subscribe(h.addSubscriber(makeTags("A", 3)));
        gw.sched.runFor(1s);
        QCOMPARE(h.connection.heldRequests(), std::size_t(0)); // in flight, not held
        gw.model.restart(2s);
        gw.sched.runFor(1s);
        QVERIFY(outcome->has_value() && !(*outcome)->success);
        QVERIFY(QString::fromStdString((*outcome)->error).contains("UNAVAILABLE"));
        QCOMPARE(h.connection.heldRequests(), std::size_t(0));
    }

    // A subscribe still waiting for the session when it drops stays held, tags and all.
    void heldSubscribeIsAnsweredAfterReconnectWithItsTags()
    {
        auto config = gatewayConfig(true);
        config.commandMs = 3000; // Register is still running when the gateway restarts
        VirtualGateway gw(config);
        ConnectionHarness h(gw);
        h.connection.start();
        gw.sched.runFor(1s);
        auto outcome = h.subscribe(h.addSubscriber(makeTags("A", 3)));
        gw.sched.runFor(1s);
        gw.model.restart(2s);
        gw.sched.runFor(1s);
        QVERIFY(!outcome->has_value());
        QCOMPARE(h.connection.heldRequests(), std::size_t(1));
        gw.sched.runFor(60s);
        QVERIFY(outcome->has_value() && (*outcome)->success);
        QCOMPARE((*outcome)->tags.size(), std::size_t(3));
        QCOMPARE(supervisoryItems(gw.model, h.connection.sessionId()), 3);
    }

    // Defect 1, through the transport break a killed gateway produces: the stream ends
    // before the calls fail, so the subscribe in flight is requeued. The requeued request
    // went out with no tags, and its empty success confirmed a subscription that advised
    // nothing.
    void requeuedSubscribeKeepsItsTagsWhenTheStreamEndsFirst()
    {
        auto config = gatewayConfig(true);
        config.perItemMs = 1000; // the 5-tag subscribe takes 5 s on the STA
        VirtualGateway gw(config);
        ConnectionHarness h(gw);
        h.connection.start();
        gw.sched.runFor(1s);
        const auto sub = h.addSubscriber(makeTags("A", 5));
        auto outcome = h.subscribe(sub);
        gw.sched.runFor(1s);
        QVERIFY(h.connection.connected());
        QCOMPARE(h.connection.heldRequests(), std::size_t(0)); // in flight, not held
        gw.model.kill(2s);
        gw.sched.runFor(60s);
        QVERIFY(outcome->has_value() && (*outcome)->success);
        QCOMPARE((*outcome)->tags.size(), std::size_t(5));
        QCOMPARE(h.goodTags(sub), 5);
        QVERIFY(!h.connection.subscribePending(sub));
        for (int i = 0; i < 5; ++i)
            QVERIFY(h.connection.routed(sub, i));
    }

    // Lever drop_superseded: while disconnected, a newer subscribe from the same subscriber
    // replaces the held one (told "superseded"); one request goes out on reconnect.
    void heldSubscribeSupersededByANewerOneIsDropped()
    {
        for (bool drop : {false, true}) {
            VirtualGateway gw(gatewayConfig(true));
            gw.model.refuseSessions(60s);
            ConnectionConfig cc;
            cc.dropSuperseded = drop;
            ConnectionHarness h(gw, cc);
            h.connection.start();
            const auto sub = h.addSubscriber(makeTags("A", 3));
            auto first = h.subscribe(sub);
            gw.sched.runFor(10s);
            auto second = h.subscribe(sub);
            gw.sched.runFor(1s);
            QCOMPARE(h.connection.heldRequests(), std::size_t(drop ? 1 : 2));
            if (drop) {
                QVERIFY(first->has_value() && (*first)->superseded && !(*first)->success);
                QCOMPARE(h.connection.stats().supersededDropped, std::int64_t(1));
            }
            gw.sched.runFor(120s);
            QVERIFY(second->has_value() && (*second)->success);
            QCOMPARE(gw.model.invokeRpcs(CommandKind::SubscribeBulk), std::int64_t(drop ? 1 : 2));
        }
    }

    // Lever resubscribe_guard: the connection no longer re-subscribes on its own after a
    // reconnect; the subscriber's guard does (see the engine tests).
    void guardedResubscribeLeavesTheReSubscribeToTheSubscriber()
    {
        for (bool guarded : {false, true}) {
            VirtualGateway gw(gatewayConfig(true));
            ConnectionConfig cc;
            cc.guardedResubscribe = guarded;
            ConnectionHarness h(gw, cc);
            h.connection.start();
            const auto sub = h.addSubscriber(makeTags("A", 4));
            h.subscribe(sub);
            gw.sched.runFor(2s);
            gw.model.restart(3s);
            gw.sched.runFor(1s);
            QVERIFY(h.connection.subscribePending(sub)); // down: the reconnect is coming
            gw.sched.runFor(30s);
            QVERIFY(h.connection.connected());
            QCOMPARE(gw.model.invokeRpcs(CommandKind::SubscribeBulk),
                     std::int64_t(guarded ? 1 : 2));
            for (int i = 0; i < 4; ++i)
                QCOMPARE(h.connection.routed(sub, i), !guarded);
            QCOMPARE(h.connection.subscribePending(sub), false);
        }
    }

    // MxCommandTimeoutMs: the client's own deadline answers a call the gateway never does.
    void clientDeadlineFailsACallTheGatewayNeverAnswers()
    {
        auto config = gatewayConfig(true);
        config.defaultCommandTimeout = 300s;
        VirtualGateway gw(config);
        ConnectionConfig cc;
        cc.commandTimeout = 10s;
        ConnectionHarness h(gw, cc);
        h.connection.start();
        gw.sched.runFor(1s);
        gw.model.wedge(120s);
        auto outcome = h.subscribe(h.addSubscriber(makeTags("A", 2)));
        gw.sched.runFor(9s);
        QVERIFY(!outcome->has_value());
        gw.sched.runFor(2s);
        QVERIFY(outcome->has_value() && !(*outcome)->success);
        QVERIFY(QString::fromStdString((*outcome)->error).contains("MxCommandTimeoutMs"));
        QCOMPARE(h.connection.stats().clientDeadlines, std::int64_t(1));
        gw.sched.runFor(200s); // the gateway's late answer is dropped: still one outcome
        QCOMPARE(h.connection.stats().clientDeadlines, std::int64_t(1));
    }

    void closeSendsCloseSessionAndWaitsForTheAnswer()
    {
        VirtualGateway gw(gatewayConfig(true));
        ConnectionHarness h(gw);
        h.connection.start();
        h.subscribe(h.addSubscriber(makeTags("A", 4)));
        gw.sched.runFor(2s);
        QCOMPARE(gw.model.sessionCount(), std::size_t(1));
        bool closed = false;
        h.connection.close([&closed] { closed = true; });
        QVERIFY(!closed);
        gw.sched.runFor(1s);
        QVERIFY(closed);
        QCOMPARE(gw.model.sessionCount(), std::size_t(0));
        QCOMPARE(h.connection.state(), ConnectionState::Stopped);
    }

    // A close (or stop) while OpenSession is in flight used to drop
    // the late reply, so the session the gateway had just opened stayed open until its own
    // timeout (the client worker's stop raced its first connect). The late reply now closes
    // it, and close() answers once that is done.
    void closeWhileOpenSessionIsInFlightClosesTheLateSession()
    {
        VirtualGateway gw(gatewayConfig(true), 100ms); // 100 ms each way
        ConnectionHarness h(gw);
        h.connection.start();
        for (int i = 0; i < 150 && gw.model.sessionCount() == 0; ++i)
            gw.sched.runFor(1ms); // the gateway opened it; its reply is still on the way
        QCOMPARE(gw.model.sessionCount(), std::size_t(1));
        QCOMPARE(h.connection.state(), ConnectionState::Connecting);
        bool closed = false;
        h.connection.close([&closed] { closed = true; });
        QCOMPARE(h.connection.state(), ConnectionState::Stopped);
        QVERIFY(!closed); // not before the late session is closed
        gw.sched.runFor(1s);
        QCOMPARE(gw.model.sessionCount(), std::size_t(0));
        QVERIFY(closed);
        QCOMPARE(h.connection.state(), ConnectionState::Stopped);

        // A plain stop() in the same window leaves nothing behind either.
        ConnectionHarness again(gw);
        again.connection.start();
        for (int i = 0; i < 150 && gw.model.sessionCount() == 0; ++i)
            gw.sched.runFor(1ms);
        QCOMPARE(gw.model.sessionCount(), std::size_t(1));
        again.connection.stop();
        gw.sched.runFor(1s);
        QCOMPARE(gw.model.sessionCount(), std::size_t(0));
    }

    void teardownModelSettings()
    {
        for (Teardown teardown : {Teardown::PerItemRemove, Teardown::None}) {
            VirtualGateway gw(gatewayConfig(true));
            ConnectionConfig cc;
            cc.teardown = teardown;
            ConnectionHarness h(gw, cc);
            h.connection.start();
            const auto sub = h.addSubscriber(makeTags("A", 6));
            h.subscribe(sub);
            gw.sched.runFor(2s);
            h.connection.removeItems(sub);
            gw.sched.runFor(2s);
            QCOMPARE(gw.model.invokeRpcs(CommandKind::RemoveItem),
                     std::int64_t(teardown == Teardown::PerItemRemove ? 6 : 0));
            QVERIFY(!h.connection.routed(sub, 0));
        }
        QCOMPARE(teardownFromString("none"), std::optional<Teardown>(Teardown::None));
        QCOMPARE(teardownFromString("bulk"), std::optional<Teardown>());
    }

    // teardown_gated off: RemoveItems neither pass the recovery gate nor feed it failures.
    void ungatedTeardownDoesNotFeedTheRecoveryGate()
    {
        for (bool gated : {true, false}) {
            VirtualGateway gw(gatewayConfig(true));
            RecoveryConfig rc;
            rc.enabled = true;
            rc.strategy = RecoveryConfig::Strategy::Simple;
            rc.failHandler = RecoveryConfig::FailHandler::Windowed;
            rc.failuresToEnterRecovery = 3;
            rc.failuresWindowSeconds = 100;
            RecoveryGate gate(gw.sched, rc);
            ConnectionConfig cc;
            cc.teardownGated = gated;
            ConnectionHarness h(gw, cc, &gate);
            h.connection.start();
            const auto sub = h.addSubscriber(makeTags("A", 5));
            h.subscribe(sub);
            gw.sched.runFor(2s);
            gw.model.wedge(60s); // every RemoveItem times out (30 s)
            h.connection.removeItems(sub);
            gw.sched.runFor(40s);
            QCOMPARE(gate.recovering(), gated);
        }
    }

    void wedgePastTheCommandTimeoutFailsWithDeadlineExceeded()
    {
        VirtualGateway gw(gatewayConfig(true));
        ConnectionHarness h(gw);
        h.connection.start();
        gw.sched.runFor(1s);
        gw.model.wedge(40s);
        auto outcome = h.subscribe(h.addSubscriber(makeTags("A", 10)));
        gw.sched.runFor(35s);
        QVERIFY(outcome->has_value());
        QVERIFY(!(*outcome)->success);
        QVERIFY(QString::fromStdString((*outcome)->error).contains("DEADLINE_EXCEEDED"));
        QCOMPARE(h.connection.stats().deadlineExceeded, std::int64_t(1));
        QCOMPARE(gw.model.deadlineExceeded(), std::int64_t(1));
        QCOMPARE(h.connection.keptRequests(), std::size_t(1)); // its request waits for the retry
    }

    void recoveryGateRefusesCallsDuringRecovery()
    {
        VirtualGateway gw(gatewayConfig(true));
        RecoveryConfig rc;
        rc.enabled = true;
        rc.strategy = RecoveryConfig::Strategy::Simple;
        rc.failHandler = RecoveryConfig::FailHandler::Simple;
        rc.recoverySeconds = 20;
        RecoveryGate gate(gw.sched, rc);
        ConnectionHarness h(gw, {}, &gate);
        h.connection.start();
        gw.sched.runFor(1s);
        gw.model.wedge(40s);
        const auto sub = h.addSubscriber(makeTags("A", 10));
        auto failed = h.subscribe(sub);
        gw.sched.runFor(35s); // DEADLINE_EXCEEDED at ~31 s enters recovery for 20 s
        QVERIFY(failed->has_value() && !(*failed)->success);
        QVERIFY(gate.recovering());
        const auto invokes = gw.model.invokeRpcs();
        auto refused = h.subscribe(sub);
        gw.sched.runFor(1ms);
        QVERIFY(refused->has_value());
        QVERIFY((*refused)->suppressed);
        QVERIFY(QString::fromStdString((*refused)->error).contains("temporarily unavailable"));
        QCOMPARE(gw.model.invokeRpcs(), invokes); // never reached the gateway
        QCOMPARE(gate.suppressedCalls(), std::uint64_t(1));
        gw.sched.runFor(30s); // recovery over, wedge over
        auto later = h.subscribe(sub);
        gw.sched.runFor(2s);
        QVERIFY(later->has_value() && (*later)->success);
    }

    void coalescingMergesIdenticalConcurrentSubscribes()
    {
        auto config = gatewayConfig(true);
        config.commandMs = 500;
        VirtualGateway gw(config);
        ConnectionConfig cc;
        cc.coalesce = true;
        ConnectionHarness h(gw, cc);
        h.connection.start();
        gw.sched.runFor(2s);
        const auto a = h.addSubscriber(makeTags("A", 10));
        const auto b = h.addSubscriber(makeTags("A", 10)); // identical tag set
        auto first = h.subscribe(a);
        auto second = h.subscribe(a); // a stacked retry of the same instance
        auto third = h.subscribe(b);
        gw.sched.runFor(3s);
        QVERIFY(first->has_value() && second->has_value() && third->has_value());
        QCOMPARE(gw.model.invokeRpcs(CommandKind::SubscribeBulk), std::int64_t(1));
        QCOMPARE(h.connection.stats().coalescedSubscribes, std::int64_t(2));
        QCOMPARE(h.goodTags(a), 10);
        QCOMPARE(h.goodTags(b), 10);
    }

    void listsThatDifferInOneTagDoNotCoalesce()
    {
        auto config = gatewayConfig(true);
        config.commandMs = 500;
        VirtualGateway gw(config);
        ConnectionConfig cc;
        cc.coalesce = true;
        ConnectionHarness h(gw, cc);
        h.connection.start();
        gw.sched.runFor(2s);
        auto other = makeTags("A", 10);
        other[7] = "B.7";
        const auto a = h.addSubscriber(makeTags("A", 10));
        const auto b = h.addSubscriber(other);
        h.subscribe(a);
        h.subscribe(b);
        gw.sched.runFor(3s);
        QCOMPARE(gw.model.invokeRpcs(CommandKind::SubscribeBulk), std::int64_t(2));
        QCOMPARE(h.connection.stats().coalescedSubscribes, std::int64_t(0));
        QCOMPARE(h.goodTags(b), 10);
    }

    // A storm re-sends one list many times, so its request is built once and kept; a site's
    // settled subscriptions would hold every name twice, so each one's goes once it settled,
    // while the others still run.
    void aSettledSubscribersRequestIsFreedOnceNoneOfItsOwnRuns()
    {
        auto config = gatewayConfig(true);
        config.commandMs = 500;
        VirtualGateway gw(config);
        ConnectionHarness h(gw);
        h.connection.start();
        gw.sched.runFor(2s);
        const auto a = h.addSubscriber(makeTags("A", 10));
        const auto b = h.addSubscriber(makeTags("B", 10));
        auto first = h.subscribe(a);
        auto second = h.subscribe(b);
        QCOMPARE(h.connection.keptRequests(), std::size_t(2));
        while (!first->has_value())
            QVERIFY(gw.sched.runNext());
        QVERIFY((*first)->success);
        QVERIFY(!second->has_value());
        QCOMPARE(h.connection.keptRequests(), std::size_t(1)); // b's: it still runs
        gw.sched.runFor(3s);
        QVERIFY(second->has_value() && (*second)->success);
        QCOMPARE(h.connection.keptRequests(), std::size_t(0));
        QCOMPARE(h.goodTags(a), 10);
        QCOMPARE(h.goodTags(b), 10);
        h.subscribe(a); // built again when it is needed again
        gw.sched.runFor(3s);
        QCOMPARE(gw.model.invokeRpcs(CommandKind::SubscribeBulk), std::int64_t(3));
        QCOMPARE(h.connection.keptRequests(), std::size_t(0));

        // Its own second subscribe still runs when the first succeeds: the request is kept
        // for it (a storm's duplicates reuse it) and goes when that one succeeds too.
        auto third = h.subscribe(a);
        auto fourth = h.subscribe(a);
        while (!third->has_value())
            QVERIFY(gw.sched.runNext());
        QVERIFY((*third)->success);
        QVERIFY(!fourth->has_value());
        QCOMPARE(h.connection.keptRequests(), std::size_t(1));
        gw.sched.runFor(3s);
        QVERIFY(fourth->has_value() && (*fourth)->success);
        QCOMPARE(h.connection.keptRequests(), std::size_t(0));
    }

    void withoutCoalescingEachSubscribeIsForwarded()
    {
        auto config = gatewayConfig(true);
        config.commandMs = 500;
        VirtualGateway gw(config);
        ConnectionHarness h(gw);
        h.connection.start();
        gw.sched.runFor(2s);
        const auto a = h.addSubscriber(makeTags("A", 10));
        h.subscribe(a);
        h.subscribe(a);
        gw.sched.runFor(3s);
        QCOMPARE(gw.model.invokeRpcs(CommandKind::SubscribeBulk), std::int64_t(2));
    }

    void removeItemsSendsOneRemovePerItem()
    {
        VirtualGateway gw(gatewayConfig(true));
        ConnectionHarness h(gw);
        h.connection.start();
        const auto sub = h.addSubscriber(makeTags("A", 12));
        h.subscribe(sub);
        gw.sched.runFor(2s);
        h.connection.removeItems(sub);
        gw.sched.runFor(2s);
        QCOMPARE(gw.model.invokeRpcs(CommandKind::RemoveItem), std::int64_t(12));
        QCOMPARE(gw.model.session(h.connection.sessionId())->items.size(), std::size_t(0));
    }

    void removingASubscriberWhileItsSubscribeRunsIsSafe()
    {
        auto config = gatewayConfig(false);
        config.commandMs = 50; // the fan-out takes a while
        VirtualGateway gw(config);
        ConnectionHarness h(gw);
        h.connection.start();
        gw.sched.runFor(1s);
        const auto sub = h.addSubscriber(makeTags("A", 40));
        auto outcome = h.subscribe(sub);
        gw.sched.runFor(200ms);
        h.connection.removeSubscriber(sub);
        gw.sched.runFor(10s);
        QVERIFY(outcome->has_value()); // the caller is still answered
        const auto other = h.addSubscriber(makeTags("B", 5));
        auto next = h.subscribe(other);
        gw.sched.runFor(5s);
        QVERIFY(next->has_value() && (*next)->success);
        QCOMPARE(h.goodTags(other), 5);
    }

    // A gateway sends an item's initial value on the event stream as soon as it is advised,
    // which may be before the subscribe's reply (with the item handles) reaches the client.
    // A tag whose value never changes (a setpoint) must still get that value: it is kept
    // until its route exists, on both subscribe paths.
    void initialValuesThatArriveBeforeTheirRouteAreDelivered_data()
    {
        QTest::addColumn<bool>("bulkSupervisory");
        QTest::newRow("SubscribeBulk") << true;
        QTest::newRow("AddItemBulk + advises") << false;
    }
    void initialValuesThatArriveBeforeTheirRouteAreDelivered()
    {
        QFETCH(bool, bulkSupervisory);
        VirtualGateway gw(gatewayConfig(bulkSupervisory, 0)); // initial values only
        ConnectionHarness h(gw);
        h.connection.start();
        const auto sub = h.addSubscriber(makeTags("Setpoint.", 10));
        auto outcome = h.subscribe(sub);
        gw.sched.runFor(10s);
        QVERIFY(outcome->has_value() && (*outcome)->success);
        QCOMPARE(h.goodTags(sub), 10);
    }

    // Values of items nobody routes (their subscriber left while the subscribe ran) are not
    // kept once no subscribe runs: no reply is on its way that could route them.
    void unroutedValuesAreKeptOnlyWhileASubscribeRuns()
    {
        VirtualGateway gw(
            gatewayConfig(false, 0)); // the fan-out: initial values come before the route
        ConnectionHarness h(gw);
        h.connection.start();
        gw.sched.runFor(1s);
        const auto sub = h.addSubscriber(makeTags("Setpoint.", 10));
        auto outcome = h.subscribe(sub);
        h.connection.removeSubscriber(sub); // the subscribe still runs on the gateway
        gw.sched.runFor(10s);
        QVERIFY(outcome->has_value());
        QCOMPARE(h.connection.unroutedValues(), std::size_t(0));
        // While one runs they are kept (the initial values of the items being advised) ...
        const auto other = h.addSubscriber(makeTags("Other.", 4));
        h.subscribe(other);
        QVERIFY(h.connection.subscribePending(other));
        std::size_t keptWhileRunning = 0;
        while (h.connection.subscribePending(other) && gw.sched.runNext())
            keptWhileRunning = std::max(keptWhileRunning, h.connection.unroutedValues());
        QVERIFY(keptWhileRunning > 0);
        gw.sched.runFor(1s); // values still on their way when the reply came arrive routed
        QCOMPARE(h.goodTags(other), 4); // ... and delivered
        QCOMPARE(h.connection.unroutedValues(), std::size_t(0));
    }

    void repeatedSubscribesDeliverEachDataChangeOnce()
    {
        VirtualGateway gw(gatewayConfig(true, 0)); // initial values only
        ConnectionHarness h(gw);
        int updates = 0;
        h.connection.start();
        const auto sub = h.connection.addSubscriber(
            makeTags("A", 4), [&](const std::vector<TagUpdate>& u) { updates += int(u.size()); },
            [](bool) {});
        for (int i = 0; i < 3; ++i) {
            h.connection.subscribe(sub, [](const SubscribeOutcome&) {});
            gw.sched.runFor(1s);
        }
        gw.model.setSourceOutage(true); // one batch for all advised items
        gw.sched.runFor(1s);
        const int before = updates;
        gw.model.setSourceOutage(false);
        gw.sched.runFor(1s);
        QCOMPARE(updates - before, 4);
    }

    void alarmSubscribeIsAnsweredOnceConnected()
    {
        VirtualGateway gw(gatewayConfig(true));
        ConnectionHarness h(gw);
        std::optional<bool> ok;
        h.connection.subscribeAlarms("Z28061",
                                     [&](bool success, const std::string&) { ok = success; });
        h.connection.start();
        gw.sched.runFor(2s);
        QCOMPARE(ok, std::optional<bool>(true));
        QCOMPARE(gw.model.invokeRpcs(CommandKind::SubscribeAlarms), std::int64_t(1));
    }
};

QTEST_GUILESS_MAIN(TestGatewayConnection)
#include "tst_gateway_connection.moc"
