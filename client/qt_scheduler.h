#pragma once
// Wall-time Scheduler for live mode: timers are QTimers on the thread that owns this
// object (the run host's worker thread or the mock gateway's thread). post() is safe from
// any thread, so gRPC completions can hop back onto the owning thread through it.

#include "scheduler.h"

#include <QElapsedTimer>
#include <QObject>
#include <unordered_map>

class QTimer;

namespace stormwatch {

class QtScheduler final : public QObject, public Scheduler {
    Q_OBJECT
public:
    explicit QtScheduler(QObject* parent = nullptr);
    ~QtScheduler() override;

    Time now() const override;
    void post(Task task) override;
    TimerId callAt(Time at, Task task) override;
    bool cancel(TimerId id) override;

    std::size_t pendingTimers() const { return m_timers.size(); }

private:
    QElapsedTimer m_clock;
    TimerId m_nextId = 1;
    std::unordered_map<TimerId, QTimer*> m_timers;
};

} // namespace stormwatch
