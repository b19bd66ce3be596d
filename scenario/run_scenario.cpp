// Running a scenario's variants one after another, in virtual time or live: the same loop,
// only the runner each variant gets differs.
#include "scenario/scenario_runner.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>
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
// Before variant v > 0: makes the gateway ready and says what the reader must know.
using BeforeVariant = std::function<QStringList(int v)>;
// Progress of variant v of n, given the runner's own fraction.
using VariantProgress = std::function<void(int v, int n, const VariantSpec&, double fraction)>;

ScenarioReport runVariants(const Scenario& scenario, const QStringList& variantNames,
                           std::optional<quint64> seedOverride, bool live,
                           const MakeRunner& makeRunner, const VariantProgress& progress,
                           QString* error, QList<SeriesSet>* series,
                           const BeforeVariant& beforeVariant = {},
                           const std::function<bool()>& cancelled = {})
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
        const QStringList notes = v > 0 && beforeVariant ? beforeVariant(v) : QStringList{};
        const std::unique_ptr<ScenarioRunner> runner = makeRunner(chosen[v]);
        if (!runner->ok()) {
            if (error)
                *error = runner->error();
            report.variants.clear();
            return report;
        }
        const int n = int(chosen.size());
        VariantRun run = runner->run(
            [&](double f) {
                if (progress)
                    progress(v, n, chosen[v], f);
            },
            cancelled);
        if (cancelled && cancelled()) {
            if (error)
                *error = QStringLiteral("cancelled");
            return report;
        }
        run.metrics.notes = notes + run.metrics.notes;
        report.variants << run.metrics;
        if (series)
            series->append(std::move(run.series));
    }
    return report;
}

} // namespace

ScenarioReport runScenario(const Scenario& scenario, const QStringList& variantNames,
                           std::optional<quint64> seedOverride, const ProgressFn& progress,
                           QString* error, QList<SeriesSet>* series,
                           const std::function<bool()>& cancelled)
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
        error, series, {}, cancelled);
}

namespace {

// A shared (external) gateway between two live variants: the previous variant closed its
// sessions (its queued commands go with them on mxgw-mock), but a gateway that keeps
// running them is waited for, at most 30 s, so each variant starts on an idle STA; when it
// does not drain, the report says so.
QStringList waitForIdleGateway(const std::string& address)
{
    const auto access = remoteControlAccess(address);
    if (!access->unavailableReason().isEmpty())
        return {QStringLiteral("started right after the previous variant: the gateway has no "
                               "control service, so whether its STA was idle is unknown")};
    QElapsedTimer waited;
    waited.start();
    constexpr qint64 kMaxWaitMs = 30'000;
    std::int64_t depth = 0;
    for (;;) {
        const auto stats = access->stats();
        depth = stats ? stats->sta_queue_depth() : 0;
        if (depth == 0 || waited.elapsed() >= kMaxWaitMs)
            break;
        QEventLoop loop;
        QTimer::singleShot(100, &loop, &QEventLoop::quit);
        loop.exec();
    }
    if (depth > 0)
        return {QStringLiteral("started on a busy gateway: %1 commands of the previous variant "
                               "were still queued on its STA after 30 s")
                    .arg(depth)};
    if (waited.elapsed() >= 500)
        return {QStringLiteral("waited %1 s for the previous variant's commands to drain from "
                               "the gateway's STA")
                    .arg(double(waited.elapsed()) / 1000.0, 0, 'f', 1)};
    return {};
}

} // namespace

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
        error, series,
        [&](int) {
            // An embedded mock is new for every variant; a shared gateway is waited for (each
            // of a site's, named).
            if (live.gateway)
                return waitForIdleGateway(live.gateway->address);
            QStringList notes;
            for (const auto& [name, port] : live.gateways)
                for (const QString& note : waitForIdleGateway(port.address))
                    notes
                        << QStringLiteral("gateway %1: %2").arg(QString::fromStdString(name), note);
            return notes;
        });
}

} // namespace stormwatch
