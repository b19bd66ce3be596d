#pragma once
// A deterministic discrete-event queue. Time moves only when runUntil/runFor/runNext
// is called; events due at the same instant run in the order they were scheduled.

#include "scheduler.h"

#include <queue>
#include <unordered_map>
#include <vector>

namespace stormwatch {

class VirtualScheduler final : public Scheduler {
public:
    Time now() const override { return m_now; }
    void post(Task task) override;
    TimerId callAt(Time at, Task task) override;
    bool cancel(TimerId id) override;

    // Runs every event due at or before `until`, then leaves now() == until.
    // Returns how many events ran.
    std::size_t runUntil(Time until);
    std::size_t runFor(Duration span) { return runUntil(m_now + span); }
    // Runs the earliest pending event (advancing time to it); false when none is pending.
    bool runNext();
    // Runs events until none is pending or `maxEvents` ran (guards against self-rearming loops).
    std::size_t runAll(std::size_t maxEvents = 10'000'000);

    std::size_t pending() const { return m_tasks.size(); }
    // Time of the earliest pending event, or Time::max() when none is pending.
    Time nextDue();

private:
    struct Entry {
        Time at;
        std::uint64_t seq;
        TimerId id;
        bool operator>(const Entry& o) const { return at != o.at ? at > o.at : seq > o.seq; }
    };
    void dropCancelledHead();

    Time m_now{0};
    std::uint64_t m_seq = 0;
    TimerId m_nextId = 1;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> m_queue;
    std::unordered_map<TimerId, Task> m_tasks; // cancelled ids are erased here
};

} // namespace stormwatch
