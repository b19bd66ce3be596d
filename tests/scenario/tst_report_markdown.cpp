// report.md: its table, definitions, "In short", levers and the sentences that explain
// what changed between variants.

#include "scenario/metric_table.h"
#include "scenario/report.h"
#include "scenario/report_writers.h"
#include "support_report.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>

using namespace stormwatch;
using namespace stormwatch::reporttest;

class TestReportMarkdown : public QObject {
    Q_OBJECT
private slots:
    void markdownDefinesEveryMetric();
    void markdownSaysPlainlyWhoOrphanedTagsAndTheCure();
    void markdownOrphanedTagsWithTheCuresOnAreADefect();
    void markdownComparisonCreditsTheResubscribeGuard();
    void markdownLeversExplainResubscribeGuardAndDropSuperseded();
    void markdownTimeToAllGoodFromTheStartWhenFaultsWereSkipped();
    void markdownPrintsNotes();
    void markdownHasTheMetricsTable();
    void markdownGuardSentenceUsesTheNumbers();
    void markdownGuardGetsNoCreditWhenNothingStacked();
    void markdownExplainsFewerRequestsByGuardAndBackoff();
    void markdownCreditsOnlyTheLeverThatDiffers();
    void markdownExplainsStackingWhenGuardTurnedOff();
    void markdownBulkSentenceDrivenByCallKinds();
    void markdownBulkFallbackWhenCapabilityMissing();
    void markdownDeadlineSentenceNamesTimeoutsAndQueue();
    void markdownReadsWellForLargeRatiosAndZero();
    void markdownRecoveryGateSentence();
    void markdownTimeToAllGoodNever();
    void markdownSameLeversSaysSo();
    void markdownSingleVariantHasNothingToCompare();
    void markdownEscapesPipesInTableCells();
    void markdownInShortNamesTheWinnerAndByHowMuch();
    void markdownInShortRanksFromBestToWorst();
    void markdownInShortWhenTheBaselineIsBest();
    void markdownInShortWhenAllCameOutTheSame();
    void markdownInShortForASingleVariant();
    void markdownInShortComesBeforeTheTable();
    void markdownLeversExplainOnlyWhatDiffers();
    void markdownLeversPutTheRecoveryGateInWords();
    void markdownPlotsOnlyWhenThereAreSome();
};

void TestReportMarkdown::markdownDefinesEveryMetric()
{
    const QString metrics = part(md(liveGate()), "Metrics");
    QVERIFY2(
        metrics.contains(
            "- **orphaned_tag_seconds** (tag-s): Tag-seconds a deployed tag was not Good with no "
            "live "
            "subscription, nothing in flight and no retry scheduled — a tag nobody will ever fix. "
            "Guarded variants must keep it at 0"),
        qPrintable(metrics));
    for (const char* key : {"max_gateway_outstanding_subscribes", "subscribe_rpcs", "teardown_rpcs",
                            "connected_after_s"})
        QVERIFY2(metrics.contains(QStringLiteral("- **%1** (").arg(key)), key);
    QVERIFY(metrics.contains("add_item_bulk, subscribe_bulk, advise_supervisory, advise, "
                             "advise_item_bulk and add_item"));
    QVERIFY(metrics.contains("remove_item and un_advise"));
}

void TestReportMarkdown::markdownSaysPlainlyWhoOrphanedTagsAndTheCure()
{
    const QString s = part(md(reconnect()), "In short");
    QVERIFY2(
        s.contains(
            "**levers-off** left tags orphaned for 1800.5 tag-seconds: nothing would ever have "
            "re-subscribed them."),
        qPrintable(s));
    QVERIFY2(
        s.contains(
            "The levers that cure it are the re-subscribe guard (`resubscribe_guard`): after a "
            "reconnect "
            "the instance's guard re-subscribes instead of the connection's one-shot transparent "
            "re-subscribe, so a failed re-subscribe is retried; and dropping superseded subscribes "
            "(`drop_superseded`): a subscribe held while disconnected is dropped when its guard "
            "supersedes it, so only the latest goes out on reconnect. **lever1** had them on and "
            "left "
            "no tag orphaned."),
        qPrintable(s));
    QVERIFY2(s.contains("- **levers-off**: never all Good again; 2400.0 tag-seconds not Good "
                        "(1800.5 of them orphaned);"),
             qPrintable(s));
    QVERIFY(!s.contains("**lever1** left tags orphaned"));

    // Only the re-subscribe guard differs: it alone is named.
    ScenarioReport one = reconnect();
    one.variants[0].levers = withOrphanLevers("levers-off", false, true);
    const QString o = part(md(one), "In short");
    QVERIFY2(o.contains("The lever that cures it is the re-subscribe guard (`resubscribe_guard`)"),
             qPrintable(o));
    QVERIFY(!o.contains("`drop_superseded`"));

    // No variant shows the cure: the lever is still named.
    ScenarioReport alone = reconnect();
    alone.variants.removeLast();
    const QString a = part(md(alone), "In short");
    QVERIFY2(
        a.contains("The lever that cures it is the re-subscribe guard (`resubscribe_guard`)") &&
            a.contains("No variant of this report had it on."),
        qPrintable(a));
}

