// What every report says of max_sta_queue_depth when the queue is unknown, known, or known
// only in part (a gateway without a control service, or read for part of a live run).

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

namespace {
// The storm with lever1+2's queue known only in part: no maximum, these gaps, this bound.
ScenarioReport stormWithQueueGaps(const QList<StaQueueGap>& gaps, std::optional<qint64> atLeast,
                                  const QString& source = QStringLiteral("client"))
{
    ScenarioReport r = bulkStorm();
    r.variants[1].maxStaQueueDepth.reset();
    r.variants[1].maxStaQueueDepthAtLeast = atLeast;
    r.variants[1].staQueueGaps = gaps;
    r.variants[1].gatewayMetricsSource = source;
    return r;
}
} // namespace

class TestReportStaQueue : public QObject {
    Q_OBJECT
private slots:
    void absentQueueDepthIsNullEmptyAndNa();
    void markdownSharedSiteQueueIsKnown();
    void markdownMixedSiteQueueIsUnknownAndNamesTheUnreadGateway();
    void markdownUnknownQueueSaysNa();
    void aRealGatewayAloneSaysNoCountersNotAGap();
    void aQueueReadForPartOfTheRunIsALowerBound();
    void aLoneGatewayReadForPartOfTheRunIsALowerBound();
    void gapsAreSaidForWhatTheyAre();
};

void TestReportStaQueue::absentQueueDepthIsNullEmptyAndNa()
{
    ScenarioReport r = liveGate();
    r.variants[0].maxStaQueueDepth.reset(); // a gateway that exposes no queue
    r.variants[1].maxStaQueueDepth = 0;     // a queue that never held anything
    const QJsonArray variants = reportToJson(r)["variants"].toArray();
    QVERIFY(variants[0].toObject().contains("max_sta_queue_depth"));
    QVERIFY(variants[0].toObject()["max_sta_queue_depth"].isNull());
    QCOMPARE(variants[1].toObject()["max_sta_queue_depth"].toInteger(-1), 0);
    QCOMPARE(csvCell(r, 0, "max_sta_queue_depth"), QString());
    QCOMPARE(csvCell(r, 1, "max_sta_queue_depth"), QString("0"));
    QVERIFY2(md(r).contains("\n| max_sta_queue_depth | n/a | 0 |\n"), qPrintable(md(r)));
    QVERIFY2(reportToText(r).contains(QRegularExpression("\nmax_sta_queue_depth +n/a +0\n")),
             qPrintable(reportToText(r)));
}

// A live site's shared gateways: the counts are the client's, the queue was read from them.
void TestReportStaQueue::markdownSharedSiteQueueIsKnown()
{
    ScenarioReport r = bulkStorm();
    r.variants[1].maxStaQueueDepth = 7;
    r.variants[1].gatewayMetricsSource = "client";
    const QString m = md(r);
    QVERIFY2(
        m.contains("max_sta_queue_depth is the deepest queue read from the gateways once a second"),
        qPrintable(m));
    QVERIFY2(!m.contains("max_sta_queue_depth and max_gateway_outstanding_subscribes are unknown"),
             qPrintable(m));
}

// A site of a real gateway (no control service) and a mock that answered no read: n/a,
// each named for what it is (review finding on ee3cc5d: both were "could not be read").
void TestReportStaQueue::markdownMixedSiteQueueIsUnknownAndNamesTheUnreadGateway()
{
    const ScenarioReport r =
        stormWithQueueGaps({StaQueueGap{"gw-real", StaQueueGap::Kind::NoControlService, 0, 10},
                            StaQueueGap{"gw-mock", StaQueueGap::Kind::NeverRead, 0, 10}},
                           std::nullopt);
    const QString m = md(r);
    QVERIFY2(m.contains("lever1+2: max_sta_queue_depth is unknown (n/a), since gw-real has no "
                        "control service to read "
                        "it from; the STA queue of gw-mock could not be read (its control service "
                        "answered no read). "
                        "The gateways are shared"),
             qPrintable(m));
    QVERIFY2(!m.contains(r.variants[1].name + ": the gateway exposes no counters"), qPrintable(m));
    QVERIFY2(!m.contains("max_sta_queue_depth is the deepest queue read"), qPrintable(m));
    // The metrics table says n/a for it, and no STA sentence compares it.
    const QString row =
        m.split('\n').filter(QRegularExpression("^\\| max_sta_queue_depth \\|")).value(0);
    QVERIFY2(row.endsWith("| n/a |"), qPrintable(row));
    QVERIFY2(!section(m, "lever1+2").contains("STA queue"), qPrintable(section(m, "lever1+2")));
    const QJsonObject json = variantToJson(r.variants[1]);
    QVERIFY(json.value("max_sta_queue_depth").isNull());
    QVERIFY(!json.contains("max_sta_queue_depth_at_least"));
    const QJsonArray gaps = json.value("sta_queue_gaps").toArray();
    QCOMPARE(gaps.size(), 2);
    QCOMPARE(gaps[0].toObject(), (QJsonObject{{"gateway", "gw-real"},
                                              {"read", "no control service"},
                                              {"read_samples", 0},
                                              {"samples", 10}}));
    QCOMPARE(gaps[1].toObject().value("read").toString(), QString("never"));
}

