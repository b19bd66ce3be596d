#pragma once
// Test data for a SeriesStore in the one form the console feeds it: a run's recorded series
// (SeriesUpdate, as the run host's seriesUpdates and a reopened recording carry them), one
// update per metric. Header only: `#include "models/support_series_updates.h"`.

#include "client/engine_samples.h"
#include "models/series_store.h"

#include <QString>
#include <QVector>

namespace stormwatch::testsupport {

// One subscription's plotted values at one time.
struct SubscriptionStep {
    double t = 0;
    int instance = 0;
    int outstanding = 0;
    double intervalMs = 5000;
    int good = 0;
    int bad = 0;
    int uncertain = 0;
    qint64 requestsSent = 0;
    int stale = 0;
    int orphaned = 0;
    int frozen = 0;
    QString label{}; // "" → "Z<28061 + instance> × gw1"
};

// One gateway's plotted values at one time; gateway "" is the run's aggregate.
struct GatewayStep {
    double t = 0;
    double staQueueDepth = 0;
    double invokeRps = 0;
    double deadlineExceededPerS = 0;
    double suppressedPerS = 0;
    int recoveryState = 0; // 0 normal, 1 recovering, 2 closed
    QString gateway{};
};

// The common case: a subscription's outstanding requests, interval and tags by quality.
inline SubscriptionStep sample(double t, int instance, int outstanding, double intervalMs = 5000,
                               int good = 0, int bad = 0)
{
    return SubscriptionStep{.t = t,
                            .instance = instance,
                            .outstanding = outstanding,
                            .intervalMs = intervalMs,
                            .good = good,
                            .bad = bad};
}

inline QString subscriptionLabelOf(const SubscriptionStep& s)
{
    return s.label.isEmpty() ? QStringLiteral("Z%1 × gw1").arg(28061 + s.instance) : s.label;
}

inline QVector<SeriesUpdate> seriesOf(const QVector<SubscriptionStep>& steps)
{
    QVector<SeriesUpdate> out;
    for (const SubscriptionStep& s : steps) {
        const double values[kSubMetricCount] = {
            double(s.outstanding), s.intervalMs,       double(s.good),
            double(s.uncertain),   double(s.bad),      double(s.requestsSent),
            double(s.stale),       double(s.orphaned), double(s.frozen)};
        for (int m = 0; m < kSubMetricCount; ++m)
            out.push_back(SeriesUpdate{s.instance,
                                       subscriptionLabelOf(s),
                                       metricName(SubMetric(m)),
                                       {QPointF(s.t, values[m])}});
    }
    return out;
}

inline QVector<SeriesUpdate> seriesOf(const GatewayStep& g)
{
    const double values[kGatewayMetricCount] = {g.staQueueDepth, g.invokeRps,
                                                g.deadlineExceededPerS, g.suppressedPerS,
                                                double(g.recoveryState)};
    const QString label = g.gateway.isEmpty() ? QString() : QStringLiteral("gateway:") + g.gateway;
    QVector<SeriesUpdate> out;
    for (int m = 0; m < kGatewayMetricCount; ++m)
        out.push_back(
            SeriesUpdate{-1, label, metricName(GatewayMetric(m)), {QPointF(g.t, values[m])}});
    return out;
}

inline void feed(SeriesStore& store, const QVector<SubscriptionStep>& steps)
{
    store.appendSeries(seriesOf(steps));
}

inline void feed(SeriesStore& store, const GatewayStep& step)
{
    store.appendSeries(seriesOf(step));
}

} // namespace stormwatch::testsupport
