#include "tag_age_watch.h"

#include <algorithm>

namespace stormwatch {

TagAgeWatch::TagAgeWatch(Scheduler& scheduler, std::vector<Duration> limits, OnStale onStale)
    : m_scheduler(scheduler), m_limits(std::move(limits)), m_onStale(std::move(onStale))
{
    m_any =
        std::any_of(m_limits.begin(), m_limits.end(), [](Duration d) { return d > Duration{0}; });
    if (!m_any) {
        m_limits.clear();
        return;
    }
    m_since.assign(m_limits.size(), Time{0});
    m_stale.assign(m_limits.size(), 0);
}

TagAgeWatch::~TagAgeWatch()
{
    stop();
}

void TagAgeWatch::start()
{
    if (!m_any)
        return;
    stop();
    m_running = true;
    const Time now = m_scheduler.now();
    std::fill(m_since.begin(), m_since.end(), now);
    Duration shortest = Duration::max();
    for (Duration d : m_limits)
        if (d > Duration{0})
            shortest = std::min(shortest, d);
    armAt(now + shortest);
}

void TagAgeWatch::stop()
{
    m_running = false;
    if (m_timer != kNoTimer)
        m_scheduler.cancel(m_timer);
    m_timer = kNoTimer;
    std::fill(m_stale.begin(), m_stale.end(), 0);
}

bool TagAgeWatch::updated(int tag)
{
    if (!m_running)
        return false;
    const std::size_t t = std::size_t(tag);
    const Time now = m_scheduler.now();
    m_since[t] = now;
    if (!m_stale[t])
        return false;
    m_stale[t] = 0;
    // It was left out of the timer's deadline; its own may now be the earliest.
    const Time due = now + m_limits[t];
    if (m_timer == kNoTimer || due < m_armedAt)
        armAt(due);
    return true;
}

void TagAgeWatch::armAt(Time at)
{
    if (m_timer != kNoTimer)
        m_scheduler.cancel(m_timer);
    m_armedAt = at;
    m_timer = m_scheduler.callAt(at, [this] {
        m_timer = kNoTimer;
        sweep();
    });
}

void TagAgeWatch::sweep()
{
    ++m_sweeps;
    const Time now = m_scheduler.now();
    std::vector<int> went;
    Time next = Time::max();
    for (std::size_t t = 0; t < m_limits.size(); ++t) {
        if (m_stale[t] || m_limits[t] <= Duration{0})
            continue;
        const Time due = m_since[t] + m_limits[t];
        if (due <= now) {
            m_stale[t] = 1;
            went.push_back(int(t));
        } else {
            next = std::min(next, due);
        }
    }
    if (next != Time::max())
        armAt(next);
    if (!went.empty() && m_onStale)
        m_onStale(went);
}

} // namespace stormwatch
