// Lever 1 on the VirtualScheduler: each test of its plan's tasks 3–6, the confirmed flag,
// the pre-fix actor with the lever off, and the live gate's figure (22 vs 3); all in
// docs/background.md.
#include "client/tag_subscribe_guard.h"
#include "client/virtual_scheduler.h"

#include <QtTest>
#include <memory>
#include <random>
#include <vector>

using namespace stormwatch;
using namespace std::chrono_literals;

namespace {

struct Sent {
    Time at;
    std::uint64_t id;
};

// One guard on a virtual clock, recording every request it sends and every event it reports.
struct Harness {
    VirtualScheduler sched;
    std::vector<Sent> sent;
    std::vector<GuardEvent> events;
    std::mt19937_64 rng{1};
    bool randomJitter = false;
    int maxOutstanding = 0;
    std::unique_ptr<TagSubscribeGuard> guard;

    Harness(GuardTiming timing, GuardPolicy policy = {}, std::uint64_t seed = 0)
    {
        if (seed) {
            randomJitter = true;
            rng.seed(seed);
        }
        guard = std::make_unique<TagSubscribeGuard>(
            sched, timing, policy,
            [this](std::uint64_t id) {
                sent.push_back({sched.now(), id});
            },
            [this] {
                return randomJitter ? std::uniform_real_distribution<double>(0, 1)(rng) : 0.5;
            });
        guard->setObserver([this](const GuardEvent& e) {
            events.push_back(e);
            maxOutstanding = std::max(maxOutstanding, e.outstanding);
        });
    }

    // Runs everything strictly before `end`: "for 110 s" means the instants [0, 110 s).
    void runBefore(Duration end) { sched.runUntil(end - 1us); }
    void reply(std::uint64_t id, bool ok, const std::string& error = "gateway busy")
    {
        guard->onReply(id, ok, error);
    }
    std::uint64_t lastId() const { return sent.back().id; }
    int count(GuardEventKind kind) const
    {
        return int(std::count_if(events.begin(), events.end(),
                                 [&](const GuardEvent& e) { return e.kind == kind; }));
    }
};

GuardTiming timing(int floorMs, int maxMs, int ceilingMs)
{
    return {std::chrono::milliseconds(floorMs), std::chrono::milliseconds(maxMs),
            std::chrono::milliseconds(ceilingMs)};
}

double ms(Duration d)
{
    return double(d.count()) / 1000.0;
}

} // namespace

class TestTagSubscribeGuard : public QObject {
    Q_OBJECT
private slots:
    void startSendsOneRequestImmediately()
    {
        Harness h(timing(200, 200, 2000));
        h.guard->start();
        QCOMPARE(h.sent.size(), std::size_t(1));
        QCOMPARE(h.sent[0].at, Time(0));
        QCOMPARE(h.guard->outstanding(), 1);
    }

    // Tags lost on a live session (an advise refused after a re-advise) are subscribed again
    // by a confirmed guard, whatever its policy; an unconfirmed one already has a request in
    // flight or a retry armed, and sends nothing extra.
    void aConfirmedGuardSubscribesAgainWhenItsTagsAreLost()
    {
        GuardPolicy preFix;
        preFix.inflightGuard = preFix.backoff = preFix.confirmedFlag = preFix.resubscribeOnRestore =
            false;
        for (const GuardPolicy& policy : {GuardPolicy{}, preFix}) {
            Harness h(timing(200, 200, 2000), policy);
            h.guard->start();
            h.guard->onSubscriptionLost(); // in flight: covered by it
            QCOMPARE(h.sent.size(), std::size_t(1));
            h.reply(h.lastId(), true);
            QVERIFY(h.guard->confirmed());
            h.guard->onSubscriptionLost();
            QCOMPARE(h.sent.size(), std::size_t(2));
            QVERIFY(!h.guard->confirmed());
            h.reply(h.lastId(), true);
            QVERIFY(h.guard->confirmed());
            h.guard->stop();
            h.guard->onSubscriptionLost(); // a stopped guard stays stopped
            QCOMPARE(h.sent.size(), std::size_t(2));
        }
    }