void TestReportMarkdown::markdownOrphanedTagsWithTheCuresOnAreADefect()
{
    ScenarioReport r = reconnect();
    r.variants[1].orphanedTagSeconds = 3;
    const QString s = part(md(r), "In short");
    QVERIFY2(s.contains("**lever1** left tags orphaned for 3.0 tag-seconds"), qPrintable(s));
    QVERIFY2(s.contains("a guarded variant must keep orphaned_tag_seconds at 0"), qPrintable(s));
}

void TestReportMarkdown::markdownComparisonCreditsTheResubscribeGuard()
{
    const QString s = section(md(reconnect()), "lever1");
    QVERIFY2(s.contains("No tag was left orphaned (levers-off: 1800.5 tag-seconds): with the "
                        "re-subscribe guard on, "
                        "after a reconnect the instance's guard re-subscribed instead of the "
                        "connection's one-shot "
                        "transparent re-subscribe, so a failed re-subscribe was retried"),
             qPrintable(s));
    QVERIFY(s.contains("re-subscribe guard after a reconnect (Lever 1) off → on"));
    ScenarioReport swapped = reconnect();
    std::swap(swapped.variants[0], swapped.variants[1]);
    const QString o = section(md(swapped), "levers-off");
    QVERIFY2(
        o.contains(
            "**levers-off** left tags orphaned for 1800.5 tag-seconds: nothing would ever have "
            "re-subscribed them.") &&
            o.contains("With lever1 it was 0.0 tag-seconds."),
        qPrintable(o));
}

void TestReportMarkdown::markdownLeversExplainResubscribeGuardAndDropSuperseded()
{
    const QString s = part(md(reconnect()), "The levers");
    QVERIFY2(s.contains("**Lever 1: re-subscribe guard after a reconnect.** When the connection to "
                        "the gateway drops"),
             qPrintable(s));
    QVERIFY(s.contains("a transparent re-subscribe"));
    QVERIFY(s.contains(
        "no retry scheduled: orphaned. With it, the instance's guard re-subscribes instead"));
    QVERIFY(s.contains("- re-subscribe guard: off in **levers-off**; on in **lever1**."));
    QVERIFY(s.contains("**Lever 1: drop superseded subscribes held while disconnected.** While the "
                       "connection is down"));
    QVERIFY(s.contains("only the latest goes out on reconnect"));
    QVERIFY(s.contains("- drop superseded: off in **levers-off**; on in **lever1**."));
    // Levers that do not differ are not explained, only listed as the same.
    const QString gate = part(md(liveGate()), "The levers");
    QVERIFY2(!gate.contains("re-subscribe guard after a reconnect.**"), qPrintable(gate));
    QVERIFY2(gate.contains("re-subscribe guard off; drop superseded off; retry budget off."),
             qPrintable(gate));
    // In short names Lever 1 once, though three of its groups differ.
    ScenarioReport inc = incident();
    const QString inShort = part(md(inc), "In short");
    QVERIFY2(inShort.contains("in Lever 1 and Lever 2 (see"), qPrintable(inShort));
}

