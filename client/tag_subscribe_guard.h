#pragma once
// Lever 1: the in-flight guard + backoff for one subscription (instance × connection).
//
// Mirrors the bridge's InstanceActor tag-subscribe retry after Lever 1: the watchdog is
// armed on every send so a failed AND a lost reply are both retried; while a request is
// in flight and younger than the ceiling a tick only re-arms (no duplicate); past the
// ceiling the reply is presumed lost, the backoff advances and a fresh id goes out (the
// old id's late reply is ignored); a Failure frees the slot, backs off and re-arms at the
// new interval; Success cancels and resets to the floor; quality back to Good resets to
// the floor and retries promptly if unconfirmed. The `confirmed` flag closes the cancel
// race: a tick already queued when Success arrived does nothing.
//
// Every protective part is a switch (GuardPolicy) so the pre-fix actor — fixed interval,
// a new request on every tick, no guard — can be reproduced. Timer ticks are delivered
// through Scheduler::post, like a message landing in an actor's mailbox, so the race
// the confirmed flag closes is real here too.

#include "defaults.h"
#include "retry_budget.h"
#include "scheduler.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>

namespace stormwatch {

struct GuardPolicy {
    bool inflightGuard = true;      // one outstanding request until the ceiling
    bool backoff = true;            // exponential backoff + jitter; off = fixed floor interval
    bool confirmedFlag = true;      // a tick queued before Success does nothing
    bool ignoreStaleReplies = true; // off = the pre-fix alarm actor: any reply governs
    // Lever resubscribe_guard: when the connection comes back, a confirmed subscription
    // re-subscribes through this guard (in-flight check, backoff, retry on failure)
    // instead of relying on the connection's one-shot transparent re-subscribe.
    bool resubscribeOnRestore = true;
    // Lever retry_budget: a retry (not a first attempt) goes out only when the connection's
    // RetryBudget allows it, throttled or as the probe of its longest interval (GuardTiming
    // max); otherwise the tick re-arms and the retry waits for the next one.
    bool retryBudget = false;

    static GuardPolicy preFix() { return {false, false, false, true, false, false}; }
    bool operator==(const GuardPolicy&) const = default;
};

struct GuardTiming {
    Duration floor = std::chrono::milliseconds(defaults::kTagSubscribeRetryIntervalMs);
    Duration max = std::chrono::milliseconds(defaults::kTagSubscribeRetryMaxIntervalMs);
    // The effective in-flight ceiling (see Instance: derived from the session's timeout).
    Duration ceiling = std::chrono::milliseconds(defaults::kTagSubscribeInFlightCeilingMs);
    bool operator==(const GuardTiming&) const = default;
};

enum class GuardEventKind {
    Sent,              // a new request went out
    SkippedInFlight,   // a tick found a young request in flight: re-armed only
    PresumedLost,      // the in-flight request passed the ceiling: superseded
    Failed,            // a Failure reply for a live request
    Confirmed,         // a Success reply: watchdog cancelled, backoff reset
    StaleReplyIgnored, // a reply for a superseded or unknown id
    TickIgnored,       // a tick that raced a Success, swallowed by the confirmed flag
    IntervalChanged,   // the retry interval moved (backoff or reset)
    Stopped,           // the subscription was stopped (redeploy, shutdown)
    Throttled,         // a retry the connection's retry budget held back: re-armed only
};

const char* toString(GuardEventKind kind);

struct GuardEvent {
    GuardEventKind kind;
    Time at;
    std::uint64_t correlationId = 0; // the request the event is about, 0 when none
    int outstanding = 0;             // after the event
    Duration interval{0};            // after the event
    Duration age{0};                 // SkippedInFlight / PresumedLost: age of the in-flight request
    std::string detail;              // Failed: the error text
};

class TagSubscribeGuard {
public:
    using SendFn = std::function<void(std::uint64_t correlationId)>;
    using JitterFn = std::function<double()>; // uniform in [0, 1]
    using Observer = std::function<void(const GuardEvent&)>;

