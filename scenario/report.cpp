#include "scenario/report.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace stormwatch {

QJsonObject variantToJson(const VariantMetrics& v, bool includeWallMs) {
    QJsonObject byKind;
    for (auto it = v.gatewayRpcsByKind.begin(); it != v.gatewayRpcsByKind.end(); ++it)
        byKind.insert(it.key(), double(it.value()));
    QJsonObject o{
        {"name", v.name},
        {"levers", v.levers},
        {"subscribe_requests", double(v.subscribeRequests)},
        {"max_outstanding", v.maxOutstanding},
        {"gateway_rpcs", double(v.gatewayRpcs)},
        {"gateway_rpcs_by_kind", byKind},
        {"deadline_exceeded", double(v.deadlineExceeded)},
        {"bad_tag_seconds", v.badTagSeconds},
        {"time_to_all_good_s", v.timeToAllGoodS ? QJsonValue(*v.timeToAllGoodS) : QJsonValue(QJsonValue::Null)},
        {"max_sta_queue_depth", double(v.maxStaQueueDepth)},
        {"suppressed_calls", double(v.suppressedCalls)},
    };
    if (includeWallMs) o.insert("wall_ms", double(v.wallMs));
    if (!v.gatewayMetricsSource.isEmpty()) o.insert("gateway_metrics_source", v.gatewayMetricsSource);
    if (!v.skippedActions.isEmpty()) o.insert("skipped_actions", QJsonArray::fromStringList(v.skippedActions));
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