    // Task 3: ticks every 200 ms, but an unanswered request blocks a duplicate for 2 s.
    void slowSubscribeDoesNotStackDuplicatesWhileInFlight()
    {
        Harness h(timing(200, 200, 2000));
        h.guard->start();
        h.sched.runUntil(1000ms); // pre-Lever-1 this window carries ~5 more requests
        QCOMPARE(h.sent.size(), std::size_t(1));
        QVERIFY(h.count(GuardEventKind::SkippedInFlight) >= 4);
        QCOMPARE(h.guard->outstanding(), 1);
    }

    void slowSubscribeReissuesAfterInFlightCeilingAndOnlyOnce()
    {
        Harness h(timing(200, 200, 600));
        h.guard->start();
        h.sched.runUntil(600ms);
        QCOMPARE(h.sent.size(), std::size_t(2));
        QCOMPARE(h.sent[1].at, Time(600ms));
        QVERIFY(h.sent[0].id != h.sent[1].id);
        QCOMPARE(h.count(GuardEventKind::PresumedLost), 1);
        // The new request is itself guarded: no third one inside its ceiling window.
        h.runBefore(1200ms);
        QCOMPARE(h.sent.size(), std::size_t(2));
        QCOMPARE(h.guard->outstanding(), 1);
    }

    void replyToSupersededRequestIsIgnoredAndLatestStillGoverns()
    {
        Harness h(timing(200, 200, 300));
        h.guard->start();
        h.sched.runUntil(400ms); // ceiling passed at the 400 ms tick
        QCOMPARE(h.sent.size(), std::size_t(2));
        const auto first = h.sent[0].id, second = h.sent[1].id;

        // A late Success for the FIRST id must not cancel the watchdog guarding the SECOND.
        h.reply(first, true);
        QCOMPARE(h.count(GuardEventKind::StaleReplyIgnored), 1);
        QVERIFY(!h.guard->confirmed());
        h.sched.runUntil(800ms);
        QCOMPARE(h.sent.size(), std::size_t(3)); // second eventually re-sent
        QCOMPARE(h.sent[1].id, second);

        // Success for the live id stops everything.
        h.reply(h.lastId(), true);
        h.sched.runUntil(2000ms);
        QCOMPARE(h.sent.size(), std::size_t(3));
        QVERIFY(h.guard->confirmed());
        QCOMPARE(h.guard->outstanding(), 0);
    }

    // Task 4.
    void failureReplyReissuesEvenThoughGuardHasNotExpired()
    {
        Harness h(timing(200, 200, 60000));
        h.guard->start();
        h.sched.runUntil(50ms);
        h.reply(h.lastId(), false, "Unknown connection: conn-1");
        QCOMPARE(h.guard->outstanding(), 0);
        h.sched.runUntil(250ms); // re-armed at the failure: retry at 50 + 200 ms
        QCOMPARE(h.sent.size(), std::size_t(2));
        QCOMPARE(h.sent[1].at, Time(250ms));
        QVERIFY(h.sent[0].id != h.sent[1].id);
        QCOMPARE(h.count(GuardEventKind::Failed), 1);
    }

    // A refusal by the client's own recovery gate cost the gateway nothing: it frees the
    // slot but must not stretch the interval, or the guard would wait out a long backoff
    // after the recovery period ended. A real failure afterwards still backs off.
    void refusalByTheRecoveryGateFreesTheSlotWithoutBackingOff()
    {
        Harness h(timing(200, 800, 60000));
        h.guard->start();
        std::vector<double> gaps;
        for (int i = 0; i < 4; ++i) {
            const std::size_t before = h.sent.size();
            const Time at = h.sched.now();
            if (i < 3)
                h.guard->onRefused(h.lastId(), "temporarily unavailable: in recovery");
            else
                h.reply(h.lastId(), false);
            QCOMPARE(h.guard->outstanding(), 0);
            while (h.sent.size() == before)
                QVERIFY(h.sched.runNext());
            gaps.push_back(ms(h.sent.back().at - at));
        }
        QCOMPARE(gaps, (std::vector<double>{200, 200, 200, 400}));
        QCOMPARE(h.count(GuardEventKind::Failed), 4);
    }