    TagSubscribeGuard(Scheduler& scheduler, GuardTiming timing, GuardPolicy policy, SendFn send,
                      JitterFn jitter);
    ~TagSubscribeGuard();
    TagSubscribeGuard(const TagSubscribeGuard&) = delete;
    TagSubscribeGuard& operator=(const TagSubscribeGuard&) = delete;

    void setObserver(Observer observer) { m_observer = std::move(observer); }

    // Sends the first request and arms the watchdog.
    void start();
    // Cancels the watchdog and forgets outstanding requests (their replies become stale).
    void stop();

    void onReply(std::uint64_t correlationId, bool success, const std::string& error = {});
    // The request never left: the client's own recovery gate refused it. Like a failure it
    // frees the slot, but it does not back off — the gateway saw no load, and a stretched
    // interval would only delay the first retry after the recovery period.
    void onRefused(std::uint64_t correlationId, const std::string& why);
    void onConnectionQuality(bool good);
    // Some of a confirmed subscription's tags lost their item's data on a live session (an
    // advise refused after the connection advised the item again): subscribed again through
    // this guard, as after a failure, whatever the policy — nothing else would.
    void onSubscriptionLost();
    // The request never reached the gateway and never will: the connection dropped it from
    // its held queue because this guard superseded it (lever drop_superseded). It only
    // leaves the outstanding set; the latest request governs.
    void onSuperseded(std::uint64_t correlationId);

    // Levers switch at run time; the next tick or reply follows the new policy.
    void setPolicy(GuardPolicy policy) { m_policy = policy; }
    void setTiming(GuardTiming timing);
    // The connection's bucket that lever retry_budget spends; nullptr = none (never throttled).
    void setRetryBudget(RetryBudget* budget) { m_budget = budget; }

    const GuardPolicy& policy() const { return m_policy; }
    const GuardTiming& timing() const { return m_timing; }
    int outstanding() const { return static_cast<int>(m_pending.size()); }
    Duration interval() const { return m_interval; }
    bool confirmed() const { return m_confirmed; }
    bool running() const { return m_running; }
    std::uint64_t requestsSent() const { return m_requestsSent; }
    std::optional<std::uint64_t> inFlight() const { return m_inFlight; }
    // A retry tick is armed or already on its way (nothing can be orphaned while it is).
    bool retryScheduled() const { return m_timer != kNoTimer || m_tickPosted; }

private:
    void onRetryTick();
    // Forgets a replied request: whether it was the latest, or nullopt for a stale reply.
    std::optional<bool> settle(std::uint64_t correlationId, const std::string& error);
    void onFailure(std::uint64_t correlationId, const std::string& error, bool retryAtFloor);
    // `retry`: a tick's send, which the retry budget may hold back; first attempts it never does.
    void sendOrSkip(bool retry);
    void spend(bool failed);
    void arm();
    void backOff();
    void resetBackoff();
    void setInterval(Duration interval);
    void emitEvent(GuardEventKind kind, std::uint64_t id = 0, Duration age = Duration{0},
                   std::string detail = {});

    Scheduler& m_scheduler;
    GuardTiming m_timing;
    GuardPolicy m_policy;
    SendFn m_send;
    JitterFn m_jitter;
    Observer m_observer;
    RetryBudget* m_budget = nullptr;

    bool m_running = false;
    bool m_confirmed = false;
    Duration m_interval;
    TimerId m_timer = kNoTimer;
    bool m_tickPosted = false;
    std::optional<std::uint64_t> m_inFlight; // the latest request, until answered or superseded
    Time m_inFlightSentAt{0};
    std::set<std::uint64_t> m_pending; // sent, neither answered nor superseded
    std::uint64_t m_nextId = 0;
    std::uint64_t m_requestsSent = 0;
    std::shared_ptr<int> m_life = std::make_shared<int>(0); // posted ticks check it
};

} // namespace stormwatch
