// The tag table's per-tag results: the subscribe's per-item outcome (ok, the
// gateway's error text, pending), the first value's time kept as the first, and the
// "failed to add" / "never received a value" counts and filters, kept incrementally.
// "Failed to add" is what the gateway refused (a per-item error), never a call that failed.
#include "models/tag_table_model.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QtTest>

using namespace stormwatch;

namespace {
constexpr int kGood = 192, kUncertain = 64, kBad = 0;

// `error` without `rejected`: a call that failed (a timeout, the gateway unreachable).
TagChange tag(int t, int handle, int quality, qint64 timestampUs, const QString& error = {},
              bool rejected = false)
{
    TagChange c;
    c.instance = 0;
    c.tag = t;
    c.instanceName = QStringLiteral("TankFarm");
    c.tagName = QStringLiteral("TK10%1.Level.PV").arg(t);
    c.value = 1.5 + t;
    c.quality = quality;
    c.sourceTimestampUs = timestampUs;
    c.itemHandle = handle;
    c.error = error;
    c.rejected = rejected;
    return c;
}

TagChange refused(int t, const QString& error)
{
    return tag(t, 0, kBad, 0, error, true);
}

QString text(const TagTableModel& m, int row, int column)
{
    return m.data(m.index(row, column)).toString();
}
} // namespace

class TestTagResults : public QObject {
    Q_OBJECT
private slots:
    void subscribeColumnShowsOkTheGatewaysReasonOrPending();
    void firstValueStaysTheFirst();
    void countsFollowTheRowsInPlace();
    void proxyShowsOneOutcomeAtATime();
    void aCallThatFailedIsNotFailedToAdd();
};

void TestTagResults::subscribeColumnShowsOkTheGatewaysReasonOrPending()
{
    TagTableModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    m.applyChanges({tag(1, 11, kGood, 2'000'000), refused(2, "item not found: TK102.Level.PV"),
                    tag(3, 13, kUncertain, 0)});
    QCOMPARE(m.headerData(TagTableModel::SubscribeResult, Qt::Horizontal).toString(),
             QString("Subscribe"));
    QCOMPARE(m.headerData(TagTableModel::FirstValue, Qt::Horizontal).toString(),
             QString("First value"));
    QCOMPARE(text(m, 0, TagTableModel::SubscribeResult), QString("ok"));
    QCOMPARE(text(m, 1, TagTableModel::SubscribeResult), QString("item not found: TK102.Level.PV"));
    QCOMPARE(text(m, 2, TagTableModel::SubscribeResult), QString("ok")); // an item, no value yet
    QCOMPARE(text(m, 0, TagTableModel::FirstValue), QString("t=2.000 s"));
    QCOMPARE(text(m, 1, TagTableModel::FirstValue), QString());
    QCOMPARE(m.data(m.index(1, TagTableModel::SubscribeResult), Qt::ForegroundRole).value<QColor>(),
             qualityColor(QualityClass::Bad));
    m.applyChanges({tag(4, 0, kUncertain, 0)});
    QCOMPARE(text(m, 3, TagTableModel::SubscribeResult), QString("pending"));
}

void TestTagResults::firstValueStaysTheFirst()
{
    TagTableModel m;
    // Two changes of a new tag in one batch: the first value is the first one.
    m.applyChanges({tag(1, 11, kGood, 1'000'000), tag(1, 11, kGood, 3'000'000)});
    QCOMPARE(m.firstValueUs(0), qint64(1'000'000));
    m.applyChanges({tag(1, 11, kGood, 5'000'000)});
    QCOMPARE(m.firstValueUs(0), qint64(1'000'000));
    QCOMPARE(text(m, 0, TagTableModel::SourceTimestamp), QString("t=5.000 s"));
    QCOMPARE(m.data(m.index(0, TagTableModel::FirstValue), TagTableModel::SortRole).toLongLong(),
             1'000'000);
    m.clear();
    m.applyChanges({tag(1, 11, kGood, 7'000'000)});
    QCOMPARE(m.firstValueUs(0), qint64(7'000'000));
}

