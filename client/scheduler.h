#pragma once
// The one seam that makes client and mock-gateway logic testable: everything runs on a
// Scheduler, single-threaded and never blocking. VirtualScheduler jumps time (tests,
// replay, A/B comparison); QtScheduler drives the same code in wall time (live mode).

#include <chrono>
#include <cstdint>
#include <functional>

namespace stormwatch {

// Scheduler time: microseconds since the scheduler's epoch (its construction).
using Duration = std::chrono::microseconds;
using Time = std::chrono::microseconds;

using TimerId = std::uint64_t;
inline constexpr TimerId kNoTimer = 0;

class Scheduler {
public:
    using Task = std::function<void()>;

    virtual ~Scheduler() = default;

    virtual Time now() const = 0;
    // Runs `task` soon on the scheduler's thread, after everything already due.
    // QtScheduler accepts posts from any thread (gRPC completions use this).
    virtual void post(Task task) = 0;
    // Runs `task` at `at` (or as soon as possible when `at` is in the past).
    virtual TimerId callAt(Time at, Task task) = 0;
    // Cancels a pending timer; false when it already ran, was cancelled or never existed.
    virtual bool cancel(TimerId id) = 0;

    TimerId callAfter(Duration delay, Task task) { return callAt(now() + delay, std::move(task)); }
};

} // namespace stormwatch
