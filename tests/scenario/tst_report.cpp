// The report as data: the metric table, JSON, CSV, the command line's table, and the
// report directory. Markdown: tst_report_markdown; the STA queue's cases: tst_report_sta_queue.

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

class TestReport : public QObject {
    Q_OBJECT
private slots:
    void metricTableHasEveryMetricOnceInReportOrder();
    void metricTableDescribesEveryMetric();
    void everyOutputNamesEveryMetricOfTheTable();
    void metricTextFormatsIntegersAndSeconds();
    void absentGatewayCountersAndConnectionAreNa();
    void subscribeAndTeardownRpcsSumTheirKinds();
    void jsonCarriesTimeToAllGoodFromAndNotes();
    void cliTableFollowsTheMetricTable();
    void cliTableListsSkippedActionsAndNotes();
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
    void writeReportMarkdownLinksThePlots();
    void writeReportDirWritesThreeFiles();
    void writeReportDirCreatesMissingDirectories();
    void writeReportDirReportsAnUnwritableDirectory();
};

void TestReport::metricTableHasEveryMetricOnceInReportOrder()
{
    const QStringList keys = tableKeys();
    QCOMPARE(keys, QStringList({"subscribe_requests",
                                "max_outstanding",
                                "max_gateway_outstanding_subscribes",
                                "gateway_rpcs",
                                "gateway_rpcs_by_kind",
                                "subscribe_rpcs",
                                "teardown_rpcs",
                                "deadline_exceeded",
                                "bad_tag_seconds",
                                "orphaned_tag_seconds",
                                "frozen_tag_seconds",
                                "stale_tag_seconds",
                                "unresponsive_seconds",
                                "time_to_all_good_s",
                                "connected_after_s",
                                "max_sta_queue_depth",
                                "suppressed_calls",
                                "throttled_retries",
                                "events_lost",
                                "wall_ms"}));
    for (const QString& k : keys) {
        QCOMPARE(keys.count(k), 1);
        QVERIFY2(findMetric(k) && findMetric(k)->keyString() == k, qPrintable(k));
    }
    QVERIFY(!findMetric("no_such_metric"));
}

