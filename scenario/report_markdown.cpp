// The Markdown report: a metrics table, then for each variant an account of what
// changed against the baseline (the first variant) and why. Every sentence is chosen by
// comparing numbers; a "why" is only given when the lever that explains it actually
// differs and the number moved the way that lever moves it.

#include "scenario/metric_table.h"
#include "scenario/report_markdown_sections.h"
#include "scenario/report_writers.h"

#include <QJsonDocument>
#include <QStringList>
#include <cmath>
#include <functional>

namespace stormwatch {

namespace markdown {

QString count(qint64 n)
{
    QString digits = QString::number(n < 0 ? -n : n);
    for (int i = int(digits.size()) - 3; i > 0; i -= 3)
        digits.insert(i, QLatin1Char(','));
    return n < 0 ? QLatin1Char('-') + digits : digits;
}
QString secs(double s)
{
    return QString::number(s, 'f', 1);
}

bool isOn(const QJsonValue& v)
{
    if (v.isBool())
        return v.toBool();
    if (v.isDouble())
        return v.toDouble() != 0;
    if (v.isObject())
        return !v.toObject().isEmpty() && v.toObject().value("enabled").toBool(true);
    if (v.isString())
        return !v.toString().isEmpty();
    return false;
}

} // namespace markdown

namespace {

using markdown::count;
using markdown::isOn;
using markdown::secs;

QString plural(qint64 n, const QString& one, const QString& many)
{
    return n == 1 ? one : many;
}
QString cell(const QString& s)
{
    return QString(s).replace(QLatin1Char('|'), QLatin1String("\\|"));
}

// "22× fewer" / "2.5× more"; empty when either side is zero (no meaningful ratio).
QString ratio(double now, double before)
{
    if (now <= 0 || before <= 0 || now == before)
        return {};
    const double r = now < before ? before / now : now / before;
    return QStringLiteral("%1× %2").arg(
        r >= 10 ? count(qint64(std::llround(r))) : QString::number(r, 'f', 1),
        now < before ? QStringLiteral("fewer") : QStringLiteral("more"));
}
QString withRatio(const QString& sentence, double now, double before)
{
    const QString r = ratio(now, before);
    return r.isEmpty() ? sentence + QLatin1Char('.') : QStringLiteral("%1 (%2).").arg(sentence, r);
}

// ---- levers ----------------------------------------------------------------------

struct LeverLabel {
    const char* key;
    const char* label;
};
const LeverLabel kLeverLabels[] = {
    {"inflight_guard", "in-flight guard (Lever 1)"},
    {"backoff", "retry backoff (Lever 1)"},
    {"confirmed_flag", "confirmed flag (Lever 1 cancel race)"},
    {"bulk_supervisory", "bulk supervisory subscribe (Lever 2)"},
    {"session_command_timeout_ms", "session command timeout (Lever 3)"},
    {"recovery", "recovery gate"},
    {"alarm_guard", "alarm subscription guard"},
    {"coalesce", "subscribe coalescing"},
    {"resubscribe_guard", "re-subscribe guard after a reconnect (Lever 1)"},
    {"drop_superseded", "drop superseded subscribes held while disconnected (Lever 1)"},
    {"retry_budget", "retry budget (gRFC A6)"},
};
const QString kTimeoutKey = QStringLiteral("session_command_timeout_ms");

QString leverLabel(const QString& key)
{
    for (const LeverLabel& l : kLeverLabels)
        if (key == QLatin1String(l.key))
            return QString::fromLatin1(l.label);
    return key;
}

QString leverValue(const QString& key, const QJsonValue& v)
{
    if (key == kTimeoutKey)
        return isOn(v) ? QStringLiteral("%1 s").arg(QString::number(v.toDouble() / 1000.0, 'f',
                                                                    QLocale::FloatingPointShortest))
                       : QStringLiteral("not sent (gateway default)");
    if (v.isObject() && isOn(v)) {
        const QJsonObject o = v.toObject();
        if (o.contains("strategy") && o.contains("fail_handler"))
            return QStringLiteral("on (%1 fail handler, %2 recovery)")
                .arg(o.value("fail_handler").toString(), o.value("strategy").toString());
        if (o.contains("strategy"))
            return QStringLiteral("on (%1)").arg(o.value("strategy").toString());
        return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
    }
    return isOn(v) ? QStringLiteral("on") : QStringLiteral("off");
}

struct LeverDiff {
    QString key;
    QJsonValue from, to;
};

QList<LeverDiff> leverDiffs(const QJsonObject& base, const QJsonObject& other)
{
    QStringList keys;
    for (const LeverLabel& l : kLeverLabels)
        keys << QString::fromLatin1(l.key);
    QStringList extra = base.keys() + other.keys();
    extra.sort();
    for (const QString& k : extra)
        if (!keys.contains(k))
            keys << k;
    QList<LeverDiff> diffs;
    for (const QString& k : keys) {
        if (!base.contains(k) && !other.contains(k))
            continue;
        if (base.value(k) != other.value(k))
            diffs.append({k, base.value(k), other.value(k)});
    }
    return diffs;
}

// ---- per-variant explanation -----------------------------------------------------

class Comparison {
public:
    Comparison(const ScenarioReport& r, const VariantMetrics& base, const VariantMetrics& v)
        : r_(r), b_(base), v_(v), diffs_(leverDiffs(base.levers, v.levers))
    {
    }

