// EventLogModel: batched appends, the cap dropping the oldest rows, the severity/text proxy
// and the TSV copy of selected rows — under the model tester.
#include "models/event_log_model.h"

#include <QAbstractItemModelTester>
#include <QClipboard>
#include <QGuiApplication>
#include <QSignalSpy>
#include <QtTest>

using namespace stormwatch;

namespace {

LogEntry entry(double t, int severity, const QString& subject, const QString& message)
{
    LogEntry e;
    e.tS = t;
    e.wall = QDateTime(QDate(2026, 8, 26), QTime(14, 0)).addMSecs(qint64(t * 1000));
    e.severity = severity;
    e.subject = subject;
    e.message = message;
    return e;
}

QVector<LogEntry> numbered(int from, int count)
{
    QVector<LogEntry> b;
    for (int i = from; i < from + count; ++i)
        b << entry(i, int(LogSeverity::Info), QStringLiteral("gw1"), QStringLiteral("m%1").arg(i));
    return b;
}

QString message(const QAbstractItemModel& m, int row)
{
    return m.data(m.index(row, EventLogModel::Message)).toString();
}

} // namespace

class TestEventLogModel : public QObject {
    Q_OBJECT
private slots:
    void appendsABatchWithOneInsert()
    {
        EventLogModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        model.append(numbered(0, 5));
        model.append({});
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(model.rowCount(), 5);
        QCOMPARE(model.data(model.index(2, EventLogModel::Time)).toString(),
                 QStringLiteral("2.000"));
        QCOMPARE(model.data(model.index(2, EventLogModel::Wall)).toString(),
                 QStringLiteral("14:00:02.000"));
        QCOMPARE(model.data(model.index(2, EventLogModel::Severity)).toString(),
                 QStringLiteral("info"));
        QCOMPARE(message(model, 4), QStringLiteral("m4"));
        QCOMPARE(model.capacity(), 50'000);
    }

    void capDropsTheOldestRowsFirst()
    {
        EventLogModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setCapacity(10);
        model.append(numbered(0, 8));
        QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
        model.append(numbered(8, 5));
        QCOMPARE(model.rowCount(), 10);
        QCOMPARE(removed.count(), 1);
        QCOMPARE(removed.at(0).at(1).toInt(), 0);
        QCOMPARE(removed.at(0).at(2).toInt(), 2);
        QCOMPARE(message(model, 0), QStringLiteral("m3"));
        QCOMPARE(message(model, 9), QStringLiteral("m12"));
        QCOMPARE(model.droppedCount(), 3);
    }

    void batchLargerThanTheCapKeepsItsNewestRows()
    {
        EventLogModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setCapacity(4);
        model.append(numbered(0, 3));
        model.append(numbered(3, 10));
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(message(model, 0), QStringLiteral("m9"));
        QCOMPARE(message(model, 3), QStringLiteral("m12"));
        QCOMPARE(model.droppedCount(), 9);
    }

    void shrinkingTheCapDropsAtOnce()
    {
        EventLogModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.append(numbered(0, 20));
        model.setCapacity(5);
        QCOMPARE(model.rowCount(), 5);
        QCOMPARE(message(model, 0), QStringLiteral("m15"));
        model.setCapacity(0);
        QCOMPARE(model.capacity(), 1);
        QCOMPARE(model.rowCount(), 1);
    }

    void defaultCapHolds50000Rows()
    {
        EventLogModel model;
        for (int b = 0; b < 11; ++b)
            model.append(numbered(b * 5000, 5000));
        QCOMPARE(model.rowCount(), 50'000);
        QCOMPARE(message(model, 0), QStringLiteral("m5000"));
    }

    void severityColours()
    {
        EventLogModel model;
        model.append({entry(0, int(LogSeverity::Error), "gw1", "x"),
                      entry(0, int(LogSeverity::Info), "gw1", "y")});
        QCOMPARE(model.data(model.index(0, 0), Qt::ForegroundRole).value<QColor>(),
                 severityColor(int(LogSeverity::Error)));
        QVERIFY(!model.data(model.index(1, 0), Qt::ForegroundRole).isValid());
    }

    void proxyFiltersByMinimumSeverityAndText()
    {
        EventLogModel model;
        EventLogFilterProxy proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester tester(&proxy,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.append(
            {entry(0, int(LogSeverity::Debug), "Z28061", "tick inside ceiling"),
             entry(1, int(LogSeverity::Info), "gw1", "session opened"),
             entry(2, int(LogSeverity::Warning), "Z28061", "presuming lost, re-sending"),
             entry(3, int(LogSeverity::Error), "gw1", "DEADLINE_EXCEEDED on AdviseSupervisory")});
        QCOMPARE(proxy.rowCount(), 4);
        proxy.setMinimumSeverity(int(LogSeverity::Warning));
        QCOMPARE(proxy.rowCount(), 2);
        proxy.setText(QStringLiteral("z28061"));
        QCOMPARE(proxy.rowCount(), 1);
        QCOMPARE(message(proxy, 0), QStringLiteral("presuming lost, re-sending"));
        proxy.setMinimumSeverity(int(LogSeverity::Debug));
        QCOMPARE(proxy.rowCount(), 2);
        // New rows pass through the filter as they arrive.
        model.append({entry(4, int(LogSeverity::Info), "Z28061", "subscribe confirmed")});
        QCOMPARE(proxy.rowCount(), 3);
    }

    void tsvHoldsTheSelectedRowsInOrderWithHeader()
    {
        EventLogModel model;
        EventLogFilterProxy proxy;
        proxy.setSourceModel(&model);
        model.append({entry(0, int(LogSeverity::Info), "gw1", "a\tb"),
                      entry(1, int(LogSeverity::Error), "gw1", "line1\nline2"),
                      entry(2, int(LogSeverity::Info), "Z28061", "c")});
        proxy.setMinimumSeverity(int(LogSeverity::Info));
        // Two cells of row 2 and one of row 0, selected out of order.
        const QModelIndexList selected{proxy.index(2, 1), proxy.index(0, 3), proxy.index(2, 4)};
        const QString tsv = rowsAsTsv(proxy, selected);
        const QStringList lines = tsv.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 3);
        QCOMPARE(lines[0], QStringLiteral("t (s)\tWall clock\tSubject\tSeverity\tMessage"));
        // The model escapes control characters on the way in: no tab or newline
        // reaches a cell; the TSV writer's own replacement is the second line of defence.
        QCOMPARE(lines[1], QStringLiteral("0.000\t14:00:00.000\tgw1\tinfo\ta\\tb"));
        QCOMPARE(lines[2], QStringLiteral("2.000\t14:00:02.000\tZ28061\tinfo\tc"));
        QCOMPARE(rowsAsTsv(proxy, {proxy.index(1, 0)}, false),
                 QStringLiteral("1.000\t14:00:01.000\tgw1\terror\tline1\\nline2\n"));
        QCOMPARE(rowsAsTsv(proxy, {}), QString());
    }

    void copyPutsTheTsvOnTheClipboard()
    {
        EventLogModel model;
        model.append(numbered(0, 3));
        const QString copied = copyRowsToClipboard(model, {model.index(1, 0)});
        QVERIFY(copied.contains(QStringLiteral("m1")));
        QCOMPARE(QGuiApplication::clipboard()->text(), copied);
    }
};

QTEST_MAIN(TestEventLogModel)
#include "tst_event_log_model.moc"
