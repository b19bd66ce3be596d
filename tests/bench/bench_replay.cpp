// How fast a virtual replay runs: 2 instances × 244 tags (the incident's size) for 30
// virtual minutes, with a wedge (both instances redeploy into it), a source outage and a
// gateway restart on the timeline, once per lever preset. Target: < 0.3 s wall per variant.
//
//   bench_replay [--minutes N] [--data-hz X]

#include "client/lever_set.h"
#include "scenario/scenario_parser.h"
#include "scenario/scenario_runner.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <cstdio>

using namespace stormwatch;

namespace {

QJsonObject benchScenario(double minutes, double dataHz)
{
    auto at = [](double s, const char* action, QJsonObject params) {
        params.insert("at_s", s);
        params.insert("action", action);
        return params;
    };
    QJsonArray variants;
    for (const QString& preset : leverPresetNames())
        variants.append(preset);
    return QJsonObject{
        {"name", "bench-replay"},
        {"description", "2 instances x 244 tags, redeploy into a wedge, outage, restart"},
        {"duration_s", minutes * 60},
        {"seed", 1},
        {"gateway", QJsonObject{{"data_hz", dataHz}}},
        {"connections", QJsonArray{QJsonObject{{"name", "gw1"}}}},
        {"instances",
         QJsonArray{QJsonObject{{"name", "inst-a"}, {"connection", "gw1"}, {"tags", 244}},
                    QJsonObject{{"name", "inst-b"}, {"connection", "gw1"}, {"tags", 244}}}},
        // The storm's shape: both instances redeploy into a wedged STA, so their subscribes
        // time out and (levers off) are re-sent every 5 s through the fan-out.
        {"timeline", QJsonArray{at(120, "wedge", {{"duration_s", 90}}),
                                at(125, "redeploy", {{"instance", "inst-a"}}),
                                at(125, "redeploy", {{"instance", "inst-b"}}),
                                at(600, "source_outage", {{"duration_s", 60}}),
                                at(1200, "restart_gateway", {{"downtime_s", 10}})}},
        {"variants", variants},
    };
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QLoggingCategory::setFilterRules(QStringLiteral("stormwatch.*=false"));
    double minutes = 30;
    double dataHz = 1;
    const QStringList args = app.arguments();
    for (int i = 1; i + 1 < args.size(); ++i) {
        if (args[i] == "--minutes")
            minutes = args[i + 1].toDouble();
        if (args[i] == "--data-hz")
            dataHz = args[i + 1].toDouble();
    }
    QList<ScenarioError> errors;
    const auto scenario =
        parseScenario(QJsonDocument(benchScenario(minutes, dataHz)).toJson(), "bench", &errors);
    if (!scenario) {
        for (const auto& e : errors)
            std::fprintf(stderr, "%s\n", qPrintable(e.toString()));
        return 1;
    }
    const double virtualS = scenario->durationS;
    std::printf("virtual replay: 2 instances x 244 tags, %.0f virtual s, data_hz %.1f\n", virtualS,
                dataHz);
    std::printf("%-11s %9s %14s %10s %12s %9s %9s\n", "variant", "wall_ms", "virtual_s/wall",
                "subscribes", "gateway_rpcs", "data_chg", "bad_tag_s");
    double totalMs = 0;
    for (const VariantSpec& variant : scenario->variants) {
        QElapsedTimer wall;
        wall.start();
        ScenarioRunner runner(*scenario, variant);
        if (!runner.ok()) {
            std::fprintf(stderr, "%s\n", qPrintable(runner.error()));
            return 1;
        }
        const VariantRun run = runner.run();
        const double ms = double(wall.nsecsElapsed()) / 1e6;
        totalMs += ms;
        const std::int64_t dataChanges = runner.model().dataChangesSent();
        std::printf("%-11s %9.1f %14.0f %10lld %12lld %9lld %9.0f\n", qPrintable(variant.name), ms,
                    virtualS / (ms / 1000.0), static_cast<long long>(run.metrics.subscribeRequests),
                    static_cast<long long>(run.metrics.gatewayRpcs),
                    static_cast<long long>(dataChanges), run.metrics.badTagSeconds);
    }
    std::printf("total %.1f ms for %lld variants (target < 300 ms each)\n", totalMs,
                static_cast<long long>(scenario->variants.size()));
    return 0;
}
