// A recorder that cannot write loses nothing and claims nothing: opening a path that cannot
// be written (here the file system refuses to grow any file, as a full disk does) leaves
// the old recording there whole, with a clear error and no stray file; and the headless
// --record stops at the first recorder failure instead of playing the rest of the scenario.

#include "recording/record_scenario.h"
#include "recording/recording.h"
#include "support_recording.h"

#include <QDir>
#include <QFile>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>
#include <csignal>
#include <sys/resource.h>

using namespace stormwatch;
using namespace stormwatch::test;

namespace {

// While alive, no file of this process may grow past `bytes` (RLIMIT_FSIZE): writes beyond
// fail with EFBIG, as on a full disk. Works as root too, where a read-only directory does not.
struct FileSizeLimit {
    explicit FileSizeLimit(rlim_t bytes)
    {
        std::signal(SIGXFSZ, SIG_IGN); // the write fails instead of the process being killed
        getrlimit(RLIMIT_FSIZE, &old);
        rlimit limit = old;
        limit.rlim_cur = bytes;
        ok = setrlimit(RLIMIT_FSIZE, &limit) == 0;
    }
    ~FileSizeLimit() { setrlimit(RLIMIT_FSIZE, &old); }
    rlimit old{};
    bool ok = false;
};

QByteArray contents(const QString& file)
{
    QFile f(file);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QStringList entries(const QString& dir)
{
    return QDir(dir).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot, QDir::Name);
}

// What the headless --record plays: two variants, each of `durationS` virtual seconds.
Scenario twoVariants(double durationS)
{
    Scenario s = wedgeAndLeverChange(durationS, 10);
    s.variants = {VariantSpec{"lever1", "lever1"}, VariantSpec{"levers-off", "levers-off"}};
    return s;
}

// Makes SQLite refuse every write of the recorder writing `file`, as a disk gone read-only would.
bool refuseWrites(const QString& file)
{
    QSqlQuery q(QSqlDatabase::database(recorderConnection(file), false));
    return q.exec(QStringLiteral("PRAGMA query_only = 1"));
}

} // namespace

class TestRecorderFailures : public QObject {
    Q_OBJECT

private slots:
    void anOldRecordingIsKeptWhenTheNewOneCannotBeWritten()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath("incident.sqlite");
        QVERIFY(recordRun(wedgeAndLeverChange(400, 5), file, nullptr).run);
        const QByteArray before = contents(file);
        QVERIFY(before.size() > 4096);

        QString error;
        Recorder recorder;
        {
            FileSizeLimit full(2048);
            QVERIFY(full.ok);
            QVERIFY(!recorder.open(file, &error));
        }
        QVERIFY(!recorder.isOpen());
        QVERIFY2(error.startsWith(QStringLiteral("cannot record to \"%1\": ").arg(file)),
                 qPrintable(error));
        QVERIFY2(error.contains("the existing file is kept"), qPrintable(error));
        QVERIFY(!error.contains('\n'));
        // The old recording, byte for byte, and nothing left beside it.
        QCOMPARE(contents(file), before);
        QCOMPARE(entries(dir.path()), QStringList{"incident.sqlite"});
        const auto rec = Recording::open(file, &error);
        QVERIFY2(rec, qPrintable(error));
        QCOMPARE(rec->runs().size(), 1);
        QCOMPARE(rec->runs().first().ended, QString("finished"));

        // A directory that does not exist: said so, nothing made.
        const QString nowhere = dir.filePath("no-such-dir/incident.sqlite");
        QVERIFY(!recorder.open(nowhere, &error));
        QVERIFY2(
            error.startsWith(
                QStringLiteral("cannot record to \"%1\": cannot create a file in ").arg(nowhere)),
            qPrintable(error));
        QCOMPARE(entries(dir.path()), QStringList{"incident.sqlite"});
        QVERIFY(!QFileInfo::exists(dir.filePath("no-such-dir")));
    }

    // When the new recording works, it replaces the old one: one file, the new schema, no runs
    // of the old one, and nothing else left in the directory once closed.
    void aNewRecordingReplacesTheOldOnceItWorks()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath("incident.sqlite");
        QVERIFY(recordRun(wedgeAndLeverChange(400, 5), file, nullptr).run);
        QFile::Permissions before = QFileInfo(file).permissions();
        Recorder recorder;
        QString error;
        QVERIFY2(recorder.open(file, &error), qPrintable(error));
        QCOMPARE(recorder.path(), file);
        recorder.close();
        QCOMPARE(entries(dir.path()), QStringList{"incident.sqlite"});
        QCOMPARE(QFileInfo(file).permissions(), before); // not a temporary file's private mode
        const auto rec = Recording::open(file, &error);
        QVERIFY2(rec, qPrintable(error));
        QVERIFY2(rec->warnings().isEmpty(), qPrintable(rec->warnings().join('\n')));
        QCOMPARE(rec->runs().size(), 0);
    }

    // The recorder fails as the first variant starts (SQLite refuses every write, as a disk
    // gone read-only would): recordScenario stops there — no variant played, no report.
    void recordScenarioStopsWhenTheRecorderFailsAtAVariantsStart()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath("headless.sqlite");
        Recorder recorder;
        QString error;
        QVERIFY2(recorder.open(file, &error), qPrintable(error));
        QVERIFY(refuseWrites(file));
        QList<SeriesSet> series;
        const ScenarioReport report = recordScenario(twoVariants(600), {}, std::nullopt,
                                                     std::nullopt, recorder, &error, &series);
        QVERIFY(report.variants.isEmpty());
        QVERIFY(series.isEmpty());
        QVERIFY2(error.startsWith(QStringLiteral("recording to \"%1\" stopped: ").arg(file)),
                 qPrintable(error));
        QVERIFY2(error.contains("variant lever1; the file holds only what was committed before"),
                 qPrintable(error));
        QVERIFY(!recorder.isOpen());
        const auto rec = Recording::open(file, &error);
        QVERIFY2(rec, qPrintable(error));
        QCOMPARE(rec->runs().size(), 0);
    }

    // The same mid-variant: the writes start failing once the first variant runs; the second
    // variant is never played.
    void recordScenarioStopsWhenTheRecorderFailsMidVariant()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath("headless.sqlite");
        Recorder recorder;
        QString error;
        QVERIFY2(recorder.open(file, &error), qPrintable(error));
        recorder.setCommitIntervalMs(1);
        // Runs on the first turn of recordScenario's event loop, the first variant under way.
        bool refused = false;
        QTimer::singleShot(0, this, [&] { refused = refuseWrites(file); });
        QList<SeriesSet> series;
        const ScenarioReport report = recordScenario(twoVariants(1800), {}, std::nullopt,
                                                     std::nullopt, recorder, &error, &series);
        QVERIFY(refused);
        QVERIFY(report.variants.isEmpty());
        QVERIFY(series.isEmpty());
        QVERIFY2(error.contains("variant lever1; the file holds only what was committed before"),
                 qPrintable(error));
        const auto rec = Recording::open(file, &error);
        QVERIFY2(rec, qPrintable(error));
        // At most the first variant, cut (its start may not have been committed); never the second.
        QVERIFY(rec->runs().size() <= 1);
        for (const RecordedRun& run : rec->runs()) {
            QCOMPARE(run.variant, QString("lever1"));
            QVERIFY(run.ended.isEmpty());
        }
    }
};

QTEST_GUILESS_MAIN(TestRecorderFailures)
#include "tst_recorder_failures.moc"