    QStringList sentences() const
    {
        QStringList out;
        for (auto part :
             {&Comparison::outstanding, &Comparison::subscribeRequests, &Comparison::gatewayCalls,
              &Comparison::deadlines, &Comparison::staQueue, &Comparison::suppressed,
              &Comparison::badTags, &Comparison::orphaned, &Comparison::allGood}) {
            const QString s = (this->*part)();
            if (!s.isEmpty())
                out << s;
        }
        return out;
    }

    QString leverLine() const
    {
        if (diffs_.isEmpty())
            return QStringLiteral("Same levers as %1.").arg(b_.name);
        QStringList parts;
        for (const LeverDiff& d : diffs_)
            parts << QStringLiteral("%1 %2 → %3")
                         .arg(leverLabel(d.key), leverValue(d.key, d.from),
                              leverValue(d.key, d.to));
        return QStringLiteral("Levers changed against %1: %2.")
            .arg(b_.name, parts.join(QStringLiteral("; ")));
    }

private:
    const LeverDiff* diff(const QString& key) const
    {
        for (const LeverDiff& d : diffs_)
            if (d.key == key)
                return &d;
        return nullptr;
    }
    bool turnedOn(const QString& key) const
    {
        const LeverDiff* d = diff(key);
        return d && !isOn(d->from) && isOn(d->to);
    }
    bool turnedOff(const QString& key) const
    {
        const LeverDiff* d = diff(key);
        return d && isOn(d->from) && !isOn(d->to);
    }
    qint64 kind(const VariantMetrics& m, const QString& k) const
    {
        return m.gatewayRpcsByKind.value(k, 0);
    }
    QString vs() const { return b_.name + QStringLiteral(": "); }

    QString outstanding() const
    {
        const int now = v_.maxOutstanding, before = b_.maxOutstanding;
        if (now < before) {
            QString s =
                QStringLiteral("Each subscription kept at most %1 subscribe %2 outstanding (%3%4).")
                    .arg(now)
                    .arg(plural(now, "request", "requests"), vs())
                    .arg(before);
            if (turnedOn("inflight_guard"))
                s += QStringLiteral(" With the in-flight guard on, a subscription whose request is "
                                    "still unanswered "
                                    "does not send another; it waits until the in-flight ceiling "
                                    "presumes the reply lost.");
            return s;
        }
        if (now > before) {
            QString s = QStringLiteral("Up to %1 subscribe requests of one subscription were "
                                       "outstanding at once (%2%3).")
                            .arg(now)
                            .arg(vs())
                            .arg(before);
            if (turnedOff("inflight_guard"))
                s += QStringLiteral(
                    " With the in-flight guard off, every retry tick sends a fresh request while "
                    "earlier ones are still unanswered, so they stack up.");
            return s;
        }
        if (!diff("inflight_guard"))
            return {};
        QString s =
            QStringLiteral("The largest number of outstanding subscribe requests was %1 in both")
                .arg(now);
        return now <= 1
                   ? s + QStringLiteral(
                             ": no request was still unanswered when the next one came due, so the "
                             "in-flight guard had nothing to hold back.")
                   : s + QLatin1Char('.');
    }

