#include "scenario/report.h"
#include "client/lever_set.h"
#include "scenario/metric_table.h"
#include "scenario/report_writers.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

using namespace stormwatch;

namespace {

// Lever sets in the client's own JSON form (leverSetToJson), as the runner will report them.
QJsonObject levers(bool guard, bool backoff, bool bulk = false, int timeoutMs = 0) {
    LeverSet l = *leverPreset("levers-off", nullptr);
    l.inflightGuard = guard;
    l.confirmedFlag = guard;
    l.backoff = backoff;
    l.bulkSupervisory = bulk;
    l.sessionCommandTimeoutMs = timeoutMs;
    return leverSetToJson(l);
}

VariantMetrics variant(const QString& name, const QJsonObject& l) {
    VariantMetrics v;
    v.name = name;
    v.levers = l;
    return v;
}

// The shape of the seed's live gate: levers off stacks 22 unanswered subscribes, Lever 1 sends 3.
ScenarioReport liveGate() {
    ScenarioReport r;
    r.scenario = "live-gate-lever1";
    r.description = "the subscribe goes unanswered";
    r.durationS = 110;
    r.seed = 1;
    VariantMetrics off = variant("levers-off", levers(false, false));
    off.subscribeRequests = 22;
    off.maxOutstanding = 22;
    off.badTagSeconds = 330;
    off.wallMs = 12;
    VariantMetrics l1 = variant("lever1", levers(true, true));
    l1.subscribeRequests = 3;
    l1.maxOutstanding = 1;
    l1.badTagSeconds = 330;
    l1.wallMs = 9;
    r.variants = {off, l1};
    return r;
}

// A storm on the fan-out path: 2 instances × 244 tags, then the bulk call.
ScenarioReport bulkStorm() {
    ScenarioReport r;
    r.scenario = "storm";
    r.durationS = 600;
    VariantMetrics l1 = variant("lever1", levers(true, true));
    l1.subscribeRequests = 2;
    l1.maxOutstanding = 1;
    l1.gatewayRpcs = 490;
    l1.gatewayRpcsByKind = {{"add_item_bulk", 2}, {"advise_supervisory", 488}};
    l1.deadlineExceeded = 120;
    l1.maxStaQueueDepth = 400;
    l1.badTagSeconds = 5000;
    l1.timeToAllGoodS = 95.5;
    VariantMetrics l12 = variant("lever1+2", levers(true, true, true));
    l12.subscribeRequests = 2;
    l12.maxOutstanding = 1;
    l12.gatewayRpcs = 2;
    l12.gatewayRpcsByKind = {{"subscribe_bulk", 2}};
    l12.maxStaQueueDepth = 1;
    l12.badTagSeconds = 40;
    l12.timeToAllGoodS = 1.5;
    r.variants = {l1, l12};
    for (VariantMetrics& v : r.variants) v.timeToAllGoodFrom = "last fault";  // the storm is a fault
    return r;
}

// The incident's shape: levers off never recovers; Lever 1+2 recovers first with the fewest
// calls; all (recovery gate) comes back later than lever1+2.
ScenarioReport incident() {
    ScenarioReport r;
    r.scenario = "incident-2026-08-26";
    r.durationS = 1800;
    auto preset = [](const char* name) { return leverSetToJson(*leverPreset(name, nullptr)); };
    VariantMetrics off = variant("levers-off", preset("levers-off"));
    off.subscribeRequests = 400;
    off.maxOutstanding = 9;
    off.gatewayRpcs = 50000;
    off.badTagSeconds = 400000;
    VariantMetrics l1 = variant("lever1", preset("lever1"));
    l1.maxOutstanding = 1;
    l1.gatewayRpcs = 2000;
    l1.badTagSeconds = 20000;
    l1.timeToAllGoodS = 60;
    VariantMetrics l12 = variant("lever1+2", preset("lever1+2"));
    l12.maxOutstanding = 1;
    l12.gatewayRpcs = 10;
    l12.badTagSeconds = 5000;
    l12.timeToAllGoodS = 20;
    VariantMetrics all = variant("all", preset("all"));
    all.maxOutstanding = 1;
    all.gatewayRpcs = 12;
    all.badTagSeconds = 9000;
    all.timeToAllGoodS = 100;
    r.variants = {off, l1, l12, all};
    for (VariantMetrics& v : r.variants) v.timeToAllGoodFrom = "last fault";
    return r;
}

QString md(const ScenarioReport& r) { return QString::fromUtf8(reportToMarkdown(r)); }

QStringList tableKeys() {
    QStringList keys;
    for (const MetricDescriptor& m : metricTable()) keys << m.keyString();
    return keys;
}

// One CSV cell of a data line by its column name (no quoted commas in the metric columns).
QString csvCell(const ScenarioReport& r, int variant, const QString& column) {
    const QStringList lines = QString::fromUtf8(reportToCsv(r)).split('\n');
    const qsizetype index = lines[0].split(',').indexOf(column);
    if (index < 0) return QStringLiteral("<no column %1>").arg(column);
    // The levers column is quoted JSON with commas: count the metric columns from the end.
    const QStringList header = lines[0].split(',');
    const QStringList cells = lines[1 + variant].split(',');
    return cells[cells.size() - (header.size() - index)];
}

// The levers of a preset with the two Lever 1 follow-ups set as given.
QJsonObject withOrphanLevers(const char* preset, bool resubscribeGuard, bool dropSuperseded) {
    QJsonObject l = leverSetToJson(*leverPreset(preset, nullptr));
    l.insert("resubscribe_guard", resubscribeGuard);
    l.insert("drop_superseded", dropSuperseded);
    return l;
}

// A reconnect with a failed transparent re-subscribe: levers off orphans tags, lever1 does not.
ScenarioReport reconnect() {
    ScenarioReport r;
    r.scenario = "reconnect";
    r.durationS = 300;
    VariantMetrics off = variant("levers-off", withOrphanLevers("levers-off", false, false));
    off.badTagSeconds = 2400;
    off.orphanedTagSeconds = 1800.5;
    off.timeToAllGoodFrom = "last fault";
    VariantMetrics l1 = variant("lever1", withOrphanLevers("lever1", true, true));
    l1.badTagSeconds = 80;
    l1.timeToAllGoodS = 12;
    l1.timeToAllGoodFrom = "last fault";
    r.variants = {off, l1};
    return r;
}

// A "## " section of the Markdown report, up to the next one.
QString part(const QString& markdown, const QString& heading) {
    const qsizetype start = markdown.indexOf("## " + heading + "\n");
    if (start < 0) return {};
    const qsizetype end = markdown.indexOf("\n## ", start + 1);
    return markdown.mid(start, end < 0 ? -1 : end - start);
}
QStringList csvLines(const ScenarioReport& r) {
    QStringList lines = QString::fromUtf8(reportToCsv(r)).split('\n');
    if (lines.last().isEmpty()) lines.removeLast();
    return lines;
}

// The section of the Markdown report about one variant.
QString section(const QString& markdown, const QString& variantName) {
    const qsizetype start = markdown.indexOf("### " + variantName + "\n");
    if (start < 0) return {};
    const qsizetype end = markdown.indexOf("\n### ", start + 1);
    return markdown.mid(start, end < 0 ? -1 : end - start);
}

}  // namespace

