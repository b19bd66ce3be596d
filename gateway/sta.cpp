#include "sta.h"

#include <algorithm>
#include <cmath>

namespace stormwatch::gateway {

Sta::Sta(Scheduler& scheduler, std::function<void(const StaJobPtr&)> run)
    : m_scheduler(scheduler), m_run(std::move(run))
{
}

Sta::~Sta()
{
    m_scheduler.cancel(m_wedgeTimer);
    m_scheduler.cancel(m_runningTimer);
}

void Sta::setCost(double commandMs, double perItemMs)
{
    m_commandMs = commandMs;
    m_perItemMs = perItemMs;
}

Duration Sta::cost(int items) const
{
    const double ms = (m_commandMs + m_perItemMs * items) * m_slowFactor;
    return Duration(std::llround(ms * 1000.0));
}

void Sta::enqueue(StaJobPtr job)
{
    m_queue.push_back(std::move(job));
    m_maxDepth = std::max(m_maxDepth, depth());
    startNext();
}

void Sta::wedgeUntil(Time until)
{
    m_scheduler.cancel(m_wedgeTimer);
    m_wedgeTimer = kNoTimer;
    m_wedgedUntil = until;
    if (wedged())
        m_wedgeTimer = m_scheduler.callAt(until, [this] {
            m_wedgeTimer = kNoTimer;
            startNext();
        });
    else
        startNext();
}

std::deque<StaJobPtr> Sta::clear()
{
    std::deque<StaJobPtr> dropped;
    ++m_generation; // a posted free command must not finish after this
    if (m_running) {
        m_scheduler.cancel(m_runningTimer);
        m_runningTimer = kNoTimer;
        dropped.push_back(std::move(m_running));
        m_running.reset();
    }
    for (auto& job : m_queue)
        dropped.push_back(std::move(job));
    m_queue.clear();
    m_freeAt = m_scheduler.now();
    return dropped;
}

std::vector<StaJobPtr> Sta::removeQueued(const std::function<bool(const StaJob&)>& drop)
{
    std::vector<StaJobPtr> dropped;
    std::deque<StaJobPtr> kept;
    for (auto& job : m_queue) {
        if (drop(*job))
            dropped.push_back(std::move(job));
        else
            kept.push_back(std::move(job));
    }
    m_queue = std::move(kept);
    return dropped;
}

void Sta::startNext()
{
    if (m_running || m_queue.empty() || wedged())
        return;
    m_running = std::move(m_queue.front());
    m_queue.pop_front();
    const Duration c = cost(m_running->items);
    // Back to back, a command starts where the last one ended on the STA's own schedule, not
    // when its timer fired: a live timer fires up to a millisecond late, and at a thousand
    // short commands that lateness would add up to seconds the apartment never worked. A
    // longer gap (an idle STA, a stopped process) is real: the command starts now.
    const Time now = m_scheduler.now();
    const bool backToBack = m_finishing && now - m_freeAt <= kTimerLateness;
    m_freeAt = (backToBack ? std::min(now, m_freeAt) : now) + c;
    if (c > Duration::zero()) {
        m_runningTimer = m_scheduler.callAt(m_freeAt, [this] { finishRunning(); });
        return;
    }
    // Free commands still finish on a later turn, but through post(): a live QtScheduler
    // queues an event instead of building a timer.
    m_scheduler.post([this, generation = m_generation] {
        if (generation == m_generation)
            finishRunning();
    });
}

void Sta::finishRunning()
{
    m_runningTimer = kNoTimer;
    StaJobPtr job = std::move(m_running);
    m_running.reset();
    job->ran = true;
    // The run callback may answer a caller who invokes again at once: the STA is idle by
    // now, so that enqueue starts the next command itself and FIFO order is kept. Whatever
    // starts now, queued or invoked again, follows on from this command's end.
    m_finishing = true;
    m_run(job);
    startNext();
    m_finishing = false;
}

} // namespace stormwatch::gateway
