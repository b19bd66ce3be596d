// What recording costs: the bundled incident replayed through the run host at max speed with
// and without a recorder (the wall time ratio), and the file it writes per virtual hour —
// also for a one-hour run of its 2 × 244 tags at 1 Hz. Figures go to the test log
// (docs/recordings.md quotes them). A benchmark, not a pass/fail test: the figures are
// printed, and it runs only when asked (`build/tests/bench/bench_recording`).

#include "recording/recording.h"
#include "recording/support_recording.h"
#include "scenario/scenario_parser.h"

#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QTemporaryDir>
#include <QtTest>
#include <ctime>

using namespace stormwatch;
using namespace stormwatch::test;

namespace {

Scenario incident(const QString& variant, double durationS = 0)
{
    QList<ScenarioError> errors;
    auto s = loadScenario(QStringLiteral("incident-2026-08-26"), &errors);
    if (!s)
        qFatal("the bundled incident does not load");
    if (durationS > 0)
        s->durationS = durationS;
    QList<VariantSpec> one;
    for (const VariantSpec& v : s->variants)
        if (v.name == variant)
            one << v;
    s->variants = one;
    return *s;
}

double cpuMs()
{
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts); // every thread: the runner's and ours
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

// Wall ms of a max-speed replay on the host, recorded to `path` ("" = not recorded); *cpu:
// the process's CPU ms over it.
qint64 replayMs(const Scenario& s, const QString& path, double* cpu = nullptr)
{
    QElapsedTimer t;
    t.start();
    const double cpu0 = cpuMs();
    struct Cpu {
        double* out;
        double start;
        ~Cpu()
        {
            if (out)
                *out = cpuMs() - start;
        }
    } measure{cpu, cpu0};
    if (path.isEmpty()) {
        RunHost host;
        QEventLoop loop;
        bool done = false;
        QObject::connect(&host, &RunHost::finished, &loop, [&] {
            done = true;
            loop.quit();
        });
        QString error;
        if (!host.start(s, {}, RunHost::kMaxSpeed, &error))
            return -1;
        loop.exec();
        return done ? t.elapsed() : -1;
    }
    return recordRun(s, path, nullptr).run ? t.elapsed() : -1;
}

qint64 fileBytes(const QString& path)
{
    return QFileInfo(path).size() + QFileInfo(path + "-wal").size();
}

long rssKb()
{
    QFile f("/proc/self/status");
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray& line : f.readAll().split('\n'))
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').first().toLong();
    return -1;
}

} // namespace

class TestRecordingCost : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

private slots:
    // Logging to the test output would be measured too: the CLI's default filter.
    void initTestCase() { QLoggingCategory::setFilterRules(QStringLiteral("stormwatch.*=false")); }

    void incidentReplaySpeedWithAndWithoutRecording_data()
    {
        QTest::addColumn<QString>("variant");
        for (const char* v : {"levers-off", "lever1", "all"})
            QTest::newRow(v) << QString(v);
    }
    void incidentReplaySpeedWithAndWithoutRecording()
    {
        QFETCH(QString, variant);
        const Scenario s = incident(variant);
        replayMs(s, {}); // warm up: the first run pays for loading and caches
        qint64 plain = 0, recorded = 0;
        // Interleaved, best of three: the machine's other load hits both alike.
        qint64 bestPlain = std::numeric_limits<qint64>::max(), bestRecorded = bestPlain;
        double cpuPlain = 1e300, cpuRecorded = 1e300;
        for (int i = 0; i < 3; ++i) {
            double cpu = 0;
            plain = replayMs(s, {}, &cpu);
            cpuPlain = std::min(cpuPlain, cpu);
            const QString file = m_dir.filePath(QStringLiteral("%1-%2.sqlite").arg(variant).arg(i));
            recorded = replayMs(s, file, &cpu);
            cpuRecorded = std::min(cpuRecorded, cpu);
            QVERIFY(plain > 0 && recorded > 0);
            bestPlain = std::min(bestPlain, plain);
            bestRecorded = std::min(bestRecorded, recorded);
        }
        const QString file = m_dir.filePath(QStringLiteral("%1-0.sqlite").arg(variant));
        const double hours = s.durationS / 3600.0;
        const double mbPerHour = double(fileBytes(file)) / 1e6 / hours;
        const double ratio = double(bestRecorded) / double(bestPlain);
        qInfo("%s: replay %lld ms plain, %lld ms recorded (wall ratio %.2f); CPU %.0f ms plain, "
              "%.0f ms "
              "recorded (ratio %.2f); file %.2f MB per virtual hour",
              qPrintable(variant), bestPlain, bestRecorded, ratio, cpuPlain, cpuRecorded,
              cpuRecorded / cpuPlain, mbPerHour);
        QString error;
        const auto rec = Recording::open(file, &error);
        QVERIFY2(rec, qPrintable(error));
        QCOMPARE(rec->runs().first().ended, QStringLiteral("finished"));
    }

    // The figure: one hour of 2 × 244 tags at 1 Hz (the incident's shape, lever1).
    void oneHourOfTwoTimes244TagsAt1Hz()
    {
        const Scenario s = incident(QStringLiteral("lever1"), 3600);
        const QString file = m_dir.filePath(QStringLiteral("hour.sqlite"));
        const long before = rssKb();
        ConsoleModels models; // the console's models beside it, as in the window
        QElapsedTimer t;
        t.start();
        const RecordedRunResult r = recordRun(s, file, &models);
        QVERIFY(r.run);
        const long after = rssKb();
        QString error;
        const auto rec = Recording::open(file, &error);
        QVERIFY2(rec, qPrintable(error));
        const auto data = rec->load(rec->runs().first().id, &error);
        QVERIFY(data);
        qsizetype points = 0;
        for (const SeriesUpdate& u : data->series)
            points += u.points.size();
        qInfo("1 h, 2 x 244 tags at 1 Hz: %.2f MB (%lld series points, %lld log lines, %lld tags), "
              "%lld commits, %lld ms wall at max speed, RSS %+ld kB over the run (models included)",
              double(fileBytes(file)) / 1e6, qlonglong(points), qlonglong(data->logs.size()),
              qlonglong(data->tags.size()), r.commits, t.elapsed(), after - before);
        QCOMPARE(data->tags.size(), 488);
    }
};

QTEST_GUILESS_MAIN(TestRecordingCost)
#include "bench_recording.moc"
