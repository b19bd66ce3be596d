#include "watch/fleet_metrics.h"

#include "client/command_latency.h"

#include <prometheus/text_serializer.h>

namespace stormwatch {

namespace {

ConnectionCounters plus(const ConnectionCounters& a, const ConnectionCounters& b)
{
    ConnectionCounters s = b;
    s.invokes += a.invokes;
    s.deadlineExceeded += a.deadlineExceeded;
    s.suppressedCalls += a.suppressedCalls;
    s.throttledRetries += a.throttledRetries;
    s.eventsReceived += a.eventsReceived;
    s.eventsLost += a.eventsLost;
    s.sessionRestarts += a.sessionRestarts;
    s.latencyCounts.resize(std::max(a.latencyCounts.size(), b.latencyCounts.size()));
    for (qsizetype i = 0; i < a.latencyCounts.size(); ++i)
        s.latencyCounts[i] += a.latencyCounts[i];
    s.latencySumS += a.latencySumS;
    s.latencyCount += a.latencyCount;
    return s;
}

prometheus::MetricType typeOf(ExportKind kind)
{
    switch (kind) {
    case ExportKind::Counter:
        return prometheus::MetricType::Counter;
    case ExportKind::Histogram:
        return prometheus::MetricType::Histogram;
    case ExportKind::Gauge:
        break;
    }
    return prometheus::MetricType::Gauge;
}

void setValue(prometheus::ClientMetric& m, ExportKind kind, double value)
{
    if (kind == ExportKind::Counter)
        m.counter.value = value;
    else
        m.gauge.value = value;
}

prometheus::ClientMetric::Histogram histogramOf(const ConnectionCounters& c)
{
    prometheus::ClientMetric::Histogram h;
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i < CommandLatency::kBoundsS.size(); ++i) {
        if (qsizetype(i) < c.latencyCounts.size())
            cumulative += std::uint64_t(c.latencyCounts[qsizetype(i)]);
        h.bucket.push_back({cumulative, CommandLatency::kBoundsS[i]});
    }
    h.bucket.push_back({std::uint64_t(c.latencyCount), std::numeric_limits<double>::infinity()});
    h.sample_count = std::uint64_t(c.latencyCount);
    h.sample_sum = c.latencySumS;
    return h;
}

} // namespace

FleetMetrics::FleetMetrics(QString version, double startTimeS)
    : m_version(std::move(version)), m_startTimeS(startTimeS)
{
}

void FleetMetrics::follow(const std::shared_ptr<FleetMetrics>& metrics, RunHost& host,
                          QObject* context)
{
    FleetMetrics* m = metrics.get();
    QObject::connect(&host, &RunHost::subscriptionSamples, context,
                     [m](const QVector<SubscriptionSample>& s) { m->update(s); });
    QObject::connect(&host, &RunHost::connectionInfo, context,
                     [m](const QVector<ConnectionInfo>& c) { m->update(c); });
    QObject::connect(&host, &RunHost::connectionCounters, context,
                     [m](const QVector<ConnectionCounters>& c) { m->update(c); });
}

void FleetMetrics::setRun(const Scenario& scenario)
{
    std::lock_guard lock(m_mutex);
    std::map<QString, ConnectionRow> connections;
    QHash<QString, QString> gatewayOf;
    for (const ScenarioConnection& c : scenario.connections) {
        const QString gateway = c.gateway.isEmpty() ? c.name : c.gateway;
        gatewayOf.insert(c.name, gateway);
        ConnectionRow row{gateway, c.name, {}, {}};
        if (const auto old = m_connections.find(c.name);
            old != m_connections.end() && old->second.gateway == gateway)
            row.before = plus(old->second.before, old->second.now.counters);
        connections.emplace(c.name, std::move(row));
    }
    std::map<QString, SubscriptionRow> subscriptions;
    for (const ScenarioInstance& i : scenario.instances) {
        const QString key = subscriptionKey(i.name, i.connection);
        SubscriptionRow row{
            gatewayOf.value(i.connection, i.connection), i.connection, i.name, {}, 0};
        row.sample.instanceName = i.name;
        row.sample.connection = i.connection;
        if (const auto old = m_subscriptions.find(key);
            old != m_subscriptions.end() && old->second.gateway == row.gateway)
            row.requestsBefore = old->second.requestsBefore + old->second.sample.requestsSent;
        subscriptions.emplace(key, std::move(row));
    }
    m_connections = std::move(connections);
    m_subscriptions = std::move(subscriptions);
}

