// A run recorded through the run host reopens with the same series, log and tag table; a
// copy cut while it was written opens with what was committed and a warning; a file that
// is no recording gives a clear error (a newer schema: tst_recording_schema); a recording becomes a
// scenario skeleton the parser accepts; and a live run on the embedded mock records too.

#include "recording/record_scenario.h"
#include "recording/recording.h"
#include "recording/scenario_skeleton.h"
#include "scenario/scenario_parser.h"
#include "support_recording.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QtTest>

using namespace stormwatch;
using namespace stormwatch::test;

namespace {

qsizetype points(const RunData& d)
{
    qsizetype n = 0;
    for (const SeriesUpdate& u : d.series)
        n += u.points.size();
    return n;
}

} // namespace

class TestRecording : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    QString path(const QString& name) const { return m_dir.filePath(name); }

private slots:
    // Ten virtual minutes with a wedge and a lever change, recorded as the console sees
    // them: reopened, every series has exactly the run's samples, and the console's models
    // loaded from the file equal the ones fed live.
    void recordedRunReopensWithTheSameSeries()
    {
        ConsoleModels live;
        const RecordedRunResult r = recordRun(wedgeAndLeverChange(), path("run.sqlite"), &live);
        QVERIFY(r.run);

        // Closed, it is one file, and reading it leaves nothing beside it.
        QVERIFY(!QFileInfo::exists(path("run.sqlite") + "-wal"));
        {
            QString error;
            QVERIFY2(Recording::open(path("run.sqlite"), &error), qPrintable(error));
        }
        QVERIFY(!QFileInfo::exists(path("run.sqlite") + "-wal"));
        QVERIFY(!QFileInfo::exists(path("run.sqlite") + "-shm"));

        QString error;
        const auto rec = Recording::open(path("run.sqlite"), &error);
        QVERIFY2(rec, qPrintable(error));
        QVERIFY2(rec->warnings().isEmpty(), qPrintable(rec->warnings().join('\n')));
        QCOMPARE(rec->schemaVersion(), 3);
        QCOMPARE(rec->runs().size(), 1);
        const RecordedRun& run = rec->runs().first();
        QCOMPARE(run.ended, QStringLiteral("finished"));
        QCOMPARE(run.scenario, QStringLiteral("wedge-and-lever-change"));
        QCOMPARE(run.variant, QStringLiteral("lever1"));
        QCOMPARE(run.endS, 600.0);
        QCOMPARE(run.metrics.value("subscribe_requests").toInteger(),
                 r.run->metrics.subscribeRequests);

        const auto data = rec->load(run.id, &error);
        QVERIFY2(data, qPrintable(error));
        const QString diff = compareSeries(r.run->series, rec->seriesSet(*data));
        QVERIFY2(diff.isEmpty(), qPrintable(diff));

        // The wedge and the lever change are in the file as the run passed them.
        QCOMPARE(data->timeline.size(), 2);
        QCOMPARE(data->timeline[0].action, TimelineAction::Wedge);
        QCOMPARE(data->timeline[0].atS, 120.0);
        QCOMPARE(data->timeline[0].durationS, 60.0);
        QCOMPARE(data->timeline[1].action, TimelineAction::SetLevers);
        QCOMPARE(data->timeline[1].atS, 300.0);
        QCOMPARE(data->leverChanges.size(), 1);
        QVERIFY(data->leverChanges[0].tS >= 300.0);
        QCOMPARE(data->leverChanges[0].levers.value("inflight_guard").toBool(true), false);

        // The console's models, loaded from the file, equal the ones the run fed.
        ConsoleModels reopened;
        QVERIFY2(
            showRecordedRun(*rec, run.id, &reopened.store, &reopened.log, &reopened.tags, &error),
            qPrintable(error));
        const QString stores = compareStores(live.store, reopened.store);
        QVERIFY2(stores.isEmpty(), qPrintable(stores));
        QCOMPARE(reopened.log.rowCount(), live.log.rowCount());
        for (int i = 0; i < live.log.rowCount(); ++i) {
            QCOMPARE(reopened.log.entry(i).message, live.log.entry(i).message);
            QCOMPARE(reopened.log.entry(i).tS, live.log.entry(i).tS);
        }
        QCOMPARE(reopened.tags.rowCount(), 100);
        QCOMPARE(reopened.tags.rowCount(), live.tags.rowCount());
        for (int i = 0; i < live.tags.rowCount(); ++i) {
            const TagChange& a = live.tags.row(i);
            const int j = reopened.tags.rowOf(a.instance, a.tag);
            QVERIFY(j >= 0);
            const TagChange& b = reopened.tags.row(j);
            QCOMPARE(b.tagName, a.tagName);
            QCOMPARE(b.quality, a.quality);
            QCOMPARE(b.value, a.value);
            QCOMPARE(b.sourceTimestampUs, a.sourceTimestampUs);
            QCOMPARE(b.error, a.error);
            QCOMPARE(b.advise, a.advise); // schema 2
            QCOMPARE(b.rejected, a.rejected);
        }
        QCOMPARE(reopened.tags.count(QualityClass::Good), live.tags.count(QualityClass::Good));
        for (const RecordedTag& t : data->tags)
            QVERIFY2(t.firstGoodS >= 0 && t.firstGoodS < 600, qPrintable(t.state.tagName));
    }

    // A copy taken while the recorder writes, its write-ahead log cut mid-frame: it opens
    // with what was committed up to the cut — each series a prefix of the whole run's — and
    // a warning that the recording was cut. (Levers off: the wedge starts a storm, so the
    // run changes all along.)
    void truncatedCopyOpensWithWhatWasCommittedAndAWarning()
    {
        const QString copy = path("cut.sqlite");
        qint64 walBytes = 0;
        QList<ScenarioError> errors;
        Scenario storm = *loadScenario("incident-2026-08-26", &errors);
        storm.durationS = 900;
        storm.variants = {VariantSpec{"levers-off", "levers-off"}};
        const RecordedRunResult r =
            recordRun(storm, path("whole.sqlite"), nullptr, false, 1, [&](double t) {
                if (walBytes > 0 || t < 800)
                    return;
                // Mid-run, the recorder open: the file and its log as a crash would leave them.
                QVERIFY(QFile::copy(path("whole.sqlite"), copy));
                QVERIFY(QFile::copy(path("whole.sqlite") + "-wal", copy + "-wal"));
                walBytes = QFileInfo(copy + "-wal").size();
            });
        QVERIFY(r.run);
        QVERIFY2(walBytes > 3 * 4096, qPrintable(QString::number(walBytes)));
        QVERIFY2(r.commits > 10, qPrintable(QString::number(r.commits)));
        // Cut inside a frame: 32-byte header, then frames of 24 + 4096 bytes.
        const qint64 cut = 32 + (walBytes - 32) / 2 / 4120 * 4120 + 1000;
        QVERIFY(QFile::resize(copy + "-wal", cut));

        QString error;
        const auto whole = Recording::open(path("whole.sqlite"), &error);
        QVERIFY2(whole, qPrintable(error));
        const auto wholeData = whole->load(whole->runs().first().id, &error);
        QVERIFY(wholeData);

        const auto cutRec = Recording::open(copy, &error);
        QVERIFY2(cutRec, qPrintable(error));
        QCOMPARE(cutRec->runs().size(), 1);
        const RecordedRun& run = cutRec->runs().first();
        QVERIFY(run.ended.isEmpty());
        QVERIFY2(run.endS > 0 && run.endS < 800, qPrintable(QString::number(run.endS)));
        QVERIFY2(cutRec->warnings().join('\n').contains("cut while it was written"),
                 qPrintable(cutRec->warnings().join('\n')));
        const auto cutData = cutRec->load(run.id, &error);
        QVERIFY2(cutData, qPrintable(error));
        qsizetype cutPoints = 0;
        for (const SeriesUpdate& u : cutData->series) {
            const auto full = std::find_if(
                wholeData->series.cbegin(), wholeData->series.cend(), [&](const SeriesUpdate& w) {
                    return w.instance == u.instance && w.label == u.label && w.metric == u.metric;
                });
            QVERIFY(full != wholeData->series.cend());
            QVERIFY(u.points.size() <= full->points.size());
            QCOMPARE(u.points, full->points.mid(0, u.points.size()));
            cutPoints += u.points.size();
        }
        QVERIFY2(cutPoints > 0 && cutPoints < points(*wholeData),
                 qPrintable(QStringLiteral("%1 of %2").arg(cutPoints).arg(points(*wholeData))));
        QVERIFY(cutData->logs.size() < wholeData->logs.size());
        for (qsizetype i = 0; i < cutData->logs.size(); ++i)
            QCOMPARE(cutData->logs[i].message, wholeData->logs[i].message);
        // What was committed is shown whole: every point before the cut's last step.
        for (const SeriesUpdate& u : cutData->series)
            for (const QPointF& p : u.points)
                QVERIFY(p.x() <= run.endS);
        // The original file is untouched by reading the copy, and still opens cleanly.
        QVERIFY(QFileInfo::exists(path("whole.sqlite")));

        // The main file cut mid-page as well: a clear error or what could be read, never a crash.
        const QString both = path("cut-both.sqlite");
        QVERIFY(QFile::copy(copy, both));
        QVERIFY(QFile::copy(copy + "-wal", both + "-wal"));
        QVERIFY(QFile::resize(both, QFileInfo(both).size() / 2 + 100));
        const auto damaged = Recording::open(both, &error);
        if (damaged) {
            for (const RecordedRun& rr : damaged->runs())
                damaged->load(rr.id, &error);
            QVERIFY(!damaged->warnings().isEmpty());
        } else {
            QVERIFY(error.startsWith(both + ": "));
        }
    }

    void garbageFileGivesAClearError()
    {
        QString error;
        QFile garbage(path("garbage.sqlite"));
        QVERIFY(garbage.open(QIODevice::WriteOnly));
        QByteArray bytes(20000, '\0');
        for (int i = 0; i < bytes.size(); ++i)
            bytes[i] = char((i * 7919 + 13) % 251);
        garbage.write(bytes);
        garbage.close();
        QVERIFY(!Recording::open(garbage.fileName(), &error));
        QCOMPARE(error, garbage.fileName() + ": not a stormwatch recording (not an SQLite file)");

        QFile empty(path("empty.sqlite"));
        QVERIFY(empty.open(QIODevice::WriteOnly));
        empty.close();
        QVERIFY(!Recording::open(empty.fileName(), &error));
        QCOMPARE(error, empty.fileName() + ": not a stormwatch recording (not an SQLite file)");

        // An SQLite header and garbage after it.
        QFile header(path("header.sqlite"));
        QVERIFY(header.open(QIODevice::WriteOnly));
        header.write(QByteArray("SQLite format 3\0", 16) + bytes);
        header.close();
        QVERIFY(!Recording::open(header.fileName(), &error));
        QVERIFY2(error.startsWith(header.fileName() + ": "), qPrintable(error));
        QVERIFY2(error.contains("not a stormwatch recording") || error.contains("cannot be read"),
                 qPrintable(error));

        // Somebody else's SQLite file.
        {
            QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", "other");
            db.setDatabaseName(path("other.sqlite"));
            QVERIFY(db.open());
            QSqlQuery q(db);
            QVERIFY(q.exec("CREATE TABLE t(x)"));
        }
        QSqlDatabase::removeDatabase("other");
        QVERIFY(!Recording::open(path("other.sqlite"), &error));
        QCOMPARE(error, path("other.sqlite") +
                            ": not a stormwatch recording (an SQLite file without its meta table)");

        QVERIFY(!Recording::open(path("absent.sqlite"), &error));
        QCOMPARE(error, path("absent.sqlite") + ": no such file");
    }

    // The skeleton of the recorded run parses, with the run's instances, tag counts and
    // prefixes, its wedge and lever change, and the levers it started with.
    void skeletonParses()
    {
        const QString file = path("skeleton.sqlite");
        QVERIFY(recordRun(wedgeAndLeverChange(400, 20), file, nullptr).run);
        QString error;
        const auto rec = Recording::open(file, &error);
        QVERIFY2(rec, qPrintable(error));
        const auto data = rec->load(rec->runs().first().id, &error);
        QVERIFY(data);
        const QJsonObject json = scenarioSkeleton(*rec, rec->runs().first(), *data);
        QList<ScenarioError> errors;
        const auto s = parseScenario(QJsonDocument(json).toJson(), "skeleton.json", &errors);
        QStringList why;
        for (const ScenarioError& e : errors)
            why << e.toString();
        QVERIFY2(s, qPrintable(why.join('\n')));
        QCOMPARE(s->name, QStringLiteral("wedge-and-lever-change-recorded"));
        QCOMPARE(s->durationS, 400.0);
        QCOMPARE(s->instances.size(), 2);
        QCOMPARE(s->instances[0].name, QStringLiteral("inst-a"));
        QCOMPARE(s->instances[0].tags, 20);
        QCOMPARE(s->instances[0].tagPrefix, QStringLiteral("inst-a.Attr"));
        QCOMPARE(s->instances[1].connection, QStringLiteral("gw1"));
        QCOMPARE(s->instances[1].startAtS, 30.0);
        QCOMPARE(s->timeline.size(), 2);
        QCOMPARE(s->timeline[0].action, TimelineAction::Wedge);
        QCOMPARE(s->timeline[0].atS, 120.0);
        QCOMPARE(s->timeline[1].action, TimelineAction::SetLevers);
        QCOMPARE(s->variants.first().name, QStringLiteral("as-recorded"));
        QVERIFY(s->description.contains("inst-a: 20 tags"));
        // And it runs.
        const ScenarioReport report = runScenario(*s, {"as-recorded"}, std::nullopt);
        QCOMPARE(report.variants.size(), 1);
    }

    // The headless --record path: the variants one after another on a host, each a run of the file.
    void headlessRecordingHoldsEveryVariant()
    {
        Scenario s = wedgeAndLeverChange(400, 10);
        s.variants = {VariantSpec{"lever1", "lever1"}, VariantSpec{"levers-off", "levers-off"}};
        Recorder recorder;
        QString error;
        QVERIFY2(recorder.open(path("headless.sqlite"), &error), qPrintable(error));
        QList<SeriesSet> series;
        const ScenarioReport report =
            recordScenario(s, {}, std::nullopt, std::nullopt, recorder, &error, &series);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        recorder.close();
        QCOMPARE(report.variants.size(), 2);
        // The same metrics as the plain headless run.
        const ScenarioReport plain = runScenario(s, {}, std::nullopt);
        for (int i = 0; i < 2; ++i) {
            QCOMPARE(report.variants[i].subscribeRequests, plain.variants[i].subscribeRequests);
            QCOMPARE(report.variants[i].badTagSeconds, plain.variants[i].badTagSeconds);
        }
        const auto rec = Recording::open(path("headless.sqlite"), &error);
        QVERIFY2(rec, qPrintable(error));
        QCOMPARE(rec->runs().size(), 2);
        for (int i = 0; i < 2; ++i) {
            QCOMPARE(rec->runs()[i].variant, s.variants[i].name);
            const auto data = rec->load(rec->runs()[i].id, &error);
            QVERIFY(data);
            const QString diff = compareSeries(series[i], rec->seriesSet(*data));
            QVERIFY2(diff.isEmpty(), qPrintable(diff));
        }
    }

    // The console's case: a run stopped by the next one, and a recorder attached mid-run.
    // Each run is a run of the file, ended as it ended; the one joined late says from when.
    void everyRunOnTheHostIsARunOfTheFile()
    {
        RunHost host;
        Recorder recorder;
        QString error;
        QVERIFY2(recorder.open(path("runs.sqlite"), &error), qPrintable(error));
        double lastT = 0;
        connect(&host, &RunHost::progress, this, [&](double t) { lastT = t; });
        QSignalSpy finished(&host, &RunHost::finished);

        // Paced, so it is still running when the recorder joins and when it is replaced.
        QVERIFY2(host.start(wedgeAndLeverChange(), {}, 60, &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(lastT >= 30, 20000);
        recorder.attach(&host);
        // A fault from the console's panel: a timeline event at now, kept with its run time.
        TimelineEvent slow;
        slow.action = TimelineAction::Slow;
        slow.factor = 3;
        slow.durationS = 5;
        host.inject(slow);
        QTRY_VERIFY_WITH_TIMEOUT(lastT >= 60, 20000);
        QVERIFY2(host.start(wedgeAndLeverChange(400, 10), {}, RunHost::kMaxSpeed, &error),
                 qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        recorder.close();

        const auto rec = Recording::open(path("runs.sqlite"), &error);
        QVERIFY2(rec, qPrintable(error));
        QVERIFY2(rec->warnings().isEmpty(), qPrintable(rec->warnings().join('\n')));
        QCOMPARE(rec->runs().size(), 2);
        const RecordedRun& first = rec->runs()[0];
        QCOMPARE(first.ended, QStringLiteral("stopped"));
        QVERIFY(first.source.value("started_mid_run_at_s").toDouble() >= 30);
        QVERIFY(first.endS >= 60 && first.endS < 600);
        const auto firstData = rec->load(first.id, &error);
        QVERIFY(firstData);
        QCOMPARE(firstData->timeline.size(), 1);
        QCOMPARE(firstData->timeline[0].action, TimelineAction::Slow);
        QCOMPARE(firstData->timeline[0].factor, 3.0);
        QVERIFY(firstData->timeline[0].atS >= 30 && firstData->timeline[0].atS < 60);
        // Nothing from before it joined but the value in force then (a step restates the
        // last point it sent before new ones).
        for (const SeriesUpdate& u : firstData->series)
            for (qsizetype i = 1; i < u.points.size(); ++i)
                QVERIFY2(u.points[i].x() >= 29, qPrintable(QString::number(u.points[i].x())));
        const RecordedRun& second = rec->runs()[1];
        QCOMPARE(second.ended, QStringLiteral("finished"));
        QCOMPARE(second.endS, 400.0);
        const auto secondData = rec->load(second.id, &error);
        QVERIFY(secondData);
        const QString diff =
            compareSeries(finished.first().first().value<QSharedPointer<VariantRun>>()->series,
                          rec->seriesSet(*secondData));
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    // Writes start failing mid-run (a full disk, a file gone read-only; here SQLite is told to
    // refuse every write): the recording stops once, with the reason, without a crash, and
    // the file keeps what was committed.
    void aFailingWriteStopsTheRecordingOnceAndKeepsWhatWasCommitted()
    {
        RunHost host;
        Recorder recorder;
        QString error;
        const QString file = path("failing.sqlite");
        QVERIFY2(recorder.open(file, &error), qPrintable(error));
        recorder.attach(&host);
        QSignalSpy failed(&recorder, &Recorder::failed);
        QSignalSpy finished(&host, &RunHost::finished);
        double lastT = 0;
        connect(&host, &RunHost::progress, this, [&](double t) { lastT = t; });
        QVERIFY2(host.start(wedgeAndLeverChange(), {}, 60, &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(lastT >= 20 && recorder.commits() >= 2,
                                 20000); // some of it is on disk

        const QString connection = recorderConnection(file);
        QVERIFY(!connection.isEmpty());
        {
            QSqlQuery q(QSqlDatabase::database(connection, false));
            QVERIFY(q.exec(QStringLiteral("PRAGMA query_only = 1")));
        }
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 20000);
        QVERIFY2(failed.first().first().toString().contains(QStringLiteral("failing.sqlite")),
                 qPrintable(failed.first().first().toString()));
        QVERIFY(!recorder.isOpen());
        host.setSpeed(RunHost::kMaxSpeed); // the run goes on to its end, unrecorded
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        recorder.close();            // closing a failed recorder is harmless
        QCOMPARE(failed.count(), 1); // said once, however many writes were pending

        const auto rec = Recording::open(file, &error);
        QVERIFY2(rec, qPrintable(error));
        QCOMPARE(rec->runs().size(), 1);
        QVERIFY(rec->runs().first().ended.isEmpty()); // never closed: it stopped mid-run
        QVERIFY(rec->runs().first().endS > 0);        // but what was committed is there
    }

    // A run on two gateways: each gateway's own series (gateway:NAME) and a fault
    // aimed at one of them come back from the file as the run made them, beside the sums.
    void aRunOnTwoGatewaysKeepsEachGatewaysSeriesAndFaults()
    {
        Scenario s = wedgeAndLeverChange(300, 20);
        s.connections = {ScenarioConnection{"gw-a", 0, "gw-a"},
                         ScenarioConnection{"gw-b", 0, "gw-b"}};
        s.instances[0].connection = "gw-a";
        s.instances[1].connection = "gw-b";
        s.timeline[0].gateway = "gw-a"; // the wedge
        ConsoleModels live;
        const RecordedRunResult r = recordRun(s, path("two.sqlite"), &live);
        QVERIFY(r.run);
        for (const char* subject : {"gateway:gw-a", "gateway:gw-b"})
            QVERIFY(r.run->series.find(subject, "invoke_rpcs_per_s") &&
                    !r.run->series.find(subject, "invoke_rpcs_per_s")->points().empty());

        QString error;
        const auto rec = Recording::open(path("two.sqlite"), &error);
        QVERIFY2(rec, qPrintable(error));
        const auto data = rec->load(rec->runs().first().id, &error);
        QVERIFY2(data, qPrintable(error));
        const QString diff = compareSeries(r.run->series, rec->seriesSet(*data));
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
        QCOMPARE(data->timeline.first().action, TimelineAction::Wedge);
        QCOMPARE(data->timeline.first().gateway, QStringLiteral("gw-a"));

        ConsoleModels reopened;
        QVERIFY(showRecordedRun(*rec, rec->runs().first().id, &reopened.store, &reopened.log,
                                &reopened.tags, &error));
        QCOMPARE(reopened.store.gatewayNames(), QStringList({"gw-a", "gw-b"}));
        for (const QString& g : {QStringLiteral("gw-a"), QStringLiteral("gw-b")})
            for (int m = 0; m < kGatewayMetricCount; ++m)
                QVERIFY2(live.store.gatewaySeries(GatewayMetric(m), g) ==
                             reopened.store.gatewaySeries(GatewayMetric(m), g),
                         qPrintable(g + " " + metricName(GatewayMetric(m))));
        const QString stores = compareStores(live.store, reopened.store);
        QVERIFY2(stores.isEmpty(), qPrintable(stores));
    }

    // One subject mapping, three readers: the console's store labels a subscription from
    // its samples (instance, connection), the recorder from its series subject, and the
    // skeleton reads each instance's connection back from those labels — here with no
    // readable source to fall back on, so the labels alone must say it.
    void subscriptionLabelsAgreeAcrossStoreRecorderAndSkeleton()
    {
        Scenario s = wedgeAndLeverChange(300, 5);
        s.connections = {ScenarioConnection{"gw-a", 0, "gw-a"},
                         ScenarioConnection{"gw-b", 0, "gw-b"}};
        s.instances[0].connection = "gw-a";
        s.instances[1].connection = "gw-b";
        s.timeline.clear();
        ConsoleModels live;
        QVERIFY(recordRun(s, path("labels.sqlite"), &live).run);
        QString error;
        const auto rec = Recording::open(path("labels.sqlite"), &error);
        QVERIFY2(rec, qPrintable(error));
        const auto data = rec->load(rec->runs().first().id, &error);
        QVERIFY2(data, qPrintable(error));

        QMap<int, QSet<QString>> recorded; // instance -> the labels of its recorded series
        for (const SeriesUpdate& u : data->series)
            if (u.instance >= 0)
                recorded[u.instance].insert(u.label);
        QCOMPARE(recorded.size(), 2);
        for (const SubscriptionKey& key : live.store.subscriptions())
            if (!key.alarm)
                QCOMPARE(recorded.value(key.instance), QSet<QString>{live.store.label(key)});
        QCOMPARE(live.store.label(SubscriptionKey{1, false}), QStringLiteral("inst-b × gw-b"));

        RecordedRun unreadable = rec->runs().first();
        unreadable.source = {};
        const QJsonArray instances =
            scenarioSkeleton(*rec, unreadable, *data).value("instances").toArray();
        QCOMPARE(instances.size(), 2);
        QCOMPARE(instances[0].toObject().value("connection").toString(), QStringLiteral("gw-a"));
        QCOMPARE(instances[1].toObject().value("connection").toString(), QStringLiteral("gw-b"));
    }

    // The console's live run as a recording keeps it: open-ended (beyond a file's longest
    // run) and, toggled on mid-run, marked with where it began. Read back as a scenario it
    // keeps its connections' gateways, held to the longest run; a source that is not a
    // scenario even so says why.
    void aRecordedLiveRunReadsBackAsItsScenario()
    {
        Scenario s = wedgeAndLeverChange(300, 20);
        s.connections = {ScenarioConnection{"gw-a", 0, "gw-a"},
                         ScenarioConnection{"gw-b", 0, "gw-b"}};
        s.instances[0].connection = "gw-a";
        s.instances[1].connection = "gw-b";
        RecordedRun run;
        run.id = 7;
        run.source = scenarioToJson(s);
        run.source.insert("duration_s", RunHost::kOpenEndedS);
        run.source.insert("started_mid_run_at_s", 42.5);
        QString error;
        QList<ScenarioError> strict;
        QVERIFY(
            !parseScenario(QJsonDocument(run.source).toJson(), "as-is", &strict)); // why a helper

        const auto read = scenarioOfRecordedRun(run, &error);
        QVERIFY2(read, qPrintable(error));
        QCOMPARE(read->durationS, scenario_limits::kMaxRunS);
        QCOMPARE(read->connections.size(), 2);
        QCOMPARE(read->connections[0].gateway, QStringLiteral("gw-a"));
        QCOMPARE(read->connections[1].gateway, QStringLiteral("gw-b"));
        QCOMPARE(read->instances[1].connection, QStringLiteral("gw-b"));

        run.source.insert("duration_s", 450.0); // a played run keeps its own duration
        const auto played = scenarioOfRecordedRun(run, &error);
        QVERIFY2(played, qPrintable(error));
        QCOMPARE(played->durationS, 450.0);

        run.source.insert("no_such_key", 1);
        QVERIFY(!scenarioOfRecordedRun(run, &error));
        QVERIFY2(error.contains("recorded run 7") && error.contains("no_such_key"),
                 qPrintable(error));
    }

    // The real boundary: a few seconds live over gRPC on the embedded mock gateway.
    void liveRunOnTheEmbeddedMockRecords()
    {
        ConsoleModels live;
        // While it records, what a crash would leave is at most a second behind the run.
        double checkedAt = -1, committedS = -1;
        QString readError;
        const RecordedRunResult r =
            recordRun(shortLive(4, 20), path("live.sqlite"), &live, true, 500, [&](double t) {
                if (checkedAt >= 0 || t < 2.5)
                    return;
                checkedAt = t;
                const auto reading = Recording::open(path("live.sqlite"), &readError);
                if (reading && !reading->runs().isEmpty())
                    committedS = reading->runs().first().endS;
            });
        QVERIFY(r.run);
        QVERIFY2(committedS >= 0, qPrintable(readError));
        QVERIFY2(
            checkedAt - committedS <= 1.0,
            qPrintable(
                QStringLiteral("at %1 s, committed up to %2 s").arg(checkedAt).arg(committedS)));
        QString error;
        const auto rec = Recording::open(path("live.sqlite"), &error);
        QVERIFY2(rec, qPrintable(error));
        const RecordedRun& run = rec->runs().first();
        QVERIFY(run.live);
        QCOMPARE(run.ended, QStringLiteral("finished"));
        QVERIFY2(run.gateway.startsWith("127.0.0.1:"), qPrintable(run.gateway));
        const auto data = rec->load(run.id, &error);
        QVERIFY(data);
        const QString diff = compareSeries(r.run->series, rec->seriesSet(*data));
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
        QCOMPARE(data->tags.size(), 20);
        for (const RecordedTag& t : data->tags)
            QCOMPARE(t.state.quality, 192);
        QVERIFY(std::any_of(data->connections.cbegin(), data->connections.cend(),
                            [](const ConnectionInfo& c) { return c.sessionId.size() > 0; }));
        ConsoleModels reopened;
        QVERIFY(
            showRecordedRun(*rec, run.id, &reopened.store, &reopened.log, &reopened.tags, &error));
        const QString stores = compareStores(live.store, reopened.store);
        QVERIFY2(stores.isEmpty(), qPrintable(stores));
    }
};

QTEST_GUILESS_MAIN(TestRecording)
#include "tst_recording.moc"
