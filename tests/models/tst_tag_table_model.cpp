// TagTableModel: batched in-place updates, one insert per batch, coalesced dataChanged,
// quality counts, and the filter proxy (quality set, text, sorting) — under the model tester.
#include "models/tag_table_model.h"

#include <QAbstractItemModelTester>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QtTest>

using namespace stormwatch;

namespace {

constexpr int kGood = 192, kUncertain = 64, kBad = 0;

TagChange change(int instance, int tag, double value, int quality = kGood,
                 const QString& error = {})
{
    TagChange c;
    c.instance = instance;
    c.tag = tag;
    c.instanceName = QStringLiteral("Z%1").arg(28061 + instance);
    c.tagName = QStringLiteral("Z%1.Attr%2").arg(28061 + instance).arg(tag);
    c.value = value;
    c.quality = quality;
    c.sourceTimestampUs = 1'500'000;
    c.itemHandle = 100 + tag;
    c.error = error;
    return c;
}

QVector<TagChange> batch(int instance, int tags, double value, int quality = kGood)
{
    QVector<TagChange> b;
    for (int t = 0; t < tags; ++t)
        b << change(instance, t, value + t, quality);
    return b;
}

} // namespace

class TestTagTableModel : public QObject {
    Q_OBJECT
private slots:
    void newTagsAreAppendedWithOneInsertPerBatch()
    {
        TagTableModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        model.applyChanges(batch(0, 244, 1.0));
        QCOMPARE(model.rowCount(), 244);
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(inserted.at(0).at(1).toInt(), 0);
        QCOMPARE(inserted.at(0).at(2).toInt(), 243);
        model.applyChanges(batch(1, 244, 1.0));
        QCOMPARE(model.rowCount(), 488);
        QCOMPARE(inserted.count(), 2);
        QCOMPARE(inserted.at(1).at(1).toInt(), 244);
        QCOMPARE(model.data(model.index(244, TagTableModel::Instance)).toString(),
                 QStringLiteral("Z28062"));
    }

    void knownTagsUpdateInPlaceAndAnnounceOneRangePerRun()
    {
        TagTableModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.applyChanges(batch(0, 10, 1.0));
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        // Rows 2,3,4 and 7 change: two contiguous runs → two signals.
        model.applyChanges(
            {change(0, 4, 40), change(0, 2, 20), change(0, 3, 30), change(0, 7, 70)});
        QCOMPARE(model.rowCount(), 10);
        QCOMPARE(inserted.count(), 0);
        QCOMPARE(changed.count(), 2);
        QCOMPARE(changed.at(0).at(0).value<QModelIndex>().row(), 2);
        QCOMPARE(changed.at(0).at(1).value<QModelIndex>().row(), 4);
        QCOMPARE(changed.at(0).at(1).value<QModelIndex>().column(),
                 TagTableModel::kColumnCount - 1);
        QCOMPARE(changed.at(1).at(0).value<QModelIndex>().row(), 7);
        QCOMPARE(model.data(model.index(3, TagTableModel::Value)).toString(), QStringLiteral("30"));
        QCOMPARE(model.rowOf(0, 7), 7);
    }

