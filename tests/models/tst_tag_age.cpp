// The tag table's age columns: Age (now − the last value's arrival) and the source timestamp's
// age, sortable as numbers; stale tags named in the quality column and counted; the "older
// than" and "stale" filters, kept true as the clock moves without any tag changing.
#include "models/tag_table_model.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QtTest>
#include <cmath>

using namespace stormwatch;

namespace {

constexpr int kGood = 192, kBad = 0;
constexpr qint64 kEpoch2026Us = 1'796'000'000'000'000LL; // a wall-clock source timestamp

TagChange tag(int t, double receivedS, int quality = kGood, qint64 sourceUs = 0, bool stale = false)
{
    TagChange c;
    c.instance = 0;
    c.tag = t;
    c.instanceName = QStringLiteral("Z28061");
    c.tagName = QStringLiteral("Z28061.Attr%1").arg(t);
    c.quality = quality;
    c.itemHandle = 100 + t;
    c.receivedUs = receivedS < 0 ? -1 : qint64(receivedS * 1e6);
    c.sourceTimestampUs = sourceUs;
    c.stale = stale;
    c.staleAfterS = stale ? 50 : 0;
    return c;
}

QString text(const TagTableModel& m, int row, int column)
{
    return m.data(m.index(row, column)).toString();
}

} // namespace

class TestTagAge : public QObject {
    Q_OBJECT
private slots:
    void ageIsNowMinusTheLastArrival()
    {
        TagTableModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.applyChanges({tag(0, 12.0), tag(1, 0.5), tag(2, -1)});
        model.setNow(20.0);
        QCOMPARE(text(model, 0, TagTableModel::Age), QStringLiteral("8 s"));
        QCOMPARE(text(model, 1, TagTableModel::Age), QStringLiteral("19 s"));
        QCOMPARE(text(model, 2, TagTableModel::Age), QString()); // never received
        QCOMPARE(model.data(model.index(0, TagTableModel::Age), TagTableModel::SortRole).toDouble(),
                 8.0);
        // Never received sorts as the oldest.
        QVERIFY(std::isinf(
            model.data(model.index(2, TagTableModel::Age), TagTableModel::SortRole).toDouble()));
        QCOMPARE(model.headerData(TagTableModel::Age, Qt::Horizontal).toString(),
                 QStringLiteral("Age"));
    }

    void agesReadAsPeopleSayThem()
    {
        QCOMPARE(TagTableModel::formatAge(0.4), QStringLiteral("0 s"));
        QCOMPARE(TagTableModel::formatAge(59.9), QStringLiteral("59 s"));
        QCOMPARE(TagTableModel::formatAge(184), QStringLiteral("3 min 4 s"));
        QCOMPARE(TagTableModel::formatAge(7500), QStringLiteral("2 h 5 min"));
        QCOMPARE(TagTableModel::formatAge(3 * 86400 + 4 * 3600 + 59), QStringLiteral("3 d 4 h"));
        QCOMPARE(TagTableModel::formatAge(-1), QString());
    }

