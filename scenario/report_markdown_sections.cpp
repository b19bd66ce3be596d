// The parts of the Markdown report written for someone who has not read the scenario's
// seeds: the outcome in a paragraph, the levers in plain words, and how to read the plots.
// Like the rest of the report, every sentence is chosen by the numbers: the winner by its
// outcome, the levers named only when they differ between the variants.

#include "scenario/report_markdown_sections.h"

#include "client/lever_set.h"

#include <QJsonObject>
#include <QStringList>
#include <algorithm>
#include <cmath>

namespace stormwatch::markdown {

namespace {

bool recovered(const VariantMetrics& v)
{
    return v.timeToAllGoodS.has_value();
}

// < 0 when a came out better than b: tags all Good again by the end beats never; then fewer
// tag-seconds not Good, a quicker recovery, fewer gateway calls, fewer expired commands.
int compareOutcome(const VariantMetrics& a, const VariantMetrics& b)
{
    auto cmp = [](auto x, auto y) { return x < y ? -1 : (y < x ? 1 : 0); };
    if (recovered(a) != recovered(b))
        return recovered(a) ? -1 : 1;
    if (int c = cmp(a.badTagSeconds, b.badTagSeconds))
        return c;
    if (recovered(a))
        if (int c = cmp(*a.timeToAllGoodS, *b.timeToAllGoodS))
            return c;
    if (int c = cmp(a.gatewayRpcs, b.gatewayRpcs))
        return c;
    return cmp(a.deadlineExceeded, b.deadlineExceeded);
}

QString bold(const QString& name)
{
    return QStringLiteral("**%1**").arg(name);
}

QString names(const QList<const VariantMetrics*>& vs)
{
    QStringList out;
    for (const VariantMetrics* v : vs)
        out << bold(v->name);
    if (out.size() <= 1)
        return out.join(QString());
    const QString last = out.takeLast();
    return out.join(QStringLiteral(", ")) + QStringLiteral(" and ") + last;
}

QString outcome(const VariantMetrics& v)
{
    return recovered(v) ? QStringLiteral("every tag was Good again %1 s after %2 and stayed Good")
                              .arg(secs(*v.timeToAllGoodS), allGoodFrom(v))
                        : QStringLiteral("the tags were never all Good again before the run ended");
}

// How much lower now is than before, "97 %" — never "100 %" for what is not zero, nor "0 %"
// for what moved.
QString percentLower(double now, double before)
{
    const double p = (before - now) * 100.0 / before;
    if (p >= 99.5 && now > 0)
        return QStringLiteral("over 99 %");
    if (p > 0 && p < 0.5)
        return QStringLiteral("under 1 %");
    return QStringLiteral("%1 %").arg(QString::number(p, 'f', 0));
}

QString callRatio(qint64 now, qint64 before)
{
    if (now <= 0 || before <= 0 || now >= before)
        return {};
    const double r = double(before) / double(now);
    return QStringLiteral(" (%1× fewer)")
        .arg(r >= 10 ? count(std::llround(r)) : QString::number(r, 'f', 1));
}

// ---- levers ----------------------------------------------------------------------

struct LeverGroup {
    const char* name;  // "Lever 1", as a sentence names it
    const char* title; // what it is, after the name
    QStringList keys;
    const char* plain;
};

const QList<LeverGroup>& leverGroups()
{
    static const QList<LeverGroup> groups = {
        {"Lever 1",
         "in-flight guard and backoff on the subscribe retry",
         {"inflight_guard", "backoff", "confirmed_flag"},
         "When an instance's tag subscribe gets no answer, the client retries it (every 5 s by "
         "default). "
         "The in-flight guard allows one subscribe request per subscription to be outstanding: "
         "while it is "
         "unanswered, no new one is sent, until a ceiling presumes the answer lost. The backoff "
         "doubles the "
         "wait after each failed or lost attempt (with a little jitter, so instances do not retry "
         "in step, and "
         "up to a maximum) instead of retrying at the same fixed interval. The confirmed flag "
         "makes sure a "
         "subscribe that was cancelled is not taken as done. Without Lever 1, a slow gateway gets "
         "a fresh "
         "full subscribe every few seconds on top of the ones it has not finished."},
        {"Lever 2",
         "one bulk supervisory subscribe",
         {"bulk_supervisory"},
         "Without it, subscribing an instance's N tags costs the gateway 1 + N commands: one "
         "AddItemBulk call, "
         "then one AdviseSupervisory call per tag (245 commands for 244 tags), each queued for the "
         "gateway's "
         "single command thread (the STA). With it, and only when the gateway advertises the "
         "bulk-subscribe-supervisory capability, the whole subscribe is one SubscribeBulk call "
         "that the gateway "
         "runs as one command. A gateway without the capability still gets the 1 + N commands."},
        {"Lever 3",
         "a command timeout sent with the session",
         {"session_command_timeout_ms"},
         "When the client opens its session it tells the gateway how long one command may wait for "
         "the STA "
         "before the call fails with DEADLINE_EXCEEDED. Without it the gateway uses its own "
         "default. The STA "
         "still runs a command whose caller gave up, so a timeout that is too short turns a busy "
         "gateway's "
         "queue into wasted work and retries."},
        {"the recovery period",
         "Recovery period",
         {"recovery"},
         "A gate in the client: after repeated failures it refuses calls for a while (the recovery "
         "period) "
         "instead of sending more work to a gateway that is already failing. A refused call fails "
         "at once, "
         "counts as suppressed_calls, and is retried later."},
        {"the alarm subscription guard",
         "Alarm subscription guard",
         {"alarm_guard"},
         "Lever 1's guard and backoff, applied to the instance's alarm subscription as well."},
        {"subscribe coalescing",
         "Subscribe coalescing",
         {"coalesce"},
         "The connection merges identical subscribes that are in flight at the same time into one "
         "call."},
        // Lever 1's follow-ups (on in lever1 and above): named "Lever 1" in sentences, explained
        // on their own, after the rest so the levers that differ most often come first.
        {"Lever 1",
         "re-subscribe guard after a reconnect",
         {"resubscribe_guard"},
         "When the connection to the gateway drops and comes back, the tags must be subscribed "
         "again. Without "
         "the re-subscribe guard, the connection does that once, by itself (a transparent "
         "re-subscribe): if that "
         "one attempt fails, nothing ever tries again, and the tags stay not Good with nothing in "
         "flight and no "
         "retry scheduled: orphaned. With it, the instance's guard re-subscribes instead, the same "
         "way it "
         "subscribes at the start, so a failed re-subscribe is retried until it succeeds."},
        {"Lever 1",
         "drop superseded subscribes held while disconnected",
         {"drop_superseded"},
         "While the connection is down, the subscribes an instance sends are held until it is "
         "back. Without this "
         "lever every held subscribe goes out on reconnect, stale ones included, all at once onto "
         "a gateway that "
         "has just come back. With it, a held subscribe is dropped when its guard supersedes it "
         "with a newer one, "
         "so only the latest goes out on reconnect."},
        {"the retry budget",
         "Retry budget",
         {"retry_budget"},
         "gRPC's retry throttling, one budget per gateway: a bucket of 10 tokens that every "
         "failed or lost subscribe spends by one and every confirmed subscribe refills by a "
         "tenth. While half the bucket or less is left, retries wait (throttled_retries counts "
         "them) and only one probe per longest retry interval goes out for the whole gateway; a "
         "first subscribe always goes. It caps a retry storm that the other levers leave on: "
         "with no guard, every tick's retry stacks on a gateway that is failing them all."},
    };
    return groups;
}

QString leverLabel(const QString& key)
{
    for (const SwitchLever& lever : switchLevers())
        if (key == QLatin1String(lever.key))
            return QString::fromLatin1(lever.phrase);
    if (key == QLatin1String("session_command_timeout_ms"))
        return QStringLiteral("session command timeout");
    if (key == QLatin1String("recovery"))
        return QStringLiteral("recovery gate");
    return key;
}

QString num(double d)
{
    return QString::number(d, 'f', QLocale::FloatingPointShortest);
}

// The recovery gate's settings in words: when it enters recovery and for how long.
QString recoveryWords(const QJsonObject& o)
{
    const QString handler = o.value("fail_handler").toString();
    const QString when = handler == QLatin1String("windowed")
                             ? QStringLiteral("after %1 failures within %2 s")
                                   .arg(num(o.value("failures_to_enter_recovery").toDouble()),
                                        num(o.value("failures_window_seconds").toDouble()))
                             : QStringLiteral("after any failure");
    const QString strategy = o.value("strategy").toString();
    if (strategy == QLatin1String("simple"))
        return QStringLiteral("on: %1 it refuses calls until %2 s after the latest failure")
            .arg(when, num(o.value("recovery_seconds").toDouble()));
    if (strategy == QLatin1String("exponential"))
        return QStringLiteral("on: %1 it refuses calls for %2 s, ×%3 each time, up to %4 s")
            .arg(when, num(o.value("initial_seconds").toDouble()),
                 num(o.value("multiplier").toDouble()), num(o.value("max_seconds").toDouble()));
    if (strategy == QLatin1String("none"))
        return QStringLiteral("on: %1 it refuses every call until reset").arg(when);
    return QStringLiteral("on, with no recovery period (%1 strategy)").arg(strategy);
}

QString leverValueWords(const QString& key, const QJsonValue& v)
{
    if (key == QLatin1String("session_command_timeout_ms"))
        return isOn(v) ? QStringLiteral("%1 s").arg(num(v.toDouble() / 1000.0))
                       : QStringLiteral("not sent (the gateway's default)");
    if (key == QLatin1String("recovery") && isOn(v) && v.isObject())
        return recoveryWords(v.toObject());
    return isOn(v) ? QStringLiteral("on") : QStringLiteral("off");
}

// "on in lever1, lever1+2 and all; off in levers-off", grouping variants by value.
QString whoHasWhat(const ScenarioReport& r, const QString& key)
{
    QStringList values;
    QList<QList<const VariantMetrics*>> holders;
    for (const VariantMetrics& v : r.variants) {
        const QString words = leverValueWords(key, v.levers.value(key));
        qsizetype i = values.indexOf(words);
        if (i < 0) {
            values << words;
            holders << QList<const VariantMetrics*>{};
            i = values.size() - 1;
        }
        holders[i] << &v;
    }
    QStringList parts;
    // A value in words reads better after the names: "in **all**, on: after 10 failures ...".
    for (qsizetype i = 0; i < values.size(); ++i)
        parts << (values[i].startsWith(QLatin1String("on: "))
                      ? QStringLiteral("in %1, %2").arg(names(holders[i]), values[i])
                      : QStringLiteral("%1 in %2").arg(values[i], names(holders[i])));
    return parts.join(QStringLiteral("; "));
}

bool differs(const ScenarioReport& r, const QString& key)
{
    for (const VariantMetrics& v : r.variants)
        if (v.levers.value(key) != r.variants.first().levers.value(key))
            return true;
    return false;
}

// The lever groups in which a and b differ: "Lever 1 and Lever 2".
QString groupsThatDiffer(const VariantMetrics& a, const VariantMetrics& b)
{
    QStringList out;
    for (const LeverGroup& g : leverGroups())
        for (const QString& k : g.keys)
            if (a.levers.value(k) != b.levers.value(k)) {
                if (!out.contains(QString::fromLatin1(g.name)))
                    out << QString::fromLatin1(g.name);
                break;
            }
    if (out.size() <= 1)
        return out.join(QString());
    const QString last = out.takeLast();
    return out.join(QStringLiteral(", ")) + QStringLiteral(" and ") + last;
}

// The levers that cure orphaned tags, the one that cures a failed re-subscribe first.
const QStringList kOrphanCures{QStringLiteral("resubscribe_guard"),
                               QStringLiteral("drop_superseded")};

// "**a** left tags orphaned ..." for every variant that did, then which variants' time to
// all Good counts from the start because their gateway applied none of the faults.
QStringList findings(const ScenarioReport& r)
{
    QStringList out;
    for (const VariantMetrics& v : r.variants)
        if (const QString f = orphanFinding(r, v); !f.isEmpty())
            out << f;
    QList<const VariantMetrics*> fromStart;
    for (const VariantMetrics& v : r.variants)
        if (measuredFromStartForSkippedFaults(v))
            fromStart << &v;
    if (!fromStart.isEmpty())
        out << QStringLiteral(
                   "For %1, time_to_all_good_s is measured from the start of the run, because the "
                   "gateway "
                   "applied none of its faults (the skipped actions are listed under \"Metrics\").")
                   .arg(names(fromStart));
    return out;
}

} // namespace

QString allGoodFrom(const VariantMetrics& v)
{
    return v.timeToAllGoodFrom == QLatin1String("start") ? QStringLiteral("the start of the run")
                                                         : QStringLiteral("the last fault");
}

bool measuredFromStartForSkippedFaults(const VariantMetrics& v)
{
    return v.timeToAllGoodFrom == QLatin1String("start") && !v.skippedActions.isEmpty();
}

QString orphanCure(const QString& leverKey)
{
    if (leverKey == QLatin1String("resubscribe_guard"))
        return QStringLiteral(
            "the re-subscribe guard (`resubscribe_guard`): after a reconnect the instance's guard "
            "re-subscribes instead of the connection's one-shot transparent re-subscribe, so a "
            "failed re-subscribe is retried");
    if (leverKey == QLatin1String("drop_superseded"))
        return QStringLiteral(
            "dropping superseded subscribes (`drop_superseded`): a subscribe held while "
            "disconnected is dropped when its guard supersedes it, so only the latest goes out on "
            "reconnect");
    return {};
}

QString orphanFinding(const ScenarioReport& r, const VariantMetrics& v)
{
    if (v.orphanedTagSeconds <= 0)
        return {};
    QString s =
        QStringLiteral(
            "%1 left tags orphaned for %2 tag-seconds: nothing would ever have re-subscribed them.")
            .arg(bold(v.name), secs(v.orphanedTagSeconds));
    QStringList off; // the cures this variant ran without
    for (const QString& k : kOrphanCures)
        if (!isOn(v.levers.value(k)))
            off << k;
    if (off.isEmpty())
        return s +
               QStringLiteral(
                   " It ran with the re-subscribe guard and drop superseded both on, so this is a "
                   "defect to look into: a guarded variant must keep orphaned_tag_seconds at 0.");
    // The cures some variant without orphaned tags had on; else the first one this one lacks.
    QStringList cures;
    QList<const VariantMetrics*> clean;
    for (const QString& k : off)
        for (const VariantMetrics& w : r.variants)
            if (w.orphanedTagSeconds <= 0 && isOn(w.levers.value(k))) {
                if (!cures.contains(k))
                    cures << k;
                if (!clean.contains(&w))
                    clean << &w;
            }
    if (cures.isEmpty())
        cures << off.first();
    QStringList words;
    for (const QString& k : cures)
        words << orphanCure(k);
    s += cures.size() == 1 ? QStringLiteral(" The lever that cures it is %1.").arg(words.first())
                           : QStringLiteral(" The levers that cure it are %1.")
                                 .arg(words.join(QStringLiteral("; and ")));
    const QString it = cures.size() == 1 ? QStringLiteral("it") : QStringLiteral("them");
    if (!clean.isEmpty())
        s += QStringLiteral(" %1 had %2 on and left no tag orphaned.").arg(names(clean), it);
    else
        s += QStringLiteral(" No variant of this report had %1 on.").arg(it);
    return s;
}

QString inShortSection(const ScenarioReport& r)
{
    QStringList out{QStringLiteral("## In short"), QString()};
    if (r.variants.isEmpty())
        return (out << QStringLiteral("No variant ran.")).join('\n');
    if (r.variants.size() == 1) {
        const VariantMetrics& v = r.variants.first();
        out << QStringLiteral("Only %1 ran, so there is nothing to compare: %2; tags spent %3 "
                              "tag-seconds not Good "
                              "and the gateway received %4 Invoke calls.")
                   .arg(bold(v.name), outcome(v), secs(v.badTagSeconds), count(v.gatewayRpcs));
        for (const QString& f : findings(r))
            out << QString() << f;
        return out.join('\n');
    }
    QList<const VariantMetrics*> ranked;
    for (const VariantMetrics& v : r.variants)
        ranked << &v;
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const VariantMetrics* a, const VariantMetrics* b) {
                         return compareOutcome(*a, *b) < 0;
                     });
    const VariantMetrics& best = *ranked.first();
    const VariantMetrics& base = r.variants.first();
    QList<const VariantMetrics*> tied;
    for (const VariantMetrics* v : ranked)
        if (compareOutcome(*v, best) == 0)
            tied << v;

    QString p;
    if (tied.size() == ranked.size()) {
        p = QStringLiteral(
                "All %1 variants came out the same: %2, and tags spent %3 tag-seconds not Good. In "
                "this "
                "scenario the levers that differ between them made no difference to the outcome.")
                .arg(ranked.size())
                .arg(outcome(best), secs(best.badTagSeconds));
        out << p;
        for (const QString& f : findings(r))
            out << QString() << f;
        return out.join('\n');
    }
    p = tied.size() > 1 ? QStringLiteral("%1 came out best, equally: ").arg(names(tied))
                        : QStringLiteral("%1 came out best: ").arg(bold(best.name));
    p += QStringLiteral("%1, and tags spent %2 tag-seconds not Good in all.")
             .arg(outcome(best), secs(best.badTagSeconds));
    if (compareOutcome(best, base) != 0) {
        p +=
            QStringLiteral(
                " The first variant, %1, is the baseline the others are compared with: %2, with %3 "
                "tag-seconds not Good.")
                .arg(bold(base.name), outcome(base), secs(base.badTagSeconds));
        if (base.badTagSeconds > 0 && best.badTagSeconds < base.badTagSeconds)
            p += QStringLiteral(
                     " So %1 cut the time tags were not Good by %2 (%3 instead of %4 tag-seconds)")
                     .arg(bold(best.name), percentLower(best.badTagSeconds, base.badTagSeconds),
                          secs(best.badTagSeconds), secs(base.badTagSeconds));
        else
            p += QStringLiteral(" So %1 did better on recovery").arg(bold(best.name));
        if (best.gatewayRpcs != base.gatewayRpcs)
            p += QStringLiteral(", and the gateway received %1 Invoke calls instead of %2%3")
                     .arg(count(best.gatewayRpcs), count(base.gatewayRpcs),
                          callRatio(best.gatewayRpcs, base.gatewayRpcs));
        p += QLatin1Char('.');
        const QString groups = groupsThatDiffer(best, base);
        if (!groups.isEmpty())
            p += QStringLiteral(" It differs from %1 in %2 (see \"The levers\" below).")
                     .arg(bold(base.name), groups);
    } else {
        const VariantMetrics& next = *ranked[tied.size()];
        p += QStringLiteral(" That is the baseline (the first variant): no other variant improved "
                            "on it. The next best, "
                            "%1: %2, with %3 tag-seconds not Good.")
                 .arg(bold(next.name), outcome(next), secs(next.badTagSeconds));
    }
    out << p << QString() << QStringLiteral("From best to worst:") << QString();
    for (const VariantMetrics* v : ranked)
        out << QStringLiteral("- %1: %2; %3 tag-seconds not Good%7; %4 Invoke calls to the "
                              "gateway; at most %5 "
                              "subscribe %6 of one subscription outstanding at once.")
                   .arg(bold(v->name),
                        recovered(*v) ? QStringLiteral("all Good %1 s after %2")
                                            .arg(secs(*v->timeToAllGoodS), allGoodFrom(*v))
                                      : QStringLiteral("never all Good again"),
                        secs(v->badTagSeconds), count(v->gatewayRpcs), count(v->maxOutstanding),
                        v->maxOutstanding == 1 ? QStringLiteral("request")
                                               : QStringLiteral("requests"),
                        v->orphanedTagSeconds > 0 ? QStringLiteral(" (%1 of them orphaned)")
                                                        .arg(secs(v->orphanedTagSeconds))
                                                  : QString());
    for (const QString& f : findings(r))
        out << QString() << f;
    return out.join('\n');
}

