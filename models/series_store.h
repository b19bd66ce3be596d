#pragma once
// Time series the plots read: per subscription (instance × connection, or an instance's alarm
// subscription) and per gateway. Fed in batches of the run's own recorded series (the run
// host's steps, ≤ 20 per second; a recording or finished run: loaded whole). Every series is a STEP
// series with a point per change: a value holds from its point until the next one (and after the
// last one, until latestTime()). The gateway series are the run's aggregate (subject
// "gateway") and, for a run on several gateways, each gateway's own (subject
// "gateway:NAME"): the plots' gateway filter shows one of them. No widgets here.

#include "client/engine_samples.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QMap>
#include <QObject>
#include <QPointF>
#include <QString>
#include <QStringList>
#include <QVector>
#include <array>
#include <cstddef>
#include <limits>

namespace stormwatch {

struct SubscriptionKey {
    int instance = -1;
    bool alarm = false;
    friend bool operator==(const SubscriptionKey&, const SubscriptionKey&) = default;
    friend bool operator<(const SubscriptionKey& a, const SubscriptionKey& b)
    {
        return a.instance != b.instance ? a.instance < b.instance : (!a.alarm && b.alarm);
    }
};
inline size_t qHash(const SubscriptionKey& k, size_t seed = 0) noexcept
{
    return ::qHash((qint64(k.instance) << 1) | (k.alarm ? 1 : 0), seed);
}

// Stale: of the Good tags, those whose last update is older than their kind allows.
// Orphaned: not Good with no live item, nothing in flight and no retry scheduled (a client
// bug). Frozen: Good while the connection is unresponsive (a value that may be long gone).
enum class SubMetric {
    Outstanding,
    IntervalS,
    Good,
    Uncertain,
    Bad,
    RequestsSent,
    Stale,
    Orphaned,
    Frozen
};
inline constexpr int kSubMetricCount = 9;
enum class GatewayMetric {
    StaQueueDepth,
    InvokeRps,
    DeadlineExceededPerS,
    SuppressedPerS,
    RecoveryState // 0 normal, 1 recovering, 2 closed
};
inline constexpr int kGatewayMetricCount = 5;

// The series' metric names (as the recorder names them), used as CSV column names.
QString metricName(SubMetric m);
QString metricName(GatewayMetric m);

class SeriesStore : public QObject {
    Q_OBJECT
public:
    explicit SeriesStore(QObject* parent = nullptr);

    // Points older than latestTime() - seconds are dropped (<= 0 or infinity: keep all).
    // The last dropped point of a series is kept so the value in force at the cut is known.
    void setRetentionSeconds(double seconds);
    double retentionSeconds() const { return m_retentionS; }
    // A run's own recorded series (scenario/series.h), by metric name: the plots then
    // show exactly the points the report is made of. interval_ms is shown in seconds; names
    // the plots do not draw are ignored. A gateway update (instance < 0) labelled
    // "gateway:NAME" (or NAME) is that gateway's own series; unlabelled or "gateway", the
    // run's aggregate.
    void appendSeries(const QVector<stormwatch::SeriesUpdate>& updates);
    // The run is at `t` (its recorder stores points on change only): every step series holds
    // its value up to here.
    void advanceTo(double t);
    void clear();

    // Whole series at once (a finished virtual run). Points must be sorted by time; they are
    // kept whole (retention applies on the next live append only).
    void loadSeries(SubscriptionKey key, const QString& label, SubMetric metric,
                    QVector<QPointF> points);
    void loadGatewaySeries(GatewayMetric metric, QVector<QPointF> points,
                           const QString& gateway = {});

    QList<SubscriptionKey> subscriptions() const; // sorted by instance, alarm last
    bool contains(SubscriptionKey key) const { return m_subs.contains(key); }
    QString label(SubscriptionKey key) const; // "Z28061 × gw1" / "Z28061 alarms"
    const QVector<QPointF>& series(SubscriptionKey key, SubMetric metric) const;
    // gateway "": the run's aggregate; else that gateway's own series (empty when it has none).
    const QVector<QPointF>& gatewaySeries(GatewayMetric metric, const QString& gateway = {}) const;
    // The gateways that have series of their own, sorted.
    QStringList gatewayNames() const { return m_gatewayOf.keys(); }
    // The gateway a subscription update's label names: "gateway:NAME" or NAME -> NAME,
    // "" and "gateway" (the aggregate) -> "".
    static QString gatewayOfLabel(const QString& label);

    double latestTime() const; // NaN when empty
    double earliestTime() const;
    // Step lookup: the value of the last point at or before t; NaN before the first point.
    double valueAt(SubscriptionKey key, SubMetric metric, double t) const;
    double gatewayValueAt(GatewayMetric metric, double t, const QString& gateway = {}) const;
    static double stepValueAt(const QVector<QPointF>& series, double t);

    std::size_t pointCount() const;
    std::size_t approxBytes() const;
    // Bumped when series are replaced or removed rather than appended to (clear, load):
    // readers that mirror the data incrementally resynchronise from scratch.
    quint64 generation() const { return m_generation; }

    // One row per distinct timestamp in [from, to] (plus one at `from` with the values in
    // force there), a column per series of `keys` and per non-empty gateway series, each
    // step-filled; empty cell where a series has no value yet. interval is written in ms.
    // gateway "": the aggregate gateway columns ("gateway/..."); else that gateway's
    // ("gateway:NAME/...").
    QByteArray toCsv(double from, double to, const QList<SubscriptionKey>& keys,
                     const QString& gateway = {}) const;

signals:
    void subscriptionsChanged();
    void appended();

private:
    struct Subscription {
        QString label;
        std::array<QVector<QPointF>, kSubMetricCount> series;
    };

    static void appendStep(QVector<QPointF>& series, double t, double value);
    void noteTime(double t);
    void pruneIfDue();
    void prune(QVector<QPointF>& series, double cutoff) const;

    QHash<SubscriptionKey, Subscription> m_subs;
    using GatewaySeries = std::array<QVector<QPointF>, kGatewayMetricCount>;
    GatewaySeries m_gateway;                  // the run's aggregate
    QMap<QString, GatewaySeries> m_gatewayOf; // each gateway's own, by name
    double m_retentionS = 3600;
    double m_latest = std::numeric_limits<double>::quiet_NaN();
    double m_lastPruneAt = -std::numeric_limits<double>::infinity();
    quint64 m_generation = 0;
};

} // namespace stormwatch

Q_DECLARE_METATYPE(stormwatch::SubscriptionKey)
