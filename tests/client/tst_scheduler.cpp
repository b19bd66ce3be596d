// VirtualScheduler ordering, cancellation and re-entrancy; QtScheduler on a real event loop.
#include "client/qt_scheduler.h"
#include "client/virtual_scheduler.h"

#include <QEventLoop>
#include <QTimer>
#include <QtTest>
#include <thread>
#include <vector>

using namespace stormwatch;
using namespace std::chrono_literals;

class TestScheduler : public QObject {
    Q_OBJECT
private slots:
    void runsEventsInTimeOrder()
    {
        VirtualScheduler s;
        std::vector<int> order;
        s.callAt(30ms, [&] { order.push_back(3); });
        s.callAt(10ms, [&] { order.push_back(1); });
        s.callAt(20ms, [&] { order.push_back(2); });
        QCOMPARE(s.runUntil(1s), std::size_t(3));
        QCOMPARE(order, (std::vector<int>{1, 2, 3}));
    }

    void sameInstantRunsInSchedulingOrder()
    {
        VirtualScheduler s;
        std::vector<int> order;
        for (int i = 0; i < 5; ++i)
            s.callAt(10ms, [&, i] { order.push_back(i); });
        s.post([&] { order.push_back(-1); }); // due now (0), before the 10 ms batch
        s.runUntil(10ms);
        QCOMPARE(order, (std::vector<int>{-1, 0, 1, 2, 3, 4}));
    }

    void timeJumpsToEachEventAndToTheTarget()
    {
        VirtualScheduler s;
        Time seen{-1};
        s.callAfter(1500ms, [&] { seen = s.now(); });
        s.runUntil(1000ms);
        QCOMPARE(seen, Time{-1});
        QCOMPARE(s.now(), Time(1000ms));
        s.runFor(1000ms);
        QCOMPARE(seen, Time(1500ms));
        QCOMPARE(s.now(), Time(2000ms));
    }

    void eventAtTheTargetInstantRuns()
    {
        VirtualScheduler s;
        bool ran = false;
        s.callAt(100ms, [&] { ran = true; });
        s.runUntil(100ms);
        QVERIFY(ran);
    }

    void cancelledEventNeverRuns()
    {
        VirtualScheduler s;
        bool ran = false;
        const TimerId id = s.callAt(10ms, [&] { ran = true; });
        QVERIFY(s.cancel(id));
        QVERIFY(!s.cancel(id));
        s.runUntil(1s);
        QVERIFY(!ran);
        QCOMPARE(s.pending(), std::size_t(0));
    }

    void cancelAfterRunReturnsFalse()
    {
        VirtualScheduler s;
        const TimerId id = s.callAt(10ms, [] {});
        s.runUntil(20ms);
        QVERIFY(!s.cancel(id));
        QVERIFY(!s.cancel(kNoTimer));
    }

    void callbackSchedulingAtSameInstantRunsAfterQueuedOnes()
    {
        VirtualScheduler s;
        std::vector<int> order;
        s.callAt(10ms, [&] {
            order.push_back(1);
            s.post([&] { order.push_back(3); });
        });
        s.callAt(10ms, [&] { order.push_back(2); });
        s.runUntil(10ms);
        QCOMPARE(order, (std::vector<int>{1, 2, 3}));
    }

    void callbackCanCancelALaterEvent()
    {
        VirtualScheduler s;
        bool laterRan = false;
        TimerId later = s.callAt(20ms, [&] { laterRan = true; });
        s.callAt(10ms, [&] { QVERIFY(s.cancel(later)); });
        s.runUntil(1s);
        QVERIFY(!laterRan);
    }

    void callbackCanCancelAnEventDueAtTheSameInstant()
    {
        VirtualScheduler s;
        bool secondRan = false;
        TimerId second = kNoTimer;
        s.callAt(10ms, [&] { s.cancel(second); });
        second = s.callAt(10ms, [&] { secondRan = true; });
        s.runUntil(10ms);
        QVERIFY(!secondRan);
    }

    void pastTimesRunAsSoonAsPossibleWithoutRewindingTime()
    {
        VirtualScheduler s;
        s.runUntil(1s);
        Time seen{0};
        s.callAt(10ms, [&] { seen = s.now(); });
        s.runUntil(1s);
        QCOMPARE(seen, Time(1s));
    }

    void runNextAndNextDue()
    {
        VirtualScheduler s;
        QCOMPARE(s.nextDue(), Time::max());
        QVERIFY(!s.runNext());
        s.callAt(7ms, [] {});
        QCOMPARE(s.nextDue(), Time(7ms));
        QVERIFY(s.runNext());
        QCOMPARE(s.now(), Time(7ms));
    }

    void runAllStopsAtTheEventCap()
    {
        VirtualScheduler s;
        std::function<void()> rearm = [&] { s.callAfter(1ms, rearm); };
        s.post(rearm);
        QCOMPARE(s.runAll(100), std::size_t(100));
        QCOMPARE(s.pending(), std::size_t(1));
    }

    void qtSchedulerRunsTimersInOrderOnTheEventLoop()
    {
        QtScheduler s;
        std::vector<int> order;
        QEventLoop loop;
        s.callAfter(6ms, [&] {
            order.push_back(2);
            loop.quit();
        });
        s.callAfter(1ms, [&] { order.push_back(1); });
        const TimerId cancelled = s.callAfter(3ms, [&] { order.push_back(99); });
        QVERIFY(s.cancel(cancelled));
        QTimer::singleShot(5000, &loop, &QEventLoop::quit); // guard, never the normal path
        loop.exec();
        QCOMPARE(order, (std::vector<int>{1, 2}));
        QCOMPARE(s.pendingTimers(), std::size_t(0));
    }

    void qtSchedulerAcceptsPostsFromAnotherThread()
    {
        QtScheduler s;
        QEventLoop loop;
        Qt::HANDLE ranOn = nullptr;
        std::thread other([&] {
            s.post([&] {
                ranOn = QThread::currentThreadId();
                loop.quit();
            });
        });
        QTimer::singleShot(5000, &loop, &QEventLoop::quit);
        loop.exec();
        other.join();
        QCOMPARE(ranOn, QThread::currentThreadId());
    }

    void qtSchedulerClockAdvances()
    {
        QtScheduler s;
        const Time a = s.now();
        QEventLoop loop;
        s.callAfter(2ms, [&] { loop.quit(); });
        QTimer::singleShot(5000, &loop, &QEventLoop::quit);
        loop.exec();
        QVERIFY(s.now() - a >= Duration(2ms));
    }
};

QTEST_GUILESS_MAIN(TestScheduler)
#include "tst_scheduler.moc"