void FleetMetrics::update(const QVector<SubscriptionSample>& samples)
{
    std::lock_guard lock(m_mutex);
    for (const SubscriptionSample& s : samples) {
        if (s.alarm)
            continue; // an alarm subscription has no tags of its own
        const auto it = m_subscriptions.find(subscriptionKey(s.instanceName, s.connection));
        if (it != m_subscriptions.end())
            it->second.sample = s;
    }
}

void FleetMetrics::update(const QVector<ConnectionInfo>& connections)
{
    std::lock_guard lock(m_mutex);
    for (const ConnectionInfo& info : connections)
        if (const auto it = m_connections.find(info.name); it != m_connections.end())
            it->second.now.state = info.state;
}

void FleetMetrics::update(const QVector<ConnectionCounters>& counters)
{
    std::lock_guard lock(m_mutex);
    for (const ConnectionCounters& c : counters)
        if (const auto it = m_connections.find(c.connection); it != m_connections.end())
            it->second.now.counters = c;
}

ConnectionView FleetMetrics::total(const ConnectionRow& row) const
{
    ConnectionView v = row.now;
    v.counters = plus(row.before, row.now.counters);
    return v;
}

std::vector<prometheus::MetricFamily> FleetMetrics::Collect() const
{
    std::lock_guard lock(m_mutex);
    std::vector<prometheus::MetricFamily> families;
    for (const ExportedMetric& metric : exportedMetrics()) {
        prometheus::MetricFamily family;
        family.name = metric.name.toStdString();
        family.help = metric.help.toStdString();
        family.type = typeOf(metric.kind);
        const QStringList splits =
            metric.splitValues.isEmpty() ? QStringList{QString()} : metric.splitValues;
        auto add = [&](std::vector<prometheus::ClientMetric::Label> labels, const QString& split,
                       double value) {
            prometheus::ClientMetric m;
            if (!metric.splitLabel.isEmpty())
                labels.push_back({metric.splitLabel.toStdString(), split.toStdString()});
            m.label = std::move(labels);
            setValue(m, metric.kind, value);
            family.metric.push_back(std::move(m));
        };
        switch (metric.scope) {
        case ExportScope::Subscription:
            for (const auto& [key, row] : m_subscriptions) {
                SubscriptionSample sample = row.sample;
                sample.requestsSent += row.requestsBefore;
                for (const QString& split : splits)
                    add({{"gateway", row.gateway.toStdString()},
                         {"connection", row.connection.toStdString()},
                         {"instance", row.instance.toStdString()}},
                        split, metric.subscription(sample, split));
            }
            break;
        case ExportScope::Connection:
            for (const auto& [name, row] : m_connections) {
                const ConnectionView view = total(row);
                std::vector<prometheus::ClientMetric::Label> labels{
                    {"gateway", row.gateway.toStdString()},
                    {"connection", row.connection.toStdString()}};
                if (metric.kind == ExportKind::Histogram) {
                    prometheus::ClientMetric m;
                    m.label = labels;
                    m.histogram = histogramOf(view.counters);
                    family.metric.push_back(std::move(m));
                    continue;
                }
                for (const QString& split : splits)
                    add(labels, split, metric.connection(view, split));
            }
            break;
        case ExportScope::Process:
            // A process metric with a label is the build's (its version); the other is the start.
            if (!metric.splitLabel.isEmpty())
                add({}, m_version, 1);
            else
                add({}, {}, m_startTimeS);
            break;
        }
        families.push_back(std::move(family));
    }
    return families;
}

std::string FleetMetrics::text() const
{
    return prometheus::TextSerializer().Serialize(Collect());
}

} // namespace stormwatch