void TestReport::metricTableDescribesEveryMetric()
{
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

void TestReport::everyOutputNamesEveryMetricOfTheTable()
{
    ScenarioReport r = bulkStorm();
    const QJsonObject json = reportToJson(r)["variants"].toArray()[0].toObject();
    const QJsonObject deterministic = QJsonDocument::fromJson(reportToJsonBytes(r, false))
                                          .object()["variants"]
                                          .toArray()[0]
                                          .toObject();
    const QStringList csvHeader = csvLines(r)[0].split(',');
    const QString markdown = md(r);
    const QString definitions = part(markdown, "Metrics");
    const QStringList cliLines = reportToText(r).split('\n');
    for (const MetricDescriptor& m : metricTable()) {
        const QString k = m.keyString();
        QVERIFY2(json.contains(k), qPrintable("JSON: " + k));
        QVERIFY2(deterministic.contains(k) == m.deterministic,
                 qPrintable("determinism JSON: " + k));
        QVERIFY2(csvHeader.count(k) == 1, qPrintable("CSV: " + k));
        QVERIFY2(definitions.contains("- **" + k + "** ("),
                 qPrintable("Markdown definitions: " + k));
        const bool cliRow = std::any_of(cliLines.begin(), cliLines.end(), [&](const QString& line) {
            return line == k || line.startsWith(k + ' ');
        });
        QVERIFY2(cliRow, qPrintable("CLI: " + k));
        if (m.shape == MetricShape::ByKind) {
            // A row per kind, in Markdown after the total, on the command line indented under the
            // key.
            for (const QString& kind : rpcKinds(r)) {
                QVERIFY2(
                    markdown.contains(
                        QStringLiteral("| %1: %2 |").arg(QString::fromLatin1(m.breaksDown), kind)),
                    qPrintable(kind));
                QVERIFY2(reportToText(r).contains("\n  " + kind + ' '), qPrintable(kind));
            }
        } else {
            QVERIFY2(markdown.contains("\n| " + k + " |"), qPrintable("Markdown table: " + k));
        }
    }
}

void TestReport::metricTextFormatsIntegersAndSeconds()
{
    const MetricDescriptor& rpcs = *findMetric("gateway_rpcs");
    QCOMPARE(rpcs.text(53680.0), QString("53680"));
    QCOMPARE(rpcs.text(53680.0, Digits::Grouped), QString("53,680"));
    const MetricDescriptor& bad = *findMetric("bad_tag_seconds");
    QCOMPARE(bad.text(330.0), QString("330.0"));
    QCOMPARE(bad.text(12.34), QString("12.3"));
    VariantMetrics v;
    v.connectedAfterS = 2.04;
    QCOMPARE(findMetric("connected_after_s")->text(v), QString("2.0")); // seconds: one decimal
    QCOMPARE(findMetric("gateway_rpcs_by_kind")->text(v), QString());   // no single value
}

void TestReport::absentGatewayCountersAndConnectionAreNa()
{
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

void TestReport::subscribeAndTeardownRpcsSumTheirKinds()
{
    ScenarioReport r = liveGate();
    r.variants[0].gatewayRpcsByKind = {{"register", 1000},
                                       {"add_item_bulk", 1},
                                       {"subscribe_bulk", 2},
                                       {"advise_supervisory", 4},
                                       {"advise", 8},
                                       {"advise_item_bulk", 16},
                                       {"add_item", 32},
                                       {"remove_item", 64},
                                       {"un_advise", 128},
                                       {"write", 2000},
                                       {"subscribe_alarms", 4000}};
    r.variants[0].gatewayRpcs = 7255;
    QCOMPARE(subscribeRpcKinds(),
             QStringList({"add_item_bulk", "subscribe_bulk", "advise_supervisory", "advise",
                          "advise_item_bulk", "add_item"}));
    QCOMPARE(teardownRpcKinds(), QStringList({"remove_item", "un_advise"}));
    QCOMPARE(*findMetric("subscribe_rpcs")->value(r.variants[0]), 63.0); // 1 + 2 + 4 + 8 + 16 + 32
    QCOMPARE(*findMetric("teardown_rpcs")->value(r.variants[0]), 192.0); // 64 + 128
    const QJsonObject json = reportToJson(r)["variants"].toArray()[0].toObject();
    QCOMPARE(json["subscribe_rpcs"].toInteger(), 63);
    QCOMPARE(json["teardown_rpcs"].toInteger(), 192);
    QCOMPARE(json["gateway_rpcs"].toInteger(), 7255); // the total stays the gateway's own count
    QCOMPARE(csvCell(r, 0, "subscribe_rpcs"), QString("63"));
    QCOMPARE(csvCell(r, 0, "teardown_rpcs"), QString("192"));
    // None of those kinds: 0, not "n/a".
    QCOMPARE(*findMetric("subscribe_rpcs")->value(r.variants[1]), 0.0);
    QVERIFY(md(r).contains("| subscribe_rpcs | 63 | 0 |"));
    QVERIFY(md(r).contains("| teardown_rpcs | 192 | 0 |"));
}

void TestReport::jsonCarriesTimeToAllGoodFromAndNotes()
{
    ScenarioReport r = bulkStorm();
    r.variants[1].timeToAllGoodFrom = "start";
    r.variants[1].notes = QStringList{"clean start: the gateway was restarted before this variant"};
    const QJsonArray variants = reportToJson(r)["variants"].toArray();
    QCOMPARE(variants[0].toObject()["time_to_all_good_from"].toString(), QString("last fault"));
    QCOMPARE(variants[1].toObject()["time_to_all_good_from"].toString(), QString("start"));
    QVERIFY(!variants[0].toObject().contains("notes")); // only when there are some
    QCOMPARE(variants[1].toObject()["notes"].toArray().size(), 1);
    QCOMPARE(variants[1].toObject()["notes"].toArray()[0].toString(),
             QString("clean start: the gateway was restarted before this variant"));
}

void TestReport::cliTableFollowsTheMetricTable()
{
    const ScenarioReport r = bulkStorm();
    const QString text = reportToText(r);
    QVERIFY2(text.startsWith("scenario storm — virtual, 600 s, seed 1\n\n"), qPrintable(text));
    QStringList rowNames;
    for (const QString& line : text.split('\n').mid(2)) {
        if (line.isEmpty())
            break;
        rowNames << line.trimmed().section(QRegularExpression("\\s{2,}"), 0, 0);
    }
    QStringList expected{"metric"};
    for (const MetricDescriptor& m : metricTable()) {
        expected << m.keyString();
        if (m.shape == MetricShape::ByKind)
            expected += rpcKinds(r);
    }
    QCOMPARE(rowNames, expected);
    QVERIFY2(text.contains(QRegularExpression("\nbad_tag_seconds +5000\\.0 +40\\.0\n")),
             qPrintable(text));
    QVERIFY2(text.contains(QRegularExpression("\ngateway_rpcs_by_kind\n  add_item_bulk +2 +0\n")),
             qPrintable(text));
    QVERIFY2(text.contains(QRegularExpression("\ntime_to_all_good_s +95\\.5 +1\\.5\n")),
             qPrintable(text));
}

void TestReport::cliTableListsSkippedActionsAndNotes()
{
    ScenarioReport r = liveGate();
    r.variants[0].skippedActions =
        QStringList{"wedge at 10 s skipped: the gateway has no control service"};
    r.variants[1].notes = QStringList{"clean start"};
    const QString text = reportToText(r);
    QVERIFY2(
        text.contains("\nlevers-off: wedge at 10 s skipped: the gateway has no control service\n"),
        qPrintable(text));
    QVERIFY2(text.endsWith("\nlever1: clean start\n"), qPrintable(text));
}

void TestReport::jsonHasExactlyTheDesignKeys()
{
    const QJsonObject o = reportToJson(liveGate());
    QStringList top = o.keys();
    top.sort();
    QCOMPARE(top,
             QStringList({"description", "duration_s", "mode", "scenario", "seed", "variants"}));
    QCOMPARE(o["scenario"].toString(), QString("live-gate-lever1"));
    QCOMPARE(o["duration_s"].toDouble(), 110.0);
    QCOMPARE(o["seed"].toInteger(), 1);
    const QJsonArray variants = o["variants"].toArray();
    QCOMPARE(variants.size(), 2);
    QStringList keys = variants[0].toObject().keys();
    keys.sort();
    QCOMPARE(keys, QStringList({"bad_tag_seconds",
                                "connected_after_s",
                                "deadline_exceeded",
                                "events_lost",
                                "frozen_tag_seconds",
                                "gateway_rpcs",
                                "gateway_rpcs_by_kind",
                                "levers",
                                "max_gateway_outstanding_subscribes",
                                "max_outstanding",
                                "max_sta_queue_depth",
                                "name",
                                "orphaned_tag_seconds",
                                "stale_tag_seconds",
                                "subscribe_requests",
                                "subscribe_rpcs",
                                "suppressed_calls",
                                "teardown_rpcs",
                                "throttled_retries",
                                "time_to_all_good_from",
                                "time_to_all_good_s",
                                "unresponsive_seconds",
                                "wall_ms"}));
    const QJsonObject l1 = variants[1].toObject();
    QCOMPARE(l1["name"].toString(), QString("lever1"));
    QCOMPARE(l1["subscribe_requests"].toInteger(), 3);
    QCOMPARE(l1["max_outstanding"].toInteger(), 1);
    QCOMPARE(l1["bad_tag_seconds"].toDouble(), 330.0);
    QCOMPARE(l1["wall_ms"].toInteger(), 9);
    QCOMPARE(l1["levers"].toObject()["inflight_guard"].toBool(), true);
}

void TestReport::jsonTimeToAllGoodIsNullWhenNever()
{
    const QJsonArray variants = reportToJson(bulkStorm())["variants"].toArray();
    QCOMPARE(variants[0].toObject()["time_to_all_good_s"].toDouble(), 95.5);
    const QJsonArray never = reportToJson(liveGate())["variants"].toArray();
    QVERIFY(never[0].toObject().contains("time_to_all_good_s"));
    QVERIFY(never[0].toObject()["time_to_all_good_s"].isNull());
}

void TestReport::jsonByKindIsAnObjectOfCounts()
{
    const QJsonObject byKind = reportToJson(bulkStorm())["variants"]
                                   .toArray()[0]
                                   .toObject()["gateway_rpcs_by_kind"]
                                   .toObject();
    QCOMPARE(byKind.size(), 2);
    QCOMPARE(byKind["add_item_bulk"].toInteger(), 2);
    QCOMPARE(byKind["advise_supervisory"].toInteger(), 488);
}

void TestReport::jsonModeSaysLiveOrVirtual()
{
    ScenarioReport r = liveGate();
    QCOMPARE(reportToJson(r)["mode"].toString(), QString("virtual"));
    r.live = true;
    QCOMPARE(reportToJson(r)["mode"].toString(), QString("live"));
}

void TestReport::jsonBytesWithoutWallMsAreDeterministic()
{
    ScenarioReport a = liveGate(), b = liveGate();
    b.variants[0].wallMs = 999;
    QCOMPARE(reportToJsonBytes(a, false), reportToJsonBytes(b, false));
    QVERIFY(reportToJsonBytes(a, true) != reportToJsonBytes(b, true));
    QVERIFY(!reportToJsonBytes(a, false).contains("wall_ms"));
    b.variants[1].subscribeRequests = 4; // a real difference still shows
    QVERIFY(reportToJsonBytes(a, false) != reportToJsonBytes(b, false));
}

void TestReport::jsonBytesParseBackToReportToJson()
{
    const ScenarioReport r = bulkStorm();
    QCOMPARE(QJsonDocument::fromJson(reportToJsonBytes(r, true)).object(), reportToJson(r));
}

void TestReport::csvHasAHeaderAndOneRowPerVariant()
{
    const QStringList lines = csvLines(liveGate());
    QCOMPARE(lines.size(), 3);
    QCOMPARE(
        lines[0],
        QString(
            "scenario,variant,levers,subscribe_requests,max_outstanding,"
            "max_gateway_outstanding_subscribes,gateway_rpcs,gateway_rpcs_by_kind,subscribe_rpcs,"
            "teardown_rpcs,deadline_exceeded,bad_tag_seconds,orphaned_tag_seconds,frozen_tag_"
            "seconds,"
            "stale_tag_seconds,unresponsive_seconds,time_to_all_good_s,connected_after_s,max_sta_"
            "queue_depth,suppressed_calls,throttled_retries,events_lost,wall_ms"));
    QVERIFY2(lines[2].startsWith("live-gate-lever1,lever1,\"{"), qPrintable(lines[2]));
    // No gateway counters, no time to all Good, no connection time, no queue depth: empty cells.
    QVERIFY2(lines[2].endsWith(",3,1,,0,,0,0,0,330,0,0,0,0,,,,0,0,0,9"), qPrintable(lines[2]));
}

void TestReport::csvQuotesCommasQuotesAndNewlines()
{
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

void TestReport::csvWritesByKindAsKindEqualsCount()
{
    const QStringList lines = csvLines(bulkStorm());
    QVERIFY2(lines[1].contains(",490,add_item_bulk=2;advise_supervisory=488,490,0,120,"),
             qPrintable(lines[1]));
    QVERIFY2(lines[2].contains(",2,subscribe_bulk=2,2,0,0,"), qPrintable(lines[2]));
}

void TestReport::csvLeavesNeverEmpty()
{
    const QStringList storm = csvLines(bulkStorm());
    QVERIFY2(storm[1].contains(",5000,0,0,0,0,95.5,,400,"), qPrintable(storm[1]));
    const QStringList gate = csvLines(liveGate());
    QVERIFY2(gate[1].contains(",330,0,0,0,0,,,,0,"), qPrintable(gate[1]));
}

void TestReport::writeReportMarkdownLinksThePlots()
{
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

void TestReport::writeReportDirWritesThreeFiles()
{
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

void TestReport::writeReportDirCreatesMissingDirectories()
{
    QTemporaryDir tmp;
    const QString dir = tmp.filePath("runs/2026-08-26/storm");
    QString error;
    QVERIFY2(writeReportDir(liveGate(), dir, &error), qPrintable(error));
    QVERIFY(QFile::exists(dir + "/report.md"));
}

void TestReport::writeReportDirReportsAnUnwritableDirectory()
{
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