    QString subscribeRequests() const
    {
        const qint64 now = v_.subscribeRequests, before = b_.subscribeRequests;
        const bool retryLeverChanged = diff("inflight_guard") || diff("backoff");
        if (now == before) {
            return retryLeverChanged
                       ? QStringLiteral(
                             "Both sent %1 tag-subscribe %2: the retry levers changed nothing "
                             "in this scenario.")
                             .arg(count(now), plural(now, "request", "requests"))
                       : QString();
        }
        QString s =
            withRatio(QStringLiteral("The instances sent %1 tag-subscribe %2 instead of %3")
                          .arg(count(now), plural(now, "request", "requests"), count(before)),
                      double(now), double(before));
        QStringList why;
        if (now < before) {
            if (turnedOn("inflight_guard"))
                why << QStringLiteral("the guard held back re-sends while a request was in flight");
            if (turnedOn("backoff"))
                why << QStringLiteral(
                    "the backoff doubled the retry interval (with jitter, up to the maximum) after "
                    "each "
                    "failure or presumed-lost reply instead of retrying at a fixed interval");
        } else {
            if (turnedOff("inflight_guard"))
                why << QStringLiteral("without the guard every retry tick re-sent the subscribe");
            if (turnedOff("backoff"))
                why << QStringLiteral("without backoff the retries came at the fixed interval");
        }
        if (!why.isEmpty()) {
            s.chop(1); // the full stop
            s +=
                QStringLiteral(", because ") + why.join(QStringLiteral(" and ")) + QLatin1Char('.');
        }
        return s;
    }

    QString gatewayCalls() const
    {
        const qint64 now = v_.gatewayRpcs, before = b_.gatewayRpcs;
        const qint64 bulkNow = kind(v_, rpc_kind::kSubscribeBulk),
                     bulkBefore = kind(b_, rpc_kind::kSubscribeBulk);
        const qint64 adviseNow = kind(v_, rpc_kind::kAdviseSupervisory);
        const qint64 adviseBefore = kind(b_, rpc_kind::kAdviseSupervisory);
        QString s;
        if (now != before) {
            s = withRatio(QStringLiteral("The gateway received %1 Invoke %2 instead of %3")
                              .arg(count(now), plural(now, "call", "calls"), count(before)),
                          double(now), double(before));
            QStringList kinds;
            QStringList names = v_.gatewayRpcsByKind.keys() + b_.gatewayRpcsByKind.keys();
            names.sort();
            names.removeDuplicates();
            for (const QString& k : names)
                if (kind(v_, k) != kind(b_, k))
                    kinds << QStringLiteral("%1 %2 → %3")
                                 .arg(k, count(kind(b_, k)), count(kind(v_, k)));
            if (!kinds.isEmpty())
                s += QStringLiteral(" By kind: %1.").arg(kinds.join(QStringLiteral(", ")));
            if (turnedOn("bulk_supervisory") && bulkNow > bulkBefore && adviseNow < adviseBefore)
                s += QStringLiteral(
                    " With bulk supervisory subscribe, one subscribe is a single SubscribeBulk "
                    "call that "
                    "the gateway runs as one STA command, instead of one AddItemBulk call plus one "
                    "AdviseSupervisory call per tag.");
            if (now < before && v_.subscribeRequests < b_.subscribeRequests)
                s += QStringLiteral(
                    " Part of the drop follows from the fewer subscribe requests above.");
        } else if (now == 0 && !diffs_.isEmpty()) {
            s = QStringLiteral("Neither variant's gateway received any Invoke calls.");
        }
        if (isOn(v_.levers.value("bulk_supervisory")) && bulkNow == 0 && adviseNow > 0) {
            if (!s.isEmpty())
                s += QLatin1Char(' ');
            s += QStringLiteral("Bulk supervisory subscribe was on, yet the gateway received no "
                                "subscribe_bulk calls and "
                                "%1 advise_supervisory calls: the client only uses the bulk call "
                                "when the gateway "
                                "advertises the bulk-subscribe-supervisory capability, and "
                                "otherwise falls back to the "
                                "per-tag fan-out.")
                     .arg(count(adviseNow));
        }
        return s;
    }