void TestReportMarkdown::markdownTimeToAllGoodFromTheStartWhenFaultsWereSkipped()
{
    ScenarioReport r = bulkStorm();
    r.live = true;
    for (VariantMetrics& v : r.variants) {
        v.timeToAllGoodFrom = "start";
        v.skippedActions = QStringList{"wedge at 10 s skipped: the gateway has no control service"};
    }
    const QString m = md(r);
    QVERIFY2(
        m.contains(
            "lever1: time_to_all_good_s is measured from the start of the run, because the gateway "
            "applied none of its faults."),
        qPrintable(m));
    const QString s = part(m, "In short");
    QVERIFY2(s.contains("For **lever1** and **lever1+2**, time_to_all_good_s is measured from the "
                        "start of the run, "
                        "because the gateway applied none of its faults"),
             qPrintable(s));
    QVERIFY2(s.contains("every tag was Good again 1.5 s after the start of the run"),
             qPrintable(s));
    QVERIFY(section(m, "lever1+2").contains("1.5 s after the start of the run (lever1: 95.5 s)"));
    // Without skipped faults (no faults at all) it counts from the start without comment.
    for (VariantMetrics& v : r.variants)
        v.skippedActions.clear();
    QVERIFY(!md(r).contains("applied none of its faults"));
    QVERIFY(md(r).contains("after the start of the run"));
}

void TestReportMarkdown::markdownPrintsNotes()
{
    ScenarioReport r = liveGate();
    r.variants[1].notes = QStringList{"clean start: a fresh gateway", "second note"};
    const QString m = part(md(r), "Metrics");
    QVERIFY2(
        m.contains("lever1: notes on this run:\n\n- clean start: a fresh gateway\n- second note\n"),
        qPrintable(m));
    QVERIFY(!m.contains("levers-off: notes"));
}

void TestReportMarkdown::markdownHasTheMetricsTable()
{
    const QString m = md(bulkStorm());
    QVERIFY2(m.contains("| metric | lever1 | lever1+2 |\n| --- | ---: | ---: |"), qPrintable(m));
    QVERIFY(m.contains("| subscribe_requests | 2 | 2 |"));
    QVERIFY(m.contains("| gateway_rpcs | 490 | 2 |"));
    QVERIFY(m.contains("| gateway_rpcs: advise_supervisory | 488 | 0 |"));
    QVERIFY(m.contains("| gateway_rpcs: subscribe_bulk | 0 | 2 |"));
    QVERIFY(m.contains("| time_to_all_good_s | 95.5 | 1.5 |"));
    QVERIFY(md(liveGate()).contains("| time_to_all_good_s | never | never |"));
}

void TestReportMarkdown::markdownGuardSentenceUsesTheNumbers()
{
    const QString s = section(md(liveGate()), "lever1");
    QVERIFY2(
        s.contains(
            "Each subscription kept at most 1 subscribe request outstanding (levers-off: 22)."),
        qPrintable(s));
    QVERIFY(s.contains("With the in-flight guard on, a subscription whose request is still "
                       "unanswered does not send another"));
    QVERIFY(s.contains("in-flight guard (Lever 1) off → on"));
    QVERIFY(s.contains("retry backoff (Lever 1) off → on"));
}

void TestReportMarkdown::markdownGuardGetsNoCreditWhenNothingStacked()
{
    ScenarioReport r = liveGate();
    r.variants[0].maxOutstanding = 1; // every subscribe was answered before the next tick
    const QString s = section(md(r), "lever1");
    QVERIFY2(s.contains("The largest number of outstanding subscribe requests was 1 in both"),
             qPrintable(s));
    QVERIFY(s.contains("had nothing to hold back"));
    QVERIFY(!s.contains("does not send another"));
}

void TestReportMarkdown::markdownExplainsFewerRequestsByGuardAndBackoff()
{
    const QString s = section(md(liveGate()), "lever1");
    QVERIFY2(s.contains("The instances sent 3 tag-subscribe requests instead of 22 (7.3× fewer), "
                        "because the guard held "
                        "back re-sends while a request was in flight and the backoff doubled the "
                        "retry interval"),
             qPrintable(s));
}

void TestReportMarkdown::markdownCreditsOnlyTheLeverThatDiffers()
{
    ScenarioReport r = liveGate();
    r.variants[0].levers = levers(true, false); // baseline already has the guard
    r.variants[0].name = "guard-only";
    const QString s = section(md(r), "lever1");
    QVERIFY2(s.contains("instead of 22 (7.3× fewer), because the backoff doubled"), qPrintable(s));
    QVERIFY(!s.contains("the guard held back"));
    QVERIFY(!s.contains("in-flight guard (Lever 1)")); // not listed as a change
}

void TestReportMarkdown::markdownExplainsStackingWhenGuardTurnedOff()
{
    ScenarioReport r = liveGate();
    std::swap(r.variants[0], r.variants[1]); // baseline lever1, then levers-off
    const QString s = section(md(r), "levers-off");
    QVERIFY2(s.contains("Up to 22 subscribe requests of one subscription were outstanding at once "
                        "(lever1: 1)."),
             qPrintable(s));
    QVERIFY(s.contains(
        "every retry tick sends a fresh request while earlier ones are still unanswered"));
    QVERIFY(s.contains(
        "(7.3× more), because without the guard every retry tick re-sent the subscribe and without "
        "backoff the retries came at the fixed interval."));
}