    void sourceAgeUsesTheClockOfItsTimestamp()
    {
        TagTableModel model;
        // A modelled gateway stamps scheduler time; a real one the wall clock.
        model.applyChanges({tag(0, 10, kGood, 4'000'000), tag(1, 10, kGood, kEpoch2026Us)});
        model.setNow(10.0);
        QCOMPARE(text(model, 0, TagTableModel::SourceAge), QStringLiteral("6 s"));
        QCOMPARE(text(model, 1, TagTableModel::SourceAge), QString()); // no wall clock known
        model.setNow(10.0, kEpoch2026Us / 1000 + 125'000);
        QCOMPARE(text(model, 1, TagTableModel::SourceAge), QStringLiteral("2 min 5 s"));
        QCOMPARE(model.data(model.index(1, TagTableModel::SourceAge), TagTableModel::SortRole)
                     .toDouble(),
                 125.0);
    }

    void aStaleGoodTagSaysSoAndIsCounted()
    {
        TagTableModel model;
        QSignalSpy counts(&model, &TagTableModel::qualityCountsChanged);
        model.applyChanges({tag(0, 1, kGood, 0, true), tag(1, 1, kGood), tag(2, 1, kBad, 0, true)});
        QCOMPARE(model.staleCount(), 1); // a Bad tag is not Good to begin with: not counted
        QVERIFY(text(model, 0, TagTableModel::Quality).contains(QStringLiteral("stale")));
        QVERIFY(!text(model, 1, TagTableModel::Quality).contains(QStringLiteral("stale")));
        QVERIFY(model.data(model.index(0, TagTableModel::Age), Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("50 s")));
        const int before = int(counts.count());
        model.applyChanges({tag(0, 70, kGood)}); // its next update: fresh again
        QCOMPARE(model.staleCount(), 0);
        QVERIFY(counts.count() > before);
    }

    void theStaleFilterShowsOnlyStaleGoodTags()
    {
        TagTableModel model;
        TagFilterProxy proxy;
        proxy.setSourceModel(&model);
        model.applyChanges({tag(0, 1, kGood, 0, true), tag(1, 1, kGood), tag(2, 1, kBad, 0, true)});
        proxy.setOutcome(TagFilterProxy::Outcome::Stale);
        QCOMPARE(proxy.rowCount(), 1);
        QCOMPARE(proxy.data(proxy.index(0, TagTableModel::Tag)).toString(),
                 QStringLiteral("Z28061.Attr0"));
    }

    void olderThanFollowsTheClockWithoutAnyTagChanging()
    {
        TagTableModel model;
        TagFilterProxy proxy;
        QAbstractItemModelTester tester(&proxy,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setSourceModel(&model);
        model.applyChanges({tag(0, 0), tag(1, 5), tag(2, 9), tag(3, -1)});
        model.setNow(10.0);
        proxy.setOlderThan(4.0);
        QCOMPARE(proxy.rowCount(), 2); // ages 10 and 5; the one never received has no age
        model.setNow(13.0);
        QCOMPARE(proxy.rowCount(), 3); // age 4 now too
        proxy.setOlderThan(0);
        QCOMPARE(proxy.rowCount(), 4);
    }

    void sortingByAgeFollowsTheClock()
    {
        TagTableModel model;
        TagFilterProxy proxy;
        proxy.setSourceModel(&model);
        model.applyChanges({tag(0, 5), tag(1, 1)});
        model.setNow(6.0);
        proxy.sort(TagTableModel::Age, Qt::DescendingOrder);
        QCOMPARE(proxy.data(proxy.index(0, TagTableModel::Tag)).toString(),
                 QStringLiteral("Z28061.Attr1"));
        // Tag 1 gets a value; tag 0 is now the older one.
        model.applyChanges({tag(1, 7)});
        model.setNow(8.0);
        QCOMPARE(proxy.data(proxy.index(0, TagTableModel::Tag)).toString(),
                 QStringLiteral("Z28061.Attr0"));
    }

    void theClockSignalsOncePerShownSecond()
    {
        TagTableModel model;
        QSignalSpy ticks(&model, &TagTableModel::clockAdvanced);
        model.setNow(1.0);
        model.setNow(1.05);
        model.setNow(1.9);
        QCOMPARE(ticks.count(), 1);
        model.setNow(2.0);
        QCOMPARE(ticks.count(), 2);
    }

    void olderThanReadsSecondsMinutesAndHours()
    {
        QCOMPARE(TagFilterProxy::parseAge(QStringLiteral("30")), std::optional<double>(30));
        QCOMPARE(TagFilterProxy::parseAge(QStringLiteral(" 30 s ")), std::optional<double>(30));
        QCOMPARE(TagFilterProxy::parseAge(QStringLiteral("5m")), std::optional<double>(300));
        QCOMPARE(TagFilterProxy::parseAge(QStringLiteral("5 min")), std::optional<double>(300));
        QCOMPARE(TagFilterProxy::parseAge(QStringLiteral("1.5h")), std::optional<double>(5400));
        QCOMPARE(TagFilterProxy::parseAge(QStringLiteral("")), std::optional<double>(0)); // off
        QVERIFY(!TagFilterProxy::parseAge(QStringLiteral("soon")));
        QVERIFY(!TagFilterProxy::parseAge(QStringLiteral("-5")));
        QVERIFY(!TagFilterProxy::parseAge(QStringLiteral("5 parsecs")));
    }
};

QTEST_GUILESS_MAIN(TestTagAge)
#include "tst_tag_age.moc"
