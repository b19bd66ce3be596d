// Schema 3 of the recording file: each tag's advise kind and whether the gateway refused it
// (schema 2), its last arrival and whether it was stale (schema 3) are recorded and come back
// when the file is reopened; a schema-1 or schema-2 file (written before them) still opens,
// what it lacks unknown; a newer schema is refused with one line.

#include "gateway/mock_gateway_server.h"
#include "recording/recording.h"
#include "support_recording.h"
#include "test_paths.h"

#include <QFile>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QtTest>

using namespace stormwatch;
using namespace stormwatch::test;

class TestRecordingSchema : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    QString path(const QString& name) const { return m_dir.filePath(name); }

private slots:
    // Live over gRPC: the gateway refuses inst-a.Attr3 and advises the others. The tag table
    // reopened from the file has the same Advise column and the same "Failed to add" as the
    // one fed live.
    void adviseAndRefusalRoundTrip()
    {
        gateway::MockGatewayServer server;
        QVERIFY(server.start("127.0.0.1:0"));
        server.runOnModel([](gateway::GatewayModel& m) { m.setUnknownTags({"inst-a.Attr3"}); });
        LiveOptions options;
        GrpcPortOptions port;
        port.address = "127.0.0.1:" + std::to_string(server.port());
        options.gateway = port;
        ConsoleModels live;
        const QString file = path("refused.sqlite");
        QVERIFY(recordRun(shortLive(3, 6), file, &live, true, 500, {}, options).run);
        server.stop();

        QCOMPARE(live.tags.rowCount(), 6);
        QCOMPARE(live.tags.failedToAddCount(), 1);
        const TagChange& refused = live.tags.row(live.tags.rowOf(0, 2));
        QCOMPARE(refused.tagName, QString("inst-a.Attr3"));
        QVERIFY(refused.rejected);
        QVERIFY(refused.advise.isEmpty());
        QVERIFY(live.tags.row(live.tags.rowOf(0, 0)).advise.startsWith("supervisory"));

        QString error;
        const auto rec = Recording::open(file, &error);
        QVERIFY2(rec, qPrintable(error));
        QCOMPARE(rec->schemaVersion(), 3);
        const auto data = rec->load(rec->runs().first().id, &error);
        QVERIFY2(data, qPrintable(error));
        QCOMPARE(data->tags.size(), 6);
        TagTableModel reopened;
        QVERIFY(showRecordedRun(*rec, rec->runs().first().id, nullptr, nullptr, &reopened, &error));
        QCOMPARE(reopened.failedToAddCount(), 1);
        for (int r = 0; r < live.tags.rowCount(); ++r) {
            const TagChange& a = live.tags.row(r);
            const int j = reopened.rowOf(a.instance, a.tag);
            QVERIFY(j >= 0);
            QCOMPARE(reopened.data(reopened.index(j, TagTableModel::Advise)).toString(), a.advise);
            QCOMPARE(reopened.row(j).rejected, a.rejected);
            QCOMPARE(reopened.data(reopened.index(j, TagTableModel::SubscribeResult)).toString(),
                     live.tags.data(live.tags.index(r, TagTableModel::SubscribeResult)).toString());
        }
        // The refusal is a change of the tag's state, in its history too.
        {
            QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", "events");
            db.setDatabaseName(file);
            db.setConnectOptions("QSQLITE_OPEN_READONLY");
            QVERIFY(db.open());
            QSqlQuery q(db);
            QVERIFY(q.exec("SELECT DISTINCT tag FROM tag_events WHERE rejected = 1"));
            QVERIFY(q.next());
            QCOMPARE(q.value(0).toInt(), 2);
            QVERIFY(!q.next());
        }
        QSqlDatabase::removeDatabase("events");
    }

    // A file the schema-1 writer made (its sqlite3 dump, loaded as it was): it opens without a
    // warning, and the tags' advise and refusal are unknown (empty, not refused).
    void schemaOneFileOpensWithTheAdviseUnknown()
    {
        const QString file = path("schema1.sqlite");
        {
            QFile dump(testpaths::sourceFile(
                QStringLiteral("tests/recording/data/schema1-recording.sql")));
            QVERIFY(dump.open(QIODevice::ReadOnly));
            QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", "fixture");
            db.setDatabaseName(file);
            QVERIFY(db.open());
            QSqlQuery q(db);
            for (const QByteArray& line : dump.readAll().split('\n'))
                if (!line.trimmed().isEmpty() && !line.startsWith("--"))
                    QVERIFY2(q.exec(QString::fromUtf8(line)), qPrintable(line.left(80)));
        }
        QSqlDatabase::removeDatabase("fixture");

        QString error;
        const auto rec = Recording::open(file, &error);
        QVERIFY2(rec, qPrintable(error));
        QCOMPARE(rec->schemaVersion(), 1);
        QVERIFY2(rec->warnings().isEmpty(), qPrintable(rec->warnings().join('\n')));
        QCOMPARE(rec->runs().size(), 1);
        QCOMPARE(rec->runs().first().ended, QString("finished"));
        const auto data = rec->load(rec->runs().first().id, &error);
        QVERIFY2(data, qPrintable(error));
        QVERIFY2(rec->warnings().isEmpty(), qPrintable(rec->warnings().join('\n')));
        QCOMPARE(data->tags.size(), 4);
        for (const RecordedTag& t : data->tags) {
            QCOMPARE(t.state.quality, 192);
            QVERIFY(t.state.itemHandle > 0);
            QVERIFY(t.state.advise.isEmpty());
            QVERIFY(!t.state.rejected);
        }
        QVERIFY(!data->series.isEmpty());
        TagTableModel tags;
        QVERIFY2(showRecordedRun(*rec, rec->runs().first().id, nullptr, nullptr, &tags, &error),
                 qPrintable(error));
        QCOMPARE(tags.rowCount(), 4);
        QCOMPARE(tags.failedToAddCount(), 0);
        for (int r = 0; r < 4; ++r) {
            QCOMPARE(tags.data(tags.index(r, TagTableModel::Advise)).toString(), QString());
            QCOMPARE(tags.data(tags.index(r, TagTableModel::SubscribeResult)).toString(),
                     QString("ok"));
        }
    }

    // Data lost for 20 s of a run whose tags expect a value every second: they go stale, the
    // file says when (tag_events.stale), and the reopened table has the live one's ages,
    // stale flags and limits; the report's stale_tag_seconds is in the run's metrics.
    void agesAndStaleTagsRoundTrip()
    {
        Scenario s = wedgeAndLeverChange(600, 10);
        s.durationS = 60;
        s.gateway.contractFamily =
            QStringLiteral("mxaccess-gateway-v1"); // numbered events: a loss is possible
        for (ScenarioInstance& i : s.instances)
            i.expectedUpdateS = QList<double>(i.tags, 1.0);
        s.timeline = {TimelineEvent{}};
        s.timeline.first().atS = 40;
        s.timeline.first().action = TimelineAction::LoseEvents;
        s.timeline.first().durationS = 15;
        ConsoleModels live;
        const QString file = path("stale.sqlite");
        const RecordedRunResult result = recordRun(s, file, &live);
        QVERIFY(result.run);
        QVERIFY(result.run->metrics.staleTagSeconds > 0);

        QString error;
        const auto rec = Recording::open(file, &error);
        QVERIFY2(rec, qPrintable(error));
        QCOMPARE(rec->schemaVersion(), 3);
        const RecordedRun run = rec->runs().first();
        QCOMPARE(run.metrics.value("stale_tag_seconds").toDouble(),
                 result.run->metrics.staleTagSeconds);
        TagTableModel reopened;
        QVERIFY(showRecordedRun(*rec, run.id, nullptr, nullptr, &reopened, &error));
        QCOMPARE(reopened.rowCount(), live.tags.rowCount());
        for (int r = 0; r < live.tags.rowCount(); ++r) {
            const TagChange& a = live.tags.row(r);
            const TagChange& b = reopened.row(reopened.rowOf(a.instance, a.tag));
            QVERIFY(a.receivedUs > 0);
            QCOMPARE(b.receivedUs, a.receivedUs);
            QCOMPARE(b.stale, a.stale);
            QCOMPARE(b.staleAfterS, 5.0);
        }
        // Ages as the run ended.
        QCOMPARE(reopened.nowS(), run.endS);
        {
            QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", "stale");
            db.setDatabaseName(file);
            db.setConnectOptions("QSQLITE_OPEN_READONLY");
            QVERIFY(db.open());
            QSqlQuery q(db);
            // Every tag of the instances deployed went stale during the loss, and fresh again.
            QVERIFY(q.exec("SELECT COUNT(DISTINCT instance * 1000 + tag), MIN(t), MAX(t) FROM "
                           "tag_events WHERE stale = 1"));
            QVERIFY(q.next());
            QCOMPARE(q.value(0).toInt(), 20);
            QVERIFY2(q.value(1).toDouble() >= 44 && q.value(2).toDouble() <= 56,
                     qPrintable(q.value(1).toString()));
            QVERIFY(q.exec("SELECT COUNT(*) FROM tag_events WHERE stale = 0 AND t > 55"));
            QVERIFY(q.next());
            QVERIFY(q.value(0).toInt() >= 20);
        }
        QSqlDatabase::removeDatabase("stale");
    }

    // A file the schema-2 writer made: the same tables without the schema-3 columns. It opens
    // without a warning, its tags without an age and never stale.
    void schemaTwoFileOpensWithoutAges()
    {
        const QString file = path("schema2.sqlite");
        ConsoleModels live;
        QVERIFY(recordRun(wedgeAndLeverChange(600, 5), file, &live).run);
        {
            QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", "downgrade");
            db.setDatabaseName(file);
            QVERIFY(db.open());
            QSqlQuery q(db);
            for (const char* sql :
                 {"ALTER TABLE tags DROP COLUMN received_s", "ALTER TABLE tags DROP COLUMN stale",
                  "ALTER TABLE tags DROP COLUMN stale_after_s",
                  "ALTER TABLE tag_events DROP COLUMN stale",
                  "UPDATE meta SET value = '2' WHERE key = 'schema_version'"})
                QVERIFY2(q.exec(QString::fromLatin1(sql)), sql);
        }
        QSqlDatabase::removeDatabase("downgrade");
        QString error;
        const auto rec = Recording::open(file, &error);
        QVERIFY2(rec, qPrintable(error));
        QCOMPARE(rec->schemaVersion(), 2);
        TagTableModel reopened;
        QVERIFY2(showRecordedRun(*rec, rec->runs().first().id, nullptr, nullptr, &reopened, &error),
                 qPrintable(error));
        QVERIFY2(rec->warnings().isEmpty(), qPrintable(rec->warnings().join('\n')));
        QCOMPARE(reopened.rowCount(), 10);
        for (int r = 0; r < reopened.rowCount(); ++r) {
            QCOMPARE(reopened.row(r).receivedUs, qint64(-1));
            QVERIFY(!reopened.row(r).stale);
            QCOMPARE(reopened.data(reopened.index(r, TagTableModel::Age)).toString(), QString());
            QCOMPARE(reopened.data(reopened.index(r, TagTableModel::Quality)).toString(),
                     QString("Good (192)"));
        }
    }

    // Schema 4 and later: one line saying which stormwatch wrote it and what this one reads.
    void aNewerSchemaIsRefusedInOneLine_data()
    {
        QTest::addColumn<int>("schema");
        QTest::newRow("4") << 4;
        QTest::newRow("99") << 99;
    }
    void aNewerSchemaIsRefusedInOneLine()
    {
        QFETCH(int, schema);
        const QString file = path(QStringLiteral("newer-%1.sqlite").arg(schema));
        {
            Recorder rec;
            QString error;
            QVERIFY2(rec.open(file, &error), qPrintable(error));
        }
        {
            QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", "edit");
            db.setDatabaseName(file);
            QVERIFY(db.open());
            QSqlQuery q(db);
            QVERIFY(
                q.exec(QStringLiteral("UPDATE meta SET value = '%1' WHERE key = 'schema_version'")
                           .arg(schema)));
            QVERIFY(q.exec("UPDATE meta SET value = '9.1.0' WHERE key = 'app_version'"));
        }
        QSqlDatabase::removeDatabase("edit");
        QString error;
        QVERIFY(!Recording::open(file, &error));
        QVERIFY2(
            error.startsWith(
                QStringLiteral("%1: written by a newer stormwatch (9.1.0, recording schema %2); ")
                    .arg(file)
                    .arg(schema)),
            qPrintable(error));
        QVERIFY2(error.contains("reads schema 3 and older"), qPrintable(error));
        QVERIFY(!error.contains('\n'));
    }
};

QTEST_GUILESS_MAIN(TestRecordingSchema)
#include "tst_recording_schema.moc"