class TestReport : public QObject {
    Q_OBJECT
private slots:
    void metricTableHasEveryMetricOnceInReportOrder();
    void metricTableDescribesEveryMetric();
    void everyOutputNamesEveryMetricOfTheTable();
    void metricTextFormatsIntegersAndSeconds();
    void absentQueueDepthIsNullEmptyAndNa();
    void absentGatewayCountersAndConnectionAreNa();
    void subscribeAndTeardownRpcsSumTheirKinds();
    void jsonCarriesTimeToAllGoodFromAndNotes();
    void cliTableFollowsTheMetricTable();
    void cliTableListsSkippedActionsAndNotes();
    void markdownDefinesEveryMetric();
    void markdownSaysPlainlyWhoOrphanedTagsAndTheCure();
    void markdownOrphanedTagsWithTheCuresOnAreADefect();
    void markdownComparisonCreditsTheResubscribeGuard();
    void markdownLeversExplainResubscribeGuardAndDropSuperseded();
    void markdownTimeToAllGoodFromTheStartWhenFaultsWereSkipped();
    void markdownPrintsNotes();
    void markdownUnknownQueueSaysNa();
    void markdownSharedSiteQueueIsKnown();
    void markdownMixedSiteQueueIsUnknownAndNamesTheUnreadGateway();
    void jsonHasExactlyTheDesignKeys();
    void jsonTimeToAllGoodIsNullWhenNever();
    void jsonByKindIsAnObjectOfCounts();
    void jsonModeSaysLiveOrVirtual();
    void jsonBytesWithoutWallMsAreDeterministic();
    void jsonBytesParseBackToReportToJson();
    void csvHasAHeaderAndOneRowPerVariant();
    void csvQuotesCommasQuotesAndNewlines();
    void csvWritesByKindAsKindEqualsCount();
    void csvLeavesNeverEmpty();
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
    void writeReportMarkdownLinksThePlots();
    void writeReportDirWritesThreeFiles();
    void writeReportDirCreatesMissingDirectories();
    void writeReportDirReportsAnUnwritableDirectory();
};

void TestReport::metricTableHasEveryMetricOnceInReportOrder() {
    const QStringList keys = tableKeys();
    QCOMPARE(keys, QStringList({"subscribe_requests", "max_outstanding", "max_gateway_outstanding_subscribes",
                                "gateway_rpcs", "gateway_rpcs_by_kind", "subscribe_rpcs", "teardown_rpcs",
                                "deadline_exceeded", "bad_tag_seconds", "orphaned_tag_seconds", "time_to_all_good_s",
                                "connected_after_s", "max_sta_queue_depth", "suppressed_calls", "wall_ms"}));
    for (const QString& k : keys) {
        QCOMPARE(keys.count(k), 1);
        QVERIFY2(findMetric(k) && findMetric(k)->keyString() == k, qPrintable(k));
    }
    QVERIFY(!findMetric("no_such_metric"));
}

void TestReport::metricTableDescribesEveryMetric() {
    const QList<MetricDescriptor>& table = metricTable();
    for (qsizetype i = 0; i < table.size(); ++i) {
        const MetricDescriptor& m = table[i];
        const QByteArray k = m.key;
        QVERIFY2(!m.labelString().isEmpty() && !m.unitString().isEmpty(), k);
        // One sentence: what it measures, ending with a full stop; how to read it likewise.
        QVERIFY2(m.descriptionString().endsWith('.') && m.howToReadString().endsWith('.'), k);
        QVERIFY2(m.tooltip().contains(m.descriptionString()), k);
        if (m.shape == MetricShape::ByKind) {
            QVERIFY2(!m.value, k);
            // Breaks down the metric right before it.
            QVERIFY2(m.breaksDown && i > 0 && QByteArray(table[i - 1].key) == m.breaksDown, k);
        } else {
            QVERIFY2(m.value, k);
        }
        QCOMPARE(m.deterministic, k != "wall_ms");
    }
    QCOMPARE(findMetric("time_to_all_good_s")->text(std::nullopt), QString("never"));
    QCOMPARE(findMetric("max_sta_queue_depth")->text(std::nullopt), QString("n/a"));
    QCOMPARE(findMetric("wall_ms")->better, Better::Unranked);
    QCOMPARE(findMetric("suppressed_calls")->better, Better::Unranked);
    QCOMPARE(findMetric("bad_tag_seconds")->better, Better::Lower);
    QCOMPARE(findMetric("orphaned_tag_seconds")->better, Better::Lower);
}

void TestReport::everyOutputNamesEveryMetricOfTheTable() {
    ScenarioReport r = bulkStorm();
    const QJsonObject json = reportToJson(r)["variants"].toArray()[0].toObject();
    const QJsonObject deterministic =
        QJsonDocument::fromJson(reportToJsonBytes(r, false)).object()["variants"].toArray()[0].toObject();
    const QStringList csvHeader = csvLines(r)[0].split(',');
    const QString markdown = md(r);
    const QString definitions = part(markdown, "Metrics");
    const QStringList cliLines = reportToText(r).split('\n');
    for (const MetricDescriptor& m : metricTable()) {
        const QString k = m.keyString();
        QVERIFY2(json.contains(k), qPrintable("JSON: " + k));
        QVERIFY2(deterministic.contains(k) == m.deterministic, qPrintable("determinism JSON: " + k));
        QVERIFY2(csvHeader.count(k) == 1, qPrintable("CSV: " + k));
        QVERIFY2(definitions.contains("- **" + k + "** ("), qPrintable("Markdown definitions: " + k));
        const bool cliRow = std::any_of(cliLines.begin(), cliLines.end(), [&](const QString& line) {
            return line == k || line.startsWith(k + ' ');
        });
        QVERIFY2(cliRow, qPrintable("CLI: " + k));
        if (m.shape == MetricShape::ByKind) {
            // A row per kind, in Markdown after the total, on the command line indented under the key.
            for (const QString& kind : rpcKinds(r)) {
                QVERIFY2(markdown.contains(QStringLiteral("| %1: %2 |").arg(QString::fromLatin1(m.breaksDown), kind)),
                         qPrintable(kind));
                QVERIFY2(reportToText(r).contains("\n  " + kind + ' '), qPrintable(kind));
            }
        } else {
            QVERIFY2(markdown.contains("\n| " + k + " |"), qPrintable("Markdown table: " + k));
        }
    }
}

