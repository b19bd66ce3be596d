#include "tag_subscribe_guard.h"

#include "backoff.h"

namespace stormwatch {

const char* toString(GuardEventKind kind)
{
    switch (kind) {
    case GuardEventKind::Sent:
        return "sent";
    case GuardEventKind::SkippedInFlight:
        return "skipped-in-flight";
    case GuardEventKind::PresumedLost:
        return "presumed-lost";
    case GuardEventKind::Failed:
        return "failed";
    case GuardEventKind::Confirmed:
        return "confirmed";
    case GuardEventKind::StaleReplyIgnored:
        return "stale-reply-ignored";
    case GuardEventKind::TickIgnored:
        return "tick-ignored";
    case GuardEventKind::IntervalChanged:
        return "interval";
    case GuardEventKind::Stopped:
        return "stopped";
    case GuardEventKind::Throttled:
        return "throttled";
    }
    return "?";
}

TagSubscribeGuard::TagSubscribeGuard(Scheduler& scheduler, GuardTiming timing, GuardPolicy policy,
                                     SendFn send, JitterFn jitter)
    : m_scheduler(scheduler), m_timing(timing), m_policy(policy), m_send(std::move(send)),
      m_jitter(std::move(jitter)), m_interval(timing.floor)
{
}

TagSubscribeGuard::~TagSubscribeGuard()
{
    if (m_timer != kNoTimer)
        m_scheduler.cancel(m_timer);
}

void TagSubscribeGuard::start()
{
    m_running = true;
    m_confirmed = false;
    sendOrSkip(/*retry=*/false);
}

void TagSubscribeGuard::stop()
{
    if (m_timer != kNoTimer)
        m_scheduler.cancel(m_timer);
    m_timer = kNoTimer;
    m_running = false;
    m_tickPosted = false;
    m_pending.clear();
    m_inFlight.reset();
    emitEvent(GuardEventKind::Stopped);
}

void TagSubscribeGuard::setTiming(GuardTiming timing)
{
    m_timing = timing;
    if (m_interval < timing.floor || m_interval > std::max(timing.floor, timing.max))
        setInterval(timing.floor);
}

void TagSubscribeGuard::arm()
{
    if (m_timer != kNoTimer)
        m_scheduler.cancel(m_timer);
    std::weak_ptr<int> life = m_life;
    m_timer = m_scheduler.callAfter(m_interval, [this, life] {
        if (life.expired())
            return;
        m_timer = kNoTimer;
        m_tickPosted = true;
        // The tick lands in the "mailbox": a reply already queued at this instant is
        // handled first, exactly the window in which cancel() cannot retract the tick.
        m_scheduler.post([this, life] {
            if (life.expired())
                return;
            m_tickPosted = false;
            onRetryTick();
        });
    });
}

void TagSubscribeGuard::onRetryTick()
{
    if (!m_running)
        return;
    if (m_confirmed && m_policy.confirmedFlag) {
        emitEvent(GuardEventKind::TickIgnored);
        return;
    }
    sendOrSkip(/*retry=*/true);
}

void TagSubscribeGuard::spend(bool failed)
{
    if (!m_budget || !m_policy.retryBudget)
        return;
    if (failed)
        m_budget->recordFailure();
    else
        m_budget->recordSuccess();
}

void TagSubscribeGuard::sendOrSkip(bool retry)
{
    const Time now = m_scheduler.now();
    if (m_inFlight && m_policy.inflightGuard) {
        const Duration age = now - m_inFlightSentAt;
        if (age < m_timing.ceiling) {
            emitEvent(GuardEventKind::SkippedInFlight, *m_inFlight, age);
            arm();
            return;
        }
        const std::uint64_t lost = *m_inFlight;
        m_pending.erase(lost);
        m_inFlight.reset();
        emitEvent(GuardEventKind::PresumedLost, lost, age);
        spend(/*failed=*/true);
        backOff();
    } else if (m_inFlight) {
        // No guard: the previous request is still unanswered and a new one is stacked
        // on top of it (the amplifier). The retry of an unanswered attempt still counts
        // as a failed attempt for the backoff lever.
        backOff();
    }
    if (retry && m_budget && m_policy.retryBudget && !m_budget->tryRetry(now, m_timing.max)) {
        arm();
        emitEvent(GuardEventKind::Throttled);
        return;
    }

    const std::uint64_t id = ++m_nextId;
    m_pending.insert(id);
    m_inFlight = id;
    m_inFlightSentAt = now;
    m_confirmed = false;
    ++m_requestsSent;
    arm();
    emitEvent(GuardEventKind::Sent, id);
    m_send(id);
}

std::optional<bool> TagSubscribeGuard::settle(std::uint64_t correlationId, const std::string& error)
{
    const bool known = m_pending.erase(correlationId) > 0;
    if (!m_running || (!known && m_policy.ignoreStaleReplies)) {
        emitEvent(GuardEventKind::StaleReplyIgnored, correlationId, Duration{0}, error);
        return std::nullopt;
    }
    const bool isLatest = m_inFlight == correlationId;
    if (isLatest)
        m_inFlight.reset();
    return isLatest;
}

void TagSubscribeGuard::onRefused(std::uint64_t correlationId, const std::string& why)
{
    // The gateway saw nothing, so nothing earned a longer wait: the retry comes at the
    // floor, as after a restore (an interval stretched before the recovery period would
    // otherwise delay the first retry after it).
    onFailure(correlationId, why, /*retryAtFloor=*/true);
}

void TagSubscribeGuard::onSuperseded(std::uint64_t correlationId)
{
    if (m_pending.erase(correlationId) == 0)
        return; // already superseded here (the guard presumed it lost)
    if (m_inFlight == correlationId)
        m_inFlight.reset();
    emitEvent(GuardEventKind::StaleReplyIgnored, correlationId, Duration{0},
              "superseded while held");
}

void TagSubscribeGuard::onReply(std::uint64_t correlationId, bool success, const std::string& error)
{
    if (!success) {
        onFailure(correlationId, error, /*retryAtFloor=*/false);
        return;
    }
    const std::optional<bool> isLatest = settle(correlationId, error);
    if (!isLatest)
        return;

    if (m_timer != kNoTimer)
        m_scheduler.cancel(m_timer);
    m_timer = kNoTimer;
    m_confirmed = true;
    spend(/*failed=*/false);
    resetBackoff();
    emitEvent(GuardEventKind::Confirmed, correlationId);
}

void TagSubscribeGuard::onFailure(std::uint64_t correlationId, const std::string& error,
                                  bool retryAtFloor)
{
    const std::optional<bool> isLatest = settle(correlationId, error);
    if (!isLatest)
        return;

    emitEvent(GuardEventKind::Failed, correlationId, Duration{0}, error);
    if (!retryAtFloor)
        spend(/*failed=*/true);
    if (!*isLatest && m_policy.ignoreStaleReplies)
        return; // an older stacked request failed; the latest still governs
    if (m_policy.inflightGuard || m_policy.backoff) {
        // The slot is free: back off and re-arm at the new interval so the backoff is
        // honoured on this very retry. Pre-fix, the already-armed timer just fires.
        if (retryAtFloor)
            resetBackoff();
        else
            backOff();
        arm();
    }
}

void TagSubscribeGuard::onSubscriptionLost()
{
    if (!m_running || !m_confirmed)
        return; // unconfirmed: a request is in flight or a retry armed, and it covers them
    m_confirmed = false;
    sendOrSkip(/*retry=*/false);
}

void TagSubscribeGuard::onConnectionQuality(bool good)
{
    if (!good || !m_running)
        return;
    if (m_confirmed) {
        // The session that confirmed us is gone with its items. With resubscribeOnRestore
        // this guard re-subscribes now and keeps retrying until confirmed again; without
        // it the connection's transparent re-subscribe is all there is (pre-fix).
        if (!m_policy.resubscribeOnRestore)
            return;
        m_confirmed = false;
        resetBackoff();
        sendOrSkip(/*retry=*/false);
        return;
    }
    // A restore must not inherit a stretched interval: retry at the floor now if our
    // subscribe is still unconfirmed. This does not release an in-flight request.
    if (!m_policy.backoff)
        return;
    resetBackoff();
    arm();
}

void TagSubscribeGuard::backOff()
{
    if (!m_policy.backoff)
        return;
    setInterval(Backoff::next(m_interval, m_timing.floor, m_timing.max, m_jitter()));
}

void TagSubscribeGuard::resetBackoff()
{
    setInterval(m_timing.floor);
}

void TagSubscribeGuard::setInterval(Duration interval)
{
    if (interval == m_interval)
        return;
    m_interval = interval;
    emitEvent(GuardEventKind::IntervalChanged);
}

void TagSubscribeGuard::emitEvent(GuardEventKind kind, std::uint64_t id, Duration age,
                                  std::string detail)
{
    if (!m_observer)
        return;
    m_observer(
        GuardEvent{kind, m_scheduler.now(), id, outstanding(), m_interval, age, std::move(detail)});
}

} // namespace stormwatch
