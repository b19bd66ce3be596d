// The console on a site of real size: the real MainWindow, ConsoleController and run host,
// offscreen at 1600x1000, live on a site of N instances x T tags on one mock gateway (its
// own thread, STA cost per item as given, every tag updating at 1 Hz). Prints:
//   - the time until every tag is Good, against the STA bound (the gateway's own serial
//     work for the subscribes: N x (command_ms + T x per_item_ms)), target within 1.2x;
//   - the UI thread's longest stall while every tag updates at 1 Hz (a 2 ms probe timer's
//     lateness), target < 50 ms;
//   - the tag table's filter over every row (text typed into its filter), target < 100 ms;
//   - the console's resident memory with all tags Good and at the end, and its peak;
//     target <= 150 MB for 100,000 tags; and the heap its live objects take at those times.
// The gateway is the built mxgw-mock in a process of its own (as at a site, so the
// console's memory is its own), or the mock in this process with --in-process.
// Prints figures; not a pass/fail test.
//
//   bench_console_site [--instances N] [--tags T] [--per-item-ms X] [--command-ms X]
//                      [--seconds S] [--in-process] [--exit-at-good]
//
// --exit-at-good leaves the process at the all-Good point without freeing anything, so a heap
// profiler's "leaked" is what was live then (heaptrack bench_console_site --exit-at-good).

#include "gateway/mock_gateway_server.h"
#include "models/series_store.h"
#include "models/tag_table_model.h"
#include "scenario/process_memory.h"
#include "scenario/run_host.h"
#include "scenario/site.h"
#include "scenario/site_live.h"
#include "scenario/support_generated_site.h"
#include "ui/console_controller.h"
#include "ui/main_window.h"
#include "ui/main_window_view.h"
#include "ui/tags_panel.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QLineEdit>
#include <QLoggingCategory>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <malloc.h>

using namespace stormwatch;

namespace {

double statusMb(const char* key)
{
    QFile f(QStringLiteral("/proc/self/status"));
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    for (const QByteArray& line : f.readAll().split('\n'))
        if (line.startsWith(key))
            return line.mid(qstrlen(key)).trimmed().split(' ').first().toDouble() / 1024.0;
    return 0;
}

// What the allocator holds for live objects, every thread's arena together, apart from what it
// keeps for reuse: the gap to RSS is memory freed but not given back. From malloc_info's
// totals: the arenas' size less their free chunks, plus the mmapped blocks.
double heapInUseMb()
{
    char* text = nullptr;
    size_t size = 0;
    FILE* out = open_memstream(&text, &size);
    if (!out)
        return 0;
    malloc_info(0, out);
    std::fclose(out);
    const QString xml = QString::fromUtf8(text, qsizetype(size));
    std::free(text);
    // The last <total> and <system> lines are the whole process's.
    const auto last = [&](const QString& type) {
        const QRegularExpression re(
            QStringLiteral("<(?:total|system) type=\"%1\" (?:count=\"\\d+\" )?size=\"(\\d+)\"")
                .arg(type));
        double value = 0;
        for (auto it = re.globalMatch(xml); it.hasNext();)
            value = it.next().captured(1).toDouble();
        return value;
    };
    return (last(QStringLiteral("current")) - last(QStringLiteral("fast")) -
            last(QStringLiteral("rest")) + last(QStringLiteral("mmap"))) /
           (1024.0 * 1024.0);
}

double argOr(const QStringList& args, const QString& name, double fallback)
{
    const qsizetype i = args.indexOf(name);
    return i >= 0 && i + 1 < args.size() ? args[i + 1].toDouble() : fallback;
}

int goodTags(const SeriesStore& store)
{
    int good = 0;
    for (const SubscriptionKey& k : store.subscriptions()) {
        const auto& s = store.series(k, SubMetric::Good);
        good += s.isEmpty() ? 0 : int(s.last().y());
    }
    return good;
}

} // namespace