void TestTagResults::countsFollowTheRowsInPlace()
{
    TagTableModel m;
    QSignalSpy counts(&m, &TagTableModel::qualityCountsChanged);
    m.applyChanges({tag(1, 11, kGood, 2'000'000), refused(2, "item not found: TK102.Level.PV"),
                    tag(3, 13, kUncertain, 0)});
    QCOMPARE(m.failedToAddCount(), 1);
    QCOMPARE(m.neverReceivedCount(), 2);
    counts.clear();
    // The refused tag is added after all (the address was configured) and gets a value.
    m.applyChanges({tag(2, 12, kGood, 4'000'000)});
    QCOMPARE(m.failedToAddCount(), 0);
    QCOMPARE(m.neverReceivedCount(), 1);
    QCOMPARE(counts.count(), 1);
    // A value that stays the same quality changes no count and says nothing.
    counts.clear();
    m.applyChanges({tag(2, 12, kGood, 5'000'000)});
    QCOMPARE(counts.count(), 0);
    // The gateway refuses a tag on a later subscribe (its configuration changed): failed to
    // add again, though the tag did receive a value once.
    m.applyChanges({refused(1, "item not found: TK101.Level.PV")});
    QCOMPARE(m.failedToAddCount(), 1);
    QCOMPARE(m.neverReceivedCount(), 1);
}

void TestTagResults::proxyShowsOneOutcomeAtATime()
{
    TagTableModel m;
    TagFilterProxy proxy;
    proxy.setSourceModel(&m);
    m.applyChanges({tag(1, 11, kGood, 2'000'000), refused(2, "item not found: TK102.Level.PV"),
                    tag(3, 13, kUncertain, 0)});
    QCOMPARE(proxy.rowCount(), 3);
    proxy.setOutcome(TagFilterProxy::Outcome::FailedToAdd);
    QCOMPARE(proxy.rowCount(), 1);
    QCOMPARE(proxy.data(proxy.index(0, TagTableModel::Tag)).toString(), QString("TK102.Level.PV"));
    proxy.setOutcome(TagFilterProxy::Outcome::NeverReceived);
    QCOMPARE(proxy.rowCount(), 2);
    // Dynamic: a value arriving takes the row out of "never received".
    m.applyChanges({tag(3, 13, kGood, 9'000'000)});
    QCOMPARE(proxy.rowCount(), 1);
    proxy.setOutcome(TagFilterProxy::Outcome::All);
    proxy.setText("item not found");
    QCOMPARE(proxy.rowCount(), 1);
}

// A subscribe call that failed (DEADLINE_EXCEEDED, UNAVAILABLE) says nothing about the
// items: the tag shows the error and is retried, but the gateway refused nothing.
void TestTagResults::aCallThatFailedIsNotFailedToAdd()
{
    TagTableModel m;
    TagFilterProxy proxy;
    proxy.setSourceModel(&m);
    m.applyChanges({tag(1, 0, kBad, 0, "DEADLINE_EXCEEDED: AddItemBulk timed out"),
                    refused(2, "item not found: TK102.Level.PV"),
                    tag(3, 0, kBad, 2'000'000, "UNAVAILABLE: connection reset")});
    QCOMPARE(m.failedToAddCount(), 1);
    QCOMPARE(text(m, 0, TagTableModel::SubscribeResult),
             QString("DEADLINE_EXCEEDED: AddItemBulk timed out"));
    QVERIFY(!m.data(m.index(0, 0), TagTableModel::FailedToAddRole).toBool());
    QVERIFY(m.data(m.index(1, 0), TagTableModel::FailedToAddRole).toBool());
    QVERIFY(
        m.data(m.index(0, TagTableModel::SubscribeResult), Qt::ForegroundRole).value<QColor>() !=
        qualityColor(QualityClass::Bad));
    proxy.setOutcome(TagFilterProxy::Outcome::FailedToAdd);
    QCOMPARE(proxy.rowCount(), 1);
    QCOMPARE(proxy.data(proxy.index(0, TagTableModel::Tag)).toString(), QString("TK102.Level.PV"));
    // The retry reaches the gateway, which refuses the first tag: now it is failed to add.
    m.applyChanges({refused(1, "item not found: TK101.Level.PV")});
    QCOMPARE(m.failedToAddCount(), 2);
    QCOMPARE(proxy.rowCount(), 2);
    // A refused tag that turns Good (an older request had advised it) is no longer failed.
    TagChange good = refused(2, "item not found: TK102.Level.PV");
    good.quality = kGood;
    good.sourceTimestampUs = 3'000'000;
    m.applyChanges({good});
    QCOMPARE(m.failedToAddCount(), 1);
    QCOMPARE(proxy.rowCount(), 1);
}

QTEST_GUILESS_MAIN(TestTagResults)
#include "tst_tag_results.moc"
