#pragma once

// The one table of what the watch service exports to Prometheus: every metric's name, type,
// labels and help, and where its value comes from. /metrics, docs/fleet.md's table (checked by
// a test) and the alert rules' names all follow it. A counter that is the live count of a run
// metric names that metric: its name is "stormwatch_<key>_total" and its help the metric
// table's description, so a report and a scrape say the same thing in the same words.

#include "client/engine_samples.h"

#include <QString>
#include <QStringList>
#include <vector>

namespace stormwatch {

// Whose series a metric has: one per subscription (labels gateway, connection, instance), one
// per connection (gateway, connection), or one for the process.
enum class ExportScope { Subscription, Connection, Process };
enum class ExportKind { Gauge, Counter, Histogram };

// What the service knows of one connection: its state and its counters since the service
// started (carried over when a reloaded site restarts the run).
struct ConnectionView {
    QString state = QStringLiteral("connecting");
    ConnectionCounters counters;
};

struct ExportedMetric {
    QString name; // with the stormwatch_ prefix (and _total for a counter)
    ExportKind kind = ExportKind::Gauge;
    ExportScope scope = ExportScope::Subscription;
    QString help;
    QString reportKey; // the run metric a counter counts live ("" when none)
    // A label that splits the metric into one series per value ("quality": good, uncertain,
    // bad, stale), each 0 or 1 for a state set ("state" of a connection).
    QString splitLabel;
    QStringList splitValues;
    // The value: of a subscription's latest sample, or of a connection, for `split` (one of
    // splitValues, or "" when there is no split). Histograms read the connection's latency.
    double (*subscription)(const SubscriptionSample&, const QString& split) = nullptr;
    double (*connection)(const ConnectionView&, const QString& split) = nullptr;
};

inline const QString kExportPrefix = QStringLiteral("stormwatch_");

// Every exported metric, in /metrics order.
const std::vector<ExportedMetric>& exportedMetrics();
// The metric of a name, or nullptr.
const ExportedMetric* findExported(const QString& name);

// The connection states and recovery states a state set lists (ConnectionInfo::state,
// ConnectionCounters::recoveryState).
const QStringList& connectionStates();
const QStringList& recoveryStates();

} // namespace stormwatch