void TestReport::metricTextFormatsIntegersAndSeconds() {
    const MetricDescriptor& rpcs = *findMetric("gateway_rpcs");
    QCOMPARE(rpcs.text(53680.0), QString("53680"));
    QCOMPARE(rpcs.text(53680.0, Digits::Grouped), QString("53,680"));
    const MetricDescriptor& bad = *findMetric("bad_tag_seconds");
    QCOMPARE(bad.text(330.0), QString("330.0"));
    QCOMPARE(bad.text(12.34), QString("12.3"));
    VariantMetrics v;
    v.connectedAfterS = 2.04;
    QCOMPARE(findMetric("connected_after_s")->text(v), QString("2.0"));  // seconds: one decimal
    QCOMPARE(findMetric("gateway_rpcs_by_kind")->text(v), QString());    // no single value
}

void TestReport::absentQueueDepthIsNullEmptyAndNa() {
    ScenarioReport r = liveGate();
    r.variants[0].maxStaQueueDepth.reset();  // a gateway that exposes no queue
    r.variants[1].maxStaQueueDepth = 0;      // a queue that never held anything
    const QJsonArray variants = reportToJson(r)["variants"].toArray();
    QVERIFY(variants[0].toObject().contains("max_sta_queue_depth"));
    QVERIFY(variants[0].toObject()["max_sta_queue_depth"].isNull());
    QCOMPARE(variants[1].toObject()["max_sta_queue_depth"].toInteger(-1), 0);
    QCOMPARE(csvCell(r, 0, "max_sta_queue_depth"), QString());
    QCOMPARE(csvCell(r, 1, "max_sta_queue_depth"), QString("0"));
    QVERIFY2(md(r).contains("\n| max_sta_queue_depth | n/a | 0 |\n"), qPrintable(md(r)));
    QVERIFY2(reportToText(r).contains(QRegularExpression("\nmax_sta_queue_depth +n/a +0\n")), qPrintable(reportToText(r)));
}

void TestReport::absentGatewayCountersAndConnectionAreNa() {
    ScenarioReport r = liveGate();
    r.variants[1].maxGatewayOutstandingSubscribes = 2;
    r.variants[1].connectedAfterS = 1.5;
    const QJsonArray variants = reportToJson(r)["variants"].toArray();
    QVERIFY(variants[0].toObject()["max_gateway_outstanding_subscribes"].isNull());
    QVERIFY(variants[0].toObject()["connected_after_s"].isNull());
    QCOMPARE(variants[1].toObject()["max_gateway_outstanding_subscribes"].toInteger(), 2);
    QCOMPARE(variants[1].toObject()["connected_after_s"].toDouble(), 1.5);
    QCOMPARE(csvCell(r, 0, "connected_after_s"), QString());
    QCOMPARE(csvCell(r, 1, "connected_after_s"), QString("1.5"));
    const QString m = md(r);
    QVERIFY2(m.contains("| max_gateway_outstanding_subscribes | n/a | 2 |"), qPrintable(m));
    QVERIFY2(m.contains("| connected_after_s | n/a | 1.5 |"), qPrintable(m));
}

void TestReport::subscribeAndTeardownRpcsSumTheirKinds() {
    ScenarioReport r = liveGate();
    r.variants[0].gatewayRpcsByKind = {{"register", 1000},       {"add_item_bulk", 1},  {"subscribe_bulk", 2},
                                       {"advise_supervisory", 4}, {"advise", 8},        {"advise_item_bulk", 16},
                                       {"add_item", 32},          {"remove_item", 64},  {"un_advise", 128},
                                       {"write", 2000},           {"subscribe_alarms", 4000}};
    r.variants[0].gatewayRpcs = 7255;
    QCOMPARE(subscribeRpcKinds(), QStringList({"add_item_bulk", "subscribe_bulk", "advise_supervisory", "advise",
                                               "advise_item_bulk", "add_item"}));
    QCOMPARE(teardownRpcKinds(), QStringList({"remove_item", "un_advise"}));
    QCOMPARE(*findMetric("subscribe_rpcs")->value(r.variants[0]), 63.0);  // 1 + 2 + 4 + 8 + 16 + 32
    QCOMPARE(*findMetric("teardown_rpcs")->value(r.variants[0]), 192.0);  // 64 + 128
    const QJsonObject json = reportToJson(r)["variants"].toArray()[0].toObject();
    QCOMPARE(json["subscribe_rpcs"].toInteger(), 63);
    QCOMPARE(json["teardown_rpcs"].toInteger(), 192);
    QCOMPARE(json["gateway_rpcs"].toInteger(), 7255);  // the total stays the gateway's own count
    QCOMPARE(csvCell(r, 0, "subscribe_rpcs"), QString("63"));
    QCOMPARE(csvCell(r, 0, "teardown_rpcs"), QString("192"));
    // None of those kinds: 0, not "n/a".
    QCOMPARE(*findMetric("subscribe_rpcs")->value(r.variants[1]), 0.0);
    QVERIFY(md(r).contains("| subscribe_rpcs | 63 | 0 |"));
    QVERIFY(md(r).contains("| teardown_rpcs | 192 | 0 |"));
}

void TestReport::jsonCarriesTimeToAllGoodFromAndNotes() {
    ScenarioReport r = bulkStorm();
    r.variants[1].timeToAllGoodFrom = "start";
    r.variants[1].notes = QStringList{"clean start: the gateway was restarted before this variant"};
    const QJsonArray variants = reportToJson(r)["variants"].toArray();
    QCOMPARE(variants[0].toObject()["time_to_all_good_from"].toString(), QString("last fault"));
    QCOMPARE(variants[1].toObject()["time_to_all_good_from"].toString(), QString("start"));
    QVERIFY(!variants[0].toObject().contains("notes"));  // only when there are some
    QCOMPARE(variants[1].toObject()["notes"].toArray().size(), 1);
    QCOMPARE(variants[1].toObject()["notes"].toArray()[0].toString(),
             QString("clean start: the gateway was restarted before this variant"));
}

void TestReport::cliTableFollowsTheMetricTable() {
    const ScenarioReport r = bulkStorm();
    const QString text = reportToText(r);
    QVERIFY2(text.startsWith("scenario storm — virtual, 600 s, seed 1\n\n"), qPrintable(text));
    QStringList rowNames;
    for (const QString& line : text.split('\n').mid(2)) {
        if (line.isEmpty()) break;
        rowNames << line.trimmed().section(QRegularExpression("\\s{2,}"), 0, 0);
    }
    QStringList expected{"metric"};
    for (const MetricDescriptor& m : metricTable()) {
        expected << m.keyString();
        if (m.shape == MetricShape::ByKind) expected += rpcKinds(r);
    }
    QCOMPARE(rowNames, expected);
    QVERIFY2(text.contains(QRegularExpression("\nbad_tag_seconds +5000\\.0 +40\\.0\n")), qPrintable(text));
    QVERIFY2(text.contains(QRegularExpression("\ngateway_rpcs_by_kind\n  add_item_bulk +2 +0\n")), qPrintable(text));
    QVERIFY2(text.contains(QRegularExpression("\ntime_to_all_good_s +95\\.5 +1\\.5\n")), qPrintable(text));
}

