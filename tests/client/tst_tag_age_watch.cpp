// Tags that go quiet longer than their kind promises are stale: exactly at their last update
// plus their limit (or deployment plus the limit, before any update), reported once, and fresh
// again with their next update. A tag without a limit is never stale (MXAccess sends on change
// only). Driven on the VirtualScheduler.
#include "client/tag_age_watch.h"
#include "client/virtual_scheduler.h"

#include <QTest>

using namespace stormwatch;
using namespace std::chrono_literals;

namespace {

struct Harness {
    explicit Harness(std::vector<Duration> limits)
        : watch(s, std::move(limits), [this](const std::vector<int>& tags) {
              for (int t : tags)
                  went.push_back({s.now(), t});
          })
    {
    }
    VirtualScheduler s;
    std::vector<std::pair<Time, int>> went; // (when, tag) as reported
    TagAgeWatch watch;
};

} // namespace

class TestTagAgeWatch : public QObject {
    Q_OBJECT
private slots:
    void aTagWithoutUpdatesIsStaleAtItsLimitAfterStart()
    {
        Harness h({10s, 0s, 30s});
        h.s.runFor(2s);
        h.watch.start();
        h.s.runFor(60s);
        const std::vector<std::pair<Time, int>> expected{{12s, 0}, {32s, 2}};
        QCOMPARE(h.went, expected);
        QVERIFY(h.watch.stale(0));
        QVERIFY(!h.watch.stale(1)); // no limit: a quiet tag is not stale
        QVERIFY(h.watch.stale(2));
    }

    void anUpdateRestartsTheClockAndEndsStaleness()
    {
        Harness h({10s});
        h.watch.start();
        h.s.runFor(7s);
        QVERIFY(!h.watch.updated(0)); // it was fresh
        h.s.runFor(9s);               // t = 16: 9 s since the update
        QVERIFY(h.went.empty());
        h.s.runFor(1s); // t = 17: exactly the limit
        QCOMPARE(h.went.size(), std::size_t(1));
        QCOMPARE(h.went[0].first, Time(17s));
        QVERIFY(h.watch.updated(0)); // it was stale
        QVERIFY(!h.watch.stale(0));
        h.s.runFor(10s);
        QCOMPARE(h.went.size(), std::size_t(2));
        QCOMPARE(h.went[1].first, Time(27s));
    }

    void aSteadyUpdateRateNeverGoesStale()
    {
        Harness h({5s, 5s});
        h.watch.start();
        for (int i = 0; i < 100; ++i) {
            h.s.runFor(1s);
            h.watch.updated(0);
            h.watch.updated(1);
        }
        QVERIFY(h.went.empty());
        QVERIFY(!h.watch.stale(0));
        // One timer at the earliest deadline, re-armed when it fires early: far fewer wakes
        // than updates.
        QVERIFY2(h.watch.sweeps() <= 30, qPrintable(QString::number(h.watch.sweeps())));
    }

    void tagsDueTogetherAreReportedInOneCall()
    {
        std::vector<std::vector<int>> calls;
        VirtualScheduler s;
        TagAgeWatch watch(s, {3s, 3s, 4s},
                          [&](const std::vector<int>& tags) { calls.push_back(tags); });
        watch.start();
        s.runFor(10s);
        const std::vector<std::vector<int>> expected{{0, 1}, {2}};
        QCOMPARE(calls, expected);
    }

    void stopCancelsAndStartBeginsAfresh()
    {
        Harness h({10s});
        h.watch.start();
        h.s.runFor(12s);
        QVERIFY(h.watch.stale(0));
        h.watch.stop();
        QVERIFY(!h.watch.stale(0));
        h.s.runFor(30s);
        QCOMPARE(h.went.size(), std::size_t(1)); // nothing while stopped
        QVERIFY(!h.watch.updated(0));            // an update while stopped is no event either
        h.watch.start();                         // t = 42
        h.s.runFor(9s);
        QCOMPARE(h.went.size(), std::size_t(1));
        h.s.runFor(1s);
        QCOMPARE(h.went.size(), std::size_t(2));
        QCOMPARE(h.went[1].first, Time(52s));
    }

    void aStaleTagUpdatedArmsItsOwnDeadline()
    {
        // The timer is held for the later tag; the stale one's new deadline is earlier.
        Harness h({2s, 100s});
        h.watch.start();
        h.s.runFor(3s);
        QCOMPARE(h.went.size(), std::size_t(1));
        h.watch.updated(0); // t = 3: due again at 5
        h.s.runFor(3s);
        QCOMPARE(h.went.size(), std::size_t(2));
        QCOMPARE(h.went[1], (std::pair<Time, int>{5s, 0}));
    }

    void noLimitsMeansNoTimer()
    {
        VirtualScheduler s;
        TagAgeWatch watch(s, {}, [](const std::vector<int>&) { QFAIL("no tag has a limit"); });
        watch.start();
        QCOMPARE(s.pending(), std::size_t(0));
        QVERIFY(!watch.updated(0));
        QVERIFY(!watch.stale(0));
        QCOMPARE(watch.limit(0), Duration{0});
        TagAgeWatch zeros(s, {0s, 0s},
                          [](const std::vector<int>&) { QFAIL("no tag has a limit"); });
        zeros.start();
        QCOMPARE(s.pending(), std::size_t(0));
    }

    void destroyedWhileArmedLeavesNoCallback()
    {
        VirtualScheduler s;
        int calls = 0;
        {
            TagAgeWatch watch(s, {1s}, [&](const std::vector<int>&) { ++calls; });
            watch.start();
        }
        s.runFor(5s);
        QCOMPARE(calls, 0);
    }
};

QTEST_GUILESS_MAIN(TestTagAgeWatch)
#include "tst_tag_age_watch.moc"