    QString deadlines() const
    {
        const qint64 now = v_.deadlineExceeded, before = b_.deadlineExceeded;
        if (now == before)
            return {};
        QString s =
            now == 0 ? QStringLiteral("No Invoke call failed with DEADLINE_EXCEEDED (%1%2).")
                           .arg(vs(), count(before))
                     : QStringLiteral("%1 Invoke %2 failed with DEADLINE_EXCEEDED instead of %3.")
                           .arg(count(now), plural(now, "call", "calls"), count(before));
        if (const LeverDiff* d = diff(kTimeoutKey))
            s += QStringLiteral(
                     " The session command timeout was %1 instead of %2; a command that waits on "
                     "the STA "
                     "longer than that fails for its caller, although the STA still runs it later.")
                     .arg(leverValue(kTimeoutKey, d->to), leverValue(kTimeoutKey, d->from));
        if (staExplainsDeadlines())
            s += QStringLiteral(" The STA queue peaked at %1 %2 instead of %3, so %4 commands "
                                "waited past the timeout.")
                     .arg(count(*v_.maxStaQueueDepth),
                          plural(*v_.maxStaQueueDepth, "command", "commands"),
                          count(*b_.maxStaQueueDepth),
                          now < before ? QStringLiteral("fewer") : QStringLiteral("more"));
        return s;
    }
    // Both queue depths known (a gateway that exposes none has no max_sta_queue_depth).
    bool staKnown() const { return v_.maxStaQueueDepth && b_.maxStaQueueDepth; }
    bool staExplainsDeadlines() const
    {
        if (!staKnown())
            return false;
        const qint64 de = v_.deadlineExceeded - b_.deadlineExceeded;
        const qint64 q = *v_.maxStaQueueDepth - *b_.maxStaQueueDepth;
        return (de < 0 && q < 0) || (de > 0 && q > 0);
    }

    QString staQueue() const
    {
        if (!staKnown() || *v_.maxStaQueueDepth == *b_.maxStaQueueDepth || staExplainsDeadlines())
            return {};
        return QStringLiteral("The STA queue (commands waiting for the gateway's single command "
                              "thread) peaked at %1 "
                              "instead of %2.")
            .arg(count(*v_.maxStaQueueDepth), count(*b_.maxStaQueueDepth));
    }

    QString suppressed() const
    {
        const qint64 now = v_.suppressedCalls, before = b_.suppressedCalls;
        if (now == before)
            return {};
        QString s = QStringLiteral("The recovery gate refused %1 %2 (%3%4).")
                        .arg(count(now), plural(now, "call", "calls"), vs(), count(before));
        if (turnedOn("recovery") && now > before)
            s += QStringLiteral(
                " While recovering after failures the gate does not send calls to the gateway; "
                "they "
                "fail at once as temporarily unavailable until the recovery period ends.");
        return s;
    }

    QString badTags() const
    {
        const double now = v_.badTagSeconds, before = b_.badTagSeconds;
        if (now == before)
            return QStringLiteral("Tags were not Good for %1 tag-seconds in both.").arg(secs(now));
        QString s = QStringLiteral("Tags were not Good for %1 tag-seconds in total instead of %2")
                        .arg(secs(now), secs(before));
        if (before > 0)
            s += QStringLiteral(" (%1 % %2)")
                     .arg(QString::number(std::abs(now - before) * 100.0 / before, 'f', 0),
                          now < before ? QStringLiteral("less") : QStringLiteral("more"));
        return s + QLatin1Char('.');
    }

    // A variant with orphaned tags: said plainly, with the lever that cures them; one that
    // orphaned none where the baseline did: which lever turned on made the difference.
    QString orphaned() const
    {
        const double now = v_.orphanedTagSeconds, before = b_.orphanedTagSeconds;
        if (now > 0) {
            QString s = markdown::orphanFinding(r_, v_);
            if (now != before)
                s += QStringLiteral(" With %1 it was %2 tag-seconds.").arg(b_.name, secs(before));
            return s;
        }
        if (before <= 0)
            return {};
        QString s =
            QStringLiteral("No tag was left orphaned (%1%2 tag-seconds).").arg(vs(), secs(before));
        QStringList why;
        if (turnedOn("resubscribe_guard"))
            why << QStringLiteral(
                "with the re-subscribe guard on, after a reconnect the instance's guard "
                "re-subscribed "
                "instead of the connection's one-shot transparent re-subscribe, so a failed "
                "re-subscribe was retried");
        if (turnedOn("drop_superseded"))
            why << QStringLiteral(
                "with drop superseded on, a subscribe held while disconnected was dropped when its "
                "guard superseded it, so only the latest went out on reconnect");
        if (!why.isEmpty()) {
            s.chop(1); // the full stop
            s += QStringLiteral(": ") + why.join(QStringLiteral("; and ")) + QLatin1Char('.');
        }
        return s;
    }

