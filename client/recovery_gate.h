#pragma once
// The recovery period (docs/background.md): after failures, calls to the gateway are not
// sent for a while and fail at once with a "temporarily unavailable" outcome that names the
// cause and when recovery ends. Two independent choices:
//  - the recovery strategy decides how long a recovery period lasts once entered;
//  - the fail handler decides which failures reach the strategy (every one, or K inside a
//    window).
// Everything runs on the owning Scheduler's thread; time comes only from Scheduler::now().

#include "client/scheduler.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>

namespace stormwatch {

struct RecoveryConfig {
    enum class Strategy {
        Instant,     // always allow: no recovery period (pre-change behaviour)
        None,        // after the first failure that reaches it, never allow until reset()
        Simple,      // recovery lasts recoverySeconds after the MOST RECENT failure
        Exponential, // n-th period since reset lasts min(max, initial * multiplier^(n-1))
    };
    enum class FailHandler {
        Simple,   // every failure goes straight to the strategy
        Windowed, // K failures inside the window forward one failure; first success after
                  // a recovery period has ended resets strategy and history
    };

    bool enabled = false;
    Strategy strategy = Strategy::Simple;
    FailHandler failHandler = FailHandler::Windowed;
    double recoverySeconds = 60;
    double initialSeconds = 5;
    double maxSeconds = 300;
    double multiplier = 2;
    int failuresToEnterRecovery = 10;
    double failuresWindowSeconds = 100;

    bool operator==(const RecoveryConfig&) const = default;
};

const char* toString(RecoveryConfig::Strategy strategy);       // "instant", "none", ...
const char* toString(RecoveryConfig::FailHandler failHandler); // "simple", "windowed"
std::optional<RecoveryConfig::Strategy> strategyFromString(const std::string& name);
std::optional<RecoveryConfig::FailHandler> failHandlerFromString(const std::string& name);

// The answer to "may I send now?". A refusal is a temporarily-unavailable outcome.
struct GateDecision {
    bool allowed = true;
    std::string cause;      // most recent failure's text (when refused)
    Time recoveryEndsAt{0}; // Time::max() when closed until reset ('none' strategy)
    Time decidedAt{0};      // now() at the check, for "x s left"
    Time lastFailureAt{0};  // when `cause` was recorded, for "x s ago"

    bool untilReset() const { return !allowed && recoveryEndsAt == Time::max(); }
    // "temporarily unavailable: in recovery after 'CAUSE' 19.2 s ago, until t=42.2 s
    // (0.8 s left)" / "... until reset"; "allowed" when allowed.
    std::string message() const;
};

class RecoveryGate {
public:
    enum class State {
        Normal,
        Recovering,
        Closed, // 'none' strategy tripped: refused until reset()
    };

    RecoveryGate(Scheduler& scheduler, RecoveryConfig config);
    ~RecoveryGate();
    RecoveryGate(const RecoveryGate&) = delete;
    RecoveryGate& operator=(const RecoveryGate&) = delete;

    // Call before sending. A refusal counts one suppressed call. A disabled gate always
    // allows and counts nothing.
    GateDecision check();
    void recordFailure(std::string cause);
    void recordSuccess();

    // Back to Normal with no failure history and the first recovery period next time.
    // The suppressed-call count is a cumulative metric and is kept.
    void reset();
    // Levers switch at run time. A change of enabled, strategy or fail handler resets the
    // gate; a change of parameters only keeps the current period and history and applies
    // the new numbers from the next failure on.
    void reconfigure(RecoveryConfig config);
    const RecoveryConfig& config() const { return m_config; }

    State state() const;
    bool recovering() const { return state() != State::Normal; }
    // End of the current recovery period; nullopt when Normal or Closed (until reset).
    std::optional<Time> recoveryEndsAt() const;
    std::uint64_t suppressedCalls() const { return m_suppressed; }
    // Failures currently remembered by the windowed handler (for the console and tests).
    int failuresInWindow() const { return static_cast<int>(m_window.size()); }
    // Recovery periods entered since the last reset (drives the exponential strategy).
    int recoveryPeriods() const { return m_periods; }

    // State changes, for the console's recovery band and event log. For Recovering/Closed
    // the cause is the failure's text; for Normal it says why ("recovery period ended",
    // "reset", "reconfigured", "success after recovery").
    using Observer = std::function<void(State, const std::string& cause)>;
    void setObserver(Observer observer) { m_observer = std::move(observer); }

private:
    void forwardToStrategy(Time now);
    Duration nextPeriod() const;
    void clearStrategy();
    void syncState(const std::string& why);
    void armEndTimer();
    void cancelEndTimer();

    Scheduler& m_scheduler;
    RecoveryConfig m_config;

    // Strategy state.
    bool m_closed = false;            // 'none' tripped
    std::optional<Time> m_endsAt;     // end of the current/last period (simple, exponential)
    int m_periods = 0;                // periods entered since reset
    bool m_enteredSinceReset = false; // a period has started since the last reset

    // Fail handler state.
    std::deque<Time> m_window; // windowed: recent failure times, oldest first

    std::string m_lastCause;
    Time m_lastFailureAt{0};
    std::uint64_t m_suppressed = 0;

    State m_reported = State::Normal; // last state given to the observer
    TimerId m_endTimer = kNoTimer;
    Observer m_observer;
};

const char* toString(RecoveryGate::State state); // "normal", "recovering", "closed"

} // namespace stormwatch