void TestReport::cliTableListsSkippedActionsAndNotes() {
    ScenarioReport r = liveGate();
    r.variants[0].skippedActions = QStringList{"wedge at 10 s skipped: the gateway has no control service"};
    r.variants[1].notes = QStringList{"clean start"};
    const QString text = reportToText(r);
    QVERIFY2(text.contains("\nlevers-off: wedge at 10 s skipped: the gateway has no control service\n"), qPrintable(text));
    QVERIFY2(text.endsWith("\nlever1: clean start\n"), qPrintable(text));
}

void TestReport::markdownDefinesEveryMetric() {
    const QString metrics = part(md(liveGate()), "Metrics");
    QVERIFY2(metrics.contains("- **orphaned_tag_seconds** (tag-s): Tag-seconds a deployed tag was not Good with no live "
                              "subscription, nothing in flight and no retry scheduled — a tag nobody will ever fix. "
                              "Guarded variants must keep it at 0"),
             qPrintable(metrics));
    for (const char* key : {"max_gateway_outstanding_subscribes", "subscribe_rpcs", "teardown_rpcs", "connected_after_s"})
        QVERIFY2(metrics.contains(QStringLiteral("- **%1** (").arg(key)), key);
    QVERIFY(metrics.contains("add_item_bulk, subscribe_bulk, advise_supervisory, advise, advise_item_bulk and add_item"));
    QVERIFY(metrics.contains("remove_item and un_advise"));
}

void TestReport::markdownSaysPlainlyWhoOrphanedTagsAndTheCure() {
    const QString s = part(md(reconnect()), "In short");
    QVERIFY2(s.contains("**levers-off** left tags orphaned for 1800.5 tag-seconds: nothing would ever have "
                        "re-subscribed them."),
             qPrintable(s));
    QVERIFY2(s.contains("The levers that cure it are the re-subscribe guard (`resubscribe_guard`): after a reconnect "
                        "the instance's guard re-subscribes instead of the connection's one-shot transparent "
                        "re-subscribe, so a failed re-subscribe is retried; and dropping superseded subscribes "
                        "(`drop_superseded`): a subscribe held while disconnected is dropped when its guard "
                        "supersedes it, so only the latest goes out on reconnect. **lever1** had them on and left "
                        "no tag orphaned."),
             qPrintable(s));
    QVERIFY2(s.contains("- **levers-off**: never all Good again; 2400.0 tag-seconds not Good (1800.5 of them orphaned);"),
             qPrintable(s));
    QVERIFY(!s.contains("**lever1** left tags orphaned"));

    // Only the re-subscribe guard differs: it alone is named.
    ScenarioReport one = reconnect();
    one.variants[0].levers = withOrphanLevers("levers-off", false, true);
    const QString o = part(md(one), "In short");
    QVERIFY2(o.contains("The lever that cures it is the re-subscribe guard (`resubscribe_guard`)"), qPrintable(o));
    QVERIFY(!o.contains("`drop_superseded`"));

    // No variant shows the cure: the lever is still named.
    ScenarioReport alone = reconnect();
    alone.variants.removeLast();
    const QString a = part(md(alone), "In short");
    QVERIFY2(a.contains("The lever that cures it is the re-subscribe guard (`resubscribe_guard`)") &&
                 a.contains("No variant of this report had it on."),
             qPrintable(a));
}

void TestReport::markdownOrphanedTagsWithTheCuresOnAreADefect() {
    ScenarioReport r = reconnect();
    r.variants[1].orphanedTagSeconds = 3;
    const QString s = part(md(r), "In short");
    QVERIFY2(s.contains("**lever1** left tags orphaned for 3.0 tag-seconds"), qPrintable(s));
    QVERIFY2(s.contains("a guarded variant must keep orphaned_tag_seconds at 0"), qPrintable(s));
}

void TestReport::markdownComparisonCreditsTheResubscribeGuard() {
    const QString s = section(md(reconnect()), "lever1");
    QVERIFY2(s.contains("No tag was left orphaned (levers-off: 1800.5 tag-seconds): with the re-subscribe guard on, "
                        "after a reconnect the instance's guard re-subscribed instead of the connection's one-shot "
                        "transparent re-subscribe, so a failed re-subscribe was retried"),
             qPrintable(s));
    QVERIFY(s.contains("re-subscribe guard after a reconnect (Lever 1) off → on"));
    ScenarioReport swapped = reconnect();
    std::swap(swapped.variants[0], swapped.variants[1]);
    const QString o = section(md(swapped), "levers-off");
    QVERIFY2(o.contains("**levers-off** left tags orphaned for 1800.5 tag-seconds: nothing would ever have "
                        "re-subscribed them.") &&
                 o.contains("With lever1 it was 0.0 tag-seconds."),
             qPrintable(o));
}

void TestReport::markdownLeversExplainResubscribeGuardAndDropSuperseded() {
    const QString s = part(md(reconnect()), "The levers");
    QVERIFY2(s.contains("**Lever 1: re-subscribe guard after a reconnect.** When the connection to the gateway drops"),
             qPrintable(s));
    QVERIFY(s.contains("a transparent re-subscribe"));
    QVERIFY(s.contains("no retry scheduled: orphaned. With it, the instance's guard re-subscribes instead"));
    QVERIFY(s.contains("- re-subscribe guard: off in **levers-off**; on in **lever1**."));
    QVERIFY(s.contains("**Lever 1: drop superseded subscribes held while disconnected.** While the connection is down"));
    QVERIFY(s.contains("only the latest goes out on reconnect"));
    QVERIFY(s.contains("- drop superseded: off in **levers-off**; on in **lever1**."));
    // Levers that do not differ are not explained, only listed as the same.
    const QString gate = part(md(liveGate()), "The levers");
    QVERIFY2(!gate.contains("re-subscribe guard after a reconnect.**"), qPrintable(gate));
    QVERIFY2(gate.contains("re-subscribe guard off; drop superseded off."), qPrintable(gate));
    // In short names Lever 1 once, though three of its groups differ.
    ScenarioReport inc = incident();
    const QString inShort = part(md(inc), "In short");
    QVERIFY2(inShort.contains("in Lever 1 and Lever 2 (see"), qPrintable(inShort));
}

void TestReport::markdownTimeToAllGoodFromTheStartWhenFaultsWereSkipped() {
    ScenarioReport r = bulkStorm();
    r.live = true;
    for (VariantMetrics& v : r.variants) {
        v.timeToAllGoodFrom = "start";
        v.skippedActions = QStringList{"wedge at 10 s skipped: the gateway has no control service"};
    }
    const QString m = md(r);
    QVERIFY2(m.contains("lever1: time_to_all_good_s is measured from the start of the run, because the gateway "
                        "applied none of its faults."),
             qPrintable(m));
    const QString s = part(m, "In short");
    QVERIFY2(s.contains("For **lever1** and **lever1+2**, time_to_all_good_s is measured from the start of the run, "
                        "because the gateway applied none of its faults"),
             qPrintable(s));
    QVERIFY2(s.contains("every tag was Good again 1.5 s after the start of the run"), qPrintable(s));
    QVERIFY(section(m, "lever1+2").contains("1.5 s after the start of the run (lever1: 95.5 s)"));
    // Without skipped faults (no faults at all) it counts from the start without comment.
    for (VariantMetrics& v : r.variants) v.skippedActions.clear();
    QVERIFY(!md(r).contains("applied none of its faults"));
    QVERIFY(md(r).contains("after the start of the run"));
}

