// The gateway's single-threaded apartment on its own: one command at a time, each holding it
// for its cost, on the STA's own schedule even when the scheduler's timers fire late (as a
// live event loop's do), so that lateness never adds up over back-to-back commands.

#include "client/virtual_scheduler.h"
#include "gateway/sta.h"

#include <QTest>
#include <chrono>
#include <vector>

using namespace stormwatch;
using namespace stormwatch::gateway;
using namespace std::chrono_literals;

namespace {

// A live event loop's timers: each fires `late` after the time it was set for.
class LateScheduler final : public Scheduler {
public:
    explicit LateScheduler(Duration late) : m_late(late) {}
    Time now() const override { return inner.now(); }
    void post(Task task) override { inner.post(std::move(task)); }
    TimerId callAt(Time at, Task task) override
    {
        return inner.callAt(at + m_late, std::move(task));
    }
    bool cancel(TimerId id) override { return inner.cancel(id); }

    VirtualScheduler inner;

private:
    Duration m_late;
};

StaJobPtr job(int items)
{
    auto j = std::make_shared<StaJob>();
    j->items = items;
    return j;
}

} // namespace

class TestSta : public QObject {
    Q_OBJECT
private slots:
    // A thousand commands of 5.2 ms queued at once end 5.2 s later, whether the timers fire on
    // time or 0.7 ms late each; late, each command's own start would have added 0.7 s.
    void backToBackCommandsKeepTheirOwnScheduleWhenTimersFireLate_data()
    {
        QTest::addColumn<int>("lateUs");
        QTest::newRow("on time") << 0;
        QTest::newRow("0.7 ms late") << 700;
        QTest::newRow("1.9 ms late") << 1900;
    }
    void backToBackCommandsKeepTheirOwnScheduleWhenTimersFireLate()
    {
        QFETCH(int, lateUs);
        LateScheduler sched{Duration(lateUs)};
        std::vector<Time> finished;
        Sta sta(sched, [&](const StaJobPtr&) { finished.push_back(sched.now()); });
        sta.setCost(0.2, 0.05);
        for (int i = 0; i < 1000; ++i)
            sta.enqueue(job(100));
        sched.inner.runFor(10s);
        QCOMPARE(finished.size(), std::size_t(1000));
        for (std::size_t i = 0; i < finished.size(); ++i) {
            // Never before its work is done, never later than one timer's lateness after.
            const Time due = Time(5200 * std::int64_t(i + 1));
            QVERIFY2(finished[i] >= due && finished[i] <= due + Duration(lateUs),
                     qPrintable(QStringLiteral("command %1 ended at %2 us, due %3 us")
                                    .arg(i)
                                    .arg(finished[i].count())
                                    .arg(due.count())));
        }
    }

    // An idle STA is idle: a command that arrives after a gap starts when it arrives, however
    // late the last one's timer fired; and a gap longer than a timer's lateness (a stopped
    // process) is not made up by running the queue faster.
    void aCommandAfterAGapStartsWhenItArrives()
    {
        LateScheduler sched{Duration(1500)};
        std::vector<Time> finished;
        Sta sta(sched, [&](const StaJobPtr&) { finished.push_back(sched.now()); });
        sta.setCost(10, 0);
        sta.enqueue(job(0));
        sched.inner.runFor(100ms);
        QCOMPARE(finished.size(), std::size_t(1));
        QCOMPARE(finished[0], Time(11500));
        sta.enqueue(job(0)); // at 100 ms
        sched.inner.runFor(100ms);
        QCOMPARE(finished.size(), std::size_t(2));
        QCOMPARE(finished[1], Time(100000 + 10000 + 1500));

        LateScheduler stopped{Duration(5000)}; // fires 5 ms late: more than a timer's lateness
        std::vector<Time> ends;
        Sta slow(stopped, [&](const StaJobPtr&) { ends.push_back(stopped.now()); });
        slow.setCost(10, 0);
        slow.enqueue(job(0));
        slow.enqueue(job(0));
        stopped.inner.runFor(100ms);
        QCOMPARE(ends.size(), std::size_t(2));
        QCOMPARE(ends[0], Time(15000));
        QCOMPARE(ends[1], Time(15000 + 10000 + 5000)); // started when it could, at 15 ms
    }
};

QTEST_GUILESS_MAIN(TestSta)
#include "tst_sta.moc"
