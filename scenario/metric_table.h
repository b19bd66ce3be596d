#pragma once

// The one metric table: every per-variant metric of a report is one descriptor here, in
// the order every output lists them (docs/ARCHITECTURE.md describes the metrics). report.json,
// report.csv, report.md's table and definitions, the command line's table, the compare view's rows
// and the console's metrics log line all iterate metricTable(); adding a metric is one entry in
// metric_table.cpp.

#include "scenario/report.h"

#include <QList>
#include <QString>
#include <QStringList>
#include <optional>

namespace stormwatch {

// Which way a metric gets better; the compare view marks the best of a ranked row.
enum class Better { Lower, Higher, Unranked };

enum class MetricFormat {
    Integer,    // 12345 (12,345 grouped)
    OneDecimal, // 12.3
};

enum class MetricShape {
    Scalar, // one number (or no value) per variant
    ByKind, // gateway_rpcs_by_kind: a count per Invoke command kind, a nested object / a row per
            // kind
};

// Digit grouping for people (report.md); plain for tools and narrow tables.
enum class Digits { Plain, Grouped };

struct MetricDescriptor {
    const char* key;         // the report-JSON key, also the CSV column and the row name
    const char* label;       // a short title ("Tag-seconds not Good")
    const char* unit;        // "calls", "tag-s", "s", ...
    const char* description; // one sentence: what it measures (tooltip, report.md's definitions)
    const char* howToRead;   // what a value means for the reader
    Better better;
    MetricFormat format;
    // The value of one variant; nullopt = no value. Null for a ByKind metric.
    std::optional<double> (*value)(const VariantMetrics&);
    // With no value, a lower bound when one is known: shown "≥ N", JSON "<key>_at_least".
    std::optional<double> (*lowerBound)(const VariantMetrics&) = nullptr;
    // Shown for no value: "never" (time_to_all_good_s) or "n/a"; JSON null, an empty CSV cell.
    const char* absent = "n/a";
    MetricShape shape = MetricShape::Scalar;
    // False for wall_ms: left out of the byte-identical JSON of the determinism check.
    bool deterministic = true;
    // ByKind: the key of the total it breaks down ("gateway_rpcs"); report.md names the
    // per-kind rows "<total>: <kind>".
    const char* breaksDown = nullptr;
    // In one-line summaries of a run (`--recording-info`): the few that say how it went.
    bool summary = false;

    QString keyString() const { return QString::fromLatin1(key); }
    QString labelString() const { return QString::fromUtf8(label); }
    QString unitString() const { return QString::fromUtf8(unit); }
    QString descriptionString() const { return QString::fromUtf8(description); }
    QString howToReadString() const { return QString::fromUtf8(howToRead); }
    // Description, how to read it and the unit: a tooltip.
    QString tooltip() const;

    // The value as text: integers without decimals, seconds with one decimal, "≥ N" for
    // no value but a lower bound, `absent` for no value. A ByKind metric has no single value:
    // empty.
    QString text(const VariantMetrics& v, Digits digits = Digits::Plain) const;
    QString text(std::optional<double> value, Digits digits = Digits::Plain) const;
};

// Every metric, in report order (gateway_rpcs_by_kind right after gateway_rpcs).
const QList<MetricDescriptor>& metricTable();
// The descriptor of a key, or nullptr.
const MetricDescriptor* findMetric(const QString& key);

// The Invoke command kinds that make up subscribe_rpcs and teardown_rpcs (MxCommand oneof
// field names, as in gateway_rpcs_by_kind).
const QStringList& subscribeRpcKinds(); // add_item_bulk, subscribe_bulk, advise_supervisory,
                                        // advise, advise_item_bulk, add_item
const QStringList& teardownRpcKinds();  // remove_item, un_advise

// ByKind helpers: the kinds any variant of the report has, sorted; one variant's count of
// a kind (0 when it has none).
QStringList rpcKinds(const ScenarioReport& report);
double rpcKindCount(const VariantMetrics& v, const QString& kind);

} // namespace stormwatch