void TestReport::markdownPrintsNotes() {
    ScenarioReport r = liveGate();
    r.variants[1].notes = QStringList{"clean start: a fresh gateway", "second note"};
    const QString m = part(md(r), "Metrics");
    QVERIFY2(m.contains("lever1: notes on this run:\n\n- clean start: a fresh gateway\n- second note\n"), qPrintable(m));
    QVERIFY(!m.contains("levers-off: notes"));
}

// A live site's shared gateways: the counts are the client's, the queue was read from them.
void TestReport::markdownSharedSiteQueueIsKnown() {
    ScenarioReport r = bulkStorm();
    r.variants[1].maxStaQueueDepth = 7;
    r.variants[1].gatewayMetricsSource = "client";
    const QString m = md(r);
    QVERIFY2(m.contains("max_sta_queue_depth is the deepest queue read from the gateways once a second"), qPrintable(m));
    QVERIFY2(!m.contains("max_sta_queue_depth and max_gateway_outstanding_subscribes are unknown"), qPrintable(m));
}

void TestReport::markdownMixedSiteQueueIsUnknownAndNamesTheUnreadGateway() {
    ScenarioReport r = bulkStorm();
    r.variants[1].maxStaQueueDepth.reset();
    r.variants[1].unreadStaQueues = QStringList{"gw-real"};
    r.variants[1].gatewayMetricsSource = "client";
    r.variants[1].notes << "max_sta_queue_depth is unknown (n/a): the STA queue of gw-real could not be read";
    const QString m = md(r);
    QVERIFY2(m.contains("max_sta_queue_depth is unknown (n/a), since the STA queue of gw-real could not be read"),
             qPrintable(m));
    QVERIFY2(!m.contains(r.variants[1].name + ": the gateway exposes no counters"), qPrintable(m));
    QVERIFY2(!m.contains("max_sta_queue_depth is the deepest queue read"), qPrintable(m));
    // The metrics table says n/a for it, and no STA sentence compares it.
    const QString row = m.split('\n').filter(QRegularExpression("^\\| max_sta_queue_depth \\|")).value(0);
    QVERIFY2(row.endsWith("| n/a |"), qPrintable(row));
    QVERIFY2(!section(m, "lever1+2").contains("STA queue"), qPrintable(section(m, "lever1+2")));
    const QJsonObject json = variantToJson(r.variants[1]);
    QVERIFY(json.value("max_sta_queue_depth").isNull());
    QVERIFY(json.value("notes").toArray().first().toString().contains("gw-real"));
}

void TestReport::markdownUnknownQueueSaysNa() {
    ScenarioReport r = bulkStorm();
    r.variants[1].maxStaQueueDepth.reset();
    r.variants[1].gatewayMetricsSource = "client";
    const QString m = md(r);
    QVERIFY2(m.contains("max_sta_queue_depth and max_gateway_outstanding_subscribes are unknown (n/a)."), qPrintable(m));
    QVERIFY(!m.contains("unknown (0)"));
    // No STA sentence compares a known queue with an unknown one.
    const QString s = section(m, "lever1+2");
    QVERIFY2(!s.contains("STA queue"), qPrintable(s));
}

void TestReport::jsonHasExactlyTheDesignKeys() {
    const QJsonObject o = reportToJson(liveGate());
    QStringList top = o.keys();
    top.sort();
    QCOMPARE(top, QStringList({"description", "duration_s", "mode", "scenario", "seed", "variants"}));
    QCOMPARE(o["scenario"].toString(), QString("live-gate-lever1"));
    QCOMPARE(o["duration_s"].toDouble(), 110.0);
    QCOMPARE(o["seed"].toInteger(), 1);
    const QJsonArray variants = o["variants"].toArray();
    QCOMPARE(variants.size(), 2);
    QStringList keys = variants[0].toObject().keys();
    keys.sort();
    QCOMPARE(keys, QStringList({"bad_tag_seconds", "connected_after_s", "deadline_exceeded", "gateway_rpcs",
                                "gateway_rpcs_by_kind", "levers", "max_gateway_outstanding_subscribes",
                                "max_outstanding", "max_sta_queue_depth", "name", "orphaned_tag_seconds",
                                "subscribe_requests", "subscribe_rpcs", "suppressed_calls", "teardown_rpcs",
                                "time_to_all_good_from", "time_to_all_good_s", "wall_ms"}));
    const QJsonObject l1 = variants[1].toObject();
    QCOMPARE(l1["name"].toString(), QString("lever1"));
    QCOMPARE(l1["subscribe_requests"].toInteger(), 3);
    QCOMPARE(l1["max_outstanding"].toInteger(), 1);
    QCOMPARE(l1["bad_tag_seconds"].toDouble(), 330.0);
    QCOMPARE(l1["wall_ms"].toInteger(), 9);
    QCOMPARE(l1["levers"].toObject()["inflight_guard"].toBool(), true);
}

void TestReport::jsonTimeToAllGoodIsNullWhenNever() {
    const QJsonArray variants = reportToJson(bulkStorm())["variants"].toArray();
    QCOMPARE(variants[0].toObject()["time_to_all_good_s"].toDouble(), 95.5);
    const QJsonArray never = reportToJson(liveGate())["variants"].toArray();
    QVERIFY(never[0].toObject().contains("time_to_all_good_s"));
    QVERIFY(never[0].toObject()["time_to_all_good_s"].isNull());
}

void TestReport::jsonByKindIsAnObjectOfCounts() {
    const QJsonObject byKind =
        reportToJson(bulkStorm())["variants"].toArray()[0].toObject()["gateway_rpcs_by_kind"].toObject();
    QCOMPARE(byKind.size(), 2);
    QCOMPARE(byKind["add_item_bulk"].toInteger(), 2);
    QCOMPARE(byKind["advise_supervisory"].toInteger(), 488);
}

void TestReport::jsonModeSaysLiveOrVirtual() {
    ScenarioReport r = liveGate();
    QCOMPARE(reportToJson(r)["mode"].toString(), QString("virtual"));
    r.live = true;
    QCOMPARE(reportToJson(r)["mode"].toString(), QString("live"));
}

void TestReport::jsonBytesWithoutWallMsAreDeterministic() {
    ScenarioReport a = liveGate(), b = liveGate();
    b.variants[0].wallMs = 999;
    QCOMPARE(reportToJsonBytes(a, false), reportToJsonBytes(b, false));
    QVERIFY(reportToJsonBytes(a, true) != reportToJsonBytes(b, true));
    QVERIFY(!reportToJsonBytes(a, false).contains("wall_ms"));
    b.variants[1].subscribeRequests = 4;  // a real difference still shows
    QVERIFY(reportToJsonBytes(a, false) != reportToJsonBytes(b, false));
}

