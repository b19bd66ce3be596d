// The pure backoff step: Lever 1 plan's five cases (docs/background.md, task 2), plus the
// edges around them.
#include "client/backoff.h"

#include <QtTest>

using namespace stormwatch;
using namespace std::chrono_literals;

namespace {
const Duration kFloor = 5s;
const Duration kMax = 60s;
} // namespace

class TestBackoff : public QObject {
    Q_OBJECT
private slots:
    void doublesWithNoJitter()
    {
        QCOMPARE(Backoff::next(kFloor, kFloor, kMax, 0.5), Duration(10s));
    }

    void jitterSpansPlusMinusTwentyPercent()
    {
        QCOMPARE(Backoff::next(kFloor, kFloor, kMax, 0.0), Duration(8s));
        QCOMPARE(Backoff::next(kFloor, kFloor, kMax, 1.0), Duration(12s));
    }

    void neverExceedsCeilingEvenWithPositiveJitter()
    {
        QCOMPARE(Backoff::next(40s, kFloor, kMax, 1.0), kMax);
    }

    void neverBelowFloorEvenWithNegativeJitter()
    {
        QVERIFY(Backoff::next(1s, kFloor, kMax, 0.0) >= kFloor);
    }

    void ceilingBelowFloorDegradesToFixedFloor()
    {
        QCOMPARE(Backoff::next(kFloor, kFloor, 1s, 0.5), kFloor);
        QCOMPARE(Backoff::next(30s, kFloor, 1s, 1.0), kFloor);
    }

    void jitterUnitOutsideRangeIsClamped()
    {
        QCOMPARE(Backoff::next(kFloor, kFloor, kMax, -3.0), Duration(8s));
        QCOMPARE(Backoff::next(kFloor, kFloor, kMax, 7.0), Duration(12s));
    }

    void sequenceClimbsToTheCapAndStays()
    {
        Duration d = kFloor;
        QList<qint64> seen;
        for (int i = 0; i < 6; ++i) {
            d = Backoff::next(d, kFloor, kMax, 0.5);
            seen << std::chrono::duration_cast<std::chrono::seconds>(d).count();
        }
        QCOMPARE(seen, (QList<qint64>{10, 20, 40, 60, 60, 60}));
    }
};

QTEST_GUILESS_MAIN(TestBackoff)
#include "tst_backoff.moc"
