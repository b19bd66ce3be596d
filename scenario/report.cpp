#include "scenario/report.h"

#include "scenario/metric_table.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace stormwatch {

namespace {
QString gapReadJson(StaQueueGap::Kind kind)
{
    switch (kind) {
    case StaQueueGap::Kind::NoControlService:
        return QStringLiteral("no control service");
    case StaQueueGap::Kind::NeverRead:
        return QStringLiteral("never");
    case StaQueueGap::Kind::Partly:
        break;
    }
    return QStringLiteral("partly");
}
} // namespace

QString staQueueGapText(const StaQueueGap& gap)
{
    const QString name = gap.gateway.isEmpty() ? QStringLiteral("the gateway") : gap.gateway;
    switch (gap.kind) {
    case StaQueueGap::Kind::NoControlService:
        return QStringLiteral("%1 has no control service to read it from").arg(name);
    case StaQueueGap::Kind::NeverRead:
        return QStringLiteral(
                   "the STA queue of %1 could not be read (its control service answered no read)")
            .arg(name);
    case StaQueueGap::Kind::Partly:
        break;
    }
    return QStringLiteral("the STA queue of %1 was read at only %2 of %3 samples (once a second)")
        .arg(name)
        .arg(gap.readSamples)
        .arg(gap.samples);
}

QJsonObject variantToJson(const VariantMetrics& v, bool includeWallMs)
{
    QJsonObject o{{"name", v.name}, {"levers", v.levers}};
    for (const MetricDescriptor& m : metricTable()) {
        if (!m.deterministic && !includeWallMs)
            continue;
        if (m.shape == MetricShape::ByKind) {
            QJsonObject byKind;
            for (auto it = v.gatewayRpcsByKind.begin(); it != v.gatewayRpcsByKind.end(); ++it)
                byKind.insert(it.key(), double(it.value()));
            o.insert(m.keyString(), byKind);
            continue;
        }
        const std::optional<double> value = m.value(v);
        o.insert(m.keyString(), value ? QJsonValue(*value) : QJsonValue(QJsonValue::Null));
        if (const std::optional<double> atLeast = m.lowerBound ? m.lowerBound(v) : std::nullopt;
            atLeast && !value)
            o.insert(m.keyString() + QStringLiteral("_at_least"), *atLeast);
    }
    o.insert("time_to_all_good_from", v.timeToAllGoodFrom);
    if (!v.gatewayMetricsSource.isEmpty())
        o.insert("gateway_metrics_source", v.gatewayMetricsSource);
    if (!v.skippedActions.isEmpty())
        o.insert("skipped_actions", QJsonArray::fromStringList(v.skippedActions));
    if (!v.notes.isEmpty())
        o.insert("notes", QJsonArray::fromStringList(v.notes));
    if (!v.staQueueGaps.isEmpty()) {
        QJsonArray gaps;
        for (const StaQueueGap& g : v.staQueueGaps)
            gaps.append(QJsonObject{{"gateway", g.gateway},
                                    {"read", gapReadJson(g.kind)},
                                    {"read_samples", g.readSamples},
                                    {"samples", g.samples}});
        o.insert("sta_queue_gaps", gaps);
    }
    return o;
}

namespace {
QJsonObject toJson(const ScenarioReport& r, bool includeWallMs)
{
    QJsonArray variants;
    for (const VariantMetrics& v : r.variants)
        variants.append(variantToJson(v, includeWallMs));
    return QJsonObject{
        {"scenario", r.scenario},
        {"description", r.description},
        {"duration_s", r.durationS},
        {"seed", double(r.seed)},
        {"mode", r.live ? QStringLiteral("live") : QStringLiteral("virtual")},
        {"variants", variants},
    };
}
} // namespace

QJsonObject reportToJson(const ScenarioReport& report)
{
    return toJson(report, true);
}

QByteArray reportToJsonBytes(const ScenarioReport& report, bool includeWallMs)
{
    return QJsonDocument(toJson(report, includeWallMs)).toJson(QJsonDocument::Indented);
}

} // namespace stormwatch