void TestReportMarkdown::markdownBulkSentenceDrivenByCallKinds()
{
    const QString s = section(md(bulkStorm()), "lever1+2");
    QVERIFY2(s.contains("The gateway received 2 Invoke calls instead of 490 (245× fewer). By kind: "
                        "add_item_bulk 2 → 0, "
                        "advise_supervisory 488 → 0, subscribe_bulk 0 → 2."),
             qPrintable(s));
    QVERIFY(s.contains("one subscribe is a single SubscribeBulk call"));
    QVERIFY(!s.contains(
        "Part of the drop follows from the fewer subscribe requests")); // requests were equal
    QVERIFY(s.contains(
        "Tags were not Good for 40.0 tag-seconds in total instead of 5000.0 (99 % less)."));
    QVERIFY(s.contains(
        "All tags were Good, and stayed Good, 1.5 s after the last fault (lever1: 95.5 s)."));
}

void TestReportMarkdown::markdownBulkFallbackWhenCapabilityMissing()
{
    ScenarioReport r = bulkStorm();
    r.variants[1].gatewayRpcs = 490;
    r.variants[1].gatewayRpcsByKind =
        r.variants[0].gatewayRpcsByKind; // an old gateway: still the fan-out
    const QString s = section(md(r), "lever1+2");
    QVERIFY2(s.contains("Bulk supervisory subscribe was on, yet the gateway received no "
                        "subscribe_bulk calls and 488 "
                        "advise_supervisory calls"),
             qPrintable(s));
    QVERIFY(!s.contains("single SubscribeBulk call"));
    QVERIFY(!s.contains("The gateway received 490")); // unchanged count: no comparison sentence
}

void TestReportMarkdown::markdownDeadlineSentenceNamesTimeoutsAndQueue()
{
    ScenarioReport r = bulkStorm();
    r.variants[1].levers = levers(true, true, false, 60000);
    r.variants[1].name = "lever1+3";
    r.variants[1].deadlineExceeded = 7;
    r.variants[1].maxStaQueueDepth = 350;
    const QString s = section(md(r), "lever1+3");
    QVERIFY2(s.contains("7 Invoke calls failed with DEADLINE_EXCEEDED instead of 120. The session "
                        "command timeout was "
                        "60 s instead of not sent (gateway default)"),
             qPrintable(s));
    QVERIFY(s.contains("The STA queue peaked at 350 commands instead of 400, so fewer commands "
                       "waited past the timeout."));
    QVERIFY(s.contains("session command timeout (Lever 3) not sent (gateway default) → 60 s"));
}

void TestReportMarkdown::markdownReadsWellForLargeRatiosAndZero()
{
    ScenarioReport r = bulkStorm();
    r.variants[0].gatewayRpcs = 53680;
    r.variants[1].deadlineExceeded = 0;
    r.variants[1].maxStaQueueDepth = 1;
    const QString s = section(md(r), "lever1+2");
    QVERIFY2(s.contains("instead of 53,680 (26,840× fewer)"), qPrintable(s));
    QVERIFY(s.contains("No Invoke call failed with DEADLINE_EXCEEDED (lever1: 120)."));
    QVERIFY(s.contains("The STA queue peaked at 1 command instead of 400, so fewer commands waited "
                       "past the timeout."));
}

void TestReportMarkdown::markdownRecoveryGateSentence()
{
    ScenarioReport r = liveGate();
    LeverSet withGate = *leverSetFromJson(r.variants[1].levers, nullptr);
    withGate.recovery =
        RecoveryConfig{.enabled = true, .strategy = RecoveryConfig::Strategy::Simple};
    r.variants[1].levers = leverSetToJson(withGate);
    r.variants[1].suppressedCalls = 1234;
    const QString s = section(md(r), "lever1");
    QVERIFY2(s.contains("The recovery gate refused 1,234 calls (levers-off: 0)."), qPrintable(s));
    QVERIFY(s.contains("fail at once as temporarily unavailable"));
    QVERIFY(s.contains("recovery gate off → on (windowed fail handler, simple recovery)"));
}