void TestReport::jsonBytesParseBackToReportToJson() {
    const ScenarioReport r = bulkStorm();
    QCOMPARE(QJsonDocument::fromJson(reportToJsonBytes(r, true)).object(), reportToJson(r));
}

void TestReport::csvHasAHeaderAndOneRowPerVariant() {
    const QStringList lines = csvLines(liveGate());
    QCOMPARE(lines.size(), 3);
    QCOMPARE(lines[0], QString("scenario,variant,levers,subscribe_requests,max_outstanding,"
                               "max_gateway_outstanding_subscribes,gateway_rpcs,gateway_rpcs_by_kind,subscribe_rpcs,"
                               "teardown_rpcs,deadline_exceeded,bad_tag_seconds,orphaned_tag_seconds,"
                               "time_to_all_good_s,connected_after_s,max_sta_queue_depth,suppressed_calls,wall_ms"));
    QVERIFY2(lines[2].startsWith("live-gate-lever1,lever1,\"{"), qPrintable(lines[2]));
    // No gateway counters, no time to all Good, no connection time, no queue depth: empty cells.
    QVERIFY2(lines[2].endsWith(",3,1,,0,,0,0,0,330,0,,,,0,9"), qPrintable(lines[2]));
}

void TestReport::csvQuotesCommasQuotesAndNewlines() {
    ScenarioReport r = liveGate();
    r.scenario = "plain";
    r.variants[0].name = "guard, \"strict\"";
    r.variants[1].name = "two\nlines";
    const QString csv = QString::fromUtf8(reportToCsv(r));
    QVERIFY2(csv.contains("\nplain,\"guard, \"\"strict\"\"\","), qPrintable(csv));
    QVERIFY2(csv.contains("\nplain,\"two\nlines\","), qPrintable(csv));
    // the levers JSON has commas and quotes, so it is quoted with doubled quotes
    QVERIFY2(csv.contains(",\"{\"\"alarm_guard\"\":false,"), qPrintable(csv));
}

void TestReport::csvWritesByKindAsKindEqualsCount() {
    const QStringList lines = csvLines(bulkStorm());
    QVERIFY2(lines[1].contains(",490,add_item_bulk=2;advise_supervisory=488,490,0,120,"), qPrintable(lines[1]));
    QVERIFY2(lines[2].contains(",2,subscribe_bulk=2,2,0,0,"), qPrintable(lines[2]));
}

void TestReport::csvLeavesNeverEmpty() {
    const QStringList storm = csvLines(bulkStorm());
    QVERIFY2(storm[1].contains(",5000,0,95.5,,400,"), qPrintable(storm[1]));
    const QStringList gate = csvLines(liveGate());
    QVERIFY2(gate[1].contains(",330,0,,,,0,"), qPrintable(gate[1]));
}

void TestReport::markdownHasTheMetricsTable() {
    const QString m = md(bulkStorm());
    QVERIFY2(m.contains("| metric | lever1 | lever1+2 |\n| --- | ---: | ---: |"), qPrintable(m));
    QVERIFY(m.contains("| subscribe_requests | 2 | 2 |"));
    QVERIFY(m.contains("| gateway_rpcs | 490 | 2 |"));
    QVERIFY(m.contains("| gateway_rpcs: advise_supervisory | 488 | 0 |"));
    QVERIFY(m.contains("| gateway_rpcs: subscribe_bulk | 0 | 2 |"));
    QVERIFY(m.contains("| time_to_all_good_s | 95.5 | 1.5 |"));
    QVERIFY(md(liveGate()).contains("| time_to_all_good_s | never | never |"));
}

void TestReport::markdownGuardSentenceUsesTheNumbers() {
    const QString s = section(md(liveGate()), "lever1");
    QVERIFY2(s.contains("Each subscription kept at most 1 subscribe request outstanding (levers-off: 22)."),
             qPrintable(s));
    QVERIFY(s.contains("With the in-flight guard on, a subscription whose request is still unanswered does not send another"));
    QVERIFY(s.contains("in-flight guard (Lever 1) off → on"));
    QVERIFY(s.contains("retry backoff (Lever 1) off → on"));
}

void TestReport::markdownGuardGetsNoCreditWhenNothingStacked() {
    ScenarioReport r = liveGate();
    r.variants[0].maxOutstanding = 1;  // every subscribe was answered before the next tick
    const QString s = section(md(r), "lever1");
    QVERIFY2(s.contains("The largest number of outstanding subscribe requests was 1 in both"), qPrintable(s));
    QVERIFY(s.contains("had nothing to hold back"));
    QVERIFY(!s.contains("does not send another"));
}

void TestReport::markdownExplainsFewerRequestsByGuardAndBackoff() {
    const QString s = section(md(liveGate()), "lever1");
    QVERIFY2(s.contains("The instances sent 3 tag-subscribe requests instead of 22 (7.3× fewer), because the guard held "
                        "back re-sends while a request was in flight and the backoff doubled the retry interval"),
             qPrintable(s));
}

void TestReport::markdownCreditsOnlyTheLeverThatDiffers() {
    ScenarioReport r = liveGate();
    r.variants[0].levers = levers(true, false);  // baseline already has the guard
    r.variants[0].name = "guard-only";
    const QString s = section(md(r), "lever1");
    QVERIFY2(s.contains("instead of 22 (7.3× fewer), because the backoff doubled"), qPrintable(s));
    QVERIFY(!s.contains("the guard held back"));
    QVERIFY(!s.contains("in-flight guard (Lever 1)"));  // not listed as a change
}

void TestReport::markdownExplainsStackingWhenGuardTurnedOff() {
    ScenarioReport r = liveGate();
    std::swap(r.variants[0], r.variants[1]);  // baseline lever1, then levers-off
    const QString s = section(md(r), "levers-off");
    QVERIFY2(s.contains("Up to 22 subscribe requests of one subscription were outstanding at once (lever1: 1)."),
             qPrintable(s));
    QVERIFY(s.contains("every retry tick sends a fresh request while earlier ones are still unanswered"));
    QVERIFY(s.contains("(7.3× more), because without the guard every retry tick re-sent the subscribe and without "
                       "backoff the retries came at the fixed interval."));
}

void TestReport::markdownBulkSentenceDrivenByCallKinds() {
    const QString s = section(md(bulkStorm()), "lever1+2");
    QVERIFY2(s.contains("The gateway received 2 Invoke calls instead of 490 (245× fewer). By kind: add_item_bulk 2 → 0, "
                        "advise_supervisory 488 → 0, subscribe_bulk 0 → 2."),
             qPrintable(s));
    QVERIFY(s.contains("one subscribe is a single SubscribeBulk call"));
    QVERIFY(!s.contains("Part of the drop follows from the fewer subscribe requests"));  // requests were equal
    QVERIFY(s.contains("Tags were not Good for 40.0 tag-seconds in total instead of 5000.0 (99 % less)."));
    QVERIFY(s.contains("All tags were Good, and stayed Good, 1.5 s after the last fault (lever1: 95.5 s)."));
}