QString leversSection(const ScenarioReport& r)
{
    QStringList out{QStringLiteral("## The levers"), QString()};
    out << QStringLiteral(
               "The levers are switches in the client that protect the gateway when it is slow or "
               "failing. "
               "Only those that differ between the variants of this report are described here.")
        << QString();
    QStringList same;
    bool any = false;
    for (const LeverGroup& g : leverGroups()) {
        QStringList differing;
        for (const QString& k : g.keys)
            if (differs(r, k))
                differing << k;
            else if (!r.variants.isEmpty() && r.variants.first().levers.contains(k))
                same << QStringLiteral("%1 %2").arg(
                    leverLabel(k), leverValueWords(k, r.variants.first().levers.value(k)));
        if (differing.isEmpty())
            continue;
        any = true;
        const QString name = QString::fromLatin1(g.name);
        const QString heading = name.startsWith(QLatin1String("Lever"))
                                    ? name + QStringLiteral(": ") + QString::fromUtf8(g.title)
                                    : QString::fromUtf8(g.title);
        out << QStringLiteral("**%1.** %2").arg(heading, QString::fromUtf8(g.plain)) << QString();
        for (const QString& k : differing)
            out << QStringLiteral("- %1: %2.").arg(leverLabel(k), whoHasWhat(r, k));
        out << QString();
    }
    if (!any)
        out << QStringLiteral("Every variant ran with the same levers.") << QString();
    if (!same.isEmpty())
        out << QStringLiteral("The same in every variant: %1.").arg(same.join(QStringLiteral("; ")))
            << QString();
    while (!out.isEmpty() && out.last().isEmpty())
        out.removeLast();
    return out.join('\n');
}

