#pragma once

// What /metrics shows: the latest state of every subscription and connection of the watched
// run, fed by the run host's steps (one more consumer of them, beside a recorder) and read by
// Prometheus through prometheus-cpp's Collectable on the exposer's threads. Names, labels and
// help come from the exported-metrics table.
//
// Counters count since the service started: when a reloaded site restarts the run (whose own
// counts start at 0 again), the counts of connections and subscriptions that stay carry on
// from where they were. Series of instances or gateways the new site no longer has go.

#include "client/engine_samples.h"
#include "scenario/run_host.h"
#include "scenario/scenario.h"
#include "watch/exported_metrics.h"

#include <QHash>
#include <QString>
#include <map>
#include <memory>
#include <mutex>
#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>
#include <string>
#include <vector>

namespace stormwatch {

class FleetMetrics : public prometheus::Collectable {
public:
    // `version`: the build_info label; `startTimeS`: the process start (seconds since epoch).
    FleetMetrics(QString version, double startTimeS);

    // Takes every step of `host` from now on (until `context` goes): the subscriptions'
    // samples, the connections' states and counters. The caller keeps `metrics` alive as long.
    static void follow(const std::shared_ptr<FleetMetrics>& metrics, RunHost& host,
                       QObject* context);

    // The run now watched: its connections (and the gateways they reach) and its instances.
    void setRun(const Scenario& scenario);
    void update(const QVector<SubscriptionSample>& samples);
    void update(const QVector<ConnectionInfo>& connections);
    void update(const QVector<ConnectionCounters>& counters);

    std::vector<prometheus::MetricFamily> Collect() const override;
    // The Prometheus text exposition of Collect().
    std::string text() const;

private:
    struct SubscriptionRow {
        QString gateway, connection, instance;
        SubscriptionSample sample;
        qint64 requestsBefore = 0; // sent in earlier runs of the service
    };
    struct ConnectionRow {
        QString gateway, connection;
        ConnectionView now;        // counters of the current run
        ConnectionCounters before; // of earlier runs
    };
    static QString subscriptionKey(const QString& instance, const QString& connection)
    {
        return instance + QLatin1Char('\n') + connection;
    }
    ConnectionView total(const ConnectionRow& row) const; // before + now

    const QString m_version;
    const double m_startTimeS;
    mutable std::mutex m_mutex;
    std::map<QString, SubscriptionRow> m_subscriptions; // by subscriptionKey, sorted
    std::map<QString, ConnectionRow> m_connections;     // by connection name
};

} // namespace stormwatch
