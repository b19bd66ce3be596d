#include "scenario/series.h"

#include <QtTest>

using namespace stormwatch;

class TestSeries : public QObject {
    Q_OBJECT

private slots:
    void recordsChangesOnly()
    {
        Series s("a/gw1", "outstanding", 100);
        s.add(0, 1);
        s.add(1, 1); // no change: not stored
        s.add(2, 2);
        QCOMPARE(s.points(), (std::vector<SeriesPoint>{{0, 1}, {2, 2}}));
        QCOMPARE(s.valueAt(1.5), 1.0);
        QCOMPARE(s.valueAt(2), 2.0);
        QCOMPARE(s.valueAt(-1, 7), 7.0);
    }

    void coalescesTheSameInstant()
    {
        Series s("a/gw1", "tags_good", 100);
        s.add(0, 0);
        s.add(3, 5);
        s.add(3, 9); // same instant: the step settles on the last value
        QCOMPARE(s.points(), (std::vector<SeriesPoint>{{0, 0}, {3, 9}}));
        s.add(4, 1);
        s.add(4, 9); // changed and changed back within one instant: no step at all
        QCOMPARE(s.points(), (std::vector<SeriesPoint>{{0, 0}, {3, 9}}));
        QCOMPARE(s.maxValue(), 9.0);
    }

    void staysUnderItsCapAndKeepsThePeak()
    {
        const std::size_t cap = 1000;
        Series s("gateway", "sta_queue_depth", cap);
        double peak = 0;
        for (int i = 0; i < 100'000; ++i) {
            const double v = (i * 7919) % 501 + (i == 4321 ? 10'000 : 0);
            peak = std::max(peak, v);
            s.add(i * 0.01, v);
            QVERIFY(s.points().size() < cap);
        }
        QVERIFY(s.thinned());
        QCOMPARE(s.maxValue(), peak);
        QCOMPARE(s.points().front().tS, 0.0);
        // Still spans the whole run, in time order.
        QVERIFY(s.points().back().tS > 990);
        for (std::size_t i = 1; i < s.points().size(); ++i)
            QVERIFY(s.points()[i].tS > s.points()[i - 1].tS);
    }

    void setFindsAndListsSeries()
    {
        SeriesSet set(50);
        const std::size_t a = set.indexOf("i1/gw1", "outstanding");
        const std::size_t b = set.indexOf("gateway", "sta_queue_depth");
        QCOMPARE(set.indexOf("i1/gw1", "outstanding"), a);
        QVERIFY(a != b);
        set.at(a).add(1, 3);
        QVERIFY(set.find("i1/gw1", "outstanding"));
        QCOMPARE(set.find("i1/gw1", "outstanding")->points().size(), std::size_t(1));
        QVERIFY(!set.find("i1/gw1", "nope"));
        QCOMPARE(set.subjects(), (QStringList{"i1/gw1", "gateway"}));
    }
};

QTEST_GUILESS_MAIN(TestSeries)
#include "tst_series.moc"
