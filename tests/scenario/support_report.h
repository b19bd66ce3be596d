#pragma once
// The reports the scenario.report* suites write and read: a few shapes of run (the live
// gate, a bulk storm, the incident, a reconnect) and ways to pick a report's parts apart.

#include "client/lever_set.h"
#include "scenario/metric_table.h"
#include "scenario/report.h"
#include "scenario/report_writers.h"

#include <QJsonObject>
#include <QStringList>

namespace stormwatch::reporttest {
// Lever sets in the client's own JSON form (leverSetToJson), as the runner will report them.
inline QJsonObject levers(bool guard, bool backoff, bool bulk = false, int timeoutMs = 0)
{
    LeverSet l = *leverPreset("levers-off", nullptr);
    l.inflightGuard = guard;
    l.confirmedFlag = guard;
    l.backoff = backoff;
    l.bulkSupervisory = bulk;
    l.sessionCommandTimeoutMs = timeoutMs;
    return leverSetToJson(l);
}

inline VariantMetrics variant(const QString& name, const QJsonObject& l)
{
    VariantMetrics v;
    v.name = name;
    v.levers = l;
    return v;
}

// The shape of Lever 1's live gate (docs/background.md): levers off stacks 22 unanswered
// subscribes, Lever 1 sends 3.
inline ScenarioReport liveGate()
{
    ScenarioReport r;
    r.scenario = "live-gate-lever1";
    r.description = "the subscribe goes unanswered";
    r.durationS = 110;
    r.seed = 1;
    VariantMetrics off = variant("levers-off", levers(false, false));
    off.subscribeRequests = 22;
    off.maxOutstanding = 22;
    off.badTagSeconds = 330;
    off.wallMs = 12;
    VariantMetrics l1 = variant("lever1", levers(true, true));
    l1.subscribeRequests = 3;
    l1.maxOutstanding = 1;
    l1.badTagSeconds = 330;
    l1.wallMs = 9;
    r.variants = {off, l1};
    return r;
}

// A storm on the fan-out path: 2 instances × 244 tags, then the bulk call.
inline ScenarioReport bulkStorm()
{
    ScenarioReport r;
    r.scenario = "storm";
    r.durationS = 600;
    VariantMetrics l1 = variant("lever1", levers(true, true));
    l1.subscribeRequests = 2;
    l1.maxOutstanding = 1;
    l1.gatewayRpcs = 490;
    l1.gatewayRpcsByKind = {{"add_item_bulk", 2}, {"advise_supervisory", 488}};
    l1.deadlineExceeded = 120;
    l1.maxStaQueueDepth = 400;
    l1.badTagSeconds = 5000;
    l1.timeToAllGoodS = 95.5;
    VariantMetrics l12 = variant("lever1+2", levers(true, true, true));
    l12.subscribeRequests = 2;
    l12.maxOutstanding = 1;
    l12.gatewayRpcs = 2;
    l12.gatewayRpcsByKind = {{"subscribe_bulk", 2}};
    l12.maxStaQueueDepth = 1;
    l12.badTagSeconds = 40;
    l12.timeToAllGoodS = 1.5;
    r.variants = {l1, l12};
    for (VariantMetrics& v : r.variants)
        v.timeToAllGoodFrom = "last fault"; // the storm is a fault
    return r;
}

// The incident's shape: levers off never recovers; Lever 1+2 recovers first with the fewest
// calls; all (recovery gate) comes back later than lever1+2.
inline ScenarioReport incident()
{
    ScenarioReport r;
    r.scenario = "incident-2026-08-26";
    r.durationS = 1800;
    auto preset = [](const char* name) { return leverSetToJson(*leverPreset(name, nullptr)); };
    VariantMetrics off = variant("levers-off", preset("levers-off"));
    off.subscribeRequests = 400;
    off.maxOutstanding = 9;
    off.gatewayRpcs = 50000;
    off.badTagSeconds = 400000;
    VariantMetrics l1 = variant("lever1", preset("lever1"));
    l1.maxOutstanding = 1;
    l1.gatewayRpcs = 2000;
    l1.badTagSeconds = 20000;
    l1.timeToAllGoodS = 60;
    VariantMetrics l12 = variant("lever1+2", preset("lever1+2"));
    l12.maxOutstanding = 1;
    l12.gatewayRpcs = 10;
    l12.badTagSeconds = 5000;
    l12.timeToAllGoodS = 20;
    VariantMetrics all = variant("all", preset("all"));
    all.maxOutstanding = 1;
    all.gatewayRpcs = 12;
    all.badTagSeconds = 9000;
    all.timeToAllGoodS = 100;
    r.variants = {off, l1, l12, all};
    for (VariantMetrics& v : r.variants)
        v.timeToAllGoodFrom = "last fault";
    return r;
}

inline QString md(const ScenarioReport& r)
{
    return QString::fromUtf8(reportToMarkdown(r));
}

inline QStringList tableKeys()
{
    QStringList keys;
    for (const MetricDescriptor& m : metricTable())
        keys << m.keyString();
    return keys;
}

// One CSV cell of a data line by its column name (no quoted commas in the metric columns).
inline QString csvCell(const ScenarioReport& r, int variant, const QString& column)
{
    const QStringList lines = QString::fromUtf8(reportToCsv(r)).split('\n');
    const qsizetype index = lines[0].split(',').indexOf(column);
    if (index < 0)
        return QStringLiteral("<no column %1>").arg(column);
    // The levers column is quoted JSON with commas: count the metric columns from the end.
    const QStringList header = lines[0].split(',');
    const QStringList cells = lines[1 + variant].split(',');
    return cells[cells.size() - (header.size() - index)];
}

// The levers of a preset with the two Lever 1 follow-ups set as given.
inline QJsonObject withOrphanLevers(const char* preset, bool resubscribeGuard, bool dropSuperseded)
{
    QJsonObject l = leverSetToJson(*leverPreset(preset, nullptr));
    l.insert("resubscribe_guard", resubscribeGuard);
    l.insert("drop_superseded", dropSuperseded);
    return l;
}

// A reconnect with a failed transparent re-subscribe: levers off orphans tags, lever1 does not.
inline ScenarioReport reconnect()
{
    ScenarioReport r;
    r.scenario = "reconnect";
    r.durationS = 300;
    VariantMetrics off = variant("levers-off", withOrphanLevers("levers-off", false, false));
    off.badTagSeconds = 2400;
    off.orphanedTagSeconds = 1800.5;
    off.timeToAllGoodFrom = "last fault";
    VariantMetrics l1 = variant("lever1", withOrphanLevers("lever1", true, true));
    l1.badTagSeconds = 80;
    l1.timeToAllGoodS = 12;
    l1.timeToAllGoodFrom = "last fault";
    r.variants = {off, l1};
    return r;
}

// A "## " section of the Markdown report, up to the next one.
inline QString part(const QString& markdown, const QString& heading)
{
    const qsizetype start = markdown.indexOf("## " + heading + "\n");
    if (start < 0)
        return {};
    const qsizetype end = markdown.indexOf("\n## ", start + 1);
    return markdown.mid(start, end < 0 ? -1 : end - start);
}
inline QStringList csvLines(const ScenarioReport& r)
{
    QStringList lines = QString::fromUtf8(reportToCsv(r)).split('\n');
    if (lines.last().isEmpty())
        lines.removeLast();
    return lines;
}

// The section of the Markdown report about one variant.
inline QString section(const QString& markdown, const QString& variantName)
{
    const qsizetype start = markdown.indexOf("### " + variantName + "\n");
    if (start < 0)
        return {};
    const qsizetype end = markdown.indexOf("\n### ", start + 1);
    return markdown.mid(start, end < 0 ? -1 : end - start);
}

} // namespace stormwatch::reporttest
