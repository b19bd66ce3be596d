#include "scenario/metric_table.h"

#include <QLocale>
#include <cmath>

namespace stormwatch {

namespace {

std::optional<double> some(double d)
{
    return d;
}

template <typename T> std::optional<double> maybe(const std::optional<T>& v)
{
    return v ? std::optional<double>(double(*v)) : std::nullopt;
}

double sumOfKinds(const VariantMetrics& v, const QStringList& kinds)
{
    double sum = 0;
    for (const QString& k : kinds)
        sum += rpcKindCount(v, k);
    return sum;
}

QString grouped(qint64 n)
{
    QString digits = QString::number(n < 0 ? -n : n);
    for (int i = int(digits.size()) - 3; i > 0; i -= 3)
        digits.insert(i, QLatin1Char(','));
    return n < 0 ? QLatin1Char('-') + digits : digits;
}

} // namespace

const QStringList& subscribeRpcKinds()
{
    static const QStringList kinds{
        rpc_kind::kAddItemBulk,   rpc_kind::kSubscribeBulk,           rpc_kind::kAdviseSupervisory,
        QStringLiteral("advise"), QStringLiteral("advise_item_bulk"), QStringLiteral("add_item")};
    return kinds;
}

const QStringList& teardownRpcKinds()
{
    static const QStringList kinds{QStringLiteral("remove_item"), QStringLiteral("un_advise")};
    return kinds;
}

const QList<MetricDescriptor>& metricTable()
{
    // clang-format off
    static const QList<MetricDescriptor> table = {
        {.key = "subscribe_requests",
         .label = "Subscribe requests",
         .unit = "requests",
         .description = "Tag-subscribe requests the instances sent (alarm subscriptions apart).",
         .howToRead = "Every re-send of an unanswered subscribe counts again: far more requests than subscriptions "
                      "means retries piled up.",
         .better = Better::Lower,
         .format = MetricFormat::Integer,
         .value = [](const VariantMetrics& v) { return some(double(v.subscribeRequests)); },
         .summary = true},
        {.key = "max_outstanding",
         .label = "Most outstanding subscribes",
         .unit = "requests",
         .description = "The most subscribe requests of one subscription (instance × connection) that were sent and "
                        "neither answered nor superseded at the same moment.",
         .howToRead = "Above 1 means re-sends stacked up on a gateway that had not answered the earlier ones; the "
                      "in-flight guard keeps it at 1.",
         .better = Better::Lower,
         .format = MetricFormat::Integer,
         .value = [](const VariantMetrics& v) { return some(double(v.maxOutstanding)); }},
        {.key = "max_gateway_outstanding_subscribes",
         .label = "Most outstanding subscribes at the gateway",
         .unit = "subscribes",
         .description = "The gateway's own count: the most subscribes (subscribe_bulk or add_item_bulk) for one tag "
                        "set on one session that it had received and not yet answered at once.",
         .howToRead = "Above 1 means the gateway was working on the same subscribe more than once; n/a when the "
                      "gateway exposes no counters.",
         .better = Better::Lower,
         .format = MetricFormat::Integer,
         .value = [](const VariantMetrics& v) { return maybe(v.maxGatewayOutstandingSubscribes); }},
        {.key = "gateway_rpcs",
         .label = "Gateway calls",
         .unit = "calls",
         .description = "`Invoke` calls the gateway received, all command kinds together.",
         .howToRead = "Each one is a command queued for the gateway's single command thread (the STA); "
                      "gateway_rpcs_by_kind breaks it down.",
         .better = Better::Lower,
         .format = MetricFormat::Integer,
         .value = [](const VariantMetrics& v) { return some(double(v.gatewayRpcs)); }},
        {.key = "gateway_rpcs_by_kind",
         .label = "Gateway calls by kind",
         .unit = "calls",
         .description = "`Invoke` calls the gateway received, per command kind (add_item_bulk, advise_supervisory, "
                        "subscribe_bulk, ...).",
         .howToRead = "Shows what the calls were: the per-tag fan-out costs 1 + N calls per subscribe (one "
                      "add_item_bulk, one advise_supervisory per tag), the bulk supervisory subscribe one subscribe_bulk.",
         .better = Better::Lower,
         .format = MetricFormat::Integer,
         .value = nullptr,
         .shape = MetricShape::ByKind,
         .breaksDown = "gateway_rpcs"},
        {.key = "subscribe_rpcs",
         .label = "Subscribe calls",
         .unit = "calls",
         .description = "`Invoke` calls that subscribe tags: add_item_bulk, subscribe_bulk, advise_supervisory, advise, "
                        "advise_item_bulk and add_item together.",
         .howToRead = "The gateway's share of the subscribe work; against subscribe_requests it shows what one "
                      "subscribe costs the gateway.",
         .better = Better::Lower,
         .format = MetricFormat::Integer,
         .value = [](const VariantMetrics& v) { return some(sumOfKinds(v, subscribeRpcKinds())); }},
        {.key = "teardown_rpcs",
         .label = "Teardown calls",
         .unit = "calls",
         .description = "`Invoke` calls that take subscriptions down: remove_item and un_advise together.",
         .howToRead = "They follow from undeploys, redeploys and superseded subscribes rather than from the load, so "
                      "they are not ranked.",
         .better = Better::Unranked,
         .format = MetricFormat::Integer,
         .value = [](const VariantMetrics& v) { return some(sumOfKinds(v, teardownRpcKinds())); }},
        {.key = "deadline_exceeded",
         .label = "Expired calls",
         .unit = "calls",
         .description = "`Invoke` calls that failed because their command waited longer than the session's command "
                        "timeout.",
         .howToRead = "The STA still runs an expired command later, so each one is wasted gateway work and, for a "
                      "subscribe, another retry.",
         .better = Better::Lower,
         .format = MetricFormat::Integer,
         .value = [](const VariantMetrics& v) { return some(double(v.deadlineExceeded)); }},
        {.key = "bad_tag_seconds",
         .label = "Tag-seconds not Good",
         .unit = "tag-s",
         .description = "Summed over all deployed tags, the seconds each was not Good.",
         .howToRead = "The outcome in one number: 10 tags not Good for 30 s make 300.",
         .better = Better::Lower,
         .format = MetricFormat::OneDecimal,
         .value = [](const VariantMetrics& v) { return some(v.badTagSeconds); }},
        {.key = "orphaned_tag_seconds",
         .label = "Orphaned tag-seconds",
         .unit = "tag-s",
         .description = "Tag-seconds a deployed tag was not Good with no live subscription, nothing in flight and no "
                        "retry scheduled — a tag nobody will ever fix.",
         .howToRead = "Guarded variants must keep it at 0; above 0 the client had given up on tags that were still "
                      "not Good, and only a restart would have brought them back.",
         .better = Better::Lower,
         .format = MetricFormat::OneDecimal,
         .value = [](const VariantMetrics& v) { return some(v.orphanedTagSeconds); }},
        {.key = "frozen_tag_seconds",
         .label = "Frozen tag-seconds",
         .unit = "tag-s",
         .description = "Tag-seconds a deployed tag showed Good while its gateway was unresponsive — a value shown as "
                        "current that the gateway may have changed long ago.",
         .howToRead = "Must be 0 everywhere: a silent gateway's tags are Uncertain (last usable value), never Good; "
                      "above 0 the console showed a frozen plant as healthy.",
         .better = Better::Lower,
         .format = MetricFormat::OneDecimal,
         .value = [](const VariantMetrics& v) { return some(v.frozenTagSeconds); }},
        {.key = "stale_tag_seconds",
         .label = "Stale tag-seconds",
         .unit = "tag-s",
         .description = "Tag-seconds a deployed tag showed Good while its last update was older than its kind allows "
                        "(expected_update_s × stale_factor).",
         .howToRead = "A value that stopped changing while its connection looked fine: a silent item or a data "
                      "source gone quiet. Always 0 for tags without an expected update period (on change only).",
         .better = Better::Lower,
         .format = MetricFormat::OneDecimal,
         .value = [](const VariantMetrics& v) { return some(v.staleTagSeconds); }},
        {.key = "unresponsive_seconds",
         .label = "Unresponsive",
         .unit = "connection-s",
         .description = "Seconds, summed over connections, that a gateway was silent without being known gone: a "
                        "command past its deadline with nothing heard for as long, or a keepalive ping unanswered.",
         .howToRead = "Time the tags could only show last usable values; a freeze fault's length shows here, a "
                      "killed gateway's does not (it refuses, and is unreachable).",
         .better = Better::Lower,
         .format = MetricFormat::OneDecimal,
         .value = [](const VariantMetrics& v) { return some(v.unresponsiveSeconds); }},
        {.key = "time_to_all_good_s",
         .label = "Time to all Good",
         .unit = "s",
         .description = "Seconds from the end of the last fault the gateway applied (or from the start of the run, "
                        "when it applied none) until every tag was Good and stayed Good to the end.",
         .howToRead = "\"never\" if that did not happen; report.json's time_to_all_good_from says which moment it "
                      "counts from.",
         .better = Better::Lower,
         .format = MetricFormat::OneDecimal,
         .value = [](const VariantMetrics& v) { return v.timeToAllGoodS; },
         .absent = "never",
         .summary = true},
        {.key = "connected_after_s",
         .label = "Connected after",
         .unit = "s",
         .description = "Seconds from the start of the run until every connection had its first session with the "
                        "gateway.",
         .howToRead = "Matters most for live runs on a shared gateway, where a variant can start against a gateway "
                      "still busy with the previous one; n/a if a connection never had a session.",
         .better = Better::Lower,
         .format = MetricFormat::OneDecimal,
         .value = [](const VariantMetrics& v) { return maybe(v.connectedAfterS); }},
        {.key = "max_sta_queue_depth",
         .label = "Largest STA queue",
         .unit = "commands",
         .description = "The most commands waiting at once for the gateway's single command thread (the STA).",
         .howToRead = "Every call waits behind the queue, and fails once the wait passes the command timeout; n/a "
                      "when the gateway exposes no queue (a real one), \u2265 N when some gateway's queue was read "
                      "for only part of the run (N is the deepest read, a lower bound).",
         .better = Better::Lower,
         .format = MetricFormat::Integer,
         .value = [](const VariantMetrics& v) { return maybe(v.maxStaQueueDepth); },
         .lowerBound = [](const VariantMetrics& v) { return maybe(v.maxStaQueueDepthAtLeast); }},
        {.key = "suppressed_calls",
         .label = "Suppressed calls",
         .unit = "calls",
         .description = "Calls the recovery gate refused while recovering after failures.",
         .howToRead = "Not ranked: a refused call spares a failing gateway, and is retried later.",
         .better = Better::Unranked,
         .format = MetricFormat::Integer,
         .value = [](const VariantMetrics& v) { return some(double(v.suppressedCalls)); }},
        {.key = "throttled_retries",
         .label = "Throttled retries",
         .unit = "retries",
         .description = "Subscribe retries the retry budget held back: the gateway's bucket was half "
                        "spent by failures (lever retry_budget, gRFC A6).",
         .howToRead = "Not ranked: a held-back retry spares a failing gateway and waits for the next "
                      "tick; 0 whenever the lever is off.",
         .better = Better::Unranked,
         .format = MetricFormat::Integer,
         .value = [](const VariantMetrics& v) { return some(double(v.throttledRetries)); }},
        {.key = "events_lost",
         .label = "Events lost",
         .unit = "events",
         .description = "Events the gateway numbered (worker_sequence) that never reached the client: the gaps in "
                        "each event stream.",
         .howToRead = "Above 0 some tag may show a value the gateway has since changed; always 0 on a contract "
                      "without event numbers, which cannot tell.",
         .better = Better::Lower,
         .format = MetricFormat::Integer,
         .value = [](const VariantMetrics& v) { return some(double(v.eventsLost)); }},
        {.key = "wall_ms",
         .label = "Wall time",
         .unit = "ms",
         .description = "Real time the variant took to run.",
         .howToRead = "Depends on the machine, so it is not ranked and is left out of the determinism check.",
         .better = Better::Unranked,
         .format = MetricFormat::Integer,
         .value = [](const VariantMetrics& v) { return some(double(v.wallMs)); },
         .deterministic = false},
    };
    // clang-format on
    return table;
}

const MetricDescriptor* findMetric(const QString& key)
{
    for (const MetricDescriptor& m : metricTable())
        if (key == QLatin1String(m.key))
            return &m;
    return nullptr;
}

QString MetricDescriptor::tooltip() const
{
    return QStringLiteral("%1 (%2): %3 %4")
        .arg(labelString(), unitString(), descriptionString(), howToReadString());
}

QString MetricDescriptor::text(std::optional<double> v, Digits digits) const
{
    if (!v)
        return QString::fromLatin1(absent);
    if (format == MetricFormat::OneDecimal)
        return QString::number(*v, 'f', 1);
    const qint64 n = std::llround(*v);
    return digits == Digits::Grouped ? grouped(n) : QString::number(n);
}

QString MetricDescriptor::text(const VariantMetrics& v, Digits digits) const
{
    if (!value)
        return QString();
    const std::optional<double> known = value(v);
    if (const std::optional<double> atLeast = lowerBound && !known ? lowerBound(v) : std::nullopt)
        return QStringLiteral("\u2265 ") + text(atLeast, digits);
    return text(known, digits);
}

QStringList rpcKinds(const ScenarioReport& report)
{
    QStringList kinds;
    for (const VariantMetrics& v : report.variants)
        kinds += v.gatewayRpcsByKind.keys();
    kinds.sort();
    kinds.removeDuplicates();
    return kinds;
}

double rpcKindCount(const VariantMetrics& v, const QString& kind)
{
    return double(v.gatewayRpcsByKind.value(kind, 0));
}

} // namespace stormwatch
