// Running a scenario's variants one after another, in virtual time or live: the same loop,
// only the runner each variant gets differs.
#include "scenario/scenario_runner.h"

#include <algorithm>

namespace stormwatch {

QString checkVariantNames(const Scenario& scenario, const QStringList& variantNames)
{
    QStringList known;
    for (const VariantSpec& v : scenario.variants)
        known << v.name;
    QStringList unknown;
    for (const QString& name : variantNames)
        if (!known.contains(name))
            unknown << name;
    if (unknown.isEmpty())
        return {};
    return QStringLiteral("unknown variant%1 %2 in scenario \"%3\" (its variants: %4)")
        .arg(unknown.size() > 1 ? QStringLiteral("s") : QString(),
             QStringLiteral("\"") + unknown.join(QStringLiteral("\", \"")) + QStringLiteral("\""),
             scenario.name, known.join(QStringLiteral(", ")));
}

namespace {

using MakeRunner = std::function<std::unique_ptr<ScenarioRunner>(const VariantSpec&)>;
// Progress of variant v of n, given the runner's own fraction.
using VariantProgress = std::function<void(int v, int n, const VariantSpec&, double fraction)>;

ScenarioReport runVariants(const Scenario& scenario, const QStringList& variantNames,
                           std::optional<quint64> seedOverride, bool live,
                           const MakeRunner& makeRunner, const VariantProgress& progress,
                           QString* error, QList<SeriesSet>* series)
{
    ScenarioReport report;
    report.scenario = scenario.name;
    report.description = scenario.description;
    report.durationS = scenario.durationS;
    report.seed = seedOverride.value_or(scenario.seed);
    report.live = live;
    if (error)
        error->clear();
    if (const QString bad = checkVariantNames(scenario, variantNames); !bad.isEmpty()) {
        if (error)
            *error = bad;
        return report;
    }
    QList<VariantSpec> chosen;
    for (const VariantSpec& v : scenario.variants)
        if (variantNames.isEmpty() || variantNames.contains(v.name))
            chosen << v;
    // In the order asked for, when asked: the first one is the report's baseline.
    if (!variantNames.isEmpty())
        std::stable_sort(chosen.begin(), chosen.end(),
                         [&](const VariantSpec& a, const VariantSpec& b) {
                             return variantNames.indexOf(a.name) < variantNames.indexOf(b.name);
                         });
    for (int v = 0; v < chosen.size(); ++v) {
        const std::unique_ptr<ScenarioRunner> runner = makeRunner(chosen[v]);
        if (!runner->ok()) {
            if (error)
                *error = runner->error();
            report.variants.clear();
            return report;
        }
        const int n = int(chosen.size());
        VariantRun run = runner->run([&](double f) {
            if (progress)
                progress(v, n, chosen[v], f);
        });
        report.variants << run.metrics;
        if (series)
            series->append(std::move(run.series));
    }
    return report;
}

} // namespace

ScenarioReport runScenario(const Scenario& scenario, const QStringList& variantNames,
                           std::optional<quint64> seedOverride, const ProgressFn& progress,
                           QString* error, QList<SeriesSet>* series)
{
    return runVariants(
        scenario, variantNames, seedOverride, false,
        [&](const VariantSpec& v) {
            return std::make_unique<ScenarioRunner>(scenario, v, seedOverride);
        },
        [&](int v, int n, const VariantSpec&, double f) {
            if (progress)
                progress((v + f) / n);
        },
        error, series);
}

ScenarioReport runScenarioLive(const Scenario& scenario, const QStringList& variantNames,
                               std::optional<quint64> seedOverride, const LiveOptions& live,
                               QString* error, QList<SeriesSet>* series)
{
    return runVariants(
        scenario, variantNames, seedOverride, true,
        [&](const VariantSpec& v) {
            return std::make_unique<ScenarioRunner>(scenario, v, live, seedOverride);
        },
        [&](int, int, const VariantSpec& variant, double f) {
            if (live.progress)
                live.progress(variant.name, f * scenario.durationS, scenario.durationS);
        },
        error, series);
}

} // namespace stormwatch
