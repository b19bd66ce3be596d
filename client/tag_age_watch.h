#pragma once
// Which tags have gone quiet for longer than they may. MXAccess sends data on change only, so
// a quiet tag is stale only against what its kind promises: a tag with a limit (its expected
// update period times the stale factor) is stale once that long has passed since its last
// update, or since the watch started before its first. A tag without a limit is never stale.
// One timer, at the earliest deadline: an update only moves its own deadline later, so the
// timer may wake early, find nothing due and re-arm — a sweep per limit, not per update.

#include "scheduler.h"

#include <functional>
#include <vector>

namespace stormwatch {

class TagAgeWatch {
public:
    using OnStale = std::function<void(const std::vector<int>& tags)>;

    // limits: one per tag (0: never stale); empty: no tag is ever stale. onStale gets the
    // tags that went stale together, once each until their next update.
    TagAgeWatch(Scheduler& scheduler, std::vector<Duration> limits, OnStale onStale);
    ~TagAgeWatch();
    TagAgeWatch(const TagAgeWatch&) = delete;
    TagAgeWatch& operator=(const TagAgeWatch&) = delete;

    // Every tag's clock starts now, none stale.
    void start();
    // No tag is stale and none becomes so until the next start.
    void stop();
    // The tag's update arrived now: its clock restarts. True when it was stale.
    bool updated(int tag);

    bool stale(int tag) const { return !m_stale.empty() && m_stale[std::size_t(tag)] != 0; }
    Duration limit(int tag) const
    {
        return m_limits.empty() ? Duration{0} : m_limits[std::size_t(tag)];
    }
    bool any() const { return m_any; }
    // Times the timer woke (a cost figure for tests).
    std::size_t sweeps() const { return m_sweeps; }

private:
    void sweep();
    void armAt(Time at);

    Scheduler& m_scheduler;
    std::vector<Duration> m_limits;
    std::vector<Time> m_since; // last update, or the start
    std::vector<char> m_stale;
    OnStale m_onStale;
    bool m_any = false; // some tag has a limit
    bool m_running = false;
    TimerId m_timer = kNoTimer;
    Time m_armedAt{0};
    std::size_t m_sweeps = 0;
};

} // namespace stormwatch