void TestReport::markdownBulkFallbackWhenCapabilityMissing() {
    ScenarioReport r = bulkStorm();
    r.variants[1].gatewayRpcs = 490;
    r.variants[1].gatewayRpcsByKind = r.variants[0].gatewayRpcsByKind;  // an old gateway: still the fan-out
    const QString s = section(md(r), "lever1+2");
    QVERIFY2(s.contains("Bulk supervisory subscribe was on, yet the gateway received no subscribe_bulk calls and 488 "
                        "advise_supervisory calls"),
             qPrintable(s));
    QVERIFY(!s.contains("single SubscribeBulk call"));
    QVERIFY(!s.contains("The gateway received 490"));  // unchanged count: no comparison sentence
}

void TestReport::markdownDeadlineSentenceNamesTimeoutsAndQueue() {
    ScenarioReport r = bulkStorm();
    r.variants[1].levers = levers(true, true, false, 60000);
    r.variants[1].name = "lever1+3";
    r.variants[1].deadlineExceeded = 7;
    r.variants[1].maxStaQueueDepth = 350;
    const QString s = section(md(r), "lever1+3");
    QVERIFY2(s.contains("7 Invoke calls failed with DEADLINE_EXCEEDED instead of 120. The session command timeout was "
                        "60 s instead of not sent (gateway default)"),
             qPrintable(s));
    QVERIFY(s.contains("The STA queue peaked at 350 commands instead of 400, so fewer commands waited past the timeout."));
    QVERIFY(s.contains("session command timeout (Lever 3) not sent (gateway default) → 60 s"));
}

void TestReport::markdownReadsWellForLargeRatiosAndZero() {
    ScenarioReport r = bulkStorm();
    r.variants[0].gatewayRpcs = 53680;
    r.variants[1].deadlineExceeded = 0;
    r.variants[1].maxStaQueueDepth = 1;
    const QString s = section(md(r), "lever1+2");
    QVERIFY2(s.contains("instead of 53,680 (26,840× fewer)"), qPrintable(s));
    QVERIFY(s.contains("No Invoke call failed with DEADLINE_EXCEEDED (lever1: 120)."));
    QVERIFY(s.contains("The STA queue peaked at 1 command instead of 400, so fewer commands waited past the timeout."));
}

void TestReport::markdownRecoveryGateSentence() {
    ScenarioReport r = liveGate();
    LeverSet withGate = *leverSetFromJson(r.variants[1].levers, nullptr);
    withGate.recovery = RecoveryConfig{.enabled = true, .strategy = RecoveryConfig::Strategy::Simple};
    r.variants[1].levers = leverSetToJson(withGate);
    r.variants[1].suppressedCalls = 1234;
    const QString s = section(md(r), "lever1");
    QVERIFY2(s.contains("The recovery gate refused 1,234 calls (levers-off: 0)."), qPrintable(s));
    QVERIFY(s.contains("fail at once as temporarily unavailable"));
    QVERIFY(s.contains("recovery gate off → on (windowed fail handler, simple recovery)"));
}

void TestReport::markdownTimeToAllGoodNever() {
    QVERIFY(md(liveGate()).contains("In neither variant were all tags Good to the end of the run."));
    ScenarioReport r = bulkStorm();
    r.variants[1].timeToAllGoodS.reset();
    QVERIFY(section(md(r), "lever1+2").contains("The tags never all became Good and stayed Good (lever1: all Good after 95.5 s)."));
}

void TestReport::markdownSameLeversSaysSo() {
    ScenarioReport r = liveGate();
    r.variants[1].levers = r.variants[0].levers;
    r.variants[1].name = "again";
    r.variants[1].subscribeRequests = 22;
    r.variants[1].maxOutstanding = 22;
    const QString s = section(md(r), "again");
    QVERIFY2(s.contains("Same levers as levers-off."), qPrintable(s));
    QVERIFY(!s.contains("tag-subscribe"));  // no change, no retry lever changed: nothing to say
    QVERIFY(!s.contains("outstanding"));
}

void TestReport::markdownSingleVariantHasNothingToCompare() {
    ScenarioReport r = liveGate();
    r.variants.removeLast();
    const QString m = md(r);
    QVERIFY(m.contains("Only one variant ran, so there is nothing to compare."));
    QVERIFY(m.contains("| metric | levers-off |"));
}

void TestReport::markdownEscapesPipesInTableCells() {
    ScenarioReport r = liveGate();
    r.variants[1].name = "a|b";
    QVERIFY(md(r).contains("| metric | levers-off | a\\|b |"));
}

void TestReport::markdownInShortNamesTheWinnerAndByHowMuch() {
    const QString s = part(md(incident()), "In short");
    QVERIFY2(s.contains("**lever1+2** came out best: every tag was Good again 20.0 s after the last fault and "
                        "stayed Good, and tags spent 5000.0 tag-seconds not Good in all."),
             qPrintable(s));
    QVERIFY2(s.contains("The first variant, **levers-off**, is the baseline the others are compared with: the tags "
                        "were never all Good again before the run ended, with 400000.0 tag-seconds not Good."),
             qPrintable(s));
    // 5,000 of 400,000: 98.75 % less, rounded; 10 calls instead of 50,000.
    QVERIFY2(s.contains("cut the time tags were not Good by 99 % (5000.0 instead of 400000.0 tag-seconds)"), qPrintable(s));
    QVERIFY2(s.contains("the gateway received 10 Invoke calls instead of 50,000 (5,000× fewer)."), qPrintable(s));
    QVERIFY2(s.contains("It differs from **levers-off** in Lever 1 and Lever 2 (see \"The levers\" below)."), qPrintable(s));
}

void TestReport::markdownInShortRanksFromBestToWorst() {
    const QString s = part(md(incident()), "In short");
    const qsizetype a = s.indexOf("- **lever1+2**: all Good 20.0 s after the last fault; 5000.0 tag-seconds not Good; "
                                  "10 Invoke calls to the gateway; at most 1 subscribe request of one subscription "
                                  "outstanding at once.");
    const qsizetype b = s.indexOf("- **all**: all Good 100.0 s");
    const qsizetype c = s.indexOf("- **lever1**: all Good 60.0 s");
    const qsizetype d = s.indexOf("- **levers-off**: never all Good again; 400000.0 tag-seconds not Good; 50,000 Invoke "
                                  "calls to the gateway; at most 9 subscribe requests");
    QVERIFY2(a > 0 && a < b && b < c && c < d, qPrintable(s));
}

void TestReport::markdownInShortWhenTheBaselineIsBest() {
    ScenarioReport r = incident();
    std::swap(r.variants[0], r.variants[2]);  // lever1+2 first: the baseline wins
    const QString s = part(md(r), "In short");
    QVERIFY2(s.contains("**lever1+2** came out best"), qPrintable(s));
    QVERIFY2(s.contains("That is the baseline (the first variant): no other variant improved on it. The next best, "
                        "**all**: every tag was Good again 100.0 s after the last fault and stayed Good, with 9000.0 "
                        "tag-seconds not Good."),
             qPrintable(s));
}