    QString allGood() const
    {
        const auto& now = v_.timeToAllGoodS;
        const auto& before = b_.timeToAllGoodS;
        const QString from = markdown::allGoodFrom(v_);
        if (!now && !before)
            return QStringLiteral("In neither variant were all tags Good to the end of the run.");
        if (!now)
            return QStringLiteral(
                       "The tags never all became Good and stayed Good (%1all Good after %2 s).")
                .arg(vs(), secs(*before));
        if (!before)
            return QStringLiteral("All tags were Good, and stayed Good, %1 s after %2; with %3 "
                                  "they never were.")
                .arg(secs(*now), from, b_.name);
        if (*now == *before)
            return QStringLiteral("All tags were Good, and stayed Good, %1 s after %2 in both.")
                .arg(secs(*now), from);
        return QStringLiteral("All tags were Good, and stayed Good, %1 s after %2 (%3%4 s).")
            .arg(secs(*now), from, vs(), secs(*before));
    }

    const ScenarioReport& r_;
    const VariantMetrics& b_;
    const VariantMetrics& v_;
    QList<LeverDiff> diffs_;
};

// One gateway with no control service: nothing was there to read, said as "no counters".
bool realGatewayAlone(const VariantMetrics& v)
{
    return v.staQueueGaps.size() == 1 && v.staQueueGaps.front().gateway.isEmpty() &&
           v.staQueueGaps.front().kind == StaQueueGap::Kind::NoControlService;
}

QString queueGapsSentence(const VariantMetrics& v)
{
    QStringList why;
    for (const StaQueueGap& gap : v.staQueueGaps)
        why << staQueueGapText(gap);
    QString s =
        v.maxStaQueueDepthAtLeast
            ? QStringLiteral("%1: max_sta_queue_depth is at least %2 (\u2265 in the table), a "
                             "lower bound, since %3.")
                  .arg(v.name, count(*v.maxStaQueueDepthAtLeast), why.join(QStringLiteral("; ")))
            : QStringLiteral("%1: max_sta_queue_depth is unknown (n/a), since %2.")
                  .arg(v.name, why.join(QStringLiteral("; ")));
    if (v.gatewayMetricsSource == QStringLiteral("client"))
        s +=
            v.staQueueGaps.front().gateway.isEmpty()
                ? QStringLiteral(
                      " The gateway's counters could not be read at the start, so gateway_rpcs and "
                      "deadline_exceeded are what this client sent and saw fail, and "
                      "max_gateway_outstanding_subscribes is unknown (n/a).")
                : QStringLiteral(" The gateways are shared, so gateway_rpcs and deadline_exceeded "
                                 "are what this "
                                 "client sent and saw fail, and max_gateway_outstanding_subscribes "
                                 "is unknown (n/a).");
    return s;
}

QString metricsTable(const ScenarioReport& r)
{
    QStringList header{"metric"}, rule{"---"};
    for (const VariantMetrics& v : r.variants)
        header << cell(v.name), rule << "---:";
    QStringList lines{QStringLiteral("| %1 |").arg(header.join(" | ")),
                      QStringLiteral("| %1 |").arg(rule.join(" | "))};
    auto row = [&](const QString& name,
                   const std::function<QString(const VariantMetrics&)>& value) {
        QStringList cells{name};
        for (const VariantMetrics& v : r.variants)
            cells << cell(value(v));
        lines << QStringLiteral("| %1 |").arg(cells.join(" | "));
    };
    const QStringList kinds = rpcKinds(r);
    for (const MetricDescriptor& m : metricTable()) {
        if (m.shape == MetricShape::ByKind) {
            // A row per kind, named after the total it breaks down: "gateway_rpcs: subscribe_bulk".
            const QString total = m.breaksDown ? QString::fromLatin1(m.breaksDown) : m.keyString();
            for (const QString& k : kinds)
                row(QStringLiteral("%1: %2").arg(total, k), [&m, &k](const VariantMetrics& v) {
                    return m.text(rpcKindCount(v, k), Digits::Grouped);
                });
            continue;
        }
        row(m.keyString(), [&m](const VariantMetrics& v) { return m.text(v, Digits::Grouped); });
    }
    return lines.join('\n');
}

// The metric definitions under the table: "- **key** (unit): what it measures. How to read it."
QString metricDefinitions()
{
    QStringList lines;
    for (const MetricDescriptor& m : metricTable())
        lines << QStringLiteral("- **%1** (%2): %3 %4")
                     .arg(m.keyString(), m.unitString(), m.descriptionString(),
                          m.howToReadString());
    return lines.join('\n');
}

} // namespace

QByteArray reportToMarkdown(const ScenarioReport& r, const QMap<QString, QString>& plots)
{
    QStringList out;
    out << QStringLiteral("# Scenario report: %1").arg(r.scenario) << QString();
    if (!r.description.isEmpty())
        out << r.description << QString();
    out << QStringLiteral("Mode: %1 · duration %2 s · seed %3 · %4 %5")
               .arg(r.live ? QStringLiteral("live (gRPC, real time)")
                           : QStringLiteral("virtual time"),
                    secs(r.durationS))
               .arg(r.seed)
               .arg(r.variants.size())
               .arg(plural(r.variants.size(), "variant", "variants"))
        << QString();
    out << markdown::inShortSection(r) << QString() << markdown::leversSection(r) << QString();
    out << QStringLiteral("## Metrics") << QString() << metricsTable(r) << QString()
        << metricDefinitions() << QString();
    for (const VariantMetrics& v : r.variants) {
        if (!v.staQueueGaps.isEmpty() && !realGatewayAlone(v))
            // Some queue was not read all run (a site's real gateway, a mock read late or
            // down a while): the maximum is unknown, or a lower bound, and the reader is told why.
            out << queueGapsSentence(v) << QString();
        else if (v.gatewayMetricsSource == QStringLiteral("client") && !v.maxStaQueueDepth)
            out << QStringLiteral("%1: the gateway exposes no counters, so gateway_rpcs and "
                                  "deadline_exceeded are what "
                                  "this client sent and saw fail, and max_sta_queue_depth and "
                                  "max_gateway_outstanding_subscribes are unknown (n/a).")
                       .arg(v.name)
                << QString();
        else if (v.gatewayMetricsSource == QStringLiteral("client"))
            // A live site's shared gateways: their queues were sampled, their counts are not this
            // run's.
            out << QStringLiteral("%1: the gateways are shared, so gateway_rpcs and "
                                  "deadline_exceeded are what this "
                                  "client sent and saw fail, max_sta_queue_depth is the deepest "
                                  "queue read from the "
                                  "gateways once a second, and max_gateway_outstanding_subscribes "
                                  "is unknown (n/a).")
                       .arg(v.name)
                << QString();
        if (!v.skippedActions.isEmpty()) {
            out << QStringLiteral("%1: timeline actions the gateway could not apply:").arg(v.name)
                << QString();
            for (const QString& a : v.skippedActions)
                out << QStringLiteral("- ") + a;
            out << QString();
            if (markdown::measuredFromStartForSkippedFaults(v))
                out << QStringLiteral("%1: time_to_all_good_s is measured from the start of the "
                                      "run, because the "
                                      "gateway applied none of its faults.")
                           .arg(v.name)
                    << QString();
        }
        if (!v.notes.isEmpty()) {
            out << QStringLiteral("%1: notes on this run:").arg(v.name) << QString();
            for (const QString& n : v.notes)
                out << QStringLiteral("- ") + n;
            out << QString();
        }
    }
    out << QStringLiteral("## What changed, and why") << QString();
    if (r.variants.size() < 2) {
        out << QStringLiteral("Only one variant ran, so there is nothing to compare.") << QString();
    } else {
        out << QStringLiteral("Each variant is compared with the first one, %1.")
                   .arg(r.variants[0].name)
            << QString();
        for (qsizetype i = 1; i < r.variants.size(); ++i) {
            const Comparison c(r, r.variants[0], r.variants[i]);
            out << QStringLiteral("### %1").arg(r.variants[i].name) << QString() << c.leverLine()
                << QString();
            for (const QString& s : c.sentences())
                out << QStringLiteral("- ") + s;
            out << QString();
        }
    }
    if (const QString p = markdown::plotsSections(r, plots); !p.isEmpty())
        out << p << QString();
    return out.join('\n').toUtf8();
}

} // namespace stormwatch
