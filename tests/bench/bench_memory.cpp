// Peak resident memory of a storm: the 20 instances x 244 tags, levers-off, with a 60 s STA
// wedge every hour (at 600 s past each hour), replayed in virtual time for 1, 2 and 4
// virtual hours. Each duration runs in a process of its own (this executable started again
// with --hours H) so that each peak (VmHWM in /proc/self/status) is that run's alone.
// Prints figures; not a pass/fail test. Target: < 150 MB for 4 virtual hours.
//
//   bench_memory [--hours H[,H...]] [--variant PRESET] [--instances N] [--tags N]
//
// The scenario is written here, not bundled: at 2 h and beyond it needs more tag subscribes
// than a scenario file's run budget allows, so it is parsed for one hour and then extended.

#include "scenario/scenario_parser.h"
#include "scenario/scenario_runner.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QProcess>
#include <cstdio>

using namespace stormwatch;

namespace {

constexpr double kTargetMb = 150;

double statusKb(const char* key)
{
    QFile f(QStringLiteral("/proc/self/status"));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    const QByteArray wanted = QByteArray(key) + ':';
    for (const QByteArray& line : f.readAll().split('\n'))
        if (line.startsWith(wanted))
            return line.mid(wanted.size()).trimmed().split(' ').value(0).toDouble();
    return -1;
}

QByteArray scenarioJson(int instances, int tags, const QString& variant)
{
    QJsonArray list;
    for (int i = 0; i < instances; ++i)
        list.append(QJsonObject{{"name", QStringLiteral("I%1").arg(i + 1, 2, 10, QLatin1Char('0'))},
                                {"connection", "gw1"},
                                {"tags", tags},
                                {"start_at_s", 0}});
    const QJsonObject doc{
        {"name", "memory-hourly-wedge"},
        {"description", "bench_memory: a 60 s wedge every hour"},
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
    return QJsonDocument(doc).toJson(QJsonDocument::Compact);
}

int runOne(double hours, int instances, int tags, const QString& variant)
{
    QList<ScenarioError> errors;
    auto scenario = parseScenario(scenarioJson(instances, tags, variant),
                                  QStringLiteral("bench_memory"), &errors);
    if (!scenario) {
        for (const auto& e : errors)
            std::fprintf(stderr, "%s\n", qPrintable(e.toString()));
        return 1;
    }
    scenario->durationS = hours * 3600;
    const TimelineEvent wedge = scenario->timeline.value(0);
    for (int h = 1; h * 3600.0 < scenario->durationS; ++h) {
        TimelineEvent e = wedge;
        e.atS = wedge.atS + h * 3600.0;
        scenario->timeline.append(e);
    }
    const double rssBefore = statusKb("VmRSS");
    QElapsedTimer wall;
    wall.start();
    ScenarioRunner runner(*scenario, scenario->variants.value(0));
    if (!runner.ok()) {
        std::fprintf(stderr, "%s\n", qPrintable(runner.error()));
        return 1;
    }
    const VariantRun run = runner.run();
    const double ms = double(wall.nsecsElapsed()) / 1e6;
    const double peakMb = statusKb("VmHWM") / 1024.0;
    const QString maxSta = run.metrics.maxStaQueueDepth
                               ? QString::number(*run.metrics.maxStaQueueDepth)
                               : QStringLiteral("n/a");
    std::printf("%-10s %5.0f %5d %5d %10.0f %9.1f %11.0fx %9.1f %9.1f %7s %9lld %6s\n",
                qPrintable(variant), hours, instances, tags, scenario->durationS, ms,
                scenario->durationS / (ms / 1000.0), rssBefore / 1024.0, peakMb, qPrintable(maxSta),
                static_cast<long long>(run.metrics.subscribeRequests),
                peakMb < kTargetMb ? "met" : "MISSED");
    std::fflush(stdout);
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QLoggingCategory::setFilterRules(QStringLiteral("stormwatch.*=false"));
    QList<double> hours{1, 2, 4};
    QString variant = QStringLiteral("levers-off");
    int instances = 20;
    int tags = 244;
    bool child = false;
    const QStringList args = app.arguments();
    for (int i = 1; i < args.size(); ++i) {
        const bool hasValue = i + 1 < args.size();
        if (args[i] == "--hours" && hasValue) {
            hours.clear();
            for (const QString& h : args[++i].split(',', Qt::SkipEmptyParts))
                if (h.toDouble() > 0)
                    hours.append(h.toDouble());
        } else if (args[i] == "--variant" && hasValue)
            variant = args[++i];
        else if (args[i] == "--instances" && hasValue)
            instances = std::max(1, args[++i].toInt());
        else if (args[i] == "--tags" && hasValue)
            tags = std::max(1, args[++i].toInt());
        else if (args[i] == "--child")
            child = true;
        else {
            std::fprintf(stderr, "usage: bench_memory [--hours H[,H...]] [--variant PRESET] "
                                 "[--instances N] [--tags N]\n");
            return 2;
        }
    }
    if (hours.isEmpty())
        return 2;
    if (child)
        return runOne(hours.first(), instances, tags, variant);
    std::printf("%d instances x %d tags, 60 s wedge every hour, one process per run\n", instances,
                tags);
    std::printf("%-10s %5s %5s %5s %10s %9s %12s %9s %9s %7s %9s %6s\n", "variant", "hours", "inst",
                "tags", "virtual_s", "wall_ms", "virt_s/wall", "start_MB", "peak_MB", "max_sta",
                "subscr", "<150MB");
    std::fflush(stdout);
    int rc = 0;
    for (double h : hours) {
        QProcess p;
        p.setProcessChannelMode(QProcess::ForwardedChannels);
        p.start(QCoreApplication::applicationFilePath(),
                {"--child", "--hours", QString::number(h), "--variant", variant, "--instances",
                 QString::number(instances), "--tags", QString::number(tags)});
        if (!p.waitForFinished(-1) || p.exitCode() != 0)
            rc = 1;
    }
    return rc;
}
