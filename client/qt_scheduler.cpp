#include "qt_scheduler.h"

#include <QMetaObject>
#include <QTimer>
#include <algorithm>

namespace stormwatch {

QtScheduler::QtScheduler(QObject* parent) : QObject(parent)
{
    m_clock.start();
}

QtScheduler::~QtScheduler()
{
    for (auto& [id, timer] : m_timers)
        delete timer;
}

Time QtScheduler::now() const
{
    return std::chrono::duration_cast<Time>(std::chrono::nanoseconds(m_clock.nsecsElapsed()));
}

void QtScheduler::post(Task task)
{
    QMetaObject::invokeMethod(this, std::move(task), Qt::QueuedConnection);
}

TimerId QtScheduler::callAt(Time at, Task task)
{
    const TimerId id = m_nextId++;
    auto* timer = new QTimer(this);
    timer->setSingleShot(true);
    timer->setTimerType(Qt::PreciseTimer);
    const auto delay = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::max(Duration{0}, at - now()) + std::chrono::microseconds(999));
    connect(timer, &QTimer::timeout, this, [this, id, task = std::move(task)]() {
        auto it = m_timers.find(id);
        if (it == m_timers.end())
            return;
        it->second->deleteLater();
        m_timers.erase(it);
        task();
    });
    m_timers.emplace(id, timer);
    timer->start(delay);
    return id;
}

bool QtScheduler::cancel(TimerId id)
{
    auto it = m_timers.find(id);
    if (it == m_timers.end())
        return false;
    it->second->stop();
    it->second->deleteLater();
    m_timers.erase(it);
    return true;
}

} // namespace stormwatch
