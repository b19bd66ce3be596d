#include "virtual_scheduler.h"

namespace stormwatch {

void VirtualScheduler::post(Task task)
{
    callAt(m_now, std::move(task));
}

TimerId VirtualScheduler::callAt(Time at, Task task)
{
    if (at < m_now)
        at = m_now;
    const TimerId id = m_nextId++;
    m_tasks.emplace(id, std::move(task));
    m_queue.push(Entry{at, m_seq++, id});
    return id;
}

bool VirtualScheduler::cancel(TimerId id)
{
    return m_tasks.erase(id) > 0;
}

void VirtualScheduler::dropCancelledHead()
{
    while (!m_queue.empty() && !m_tasks.contains(m_queue.top().id))
        m_queue.pop();
}

Time VirtualScheduler::nextDue()
{
    dropCancelledHead();
    return m_queue.empty() ? Time::max() : m_queue.top().at;
}

bool VirtualScheduler::runNext()
{
    dropCancelledHead();
    if (m_queue.empty())
        return false;
    const Entry e = m_queue.top();
    m_queue.pop();
    auto it = m_tasks.find(e.id);
    Task task = std::move(it->second);
    m_tasks.erase(it);
    m_now = e.at;
    task();
    return true;
}

std::size_t VirtualScheduler::runUntil(Time until)
{
    std::size_t ran = 0;
    while (nextDue() <= until) {
        runNext();
        ++ran;
    }
    if (until > m_now)
        m_now = until;
    return ran;
}

std::size_t VirtualScheduler::runAll(std::size_t maxEvents)
{
    std::size_t ran = 0;
    while (ran < maxEvents && runNext())
        ++ran;
    return ran;
}

} // namespace stormwatch
