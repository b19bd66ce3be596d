#include "watch/exported_metrics.h"

#include "scenario/metric_table.h"

namespace stormwatch {

namespace {

using Split = const QString&;

ExportedMetric gauge(const char* name, const char* help,
                     double (*value)(const SubscriptionSample&, Split))
{
    ExportedMetric m;
    m.name = kExportPrefix + QLatin1String(name);
    m.help = QString::fromUtf8(help);
    m.subscription = value;
    return m;
}

// The live count of a run metric (metric table): its key names it, its description helps.
ExportedMetric liveCount(const char* reportKey, ExportScope scope)
{
    ExportedMetric m;
    m.kind = ExportKind::Counter;
    m.scope = scope;
    m.reportKey = QLatin1String(reportKey);
    m.name = kExportPrefix + m.reportKey + QStringLiteral("_total");
    const MetricDescriptor* d = findMetric(m.reportKey);
    m.help = d ? d->descriptionString() : QString();
    return m;
}

ExportedMetric counter(const char* name, const char* help,
                       double (*value)(const ConnectionView&, Split))
{
    ExportedMetric m;
    m.kind = ExportKind::Counter;
    m.scope = ExportScope::Connection;
    m.name = kExportPrefix + QLatin1String(name);
    m.help = QString::fromUtf8(help);
    m.connection = value;
    return m;
}

ExportedMetric stateSet(const char* name, const char* help, const QStringList& states,
                        double (*value)(const ConnectionView&, Split))
{
    ExportedMetric m;
    m.scope = ExportScope::Connection;
    m.name = kExportPrefix + QLatin1String(name);
    m.help = QString::fromUtf8(help);
    m.splitLabel = QStringLiteral("state");
    m.splitValues = states;
    m.connection = value;
    return m;
}

std::vector<ExportedMetric> makeTable()
{
    std::vector<ExportedMetric> t;

    ExportedMetric tags =
        gauge("tags",
              "Tags of the subscription by quality: good, uncertain (last usable value), bad, and "
              "stale (Good but older than its kind's expected update period; not counted in good).",
              [](const SubscriptionSample& s, Split q) -> double {
                  if (q == QLatin1String("good"))
                      return s.good - s.stale;
                  if (q == QLatin1String("uncertain"))
                      return s.uncertain;
                  if (q == QLatin1String("bad"))
                      return s.bad;
                  return s.stale;
              });
    tags.splitLabel = QStringLiteral("quality");
    tags.splitValues = {QStringLiteral("good"), QStringLiteral("uncertain"), QStringLiteral("bad"),
                        QStringLiteral("stale")};
    t.push_back(tags);
    t.push_back(gauge("orphaned_tags",
                      "Tags not Good with nothing in flight and no retry scheduled: nobody will "
                      "ever subscribe them again.",
                      [](const SubscriptionSample& s, Split) -> double { return s.orphaned; }));
    t.push_back(gauge("frozen_tags",
                      "Tags that show Good while their connection is unresponsive: their values "
                      "may have changed at the gateway.",
                      [](const SubscriptionSample& s, Split) -> double { return s.frozen; }));
    t.push_back(gauge("outstanding_subscribes",
                      "Subscribe requests of the subscription sent and not yet answered (Lever 1 "
                      "allows one).",
                      [](const SubscriptionSample& s, Split) -> double { return s.outstanding; }));
    t.push_back(gauge("retry_interval_seconds", "The subscription's current retry interval.",
                      [](const SubscriptionSample& s, Split) { return s.intervalMs / 1000.0; }));
    t.push_back(gauge("retry_interval_max_seconds",
                      "The longest retry interval the subscription's guard backs off to under "
                      "the current levers.",
                      [](const SubscriptionSample& s, Split) { return s.maxIntervalMs / 1000.0; }));
    ExportedMetric requests = liveCount("subscribe_requests", ExportScope::Subscription);
    requests.subscription = [](const SubscriptionSample& s, Split) {
        return double(s.requestsSent);
    };
    t.push_back(requests);

    struct Live {
        const char* key;
        double (*value)(const ConnectionView&, Split);
    };
    for (const Live& live : {
             Live{"gateway_rpcs",
                  [](const ConnectionView&c, Split) { return double(c.counters.invokes); }},
             Live{"deadline_exceeded", [](const ConnectionView&c,
                                          Split) { return double(c.counters.deadlineExceeded); }},
             Live{"suppressed_calls",
                  [](const ConnectionView&c, Split) { return double(c.counters.suppressedCalls); }},
             Live{"throttled_retries", [](const ConnectionView&c,
                                          Split) { return double(c.counters.throttledRetries); }},
             Live{"events_lost",
                  [](const ConnectionView&c, Split) { return double(c.counters.eventsLost); }},
         }) {
        ExportedMetric m = liveCount(live.key, ExportScope::Connection);
        m.connection = live.value;
        t.push_back(m);
    }
    t.push_back(
        counter("events_received_total", "Data changes received from the gateway.",
                [](const ConnectionView& c, Split) { return double(c.counters.eventsReceived); }));
    t.push_back(
        counter("session_restarts_total",
                "Sessions opened after the first: each is a reconnect after a lost "
                "session, with every tag subscribed again.",
                [](const ConnectionView& c, Split) { return double(c.counters.sessionRestarts); }));
    t.push_back(stateSet(
        "connection_state", "The connection's state: 1 for the state it is in, 0 for the others.",
        connectionStates(),
        [](const ConnectionView& c, Split s) { return c.state == s ? 1.0 : 0.0; }));
    t.push_back(stateSet("recovery_state",
                         "The recovery gate of the connection's gateway: 1 for its state, 0 for "
                         "the others.",
                         recoveryStates(), [](const ConnectionView& c, Split s) {
                             return c.counters.recoveryState == s ? 1.0 : 0.0;
                         }));
    ExportedMetric latency;
    latency.kind = ExportKind::Histogram;
    latency.scope = ExportScope::Connection;
    latency.name = kExportPrefix + QStringLiteral("command_latency_seconds");
    latency.help = QStringLiteral("Round trip of the Invoke commands the gateway answered.");
    t.push_back(latency);

    ExportedMetric start;
    start.scope = ExportScope::Process;
    start.name = kExportPrefix + QStringLiteral("process_start_time_seconds");
    start.help = QStringLiteral("When the watch service started, in seconds since the epoch.");
    t.push_back(start);
    ExportedMetric build;
    build.scope = ExportScope::Process;
    build.name = kExportPrefix + QStringLiteral("build_info");
    build.help = QStringLiteral("Always 1; its version label is the stormwatch version.");
    build.splitLabel = QStringLiteral("version");
    t.push_back(build);
    return t;
}

} // namespace

const std::vector<ExportedMetric>& exportedMetrics()
{
    static const std::vector<ExportedMetric> table = makeTable();
    return table;
}

const ExportedMetric* findExported(const QString& name)
{
    for (const ExportedMetric& m : exportedMetrics())
        if (m.name == name)
            return &m;
    return nullptr;
}

const QStringList& connectionStates()
{
    static const QStringList states = {
        QStringLiteral("connecting"),   QStringLiteral("connected"),
        QStringLiteral("unresponsive"), QStringLiteral("reconnecting"),
        QStringLiteral("unreachable"),  QStringLiteral("refused"),
        QStringLiteral("stopped")};
    return states;
}

const QStringList& recoveryStates()
{
    static const QStringList states = {QStringLiteral("normal"), QStringLiteral("recovering"),
                                       QStringLiteral("closed")};
    return states;
}

} // namespace stormwatch