    void scatteredUpdatesCollapseIntoOneCoveringRange()
    {
        TagTableModel model;
        model.applyChanges(batch(0, 200, 1.0));
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QVector<TagChange> every2nd;
        for (int t = 0; t < 200; t += 2)
            every2nd << change(0, t, -1);
        model.applyChanges(every2nd);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.at(0).at(0).value<QModelIndex>().row(), 0);
        QCOMPARE(changed.at(0).at(1).value<QModelIndex>().row(), 198);
    }

    void mixedBatchUpdatesAndAppendsAndLaterChangeWins()
    {
        TagTableModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.applyChanges(batch(0, 3, 0));
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        model.applyChanges({change(0, 1, 11), change(0, 5, 1), change(0, 5, 2, kBad)});
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(model.data(model.index(1, TagTableModel::Value)).toString(), QStringLiteral("11"));
        QCOMPARE(model.data(model.index(3, TagTableModel::Value)).toString(), QStringLiteral("2"));
        QCOMPARE(model.data(model.index(3, 0), TagTableModel::QualityClassRole).toInt(),
                 int(QualityClass::Bad));
    }

    void qualityTextColourAndCountsFollowTheCode()
    {
        TagTableModel model;
        QSignalSpy counts(&model, &TagTableModel::qualityCountsChanged);
        model.applyChanges({change(0, 0, 1, kGood), change(0, 1, 1, kUncertain),
                            change(0, 2, 1, kBad),
                            change(0, 3, 1, 216 /* Good + local override bits */)});
        QCOMPARE(counts.count(), 1);
        QCOMPARE(model.count(QualityClass::Good), 2);
        QCOMPARE(model.count(QualityClass::Uncertain), 1);
        QCOMPARE(model.count(QualityClass::Bad), 1);
        QCOMPARE(model.data(model.index(1, TagTableModel::Quality)).toString(),
                 QStringLiteral("Uncertain (64)"));
        QCOMPARE(
            model.data(model.index(2, TagTableModel::Quality), Qt::ForegroundRole).value<QColor>(),
            qualityColor(QualityClass::Bad));
        QVERIFY(qualityColor(QualityClass::Bad) != qualityColor(QualityClass::Good));
        // Good → Bad moves one count; a value-only change does not signal.
        model.applyChanges({change(0, 0, 5, kBad)});
        QCOMPARE(model.count(QualityClass::Good), 1);
        QCOMPARE(model.count(QualityClass::Bad), 2);
        QCOMPARE(counts.count(), 2);
        model.applyChanges({change(0, 0, 6, kBad)});
        QCOMPARE(counts.count(), 2);
    }

    // The console shows orphaned tags in red across the row, says so, and explains why.
    void orphanedTagsAreRedAcrossTheRowAndSaySo()
    {
        TagTableModel model;
        QAbstractItemModelTester tester(&model);
        TagChange orphan = change(0, 0, 1, kBad, QStringLiteral("DEADLINE_EXCEEDED"));
        orphan.orphaned = true;
        model.applyChanges({orphan, change(0, 1, 1, kBad)});
        for (int column :
             {int(TagTableModel::Tag), int(TagTableModel::Value), int(TagTableModel::LastError)}) {
            QCOMPARE(model.data(model.index(0, column), Qt::ForegroundRole).value<QColor>(),
                     qualityColor(QualityClass::Bad));
            QVERIFY(!model.data(model.index(1, column), Qt::ForegroundRole).isValid());
        }
        QCOMPARE(model.data(model.index(0, TagTableModel::Quality)).toString(),
                 QStringLiteral("Bad (0), orphaned"));
        QVERIFY(model.data(model.index(0, TagTableModel::Tag), Qt::ToolTipRole)
                    .toString()
                    .contains("Orphaned"));
        QVERIFY(model.data(model.index(0, 0), TagTableModel::OrphanedRole).toBool());
        QVERIFY(!model.data(model.index(1, 0), TagTableModel::OrphanedRole).toBool());
        orphan.orphaned = false; // a retry got scheduled: back to plain Bad
        model.applyChanges({orphan});
        QCOMPARE(model.data(model.index(0, TagTableModel::Quality)).toString(),
                 QStringLiteral("Bad (0)"));
    }

    // The Advise column shows what the tag's live item was advised with, and follows a change
    // (a re-subscribe on a gateway that stopped advertising Lever 2's capability).
    void adviseColumnShowsTheRegisteredAdvise()
    {
        TagTableModel model;
        QAbstractItemModelTester tester(&model);
        TagChange tag = change(0, 0, 1);
        tag.advise = QStringLiteral("supervisory (SubscribeBulk)");
        model.applyChanges(
            {tag, change(0, 1, 1, kBad, QStringLiteral("item not found: Z28061.Attr1"))});
        QCOMPARE(model.headerData(TagTableModel::Advise, Qt::Horizontal).toString(),
                 QStringLiteral("Advise"));
        QCOMPARE(model.data(model.index(0, TagTableModel::Advise)).toString(), tag.advise);
        QCOMPARE(model.data(model.index(1, TagTableModel::Advise)).toString(), QString());
        tag.advise = QStringLiteral("supervisory (AddItemBulk + AdviseSupervisory)");
        model.applyChanges({tag});
        QCOMPARE(model.data(model.index(0, TagTableModel::Advise)).toString(), tag.advise);
    }

    void timestampsShowSchedulerSecondsOrClock()
    {
        QCOMPARE(TagTableModel::formatTimestamp(1'500'000), QStringLiteral("t=1.500 s"));
        const QDateTime wall(QDate(2026, 8, 26), QTime(14, 3, 7, 250));
        QCOMPARE(TagTableModel::formatTimestamp(wall.toMSecsSinceEpoch() * 1000),
                 QStringLiteral("14:03:07.250"));
        QCOMPARE(TagTableModel::formatTimestamp(0), QString());
    }

    void proxyFiltersByQualitySetAndText()
    {
        TagTableModel model;
        TagFilterProxy proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester tester(&proxy,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.applyChanges({change(0, 0, 1, kGood),
                            change(0, 1, 1, kBad, QStringLiteral("DEADLINE_EXCEEDED")),
                            change(1, 0, 1, kUncertain), change(1, 1, 1, kBad)});
        QCOMPARE(proxy.rowCount(), 4);
        proxy.setQualityShown(QualityClass::Good, false);
        proxy.setQualityShown(QualityClass::Uncertain, false);
        QCOMPARE(proxy.rowCount(), 2);
        proxy.setText(QStringLiteral("deadline"));
        QCOMPARE(proxy.rowCount(), 1);
        QCOMPARE(proxy.data(proxy.index(0, TagTableModel::Tag)).toString(),
                 QStringLiteral("Z28061.Attr1"));
        proxy.setText(QStringLiteral("z28062"));
        QCOMPARE(proxy.rowCount(), 1);
        // A row that turns Good leaves the Bad-only view without a re-filter call.
        model.applyChanges({change(1, 1, 2, kGood)});
        QCOMPARE(proxy.rowCount(), 0);
        proxy.setText({});
        proxy.setQualityShown(QualityClass::Good, true);
        QCOMPARE(proxy.rowCount(), 3);
    }

    void proxySortsNumbersAsNumbers()
    {
        TagTableModel model;
        TagFilterProxy proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester tester(&proxy,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.applyChanges(
            {change(0, 0, 9), change(0, 1, 10), change(0, 2, -3), change(0, 3, 100)});
        proxy.sort(TagTableModel::Value, Qt::AscendingOrder);
        QStringList values;
        for (int r = 0; r < proxy.rowCount(); ++r)
            values << proxy.data(proxy.index(r, TagTableModel::Value)).toString();
        QCOMPARE(values, (QStringList{"-3", "9", "10", "100"}));
        proxy.sort(TagTableModel::Quality, Qt::DescendingOrder);
        QCOMPARE(proxy.rowCount(), 4);
    }

    // Rows are stored slimmer than a TagChange (names once, texts and errors apart): each row
    // still reads back as the change that made it, across updates that set and clear them.
    void aRowReadsBackAsTheChangeThatMadeIt()
    {
        TagTableModel model;
        TagChange c = change(2, 7, 3.5, kUncertain, QStringLiteral("unknown address"));
        c.text = QStringLiteral("OPEN");
        c.advise = QStringLiteral("supervisory (SubscribeBulk)");
        c.orphaned = true;
        c.rejected = true;
        c.receivedUs = 42;
        c.stale = true;
        c.staleAfterS = 12.5;
        TagChange other = change(0, 1, 9, kGood);
        other.advise = QStringLiteral("plain (SubscribeBulk)");
        model.applyChanges({c, other});
        const int r = model.rowOf(2, 7);
        QCOMPARE(r, 0);
        const TagChange back = model.row(r);
        QCOMPARE(back.instance, 2);
        QCOMPARE(back.tag, 7);
        QCOMPARE(back.instanceName, c.instanceName);
        QCOMPARE(back.tagName, c.tagName);
        QCOMPARE(back.value, 3.5);
        QCOMPARE(back.text, QStringLiteral("OPEN"));
        QCOMPARE(back.quality, kUncertain);
        QCOMPARE(back.sourceTimestampUs, c.sourceTimestampUs);
        QCOMPARE(back.itemHandle, c.itemHandle);
        QCOMPARE(back.error, QStringLiteral("unknown address"));
        QVERIFY(back.orphaned && back.rejected && back.stale);
        QCOMPARE(back.advise, c.advise);
        QCOMPARE(back.receivedUs, qint64(42));
        QCOMPARE(back.staleAfterS, 12.5);
        QCOMPARE(model.row(model.rowOf(0, 1)).advise, other.advise);

        TagChange later = change(2, 7, 4, kGood); // no text, no error, no advise now
        model.applyChanges({later});
        const TagChange now = model.row(r);
        QVERIFY(now.text.isEmpty());
        QVERIFY(now.error.isEmpty());
        QVERIFY(now.advise.isEmpty());
        QCOMPARE(model.data(model.index(r, TagTableModel::Value)).toString(), QStringLiteral("4"));
        QCOMPARE(model.data(model.index(r, TagTableModel::SubscribeResult)).toString(),
                 QStringLiteral("ok"));
        QCOMPARE(model.rowOf(2, 8), -1);
        QCOMPARE(model.rowOf(9, 7), -1);
    }

    // Indices no engine sends (a damaged recording's) still key their rows, without sizing a
    // table by them.
    void farAndNegativeIndicesStillKeyTheirRows()
    {
        TagTableModel model;
        model.applyChanges({change(-1, 3, 1), change(5, 2'000'000'000, 2), change(70000, 1, 3)});
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.rowOf(-1, 3), 0);
        QCOMPARE(model.rowOf(5, 2'000'000'000), 1);
        QCOMPARE(model.rowOf(70000, 1), 2);
        model.applyChanges({change(5, 2'000'000'000, 7)});
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.row(1).value, 7.0);
    }

    void clearResetsRowsAndCounts()
    {
        TagTableModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.applyChanges(batch(0, 5, 0, kBad));
        model.clear();
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(model.count(QualityClass::Bad), 0);
        QCOMPARE(model.rowOf(0, 1), -1);
        model.applyChanges(batch(0, 2, 0));
        QCOMPARE(model.rowCount(), 2);
    }

    void staysCheapAt488TagsTimes10Hz()
    {
        // One minute of 488 tags changing 10 times a second, delivered as 20 Hz batches,
        // through a sorted and filtered proxy as the Tags dock shows it.
        TagTableModel model;
        TagFilterProxy proxy;
        proxy.setSourceModel(&model);
        proxy.sort(TagTableModel::Tag);
        model.applyChanges(batch(0, 244, 0));
        model.applyChanges(batch(1, 244, 0));
        QElapsedTimer timer;
        timer.start();
        for (int flush = 0; flush < 60 * 20; ++flush) {
            QVector<TagChange> b;
            b.reserve(244);
            // Half the tags per 50 ms flush = every tag 10 times a second.
            for (int i = 0; i < 2; ++i) {
                for (int t = flush % 2; t < 244; t += 2)
                    b << change(i, t, flush, flush % 100 == 0 ? kBad : kGood);
            }
            model.applyChanges(b);
        }
        const qint64 ms = timer.elapsed();
        qInfo("one minute at 488 tags x 10 Hz: %lld ms", ms);
        QCOMPARE(model.rowCount(), 488);
        QVERIFY2(ms < 10'000, qPrintable(QStringLiteral("%1 ms").arg(ms)));
    }
};

QTEST_GUILESS_MAIN(TestTagTableModel)
#include "tst_tag_table_model.moc"