    // Defect: after failures had stretched the interval, a refusal kept the stretched one;
    // the gateway saw nothing, so the retry after a refusal comes at the floor.
    void refusalAfterBackoffRetriesAtTheFloor()
    {
        Harness h(timing(200, 3200, 60000));
        h.guard->start();
        for (int i = 0; i < 3; ++i) { // 200 → 400 → 800 → 1600
            h.reply(h.lastId(), false);
            const std::size_t before = h.sent.size();
            while (h.sent.size() == before)
                QVERIFY(h.sched.runNext());
        }
        QCOMPARE(ms(h.guard->interval()), 1600.0);
        const Time at = h.sched.now();
        h.guard->onRefused(h.lastId(), "temporarily unavailable: in recovery");
        QCOMPARE(ms(h.guard->interval()), 200.0);
        const std::size_t before = h.sent.size();
        while (h.sent.size() == before)
            QVERIFY(h.sched.runNext());
        QCOMPARE(ms(h.sent.back().at - at), 200.0);
    }

    void refusalOfAnOlderStackedRequestIsIgnoredLikeItsFailure()
    {
        Harness h(timing(200, 800, 300));
        h.guard->start();
        h.sched.runUntil(400ms); // presumed lost at 400 ms: a second request is in flight
        QCOMPARE(h.sent.size(), std::size_t(2));
        h.guard->onRefused(h.sent[0].id, "temporarily unavailable: in recovery");
        QCOMPARE(h.guard->outstanding(), 1); // the latest still governs
    }

    void repeatedFailuresBackOffAndSuccessResetsToFloor()
    {
        // Floor 200 ms, max 800 ms: nominal gaps 400, 800 (cap), 800 (cap).
        Harness h(timing(200, 800, 60000));
        h.guard->start();
        std::vector<double> gaps;
        for (int i = 0; i < 3; ++i) {
            const std::size_t before = h.sent.size();
            const Time failedAt = h.sched.now();
            h.reply(h.lastId(), false);
            while (h.sent.size() == before)
                QVERIFY(h.sched.runNext());
            gaps.push_back(ms(h.sent.back().at - failedAt));
        }
        QCOMPARE(gaps, (std::vector<double>{400, 800, 800}));

        h.reply(h.lastId(), true);
        QCOMPARE(h.guard->interval(), Duration(200ms));
        const std::size_t sent = h.sent.size();
        h.sched.runFor(1200ms);
        QCOMPARE(h.sent.size(), sent);
    }

    void repeatedFailureGapsStayWithinJitterBounds()
    {
        for (std::uint64_t seed = 1; seed <= 25; ++seed) {
            Harness h(timing(200, 800, 60000), {}, seed);
            h.guard->start();
            std::vector<double> gaps;
            for (int i = 0; i < 3; ++i) {
                const std::size_t before = h.sent.size();
                const Time failedAt = h.sched.now();
                h.reply(h.lastId(), false);
                while (h.sent.size() == before)
                    QVERIFY(h.sched.runNext());
                gaps.push_back(ms(h.sent.back().at - failedAt));
            }
            QVERIFY2(gaps[0] >= 320 && gaps[0] <= 480, qPrintable(QString::number(gaps[0])));
            QVERIFY2(gaps[1] >= 512 && gaps[1] <= 800, qPrintable(QString::number(gaps[1])));
            QVERIFY2(gaps[2] >= 640 && gaps[2] <= 800, qPrintable(QString::number(gaps[2])));
        }
    }

    // Task 5.
    void lateReplyForFailedAndReissuedRequestIsIgnored()
    {
        Harness h(timing(200, 200, 60000));
        h.guard->start();
        const auto first = h.lastId();
        h.reply(first, false, "busy");
        h.sched.runUntil(200ms);
        QCOMPARE(h.sent.size(), std::size_t(2));
        const auto second = h.lastId();

        // A late Success for the FIRST id is ignored: the watchdog guarding the SECOND stays.
        h.reply(first, true);
        QVERIFY(!h.guard->confirmed());
        QCOMPARE(h.guard->inFlight(), std::optional<std::uint64_t>(second));
        h.reply(second, false, "busy");
        h.sched.runUntil(400ms);
        QCOMPARE(h.sent.size(), std::size_t(3));
        QVERIFY(h.lastId() != second);
    }