int main(int argc, char** argv)
{
    setUpProcessMemory(); // as the console's main does
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true);
    QLoggingCategory::setFilterRules(QStringLiteral("stormwatch.*=false"));
    const QStringList args = app.arguments();
    const int instances = int(argOr(args, QStringLiteral("--instances"), 1000));
    const int tags = int(argOr(args, QStringLiteral("--tags"), 100));
    const double perItemMs = argOr(args, QStringLiteral("--per-item-ms"), 0.05);
    const double commandMs = argOr(args, QStringLiteral("--command-ms"), 0.2);
    const double seconds = argOr(args, QStringLiteral("--seconds"), 20);
    const int total = instances * tags;

    gateway::GatewayConfig config;
    config.perItemMs = perItemMs;
    config.commandMs = commandMs;
    config.dataHz = 1;
    gateway::MockGatewayServer inProcess(config);
    QProcess mock;
    QString address;
    const QString mockPath =
        QCoreApplication::applicationDirPath() + QStringLiteral("/../../app/mxgw-mock");
    if (args.contains(QStringLiteral("--in-process")) || !QFile::exists(mockPath)) {
        if (!inProcess.start()) {
            std::fprintf(stderr, "bench_console_site: the mock gateway did not start: %s\n",
                         inProcess.lastError().c_str());
            return 1;
        }
        address = QString::fromStdString(inProcess.address());
    } else {
        mock.start(mockPath, {QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0"),
                              QStringLiteral("--per-item-ms"), QString::number(perItemMs),
                              QStringLiteral("--command-ms"), QString::number(commandMs),
                              QStringLiteral("--data-hz"), QStringLiteral("1")});
        while (address.isEmpty() && mock.waitForReadyRead(10000))
            while (mock.canReadLine()) {
                const QString line = QString::fromUtf8(mock.readLine()).trimmed();
                if (line.startsWith(QStringLiteral("listening on ")))
                    address = line.mid(13);
            }
        if (address.isEmpty()) {
            std::fprintf(stderr, "bench_console_site: %s did not say where it listens\n",
                         qPrintable(mockPath));
            return 1;
        }
    }
    // As the console's main does: the site file's own rows are gone once its shape is made.
    std::optional<Scenario> siteShape;
    std::optional<SitePortOptions> ports;
    QString error;
    {
        const Site site = testsupport::generatedSite(instances, tags);
        ports = sitePortOptions(site, {{QStringLiteral("gw1"), address}}, &error);
        siteShape = siteScenario(site);
    }
    if (!ports) {
        std::fprintf(stderr, "bench_console_site: %s\n", qPrintable(error));
        return 1;
    }
    QTemporaryDir dir;
    const double rssBefore = statusMb("VmRSS:");
    MainWindow w;
    w.setSettingsFile(dir.filePath(QStringLiteral("s.ini")));
    w.restoreSettings();
    MainWindowView view(w);
    ConsoleController controller(&view);
    controller.setSite(*siteShape, *ports);
    controller.loadDemoScenario();
    w.resize(1600, 1000);
    w.show();
    QCoreApplication::processEvents();

    QElapsedTimer wall;
    wall.start();
    if (!controller.startEmbedded(&error)) {
        std::fprintf(stderr, "bench_console_site: %s\n", qPrintable(error));
        return 1;
    }
    // The probe: how late a 2 ms timer on the UI thread fires, from the first step on.
    double maxLateMs = 0;
    bool probing = false;
    QElapsedTimer sinceProbe;
    QTimer probe;
    probe.setTimerType(Qt::PreciseTimer);
    probe.setInterval(2);
    QObject::connect(&probe, &QTimer::timeout, [&] {
        if (probing)
            maxLateMs = std::max(maxLateMs, sinceProbe.nsecsElapsed() / 1e6 - 2.0);
        sinceProbe.restart();
    });
    probe.start();
    sinceProbe.start();

    double allGoodS = -1;
    const double limitS = std::max(120.0, 10 * total * perItemMs / 1000.0);
    // The event loop waits for events (as the console's does) and the Good count is read
    // every 20 ms: a loop that polled without waiting took a core from the run on 2 cores.
    QElapsedTimer sinceCount;
    sinceCount.start();
    while (allGoodS < 0 && wall.elapsed() < limitS * 1000) {
        QCoreApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents);
        if (sinceCount.elapsed() < 20)
            continue;
        sinceCount.restart();
        if (goodTags(*w.store()) == total)
            allGoodS = wall.elapsed() / 1000.0;
    }
    const double bound = instances * (commandMs + tags * perItemMs) / 1000.0;
    const double rssGood = statusMb("VmRSS:");
    const double heapGood = heapInUseMb();
    if (args.contains(QStringLiteral("--exit-at-good"))) {
        std::printf("bench_console_site: all Good in %.2f s, RSS %.0f MB, heap %.0f MB; leaving\n",
                    allGoodS, rssGood, heapGood);
        std::fflush(stdout);
        if (mock.state() == QProcess::Running)
            mock.kill();
        std::_Exit(0);
    }
    probing = true;
    maxLateMs = 0;
    QElapsedTimer steady;
    steady.start();
    while (steady.elapsed() < seconds * 1000)
        QCoreApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents);
    probing = false;
    const double rssEnd = statusMb("VmRSS:");
    const double heapEnd = heapInUseMb();

    // The tag table's filter: a text that matches one instance's rows, typed at once.
    QLineEdit* filter = w.tagsPanel()->filterEdit();
    QElapsedTimer filtering;
    filtering.start();
    filter->setText(QStringLiteral("Area%1_Unit.").arg(instances / 2, 4, 10, QChar('0')));
    QCoreApplication::processEvents();
    const double filterMs = filtering.nsecsElapsed() / 1e6;
    const int shown = w.tagsPanel()->proxy()->rowCount();
    filtering.restart();
    filter->clear();
    QCoreApplication::processEvents();
    const double clearMs = filtering.nsecsElapsed() / 1e6;

    std::printf("bench_console_site: %d instances x %d tags = %d tags, per item %.3f ms, "
                "command %.3f ms, 1600x1000, gateway %s\n",
                instances, tags, total, perItemMs, commandMs,
                mock.state() == QProcess::Running ? "mxgw-mock (its own process)" : "in process");
    if (allGoodS < 0)
        std::printf("  all Good            NOT within %.0f s (%d Good)\n", limitS,
                    goodTags(*w.store()));
    else
        std::printf("  all Good            %.2f s; STA bound %.2f s; ratio %.2f (target <= 1.2)\n",
                    allGoodS, bound, allGoodS / bound);
    std::printf("  UI stall            max %.1f ms over %.0f s of 1 Hz updates (target < 50)\n",
                maxLateMs, seconds);
    std::printf("  tag filter          %.1f ms to %d of %d rows, %.1f ms back to all "
                "(target < 100)\n",
                filterMs, shown, w.tagsPanel()->proxy()->sourceModel()->rowCount(), clearMs);
    std::printf("  RSS                 %.0f MB before the window, %.0f MB all Good, %.0f MB after "
                "%.0f s, peak %.0f MB (target <= 150 for 100,000 tags)\n",
                rssBefore, rssGood, rssEnd, seconds, statusMb("VmHWM:"));
    std::printf("  heap in use         %.0f MB all Good, %.0f MB after %.0f s; freed memory given "
                "back %d times\n",
                heapGood, heapEnd, seconds, controller.host()->memoryReturns());
    controller.host()->stop();
    if (mock.state() == QProcess::Running) {
        mock.terminate();
        mock.waitForFinished(5000);
    }
    return 0;
}