void TestReportMarkdown::markdownTimeToAllGoodNever()
{
    QVERIFY(
        md(liveGate()).contains("In neither variant were all tags Good to the end of the run."));
    ScenarioReport r = bulkStorm();
    r.variants[1].timeToAllGoodS.reset();
    QVERIFY(
        section(md(r), "lever1+2")
            .contains(
                "The tags never all became Good and stayed Good (lever1: all Good after 95.5 s)."));
}

void TestReportMarkdown::markdownSameLeversSaysSo()
{
    ScenarioReport r = liveGate();
    r.variants[1].levers = r.variants[0].levers;
    r.variants[1].name = "again";
    r.variants[1].subscribeRequests = 22;
    r.variants[1].maxOutstanding = 22;
    const QString s = section(md(r), "again");
    QVERIFY2(s.contains("Same levers as levers-off."), qPrintable(s));
    QVERIFY(!s.contains("tag-subscribe")); // no change, no retry lever changed: nothing to say
    QVERIFY(!s.contains("outstanding"));
}

void TestReportMarkdown::markdownSingleVariantHasNothingToCompare()
{
    ScenarioReport r = liveGate();
    r.variants.removeLast();
    const QString m = md(r);
    QVERIFY(m.contains("Only one variant ran, so there is nothing to compare."));
    QVERIFY(m.contains("| metric | levers-off |"));
}

void TestReportMarkdown::markdownEscapesPipesInTableCells()
{
    ScenarioReport r = liveGate();
    r.variants[1].name = "a|b";
    QVERIFY(md(r).contains("| metric | levers-off | a\\|b |"));
}

void TestReportMarkdown::markdownInShortNamesTheWinnerAndByHowMuch()
{
    const QString s = part(md(incident()), "In short");
    QVERIFY2(
        s.contains(
            "**lever1+2** came out best: every tag was Good again 20.0 s after the last fault and "
            "stayed Good, and tags spent 5000.0 tag-seconds not Good in all."),
        qPrintable(s));
    QVERIFY2(
        s.contains(
            "The first variant, **levers-off**, is the baseline the others are compared with: the "
            "tags "
            "were never all Good again before the run ended, with 400000.0 tag-seconds not Good."),
        qPrintable(s));
    // 5,000 of 400,000: 98.75 % less, rounded; 10 calls instead of 50,000.
    QVERIFY2(
        s.contains(
            "cut the time tags were not Good by 99 % (5000.0 instead of 400000.0 tag-seconds)"),
        qPrintable(s));
    QVERIFY2(s.contains("the gateway received 10 Invoke calls instead of 50,000 (5,000× fewer)."),
             qPrintable(s));
    QVERIFY2(
        s.contains(
            "It differs from **levers-off** in Lever 1 and Lever 2 (see \"The levers\" below)."),
        qPrintable(s));
}

void TestReportMarkdown::markdownInShortRanksFromBestToWorst()
{
    const QString s = part(md(incident()), "In short");
    const qsizetype a = s.indexOf(
        "- **lever1+2**: all Good 20.0 s after the last fault; 5000.0 tag-seconds not Good; "
        "10 Invoke calls to the gateway; at most 1 subscribe request of one subscription "
        "outstanding at once.");
    const qsizetype b = s.indexOf("- **all**: all Good 100.0 s");
    const qsizetype c = s.indexOf("- **lever1**: all Good 60.0 s");
    const qsizetype d = s.indexOf(
        "- **levers-off**: never all Good again; 400000.0 tag-seconds not Good; 50,000 Invoke "
        "calls to the gateway; at most 9 subscribe requests");
    QVERIFY2(a > 0 && a < b && b < c && c < d, qPrintable(s));
}

void TestReportMarkdown::markdownInShortWhenTheBaselineIsBest()
{
    ScenarioReport r = incident();
    std::swap(r.variants[0], r.variants[2]); // lever1+2 first: the baseline wins
    const QString s = part(md(r), "In short");
    QVERIFY2(s.contains("**lever1+2** came out best"), qPrintable(s));
    QVERIFY2(s.contains("That is the baseline (the first variant): no other variant improved on "
                        "it. The next best, "
                        "**all**: every tag was Good again 100.0 s after the last fault and stayed "
                        "Good, with 9000.0 "
                        "tag-seconds not Good."),
             qPrintable(s));
}

