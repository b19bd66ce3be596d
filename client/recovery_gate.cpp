#include "client/recovery_gate.h"

#include <QLoggingCategory>
#include <algorithm>
#include <cmath>
#include <cstdio>

namespace stormwatch {

namespace {

Q_LOGGING_CATEGORY(lcRecoveryGate, "stormwatch.client")

Duration seconds(double s)
{
    // Non-positive lengths mean "no period": no throttling at all.
    if (!(s > 0))
        return Duration{0};
    // Cap far beyond any useful period so the conversion can never overflow.
    const double us = std::min(s * 1e6, 1e15);
    return Duration{static_cast<std::int64_t>(std::llround(us))};
}

double toSeconds(Time t)
{
    return static_cast<double>(t.count()) / 1e6;
}

} // namespace

const char* toString(RecoveryConfig::Strategy strategy)
{
    switch (strategy) {
    case RecoveryConfig::Strategy::Instant:
        return "instant";
    case RecoveryConfig::Strategy::None:
        return "none";
    case RecoveryConfig::Strategy::Simple:
        return "simple";
    case RecoveryConfig::Strategy::Exponential:
        return "exponential";
    }
    return "?";
}

const char* toString(RecoveryConfig::FailHandler failHandler)
{
    switch (failHandler) {
    case RecoveryConfig::FailHandler::Simple:
        return "simple";
    case RecoveryConfig::FailHandler::Windowed:
        return "windowed";
    }
    return "?";
}

std::optional<RecoveryConfig::Strategy> strategyFromString(const std::string& name)
{
    for (auto s : {RecoveryConfig::Strategy::Instant, RecoveryConfig::Strategy::None,
                   RecoveryConfig::Strategy::Simple, RecoveryConfig::Strategy::Exponential}) {
        if (name == toString(s))
            return s;
    }
    return std::nullopt;
}

std::optional<RecoveryConfig::FailHandler> failHandlerFromString(const std::string& name)
{
    for (auto h : {RecoveryConfig::FailHandler::Simple, RecoveryConfig::FailHandler::Windowed}) {
        if (name == toString(h))
            return h;
    }
    return std::nullopt;
}

const char* toString(RecoveryGate::State state)
{
    switch (state) {
    case RecoveryGate::State::Normal:
        return "normal";
    case RecoveryGate::State::Recovering:
        return "recovering";
    case RecoveryGate::State::Closed:
        return "closed";
    }
    return "?";
}

std::string GateDecision::message() const
{
    if (allowed)
        return "allowed";
    const std::string what = cause.empty() ? std::string("failures") : "'" + cause + "'";
    const double ago = toSeconds(decidedAt - lastFailureAt);
    char buf[160];
    if (untilReset()) {
        std::snprintf(buf, sizeof buf, " (%.1f s ago) until reset", ago);
        return "temporarily unavailable: closed after " + what + buf;
    }
    std::snprintf(buf, sizeof buf, " (%.1f s ago) until t=%.1f s (%.1f s left)", ago,
                  toSeconds(recoveryEndsAt), toSeconds(recoveryEndsAt - decidedAt));
    return "temporarily unavailable: in recovery after " + what + buf;
}

RecoveryGate::RecoveryGate(Scheduler& scheduler, RecoveryConfig config)
    : m_scheduler(scheduler), m_config(config)
{
}

RecoveryGate::~RecoveryGate()
{
    cancelEndTimer();
}

RecoveryGate::State RecoveryGate::state() const
{
    if (!m_config.enabled)
        return State::Normal;
    if (m_closed)
        return State::Closed;
    if (m_endsAt && m_scheduler.now() < *m_endsAt)
        return State::Recovering;
    return State::Normal;
}

std::optional<Time> RecoveryGate::recoveryEndsAt() const
{
    if (state() == State::Recovering)
        return m_endsAt;
    return std::nullopt;
}

GateDecision RecoveryGate::check()
{
    const Time now = m_scheduler.now();
    GateDecision d;
    d.decidedAt = now;
    if (!m_config.enabled)
        return d;
    // The end timer normally reports the way back to Normal; this covers a late timer.
    syncState("recovery period ended");
    const State s = state();
    if (s == State::Normal)
        return d;
    ++m_suppressed;
    d.allowed = false;
    d.cause = m_lastCause;
    d.lastFailureAt = m_lastFailureAt;
    d.recoveryEndsAt = s == State::Closed ? Time::max() : *m_endsAt;
    qCDebug(lcRecoveryGate) << "recovery gate refused a call:" << d.message().c_str();
    return d;
}

void RecoveryGate::recordFailure(std::string cause)
{
    if (!m_config.enabled)
        return;
    const Time now = m_scheduler.now();
    m_lastCause = std::move(cause);
    m_lastFailureAt = now;

    switch (m_config.failHandler) {
    case RecoveryConfig::FailHandler::Simple:
        forwardToStrategy(now);
        break;
    case RecoveryConfig::FailHandler::Windowed: {
        m_window.push_back(now);
        // Failures spread wider than the window never add up: forget the old ones.
        const Duration window = seconds(m_config.failuresWindowSeconds);
        while (!m_window.empty() && now - m_window.front() > window)
            m_window.pop_front();
        if (static_cast<int>(m_window.size()) >= std::max(1, m_config.failuresToEnterRecovery)) {
            // K failures make ONE logical failure for the strategy; start counting afresh.
            m_window.clear();
            forwardToStrategy(now);
        }
        break;
    }
    }
    syncState(m_lastCause);
}

void RecoveryGate::forwardToStrategy(Time now)
{
    const bool inPeriod = m_endsAt && now < *m_endsAt;
    switch (m_config.strategy) {
    case RecoveryConfig::Strategy::Instant:
        return;
    case RecoveryConfig::Strategy::None:
        m_closed = true;
        m_enteredSinceReset = true;
        return;
    case RecoveryConfig::Strategy::Simple:
        // Recovery lasts recoverySeconds after the most recent failure: a failure inside a
        // period extends it, but it is still the same period.
        if (!inPeriod)
            ++m_periods;
        m_endsAt = now + seconds(m_config.recoverySeconds);
        break;
    case RecoveryConfig::Strategy::Exponential:
        // Failures while already recovering count once: no longer, no re-count.
        if (inPeriod)
            return;
        ++m_periods;
        m_endsAt = now + nextPeriod();
        break;
    }
    m_enteredSinceReset = true;
    armEndTimer();
}

Duration RecoveryGate::nextPeriod() const
{
    const double grown =
        m_config.initialSeconds * std::pow(std::max(1.0, m_config.multiplier), m_periods - 1);
    return seconds(std::min(m_config.maxSeconds, grown));
}

void RecoveryGate::recordSuccess()
{
    if (!m_config.enabled)
        return;
    // Windowed handler: the first success after a recovery period has ended starts over
    // (next period is the first again, no failures remembered). A success during the
    // period changes nothing, and a closed ('none') gate stays closed until reset().
    if (m_config.failHandler == RecoveryConfig::FailHandler::Windowed && m_enteredSinceReset &&
        state() == State::Normal) {
        clearStrategy();
        m_window.clear();
        qCDebug(lcRecoveryGate) << "recovery gate: success after recovery, history reset";
    }
}

void RecoveryGate::clearStrategy()
{
    cancelEndTimer();
    m_closed = false;
    m_endsAt.reset();
    m_periods = 0;
    m_enteredSinceReset = false;
}

void RecoveryGate::reset()
{
    clearStrategy();
    m_window.clear();
    m_lastCause.clear();
    m_lastFailureAt = Time{0};
    syncState("reset");
}

void RecoveryGate::reconfigure(RecoveryConfig config)
{
    const bool structural = config.enabled != m_config.enabled ||
                            config.strategy != m_config.strategy ||
                            config.failHandler != m_config.failHandler;
    m_config = config;
    if (structural) {
        clearStrategy();
        m_window.clear();
        m_lastCause.clear();
        m_lastFailureAt = Time{0};
    }
    syncState("reconfigured");
}

void RecoveryGate::syncState(const std::string& why)
{
    const State s = state();
    if (s == m_reported)
        return;
    m_reported = s;
    const std::string& cause = s == State::Normal ? why : m_lastCause;
    qCInfo(lcRecoveryGate) << "recovery gate" << toString(s) << "-" << cause.c_str();
    if (m_observer)
        m_observer(s, cause);
}

void RecoveryGate::armEndTimer()
{
    cancelEndTimer();
    if (!m_endsAt || *m_endsAt <= m_scheduler.now())
        return;
    m_endTimer = m_scheduler.callAt(*m_endsAt, [this] {
        m_endTimer = kNoTimer;
        syncState("recovery period ended");
    });
}

void RecoveryGate::cancelEndTimer()
{
    if (m_endTimer != kNoTimer) {
        m_scheduler.cancel(m_endTimer);
        m_endTimer = kNoTimer;
    }
}

} // namespace stormwatch