    // Task 6.
    void connectionBackToGoodResetsBackoffAndRetriesPromptly()
    {
        Harness h(timing(200, 5000, 60000));
        h.guard->start();
        for (int i = 0; i < 3; ++i) { // 400, 800, 1600 nominal
            const std::size_t before = h.sent.size();
            h.reply(h.lastId(), false);
            while (h.sent.size() == before)
                QVERIFY(h.sched.runNext());
        }
        h.reply(h.lastId(), false); // the next wait would be ~3.2 s
        QCOMPARE(h.guard->interval(), Duration(3200ms));
        const Time restoredAt = h.sched.now();
        h.guard->onConnectionQuality(true);
        QCOMPARE(h.guard->interval(), Duration(200ms));
        const std::size_t before = h.sent.size();
        h.sched.runFor(200ms);
        QCOMPARE(h.sent.size(), before + 1);
        QCOMPARE(h.sent.back().at, restoredAt + Duration(200ms));
    }

    void goodQualityDoesNotReleaseAnInFlightRequest()
    {
        Harness h(timing(200, 5000, 60000));
        h.guard->start();
        h.sched.runUntil(1000ms);
        h.guard->onConnectionQuality(true);
        h.sched.runUntil(2000ms);
        QCOMPARE(h.sent.size(), std::size_t(1));
    }

    // The plan as literally written: a confirmed guard leaves the re-subscribe after a
    // reconnect to the connection.
    void goodQualityAfterConfirmationDoesNothingWithoutResubscribeOnRestore()
    {
        GuardPolicy plan;
        plan.resubscribeOnRestore = false;
        Harness h(timing(200, 5000, 60000), plan);
        h.guard->start();
        h.reply(h.lastId(), true);
        h.guard->onConnectionQuality(true);
        h.sched.runUntil(5000ms);
        QCOMPARE(h.sent.size(), std::size_t(1));
        QCOMPARE(h.sched.pending(), std::size_t(0));
    }

    // Lever resubscribe_guard: Good after confirmation means a new session without our
    // items; the guard re-subscribes at once and retries at the floor-based backoff until
    // confirmed again.
    void goodQualityAfterConfirmationResubscribesAndRetriesUntilConfirmed()
    {
        Harness h(timing(200, 5000, 60000));
        h.guard->start();
        h.reply(h.lastId(), true);
        h.sched.runUntil(1000ms);
        h.guard->onConnectionQuality(false);
        h.guard->onConnectionQuality(true);
        QCOMPARE(h.sent.size(), std::size_t(2));
        QCOMPARE(h.sent.back().at, Time(1000ms));
        QVERIFY(!h.guard->confirmed());
        h.reply(h.lastId(), false, "DEADLINE_EXCEEDED");
        QVERIFY(h.guard->retryScheduled());
        h.sched.runUntil(1400ms); // backed off from the 200 ms floor: 400 ms at jitter 0.5
        QCOMPARE(h.sent.size(), std::size_t(3));
        h.reply(h.lastId(), true);
        h.sched.runUntil(10000ms);
        QCOMPARE(h.sent.size(), std::size_t(3));
        QVERIFY(!h.guard->retryScheduled());
    }

    void retryScheduledCoversTheTickInTheMailbox()
    {
        Harness h(timing(200, 800, 60000));
        h.guard->start();
        h.reply(h.lastId(), false);
        QVERIFY(h.guard->retryScheduled());
        // Fire the timer but not the posted tick: the retry is on its way, not forgotten.
        while (h.sent.size() == 1 && h.sched.pending() > 0) {
            QVERIFY(h.guard->retryScheduled() || h.guard->inFlight());
            QVERIFY(h.sched.runNext());
        }
        QCOMPARE(h.sent.size(), std::size_t(2));
    }

    // Lever drop_superseded: the connection dropped a held request unsent; it leaves the
    // outstanding set without counting as a failure, and the latest still governs.
    void supersededHeldRequestLeavesTheOutstandingSet()
    {
        GuardPolicy off = GuardPolicy::preFix();
        Harness h(timing(200, 200, 60000), off);
        h.guard->start();
        h.sched.runUntil(450ms); // pre-fix: two more stacked on the first
        QCOMPARE(h.guard->outstanding(), 3);
        h.guard->onSuperseded(h.sent[0].id);
        h.guard->onSuperseded(h.sent[1].id);
        QCOMPARE(h.guard->outstanding(), 1);
        QCOMPARE(h.count(GuardEventKind::Failed), 0);
        h.guard->onSuperseded(h.sent[1].id); // twice: nothing more
        QCOMPARE(h.guard->outstanding(), 1);
        h.reply(h.lastId(), true);
        QCOMPARE(h.guard->outstanding(), 0);
    }

