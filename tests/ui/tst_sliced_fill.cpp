// SlicedFill: the A/B and compare views' "a slice per event-loop turn" filling — one slice
// per turn, an abandoned filling's queued slice does nothing, and `done` may start anew.
#include "ui/sliced_fill.h"

#include <QtTest>

using namespace stormwatch;

class TestSlicedFill : public QObject {
    Q_OBJECT
private slots:
    void oneSlicePerTurnThenDone()
    {
        QObject owner;
        SlicedFill fill(&owner);
        QList<int> stages;
        int done = 0;
        fill.start(
            [&](int stage) {
                stages << stage;
                return stage < 3;
            },
            [&] { ++done; });
        QCOMPARE(stages, QList<int>{0}); // the first now, the rest on later turns
        QVERIFY(fill.active());
        QCoreApplication::processEvents();
        QVERIFY(stages.size() < 4); // one per turn, not all at once
        QCOMPARE(done, 0);
        QTRY_VERIFY(!fill.active());
        QCOMPARE(stages, (QList<int>{0, 1, 2, 3}));
        QCOMPARE(done, 1);
    }

    void startingAnewOrCancellingAbandonsTheQueuedSlice()
    {
        QObject owner;
        SlicedFill fill(&owner);
        QStringList ran;
        fill.start(
            [&](int stage) {
                ran << QStringLiteral("a%1").arg(stage);
                return true;
            },
            [&] { ran << QStringLiteral("a done"); });
        // A second filling before the first's next slice: only the second goes on.
        fill.start(
            [&](int stage) {
                ran << QStringLiteral("b%1").arg(stage);
                return stage < 1;
            },
            [&] { ran << QStringLiteral("b done"); });
        QTRY_VERIFY(!fill.active());
        for (int i = 0; i < 3; ++i)
            QCoreApplication::processEvents();
        QCOMPARE(ran, (QStringList{"a0", "b0", "b1", "b done"}));

        ran.clear();
        fill.start(
            [&](int stage) {
                ran << QStringLiteral("c%1").arg(stage);
                return true;
            },
            [&] { ran << QStringLiteral("c done"); });
        fill.cancel();
        QVERIFY(!fill.active());
        for (int i = 0; i < 3; ++i)
            QCoreApplication::processEvents();
        QCOMPARE(ran, QStringList{"c0"});
    }

    void doneMayStartTheNextFilling()
    {
        QObject owner;
        SlicedFill fill(&owner);
        int rounds = 0;
        std::function<void()> again = [&] {
            if (++rounds < 3)
                fill.start([](int stage) { return stage < 1; }, again);
        };
        fill.start([](int stage) { return stage < 1; }, again);
        QTRY_COMPARE(rounds, 3);
        QVERIFY(!fill.active());
    }
};

QTEST_MAIN(TestSlicedFill)
#include "tst_sliced_fill.moc"