void TestReportStaQueue::markdownUnknownQueueSaysNa()
{
    ScenarioReport r = bulkStorm();
    r.variants[1].maxStaQueueDepth.reset();
    r.variants[1].gatewayMetricsSource = "client";
    const QString m = md(r);
    QVERIFY2(
        m.contains("max_sta_queue_depth and max_gateway_outstanding_subscribes are unknown (n/a)."),
        qPrintable(m));
    QVERIFY(!m.contains("unknown (0)"));
    // No STA sentence compares a known queue with an unknown one.
    const QString s = section(m, "lever1+2");
    QVERIFY2(!s.contains("STA queue"), qPrintable(s));
}

// The run's one gateway, a real one: nothing was there to read. The report says so as it
// always has, and draws no lower bound from nothing.
void TestReportStaQueue::aRealGatewayAloneSaysNoCountersNotAGap()
{
    const ScenarioReport r = stormWithQueueGaps(
        {StaQueueGap{"", StaQueueGap::Kind::NoControlService, 0, 4}}, std::nullopt);
    const QString m = md(r);
    QVERIFY2(m.contains("lever1+2: the gateway exposes no counters"), qPrintable(m));
    QVERIFY2(!m.contains("lever1+2: max_sta_queue_depth is"), qPrintable(m));
    QVERIFY2(m.contains("\n| max_sta_queue_depth | 400 | n/a |\n"), qPrintable(m));
}

// A site gateway read at only some samples: the deepest queue read is a lower bound, shown
// "≥ N" to people and kept out of the number column for tools (a field of its own).
void TestReportStaQueue::aQueueReadForPartOfTheRunIsALowerBound()
{
    const ScenarioReport r =
        stormWithQueueGaps({StaQueueGap{"gw-b", StaQueueGap::Kind::Partly, 7, 10}}, 37);
    const QString m = md(r);
    QVERIFY2(m.contains("lever1+2: max_sta_queue_depth is at least 37 (\u2265 in the table), a "
                        "lower bound, since the "
                        "STA queue of gw-b was read at only 7 of 10 samples (once a second). The "
                        "gateways are shared"),
             qPrintable(m));
    QVERIFY2(m.contains("\n| max_sta_queue_depth | 400 | \u2265 37 |\n"), qPrintable(m));
    QVERIFY2(!m.contains("max_sta_queue_depth is the deepest queue read"), qPrintable(m));
    // A bound is not compared as if it were the maximum.
    QVERIFY2(!section(m, "lever1+2").contains("STA queue"), qPrintable(section(m, "lever1+2")));
    QVERIFY2(
        reportToText(r).contains(QRegularExpression("\nmax_sta_queue_depth +400 +\u2265 37\n")),
        qPrintable(reportToText(r)));
    QCOMPARE(csvCell(r, 1, "max_sta_queue_depth"), QString());
    const QJsonObject json = variantToJson(r.variants[1]);
    QVERIFY(json.value("max_sta_queue_depth").isNull());
    QVERIFY(json.value("max_sta_queue_depth_at_least").isDouble());
    QCOMPARE(json.value("max_sta_queue_depth_at_least").toInteger(), 37);
    QCOMPARE(json.value("sta_queue_gaps").toArray().first().toObject(),
             (QJsonObject{
                 {"gateway", "gw-b"}, {"read", "partly"}, {"read_samples", 7}, {"samples", 10}}));
    // A known maximum has no bound beside it.
    QVERIFY(!variantToJson(r.variants[0]).contains("max_sta_queue_depth_at_least"));
    QVERIFY(!variantToJson(r.variants[0]).contains("sta_queue_gaps"));
}

// One gateway whose own counters were read for part of the run (it went away): a bound too,
// without the site's "shared" sentence.
void TestReportStaQueue::aLoneGatewayReadForPartOfTheRunIsALowerBound()
{
    const ScenarioReport r =
        stormWithQueueGaps({StaQueueGap{"", StaQueueGap::Kind::Partly, 2, 4}}, 5, "gateway");
    const QString m = md(r);
    QVERIFY2(
        m.contains("lever1+2: max_sta_queue_depth is at least 5 (\u2265 in the table), a lower "
                   "bound, since the "
                   "STA queue of the gateway was read at only 2 of 4 samples (once a second).\n"),
        qPrintable(m));
    QVERIFY2(!m.contains("The gateways are shared") &&
                 !m.contains("lever1+2: the gateway exposes no counters"),
             qPrintable(m));
    QVERIFY2(m.contains("\n| max_sta_queue_depth | 400 | \u2265 5 |\n"), qPrintable(m));
}

void TestReportStaQueue::gapsAreSaidForWhatTheyAre()
{
    QCOMPARE(staQueueGapText({"gw-real", StaQueueGap::Kind::NoControlService, 0, 3}),
             QString("gw-real has no control service to read it from"));
    QCOMPARE(
        staQueueGapText({"gw-a", StaQueueGap::Kind::NeverRead, 0, 3}),
        QString("the STA queue of gw-a could not be read (its control service answered no read)"));
    QCOMPARE(
        staQueueGapText({"", StaQueueGap::Kind::Partly, 1, 3}),
        QString("the STA queue of the gateway was read at only 1 of 3 samples (once a second)"));
}

QTEST_GUILESS_MAIN(TestReportStaQueue)
#include "tst_report_sta_queue.moc"
