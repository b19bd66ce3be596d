#pragma once

// The outcome of running one scenario: per variant, the metrics named in DESIGN.md
// "Metrics". Plain data plus its JSON form; CSV, Markdown and the report directory are
// in report_writers.h.

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

#include <optional>

namespace stormwatch {

// Keys of gateway_rpcs_by_kind are the MxCommand oneof field names of the gateway
// contract ("subscribe_bulk", "add_item_bulk", "advise_supervisory", ...).
namespace rpc_kind {
inline const QString kSubscribeBulk = QStringLiteral("subscribe_bulk");
inline const QString kAddItemBulk = QStringLiteral("add_item_bulk");
inline const QString kAdviseSupervisory = QStringLiteral("advise_supervisory");
}  // namespace rpc_kind

struct VariantMetrics {
    QString name;
    QJsonObject levers;  // the resolved lever set, in LeverSet's JSON form
    qint64 subscribeRequests = 0;
    int maxOutstanding = 0;
    qint64 gatewayRpcs = 0;
    QMap<QString, qint64> gatewayRpcsByKind;
    qint64 deadlineExceeded = 0;
    double badTagSeconds = 0;
    std::optional<double> timeToAllGoodS;  // nullopt: tags never all Good to the end
    qint64 maxStaQueueDepth = 0;
    qint64 suppressedCalls = 0;
    qint64 wallMs = 0;  // real time the variant took; the one non-deterministic figure
    // Live runs only: "gateway" when the gateway metrics are the gateway's own counters,
    // "client" when the gateway exposes none (a real one) and they are what this client
    // sent and saw fail — then max_sta_queue_depth is unknown and reported as 0.
    QString gatewayMetricsSource;
    QStringList skippedActions;  // timeline actions the gateway could not apply, with why
};

struct ScenarioReport {
    QString scenario;
    QString description;
    double durationS = 0;
    quint64 seed = 1;
    bool live = false;  // live gRPC run ("live") or virtual-time replay ("virtual")
    QList<VariantMetrics> variants;  // the first one is the baseline the others are compared with
};

// {"scenario", "description", "duration_s", "seed", "mode", "variants": [{"name",
// "levers", "subscribe_requests", "max_outstanding", "gateway_rpcs",
// "gateway_rpcs_by_kind", "deadline_exceeded", "bad_tag_seconds", "time_to_all_good_s"
// (null if never), "max_sta_queue_depth", "suppressed_calls", "wall_ms",
// "gateway_metrics_source" (live only), "skipped_actions" (only when some were)}]}
QJsonObject reportToJson(const ScenarioReport& report);
QJsonObject variantToJson(const VariantMetrics& variant, bool includeWallMs = true);

// Indented JSON text. Without wall_ms, two runs of the same virtual scenario and seed
// give byte-identical output — the determinism check.
QByteArray reportToJsonBytes(const ScenarioReport& report, bool includeWallMs);

}  // namespace stormwatch