void TestReport::markdownInShortWhenAllCameOutTheSame() {
    ScenarioReport r = liveGate();
    r.variants[1].subscribeRequests = 22;  // outcome measures only: requests do not decide
    const QString s = part(md(r), "In short");
    QVERIFY2(s.contains("All 2 variants came out the same: the tags were never all Good again before the run ended, "
                        "and tags spent 330.0 tag-seconds not Good."),
             qPrintable(s));
    QVERIFY(!s.contains("came out best"));
}

void TestReport::markdownInShortForASingleVariant() {
    ScenarioReport r = bulkStorm();
    r.variants.removeLast();
    const QString s = part(md(r), "In short");
    QVERIFY2(s.contains("Only **lever1** ran, so there is nothing to compare: every tag was Good again 95.5 s after "
                        "the last fault and stayed Good; tags spent 5000.0 tag-seconds not Good and the gateway "
                        "received 490 Invoke calls."),
             qPrintable(s));
}

void TestReport::markdownInShortComesBeforeTheTable() {
    const QString m = md(incident());
    const qsizetype inShort = m.indexOf("## In short\n"), levers = m.indexOf("## The levers\n"),
                    metrics = m.indexOf("## Metrics\n"), changed = m.indexOf("## What changed, and why\n");
    QVERIFY2(inShort > 0 && inShort < levers && levers < metrics && metrics < changed, qPrintable(m));
}

void TestReport::markdownLeversExplainOnlyWhatDiffers() {
    const QString gate = part(md(liveGate()), "The levers");
    QVERIFY2(gate.contains("**Lever 1: in-flight guard and backoff on the subscribe retry.**"), qPrintable(gate));
    QVERIFY2(gate.contains("- in-flight guard: off in **levers-off**; on in **lever1**."), qPrintable(gate));
    QVERIFY(gate.contains("- backoff: off in **levers-off**; on in **lever1**."));
    QVERIFY(!gate.contains("**Lever 2"));
    QVERIFY(!gate.contains("**Lever 3"));
    QVERIFY(!gate.contains("**Recovery period"));
    QVERIFY2(gate.contains("The same in every variant: bulk supervisory subscribe off; session command timeout not "
                           "sent (the gateway's default); recovery gate off"),
             qPrintable(gate));

    const QString inc = part(md(incident()), "The levers");
    QVERIFY2(inc.contains("- bulk supervisory subscribe: off in **levers-off** and **lever1**; on in **lever1+2** and "
                          "**all**."),
             qPrintable(inc));
    QVERIFY(inc.contains("1 + N commands"));
    QVERIFY2(inc.contains("- session command timeout: not sent (the gateway's default) in **levers-off**, **lever1** "
                          "and **lever1+2**; 60 s in **all**."),
             qPrintable(inc));
    QVERIFY(inc.contains("**Recovery period.** A gate in the client: after repeated failures it refuses calls for a "
                         "while"));
}

void TestReport::markdownLeversPutTheRecoveryGateInWords() {
    const QString inc = part(md(incident()), "The levers");
    QVERIFY2(inc.contains("- recovery gate: off in **levers-off**, **lever1** and **lever1+2**; in **all**, on: after "
                          "10 failures within 100 s it refuses calls until 60 s after the latest failure."),
             qPrintable(inc));
}

void TestReport::markdownPlotsOnlyWhenThereAreSome() {
    const ScenarioReport r = incident();
    QVERIFY(!md(r).contains("How to read the plots"));
    QVERIFY(!md(r).contains("!["));
    const QString m = QString::fromUtf8(
        reportToMarkdown(r, {{"levers-off", "levers-off.png"}, {"lever1+2", "lever1_2.png"}}));
    const QString how = part(m, "How to read the plots");
    QVERIFY2(how.contains("**Outstanding subscribe requests**") && how.contains("**Retry interval**") &&
                 how.contains("**Tag quality**") && how.contains("**Gateway load**"),
             qPrintable(how));
    const QString plots = part(m, "Plots");
    QVERIFY2(plots.contains("**levers-off**\n\n![levers-off](levers-off.png)"), qPrintable(plots));
    QVERIFY(plots.contains("![lever1+2](lever1_2.png)"));
    QVERIFY(!plots.contains("![lever1]("));  // no image, no link
    QVERIFY(plots.indexOf("levers-off.png") < plots.indexOf("lever1_2.png"));
}

void TestReport::writeReportMarkdownLinksThePlots() {
    QTemporaryDir tmp;
    const ScenarioReport r = liveGate();
    QString error;
    QVERIFY2(writeReportDir(r, tmp.path(), &error), qPrintable(error));
    const QMap<QString, QString> plots{{"levers-off", "levers-off.png"}, {"lever1", "lever1.png"}};
    QVERIFY2(writeReportMarkdown(r, tmp.path(), plots, &error), qPrintable(error));
    QFile f(QDir(tmp.path()).filePath("report.md"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), reportToMarkdown(r, plots));
    QVERIFY(!writeReportMarkdown(r, tmp.filePath("missing/dir"), plots, &error));
    QVERIFY2(error.contains("missing/dir"), qPrintable(error));
}

void TestReport::writeReportDirWritesThreeFiles() {
    QTemporaryDir tmp;
    const ScenarioReport r = bulkStorm();
    QString error;
    QVERIFY2(writeReportDir(r, tmp.path(), &error), qPrintable(error));
    QStringList files = QDir(tmp.path()).entryList(QDir::Files);
    files.sort();
    QCOMPARE(files, QStringList({"report.csv", "report.json", "report.md"}));
    auto read = [&](const char* name) {
        QFile f(QDir(tmp.path()).filePath(name));
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    };
    QCOMPARE(read("report.json"), reportToJsonBytes(r, true));
    QCOMPARE(read("report.csv"), reportToCsv(r));
    QCOMPARE(read("report.md"), reportToMarkdown(r));
}

void TestReport::writeReportDirCreatesMissingDirectories() {
    QTemporaryDir tmp;
    const QString dir = tmp.filePath("runs/2026-08-26/storm");
    QString error;
    QVERIFY2(writeReportDir(liveGate(), dir, &error), qPrintable(error));
    QVERIFY(QFile::exists(dir + "/report.md"));
}

void TestReport::writeReportDirReportsAnUnwritableDirectory() {
    QTemporaryDir tmp;
    // A directory cannot be made below a regular file — holds even for root, unlike permissions.
    const QString blocker = tmp.filePath("not-a-dir");
    QFile f(blocker);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.close();
    QString error;
    QVERIFY(!writeReportDir(liveGate(), blocker + "/report", &error));
    QVERIFY2(error.contains(blocker + "/report"), qPrintable(error));
}

QTEST_GUILESS_MAIN(TestReport)
#include "tst_report.moc"