QString plotsSections(const ScenarioReport& r, const QMap<QString, QString>& plots)
{
    QStringList images;
    for (const VariantMetrics& v : r.variants)
        if (plots.contains(v.name))
            images << QStringLiteral("**%1**").arg(v.name) << QString()
                   << QStringLiteral("![%1](%2)").arg(v.name, plots.value(v.name)) << QString();
    // The compare view adds its overlays as "compare:<title>" (one line per variant).
    QStringList overlays;
    for (auto it = plots.cbegin(); it != plots.cend(); ++it)
        if (it.key().startsWith(QLatin1String("compare:")))
            overlays << QStringLiteral("![%1](%2)").arg(it.key().mid(8), it.value()) << QString();
    if (!overlays.isEmpty())
        images << QStringLiteral("### Variants overlaid") << QString() << overlays;
    if (images.isEmpty())
        return {};
    while (images.last().isEmpty())
        images.removeLast();
    QStringList out{QStringLiteral("## How to read the plots"), QString()};
    out << QStringLiteral("Each variant has one image: four plots, one above the other, on the "
                          "same time axis (time since the "
                          "start of the run). A coloured line is one subscription (an instance on "
                          "its gateway connection).")
        << QString()
        << QStringLiteral("1. **Outstanding subscribe requests** per subscription. The dashed line "
                          "at 1 is what the "
                          "in-flight guard allows; a line climbing above it means re-sends are "
                          "piling up on a gateway "
                          "that has not answered the earlier ones.")
        << QStringLiteral("2. **Retry interval** per subscription, in seconds. Flat at 5 s: a "
                          "fixed retry; steps that "
                          "climb and fall back: the backoff waiting longer after each failure, "
                          "then resetting on success.")
        << QStringLiteral(
               "3. **Tag quality**, stacked over all subscriptions: Good, Uncertain and Bad tag "
               "counts. "
               "Recovery is where the Bad band shrinks to nothing and only Good is left.")
        << QStringLiteral(
               "4. **Gateway load**: the STA queue depth (commands waiting for the gateway's "
               "single command "
               "thread, left axis), and per second the Invoke calls, the calls that failed with "
               "DEADLINE_EXCEEDED (expired/s) and the calls the recovery gate refused "
               "(suppressed/s, right axis). Shaded bands are "
               "times the recovery gate was refusing calls.")
        << QString()
        << QStringLiteral("Every variant's image uses the same y-scale per plot, so the same "
                          "height is the same number. "
                          "Dashed vertical lines mark the scenario's timeline: faults, redeploys "
                          "and lever changes, "
                          "each labelled where it starts.")
        << QString()
        << QStringLiteral("Compare the variants' images at the same moment, typically at the first "
                          "fault: where one "
                          "climbs and stays up and another settles, the levers that differ (above) "
                          "made the difference.")
        << QString() << QStringLiteral("## Plots") << QString();
    out += images;
    return out.join('\n');
}

} // namespace stormwatch::markdown
