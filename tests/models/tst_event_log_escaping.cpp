// EventLogModel shows peer-chosen text (a gateway's error or notice, a tag address) as one
// line: control characters and terminal escapes are escaped on the way in.
#include "models/event_log_model.h"

#include <QtTest>

using namespace stormwatch;

class TestEventLogEscaping : public QObject {
    Q_OBJECT

private slots:
    void peerTextIsOneEscapedLine()
    {
        EventLogModel model;
        LogEntry e;
        e.tS = 1;
        e.severity = int(LogSeverity::Warning);
        e.subject = QStringLiteral("gw1\nforged");
        e.message = QStringLiteral(
            "OpenSession failed: UNAVAILABLE: x\nstormwatch.gateway: fault: STA wedged\x1b[31mRED");
        LogEntry clean = e;
        clean.subject = QStringLiteral("gw1");
        clean.message = QStringLiteral("session session-1 opened: Zürich \\n stays");
        model.append({e, clean});
        QCOMPARE(model.rowCount(), 2);
        const auto text = [&](int row, int column) {
            return model.data(model.index(row, column)).toString();
        };
        QCOMPARE(text(0, EventLogModel::Subject), QStringLiteral("gw1\\nforged"));
        QCOMPARE(text(0, EventLogModel::Message),
                 QStringLiteral("OpenSession failed: UNAVAILABLE: x\\nstormwatch.gateway: fault: "
                                "STA wedged\\x1b[31mRED"));
        QCOMPARE(model.data(model.index(0, EventLogModel::Message), Qt::ToolTipRole).toString(),
                 text(0, EventLogModel::Message));
        QCOMPARE(model.entry(0).message, text(0, EventLogModel::Message));
        QCOMPARE(text(1, EventLogModel::Message),
                 clean.message); // nothing to escape: kept as it is
    }
};

QTEST_MAIN(TestEventLogEscaping)
#include "tst_event_log_escaping.moc"
