// The console's resident memory during a storm: the real MainWindow, ConsoleController and
// run host, offscreen, playing bench_memory's storm (20 instances x 244 tags, levers-off, a
// 60 s STA wedge every hour) at 60x wall time. Prints VmRSS every minute of wall time and
// the peak (VmHWM), with the plots' retention at its default or at --retention-min (once the
// console grew without bound here whatever the retention; docs/benchmarks.md has the
// figures). One configuration per process, so each peak is its own. Prints figures; not a
// pass/fail test.
// --open-ended plays the storm without an end, as the console's live run is: the run keeps
// only a window of its own series (RunHost::seriesLimitsFor), so its memory should flatten
// once the window and the plots' retention are full; --whole-series keeps every point as a
// run with an end does (the behaviour before), for comparison.
//
//   bench_console_memory [--minutes M] [--speed X] [--retention-min R] [--variant PRESET]
//                        [--open-ended] [--whole-series]

#include "scenario/run_host.h"
#include "scenario/scenario_parser.h"
#include "ui/console_controller.h"
#include "ui/main_window.h"
#include "ui/main_window_view.h"
#include "ui/plot_panel.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <cstdio>

using namespace stormwatch;

namespace {

double statusMb(const char* key)
{
    QFile f(QStringLiteral("/proc/self/status"));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    const QByteArray wanted = QByteArray(key) + ':';
    for (const QByteArray& line : f.readAll().split('\n'))
        if (line.startsWith(wanted))
            return line.mid(wanted.size()).trimmed().split(' ').value(0).toDouble() / 1024.0;
    return -1;
}

// bench_memory's storm, parsed for one hour (a scenario file's run budget) and then extended.
std::optional<Scenario> storm(const QString& variant, double hours)
{
    QJsonArray list;
    for (int i = 0; i < 20; ++i)
        list.append(QJsonObject{{"name", QStringLiteral("I%1").arg(i + 1, 2, 10, QLatin1Char('0'))},
                                {"connection", "gw1"},
                                {"tags", 244},
                                {"start_at_s", 0}});
    const QJsonObject doc{
        {"name", "console-memory-hourly-wedge"},
        {"description", "bench_console_memory: a 60 s wedge every hour"},
        {"duration_s", 3600},
        {"seed", 1},
        {"gateway", QJsonObject{{"advertise_bulk_supervisory", true},
                                {"default_command_timeout_s", 30},
                                {"command_ms", 50},
                                {"per_item_ms", 2},
                                {"data_hz", 1}}},
        {"connections", QJsonArray{QJsonObject{{"name", "gw1"}, {"write_user_id", 0}}}},
        {"instances", list},
        {"timeline",
         QJsonArray{QJsonObject{{"at_s", 600}, {"action", "wedge"}, {"duration_s", 60}}}},
        {"variants", QJsonArray{variant}},
    };
    QList<ScenarioError> errors;
    auto scenario = parseScenario(QJsonDocument(doc).toJson(QJsonDocument::Compact),
                                  QStringLiteral("bench_console_memory"), &errors);
    if (!scenario) {
        for (const auto& e : errors)
            std::fprintf(stderr, "%s\n", qPrintable(e.toString()));
        return std::nullopt;
    }
    scenario->durationS = hours * 3600;
    const TimelineEvent wedge = scenario->timeline.value(0);
    for (int h = 1; h * 3600.0 < scenario->durationS; ++h) {
        TimelineEvent e = wedge;
        e.atS = wedge.atS + h * 3600.0;
        scenario->timeline.append(e);
    }
    return scenario;
}

} // namespace

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true); // never the user's settings
    QLoggingCategory::setFilterRules(QStringLiteral("stormwatch.*=false"));
    double minutes = 10;
    double speed = 60;
    int retentionMin = 0; // 0: the console's default
    QString variant = QStringLiteral("levers-off");
    bool openEnded = false;
    bool wholeSeries = false;
    const QStringList args = app.arguments();
    for (int i = 1; i < args.size(); ++i) {
        const bool hasValue = i + 1 < args.size();
        if (args[i] == QLatin1String("--minutes") && hasValue)
            minutes = args[++i].toDouble();
        else if (args[i] == QLatin1String("--speed") && hasValue)
            speed = args[++i].toDouble();
        else if (args[i] == QLatin1String("--retention-min") && hasValue)
            retentionMin = args[++i].toInt();
        else if (args[i] == QLatin1String("--variant") && hasValue)
            variant = args[++i];
        else if (args[i] == QLatin1String("--open-ended"))
            openEnded = true;
        else if (args[i] == QLatin1String("--whole-series"))
            wholeSeries = true;
        else {
            std::fprintf(
                stderr, "usage: bench_console_memory [--minutes M] [--speed X] [--retention-min R] "
                        "[--variant PRESET] [--open-ended] [--whole-series]\n");
            return 2;
        }
    }
    if (minutes <= 0 || speed <= 0 || retentionMin < 0)
        return 2;
    // Long enough that the playback is still running when the measurement ends.
    auto scenario = storm(variant, std::max(1.0, minutes * 60 * speed / 3600 + 1));
    if (!scenario)
        return 1;
    if (openEnded)
        scenario->durationS = RunHost::kOpenEndedS; // the wedges stay hourly for the hours measured

    QTemporaryDir dir;
    MainWindow window;
    window.setSettingsFile(dir.filePath(QStringLiteral("settings.ini")));
    MainWindowView view(window);
    ConsoleController controller(&view);
    window.resize(1600, 1000);
    window.show();
    if (retentionMin > 0)
        window.plots()->setRetentionMinutes(retentionMin);
    QApplication::processEvents();
    if (wholeSeries)
        controller.host()->setSeriesLimits(SeriesLimits());

    const double rssBefore = statusMb("VmRSS");
    QString error;
    if (!controller.host()->start(*scenario, QString(), speed, &error)) {
        std::fprintf(stderr, "%s\n", qPrintable(error));
        return 1;
    }
    std::printf(
        "bench_console_memory: 20 x 244 tags, %s, wedge hourly, %.0fx, retention %s, %.0f "
        "min%s%s\n",
        qPrintable(variant), speed,
        retentionMin > 0
            ? qPrintable(QStringLiteral("%1 min").arg(retentionMin))
            : qPrintable(
                  QStringLiteral("default (%1 min)").arg(window.plots()->retentionMinutes())),
        minutes, openEnded ? ", open-ended" : "", wholeSeries ? ", whole series kept" : "");
    std::printf("  %8s %10s %9s\n", "wall_min", "virtual_h", "rss_mb");
    std::printf("  %8.0f %10.2f %9.1f\n", 0.0, 0.0, rssBefore);
    std::fflush(stdout);
    QElapsedTimer wall;
    wall.start();
    int minute = 0;
    QTimer sample;
    sample.setInterval(1000);
    QEventLoop loop;
    QObject::connect(&sample, &QTimer::timeout, [&] {
        const double elapsedMin = double(wall.elapsed()) / 60000.0;
        if (elapsedMin >= minute + 1) {
            ++minute;
            std::printf("  %8d %10.2f %9.1f\n", minute, elapsedMin * 60 * speed / 3600,
                        statusMb("VmRSS"));
            std::fflush(stdout);
        }
        if (elapsedMin >= minutes || !controller.host()->running())
            loop.quit();
    });
    sample.start();
    loop.exec();
    std::printf("  after %.1f min: rss %.1f MB, peak %.1f MB, plotted points %zu%s\n",
                double(wall.elapsed()) / 60000.0, statusMb("VmRSS"), statusMb("VmHWM"),
                view.store()->pointCount(),
                controller.host()->running() ? "" : " (the playback ended early)");
    controller.host()->stop();
    return 0;
}
