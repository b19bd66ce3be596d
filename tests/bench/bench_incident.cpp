// How fast the bundled incident-2026-08-26 scenario replays in virtual time: each variant
// run N times (best wall time kept), printed with its key metrics.
// Target: >= 5,000 virtual seconds per wall second for every variant. The process's CPU time
// is printed too: on a machine busy with other work (a build) the wall time is not all ours.
//
//   bench_incident [--repeat N] [--variants a,b] [--duration-s S]
//
// --duration-s shortens the run (e.g. for a profiler); the figures are then not the incident's.

#include "scenario/scenario_parser.h"
#include "scenario/scenario_runner.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QLoggingCategory>
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <limits>

using namespace stormwatch;

namespace {

constexpr double kTargetSpeed = 5000; // virtual s per wall s

double cpuMs()
{
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QLoggingCategory::setFilterRules(QStringLiteral("stormwatch.*=false"));
    int repeat = 3;
    QStringList only;
    double durationS = 0;
    const QStringList args = app.arguments();
    for (int i = 1; i < args.size(); ++i) {
        const bool hasValue = i + 1 < args.size();
        if (args[i] == "--repeat" && hasValue)
            repeat = std::max(1, args[++i].toInt());
        else if (args[i] == "--variants" && hasValue)
            only = args[++i].split(',', Qt::SkipEmptyParts);
        else if (args[i] == "--duration-s" && hasValue)
            durationS = args[++i].toDouble();
        else {
            std::fprintf(stderr,
                         "usage: bench_incident [--repeat N] [--variants a,b] [--duration-s S]\n");
            return 2;
        }
    }
    QList<ScenarioError> errors;
    auto scenario = loadScenario(QStringLiteral("incident-2026-08-26"), &errors);
    if (!scenario) {
        for (const auto& e : errors)
            std::fprintf(stderr, "%s\n", qPrintable(e.toString()));
        return 1;
    }
    if (durationS > 0)
        scenario->durationS = durationS;
    if (const QString bad = checkVariantNames(*scenario, only); !bad.isEmpty()) {
        std::fprintf(stderr, "%s\n", qPrintable(bad));
        return 2;
    }
    const double virtualS = scenario->durationS;
    std::printf("incident-2026-08-26: %.0f virtual s per variant, best of %d\n", virtualS, repeat);
    std::printf("%-10s %9s %8s %11s %6s %7s %7s %6s %9s %9s %10s %8s %7s\n", "variant", "virtual_s",
                "wall_ms", "virt_s/wall", "target", "cpu_ms", "subscr", "max_out", "gw_rpcs",
                "deadline", "bad_tag_s", "all_good", "max_sta");
    bool allMet = true;
    for (const VariantSpec& variant : scenario->variants) {
        if (!only.isEmpty() && !only.contains(variant.name))
            continue;
        double bestMs = std::numeric_limits<double>::infinity();
        double bestCpuMs = std::numeric_limits<double>::infinity();
        VariantMetrics metrics;
        for (int r = 0; r < repeat; ++r) {
            QElapsedTimer wall;
            wall.start();
            const double cpu0 = cpuMs();
            ScenarioRunner runner(*scenario, variant);
            if (!runner.ok()) {
                std::fprintf(stderr, "%s\n", qPrintable(runner.error()));
                return 1;
            }
            const VariantRun run = runner.run();
            const double ms = double(wall.nsecsElapsed()) / 1e6;
            bestCpuMs = std::min(bestCpuMs, cpuMs() - cpu0);
            if (ms < bestMs) {
                bestMs = ms;
                metrics = run.metrics;
            }
        }
        const double speed = virtualS / (bestMs / 1000.0);
        allMet = allMet && speed >= kTargetSpeed;
        const QString allGood = metrics.timeToAllGoodS
                                    ? QString::number(*metrics.timeToAllGoodS, 'f', 1)
                                    : QStringLiteral("never");
        const QString maxSta = metrics.maxStaQueueDepth ? QString::number(*metrics.maxStaQueueDepth)
                                                        : QStringLiteral("n/a");
        std::printf("%-10s %9.0f %8.1f %10.0fx %6s %7.1f %7lld %6d %9lld %9lld %10.0f %8s %7s\n",
                    qPrintable(variant.name), virtualS, bestMs, speed,
                    speed >= kTargetSpeed ? "met" : "MISSED", bestCpuMs,
                    static_cast<long long>(metrics.subscribeRequests), metrics.maxOutstanding,
                    static_cast<long long>(metrics.gatewayRpcs),
                    static_cast<long long>(metrics.deadlineExceeded), metrics.badTagSeconds,
                    qPrintable(allGood), qPrintable(maxSta));
    }
    std::printf("target >= %.0fx virtual s per wall s: %s\n", kTargetSpeed,
                allMet ? "met by every variant" : "NOT met by every variant");
    return 0;
}