    // The cancel race: the watchdog tick is already in the mailbox when Success arrives.
    void confirmedFlagSwallowsATickQueuedBeforeSuccess()
    {
        Harness h(timing(200, 200, 150)); // ceiling < interval: every tick would re-send
        h.guard->start();
        // The Success reply is delivered at the same instant the watchdog fires, after it.
        h.sched.callAt(200ms, [&] { h.reply(h.lastId(), true); });
        h.sched.runUntil(1000ms);
        QCOMPARE(h.sent.size(), std::size_t(1));
        QCOMPARE(h.count(GuardEventKind::TickIgnored), 1);
        QVERIFY(h.guard->confirmed());
    }

    void withoutConfirmedFlagTheOneSpuriousResendIsObservable()
    {
        GuardPolicy policy;
        policy.confirmedFlag = false;
        Harness h(timing(200, 200, 150), policy);
        h.guard->start();
        h.sched.callAt(200ms, [&] { h.reply(h.lastId(), true); });
        h.sched.runUntil(210ms);
        QCOMPARE(h.sent.size(), std::size_t(2)); // the spurious full subscribe
        QCOMPARE(h.sent[1].at, Time(200ms));
        h.reply(h.lastId(), true); // it self-heals: bounded to one
        h.sched.runUntil(2000ms);
        QCOMPARE(h.sent.size(), std::size_t(2));
    }

    void leverOffReproducesThePreFixActor()
    {
        Harness h(timing(5000, 60000, 45000), GuardPolicy::preFix());
        h.guard->start();
        h.runBefore(30s);
        // Fixed interval, a new request on every tick, all of them still outstanding.
        QCOMPARE(h.sent.size(), std::size_t(6));
        for (std::size_t i = 0; i < h.sent.size(); ++i)
            QCOMPARE(h.sent[i].at, Time(std::chrono::seconds(5 * i)));
        QCOMPARE(h.guard->outstanding(), 6);
        QCOMPARE(h.guard->interval(), Duration(5s));
        QCOMPARE(h.count(GuardEventKind::SkippedInFlight), 0);
    }

    void leverOffFailureLetsTheFixedTimerResend()
    {
        Harness h(timing(200, 800, 60000), GuardPolicy::preFix());
        h.guard->start();
        h.sched.runUntil(50ms);
        h.reply(h.lastId(), false);
        h.sched.runUntil(200ms);
        QCOMPARE(h.sent.size(), std::size_t(2));
        QCOMPARE(h.sent[1].at, Time(200ms)); // on the original tick, not re-armed at 250
        QCOMPARE(h.guard->interval(), Duration(200ms));
    }

    // The seed's live gate: a subscribe left unanswered for 110 s at the default options.
    void liveGateLeverOffIssues22Requests()
    {
        Harness h(GuardTiming{}, GuardPolicy::preFix());
        h.guard->start();
        h.runBefore(110s);
        QCOMPARE(h.sent.size(), std::size_t(22));
        QCOMPARE(h.maxOutstanding, 22);
    }

    void liveGateLeverOnIssues3RequestsForAnyJitter()
    {
        for (std::uint64_t seed = 1; seed <= 50; ++seed) {
            Harness h(GuardTiming{}, GuardPolicy{}, seed);
            h.guard->start();
            h.runBefore(110s);
            QCOMPARE(h.sent.size(), std::size_t(3));
            QCOMPARE(h.maxOutstanding, 1);
            QCOMPARE(h.sent[1].at, Time(45s)); // exactly one per in-flight ceiling
            QVERIFY(h.sent[2].at - h.sent[1].at >= Duration(45s));
            QCOMPARE(h.count(GuardEventKind::PresumedLost), 2);
            QVERIFY(h.guard->interval() >= Duration(12800ms)); // 5 s ×2×0.8 ×2×0.8 at the least
        }
    }

    void guardIsInertOnceIntervalReachesCeiling()
    {
        Harness h(timing(60000, 60000, 45000));
        h.guard->start();
        h.runBefore(180s);
        QCOMPARE(h.sent.size(), std::size_t(3)); // every tick finds the request past the ceiling
        QCOMPARE(h.maxOutstanding, 1);
    }

