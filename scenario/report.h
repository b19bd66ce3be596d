#pragma once

// The outcome of running one scenario: per variant, the metrics of the metric table
// (metric_table.h). Plain data plus its JSON form; CSV, Markdown and the report directory are
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
} // namespace rpc_kind

// A gateway whose STA queue the run did not read at every sample (once a second).
struct StaQueueGap {
    enum class Kind {
        NoControlService, // nothing to read it from (a real gateway)
        NeverRead,        // a control service, but no read answered (down, or answered late)
        Partly,           // read at some samples only
    };
    QString gateway; // "": the run's one gateway
    Kind kind = Kind::Partly;
    int readSamples = 0;
    int samples = 0;
};

// "gw-real has no control service to read it from", "the STA queue of gw-b was read at
// only 3 of 10 samples (once a second)", ...: what a report says of one gap.
QString staQueueGapText(const StaQueueGap& gap);

struct VariantMetrics {
    QString name;
    QJsonObject levers; // the resolved lever set, in LeverSet's JSON form
    qint64 subscribeRequests = 0;
    int maxOutstanding = 0;
    qint64 gatewayRpcs = 0;
    QMap<QString, qint64> gatewayRpcsByKind;
    qint64 deadlineExceeded = 0;
    double badTagSeconds = 0;
    std::optional<double> timeToAllGoodS; // nullopt: tags never all Good to the end
    // What time_to_all_good_s is measured from: "last fault" (the end of the last fault
    // the gateway applied), "start" (none applied; skipped faults do not count).
    QString timeToAllGoodFrom = QStringLiteral("start");
    // nullopt: the gateway exposes no queue (a real one); never reported as 0. Also when
    // some gateway's queue was not read at every sample (staQueueGaps names them): then
    // the deepest queue that was read is a lower bound (maxStaQueueDepthAtLeast, "≥ N").
    std::optional<qint64> maxStaQueueDepth;
    std::optional<qint64> maxStaQueueDepthAtLeast;
    QList<StaQueueGap> staQueueGaps;
    qint64 suppressedCalls = 0;
    // Subscribe retries the retry budget held back (lever retry_budget).
    qint64 throttledRetries = 0;
    // Events the gateway numbered (worker_sequence) that never reached the client; 0 where
    // the contract does not number its events.
    qint64 eventsLost = 0;
    // Sum over deployed tags of the seconds each was orphaned: not Good, no live route, no
    // subscribe in flight and no retry scheduled (the "no orphaned tags" invariant).
    double orphanedTagSeconds = 0;
    // Sum over deployed tags of the seconds each showed Good while its gateway was
    // unresponsive (Instance::frozenTags): a value shown as current that may be long gone.
    double frozenTagSeconds = 0;
    // Sum over deployed tags of the seconds each showed Good while its last update was older
    // than its kind allows (expected_update_s × stale_factor): a value that stopped changing.
    double staleTagSeconds = 0;
    // Connection-seconds the gateways were unresponsive (silent while not known gone).
    double unresponsiveSeconds = 0;
    // The gateway's own count: the most subscribes (subscribe_bulk / add_item_bulk) for one
    // tag set on one session outstanding at once; nullopt when the gateway has no counters.
    std::optional<qint64> maxGatewayOutstandingSubscribes;
    // Seconds from the run's start until every connection had its first session; nullopt
    // if one never did. Live runs on a shared gateway compare it across variants.
    std::optional<double> connectedAfterS;
    qint64 wallMs = 0; // real time the variant took; the one non-deterministic figure
    // Live runs only: "gateway" when the gateway metrics are the gateway's own counters,
    // "client" when the gateway exposes none (a real one) and they are what this client
    // sent and saw fail — then max_sta_queue_depth is unknown (null).
    QString gatewayMetricsSource;
    QStringList skippedActions; // timeline actions the gateway could not apply, with why
    QStringList notes;          // what the reader must know about this run (clean start, ...)
};

struct ScenarioReport {
    QString scenario;
    QString description;
    double durationS = 0;
    quint64 seed = 1;
    bool live = false;              // live gRPC run ("live") or virtual-time replay ("virtual")
    QList<VariantMetrics> variants; // the first one is the baseline the others are compared with
};

// {"scenario", "description", "duration_s", "seed", "mode", "variants": [{"name",
// "levers", every metric of metricTable() (scenario/metric_table.h) under its key — null
// for no value, gateway_rpcs_by_kind an object of counts per kind —,
// "time_to_all_good_from", "gateway_metrics_source" (live only), "skipped_actions" and
// "notes" (only when there are some), "<key>_at_least" for a metric known only as a lower
// bound (max_sta_queue_depth_at_least), "sta_queue_gaps": [{"gateway", "read": "no control
// service" | "never" | "partly", "read_samples", "samples"}] (only when there are some)}]}
QJsonObject reportToJson(const ScenarioReport& report);
QJsonObject variantToJson(const VariantMetrics& variant, bool includeWallMs = true);

// Indented JSON text. Without wall_ms, two runs of the same virtual scenario and seed
// give byte-identical output — the determinism check.
QByteArray reportToJsonBytes(const ScenarioReport& report, bool includeWallMs);

} // namespace stormwatch
