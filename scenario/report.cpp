#include "scenario/report.h"

#include "scenario/metric_table.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace stormwatch {

QJsonObject variantToJson(const VariantMetrics& v, bool includeWallMs) {
    QJsonObject o{{"name", v.name}, {"levers", v.levers}};
    for (const MetricDescriptor& m : metricTable()) {
        if (!m.deterministic && !includeWallMs) continue;
        if (m.shape == MetricShape::ByKind) {
            QJsonObject byKind;
            for (auto it = v.gatewayRpcsByKind.begin(); it != v.gatewayRpcsByKind.end(); ++it)
                byKind.insert(it.key(), double(it.value()));
            o.insert(m.keyString(), byKind);
            continue;
        }
        const std::optional<double> value = m.value(v);
        o.insert(m.keyString(), value ? QJsonValue(*value) : QJsonValue(QJsonValue::Null));
    }
    o.insert("time_to_all_good_from", v.timeToAllGoodFrom);
    if (!v.gatewayMetricsSource.isEmpty()) o.insert("gateway_metrics_source", v.gatewayMetricsSource);
    if (!v.skippedActions.isEmpty()) o.insert("skipped_actions", QJsonArray::fromStringList(v.skippedActions));
    if (!v.notes.isEmpty()) o.insert("notes", QJsonArray::fromStringList(v.notes));
    return o;
}

namespace {
QJsonObject toJson(const ScenarioReport& r, bool includeWallMs) {
    QJsonArray variants;
    for (const VariantMetrics& v : r.variants) variants.append(variantToJson(v, includeWallMs));
    return QJsonObject{
        {"scenario", r.scenario},
        {"description", r.description},
        {"duration_s", r.durationS},
        {"seed", double(r.seed)},
        {"mode", r.live ? QStringLiteral("live") : QStringLiteral("virtual")},
        {"variants", variants},
    };
}
}  // namespace

QJsonObject reportToJson(const ScenarioReport& report) { return toJson(report, true); }

QByteArray reportToJsonBytes(const ScenarioReport& report, bool includeWallMs) {
    return QJsonDocument(toJson(report, includeWallMs)).toJson(QJsonDocument::Indented);
}

}  // namespace stormwatch