    void observerReportsEveryStateChange()
    {
        Harness h(timing(200, 800, 300));
        h.guard->start();
        h.sched.runUntil(400ms);            // skip at 200, presumed lost + interval at 400
        h.reply(h.sent[0].id, true);        // stale
        h.reply(h.lastId(), false, "boom"); // failed + interval; retry at 1200 ms
        h.sched.runUntil(1900ms);
        h.reply(h.lastId(), true); // confirmed + interval reset
        h.guard->stop();
        QVERIFY(h.count(GuardEventKind::Sent) >= 3);
        QVERIFY(h.count(GuardEventKind::SkippedInFlight) >= 1);
        QCOMPARE(h.count(GuardEventKind::PresumedLost), 1);
        QCOMPARE(h.count(GuardEventKind::StaleReplyIgnored), 1);
        QCOMPARE(h.count(GuardEventKind::Failed), 1);
        QCOMPARE(h.count(GuardEventKind::Confirmed), 1);
        QVERIFY(h.count(GuardEventKind::IntervalChanged) >= 3);
        QCOMPARE(h.count(GuardEventKind::Stopped), 1);
        const auto failed = std::find_if(h.events.begin(), h.events.end(), [](const GuardEvent& e) {
            return e.kind == GuardEventKind::Failed;
        });
        QCOMPARE(QString::fromStdString(failed->detail), QString("boom"));
        QCOMPARE(h.events.back().outstanding, 0);
    }

    void sentEventsCarryOutstandingAndInterval()
    {
        Harness h(timing(5000, 60000, 45000), GuardPolicy::preFix());
        h.guard->start();
        h.runBefore(15s);
        std::vector<int> outstanding;
        for (const auto& e : h.events)
            if (e.kind == GuardEventKind::Sent) {
                outstanding.push_back(e.outstanding);
                QCOMPARE(e.interval, Duration(5s));
            }
        QCOMPARE(outstanding, (std::vector<int>{1, 2, 3}));
    }

    void stopCancelsTheWatchdogAndLateRepliesAreStale()
    {
        Harness h(timing(200, 200, 60000));
        h.guard->start();
        const auto id = h.lastId();
        h.guard->stop();
        QCOMPARE(h.sched.pending(), std::size_t(0));
        h.reply(id, true);
        QVERIFY(!h.guard->confirmed());
        QCOMPARE(h.count(GuardEventKind::StaleReplyIgnored), 1);
    }

    void destroyingTheGuardWithATickInTheMailboxIsSafe()
    {
        Harness h(timing(200, 200, 60000));
        h.guard->start();
        h.sched.runUntil(200ms - 1us);
        h.sched.callAt(200ms, [&] { h.guard.reset(); }); // after the tick is posted
        h.sched.runUntil(1000ms);
        QCOMPARE(h.sent.size(), std::size_t(1));
    }

    // The pre-fix alarm actor never compared correlation ids: a stale reply governs.
    void withoutStaleReplyCheckAnOldSuccessCancelsTheNewWatchdog()
    {
        GuardPolicy policy = GuardPolicy::preFix();
        policy.ignoreStaleReplies = false;
        Harness h(timing(10000, 10000, 45000), policy);
        h.guard->start();
        h.guard->stop();
        h.guard->start(); // a fresh request; the first id is no longer pending
        const auto newer = h.lastId();
        h.reply(newer - 1, true);
        QVERIFY(h.guard->confirmed());
        h.sched.runUntil(60s);
        QCOMPARE(h.sent.size(), std::size_t(2)); // the newer request is never retried
    }

    void turningTheGuardOnMidStormStopsStacking()
    {
        Harness h(GuardTiming{}, GuardPolicy::preFix());
        h.guard->start();
        h.runBefore(20s);
        QCOMPARE(h.sent.size(), std::size_t(4));
        h.guard->setPolicy(GuardPolicy{});
        h.runBefore(60s); // latest went out at 15 s: next only at its 45 s ceiling
        QCOMPARE(h.sent.size(), std::size_t(4));
        h.sched.runUntil(60s);
        QCOMPARE(h.sent.size(), std::size_t(5));
        QCOMPARE(h.sent.back().at, Time(60s));
    }