void TestReportMarkdown::markdownInShortWhenAllCameOutTheSame()
{
    ScenarioReport r = liveGate();
    r.variants[1].subscribeRequests = 22; // outcome measures only: requests do not decide
    const QString s = part(md(r), "In short");
    QVERIFY2(s.contains("All 2 variants came out the same: the tags were never all Good again "
                        "before the run ended, "
                        "and tags spent 330.0 tag-seconds not Good."),
             qPrintable(s));
    QVERIFY(!s.contains("came out best"));
}

void TestReportMarkdown::markdownInShortForASingleVariant()
{
    ScenarioReport r = bulkStorm();
    r.variants.removeLast();
    const QString s = part(md(r), "In short");
    QVERIFY2(s.contains("Only **lever1** ran, so there is nothing to compare: every tag was Good "
                        "again 95.5 s after "
                        "the last fault and stayed Good; tags spent 5000.0 tag-seconds not Good "
                        "and the gateway "
                        "received 490 Invoke calls."),
             qPrintable(s));
}

void TestReportMarkdown::markdownInShortComesBeforeTheTable()
{
    const QString m = md(incident());
    const qsizetype inShort = m.indexOf("## In short\n"), levers = m.indexOf("## The levers\n"),
                    metrics = m.indexOf("## Metrics\n"),
                    changed = m.indexOf("## What changed, and why\n");
    QVERIFY2(inShort > 0 && inShort < levers && levers < metrics && metrics < changed,
             qPrintable(m));
}

void TestReportMarkdown::markdownLeversExplainOnlyWhatDiffers()
{
    const QString gate = part(md(liveGate()), "The levers");
    QVERIFY2(gate.contains("**Lever 1: in-flight guard and backoff on the subscribe retry.**"),
             qPrintable(gate));
    QVERIFY2(gate.contains("- in-flight guard: off in **levers-off**; on in **lever1**."),
             qPrintable(gate));
    QVERIFY(gate.contains("- backoff: off in **levers-off**; on in **lever1**."));
    QVERIFY(!gate.contains("**Lever 2"));
    QVERIFY(!gate.contains("**Lever 3"));
    QVERIFY(!gate.contains("**Recovery period"));
    QVERIFY2(gate.contains("The same in every variant: bulk supervisory subscribe off; session "
                           "command timeout not "
                           "sent (the gateway's default); recovery gate off"),
             qPrintable(gate));

    const QString inc = part(md(incident()), "The levers");
    QVERIFY2(inc.contains("- bulk supervisory subscribe: off in **levers-off** and **lever1**; on "
                          "in **lever1+2** and "
                          "**all**."),
             qPrintable(inc));
    QVERIFY(inc.contains("1 + N commands"));
    QVERIFY2(inc.contains("- session command timeout: not sent (the gateway's default) in "
                          "**levers-off**, **lever1** "
                          "and **lever1+2**; 60 s in **all**."),
             qPrintable(inc));
    QVERIFY(inc.contains(
        "**Recovery period.** A gate in the client: after repeated failures it refuses calls for a "
        "while"));
}

void TestReportMarkdown::markdownLeversPutTheRecoveryGateInWords()
{
    const QString inc = part(md(incident()), "The levers");
    QVERIFY2(inc.contains(
                 "- recovery gate: off in **levers-off**, **lever1** and **lever1+2**; in **all**, "
                 "on: after "
                 "10 failures within 100 s it refuses calls until 60 s after the latest failure."),
             qPrintable(inc));
}

void TestReportMarkdown::markdownPlotsOnlyWhenThereAreSome()
{
    const ScenarioReport r = incident();
    QVERIFY(!md(r).contains("How to read the plots"));
    QVERIFY(!md(r).contains("!["));
    const QString m = QString::fromUtf8(
        reportToMarkdown(r, {{"levers-off", "levers-off.png"}, {"lever1+2", "lever1_2.png"}}));
    const QString how = part(m, "How to read the plots");
    QVERIFY2(how.contains("**Outstanding subscribe requests**") &&
                 how.contains("**Retry interval**") && how.contains("**Tag quality**") &&
                 how.contains("**Gateway load**"),
             qPrintable(how));
    const QString plots = part(m, "Plots");
    QVERIFY2(plots.contains("**levers-off**\n\n![levers-off](levers-off.png)"), qPrintable(plots));
    QVERIFY(plots.contains("![lever1+2](lever1_2.png)"));
    QVERIFY(!plots.contains("![lever1](")); // no image, no link
    QVERIFY(plots.indexOf("levers-off.png") < plots.indexOf("lever1_2.png"));
}

QTEST_GUILESS_MAIN(TestReportMarkdown)
#include "tst_report_markdown.moc"