    void restartAfterStopSendsAFreshUnconfirmedRequest()
    {
        Harness h(timing(200, 200, 60000));
        h.guard->start();
        h.reply(h.lastId(), true);
        QVERIFY(h.guard->confirmed());
        h.guard->stop();
        h.guard->start();
        QVERIFY(!h.guard->confirmed());
        QCOMPARE(h.sent.size(), std::size_t(2));
        QCOMPARE(h.guard->outstanding(), 1);
    }

    // Lever retry_budget on the pre-fix actor: with half the connection's bucket spent, the
    // first attempt still goes, one retry per longest interval goes as the probe, and every
    // other tick is held back and counted.
    void retryBudgetHoldsBackRetriesOfASpentConnection()
    {
        GuardPolicy policy = GuardPolicy::preFix();
        policy.retryBudget = true;
        Harness h(timing(1000, 10000, 60000), policy);
        RetryBudget budget;
        for (int i = 0; i < 5; ++i)
            budget.recordFailure();
        h.guard->setRetryBudget(&budget);
        h.guard->start();
        QCOMPARE(h.sent.size(), std::size_t(1)); // a first attempt is never throttled
        h.runBefore(11s);
        QCOMPARE(h.sent.size(), std::size_t(2)); // the probe at 1 s
        QCOMPARE(h.sent[1].at, Time(1s));
        QCOMPARE(h.count(GuardEventKind::Throttled), 9); // the ticks at 2 .. 10 s
        QCOMPARE(budget.throttledRetries(), std::uint64_t(9));
        QVERIFY(h.guard->retryScheduled());
        h.sched.runUntil(11s);
        QCOMPARE(h.sent.size(), std::size_t(3)); // the next probe
    }

    // Failures spend the bucket and a confirmation earns a tenth back: five failed replies
    // throttle, one success reopens it.
    void failuresSpendTheBudgetAndASuccessRefillsIt()
    {
        GuardPolicy policy;
        policy.retryBudget = true;
        Harness h(timing(200, 200, 60000), policy);
        RetryBudget budget;
        h.guard->setRetryBudget(&budget);
        h.guard->start();
        for (int i = 0; i < 5; ++i) {
            h.reply(h.lastId(), false);
            h.sched.runUntil(h.sched.now() + 200ms);
        }
        QCOMPARE(budget.tokens(), 5.0);
        QVERIFY(budget.throttling());
        h.reply(h.lastId(), true);
        QCOMPARE(budget.tokens(), 5.1);
        QVERIFY(!budget.throttling());
    }

    // With the lever off the bucket is neither spent nor asked.
    void withoutTheLeverTheBudgetIsIgnored()
    {
        Harness h(timing(1000, 10000, 60000), GuardPolicy::preFix());
        RetryBudget budget;
        for (int i = 0; i < 8; ++i)
            budget.recordFailure();
        h.guard->setRetryBudget(&budget);
        h.guard->start();
        h.runBefore(10s);
        QCOMPARE(h.sent.size(), std::size_t(10));
        h.reply(h.sent[0].id, false);
        QCOMPARE(budget.tokens(), 2.0);
        QCOMPARE(budget.throttledRetries(), std::uint64_t(0));
    }

    // One bucket per connection: two subscriptions on a spent one share a single probe.
    void subscriptionsOfOneConnectionShareTheProbe()
    {
        GuardPolicy policy = GuardPolicy::preFix();
        policy.retryBudget = true;
        Harness a(timing(1000, 10000, 60000), policy);
        RetryBudget budget;
        for (int i = 0; i < 6; ++i)
            budget.recordFailure();
        a.guard->setRetryBudget(&budget);
        std::vector<Time> sentB;
        TagSubscribeGuard b(
            a.sched, timing(1000, 10000, 60000), policy,
            [&](std::uint64_t) { sentB.push_back(a.sched.now()); }, [] { return 0.5; });
        b.setRetryBudget(&budget);
        a.guard->start();
        b.start();
        a.runBefore(10s);
        QCOMPARE(a.sent.size() + sentB.size(), std::size_t(3)); // two first attempts, one probe
        QCOMPARE(budget.probes(), std::uint64_t(1));
        QCOMPARE(budget.throttledRetries(), std::uint64_t(17));
    }
};

QTEST_GUILESS_MAIN(TestTagSubscribeGuard)
#include "tst_tag_subscribe_guard.moc"
