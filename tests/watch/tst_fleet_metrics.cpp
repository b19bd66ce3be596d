// What /metrics says, from the run host's step data: the exported-metrics table (names,
// types, the run metrics its counters count), the values FleetMetrics serves for them, the
// counters carried across a reloaded site, and the metrics address rule.
#include "client/command_latency.h"
#include "scenario/metric_table.h"
#include "test_paths.h"
#include "watch/exported_metrics.h"
#include "watch/fleet_metrics.h"
#include "watch/watch_service.h"

#include <QFile>
#include <QRegularExpression>
#include <QSet>
#include <QtTest>

using namespace stormwatch;

namespace {

Scenario twoGatewaySite(const QStringList& instancesOnA = {"A1", "A2"})
{
    Scenario s;
    s.connections = {ScenarioConnection{"gw-a", 0, "gw-a"}, ScenarioConnection{"gw-b", 0, "gw-b"}};
    for (const QString& name : instancesOnA) {
        ScenarioInstance i;
        i.name = name;
        i.connection = "gw-a";
        i.tags = 3;
        s.instances.push_back(i);
    }
    ScenarioInstance b;
    b.name = "B1";
    b.connection = "gw-b";
    b.tags = 2;
    s.instances.push_back(b);
    return s;
}

SubscriptionSample sample(const QString& instance, const QString& connection, int good, int bad)
{
    SubscriptionSample s;
    s.instanceName = instance;
    s.connection = connection;
    s.good = good;
    s.bad = bad;
    return s;
}

// The value of the one series of `text` whose name and labels are `series` exactly
// (`name{label="value",...}`), or nullopt when there is none.
std::optional<double> valueOf(const std::string& text, const QString& series)
{
    for (const QString& line : QString::fromStdString(text).split('\n')) {
        if (line.startsWith('#'))
            continue;
        const qsizetype space = line.lastIndexOf(' ');
        if (space > 0 && line.left(space) == series)
            return line.mid(space + 1).toDouble();
    }
    return std::nullopt;
}

} // namespace

class TestFleetMetrics : public QObject {
    Q_OBJECT
private slots:
    void everyNameIsPrefixedUniqueAndCountersEndInTotal()
    {
        QSet<QString> names;
        for (const ExportedMetric& m : exportedMetrics()) {
            QVERIFY2(m.name.startsWith(kExportPrefix), qPrintable(m.name));
            QVERIFY2(!names.contains(m.name), qPrintable("twice: " + m.name));
            names.insert(m.name);
            QVERIFY2(!m.help.isEmpty(), qPrintable(m.name + " has no help"));
            QCOMPARE(m.kind == ExportKind::Counter, m.name.endsWith("_total"));
            QVERIFY(QRegularExpression("^[a-z_][a-z0-9_]*$").match(m.name).hasMatch());
        }
    }

    // A counter that counts a run metric is named and described by the metric table.
    void liveCountsTakeTheirNameAndHelpFromTheMetricTable()
    {
        int live = 0;
        for (const ExportedMetric& m : exportedMetrics()) {
            if (m.reportKey.isEmpty())
                continue;
            ++live;
            const MetricDescriptor* d = findMetric(m.reportKey);
            QVERIFY2(d, qPrintable(m.reportKey + " is not in the metric table"));
            QCOMPARE(m.name, kExportPrefix + m.reportKey + "_total");
            QCOMPARE(m.help, d->descriptionString());
        }
        QVERIFY(live >= 6);
    }

    void tagsByQualityAreDisjointAndLabelledPerSubscription()
    {
        FleetMetrics metrics("1.2.3", 1000);
        metrics.setRun(twoGatewaySite());
        SubscriptionSample a1 = sample("A1", "gw-a", 3, 0);
        a1.stale = 1;
        a1.outstanding = 2;
        a1.intervalMs = 5000;
        a1.maxIntervalMs = 60000;
        a1.orphaned = 1;
        a1.frozen = 2;
        metrics.update(QVector<SubscriptionSample>{a1, sample("B1", "gw-b", 0, 2)});
        const std::string text = metrics.text();
        // In the order the labels are given: gateway, connection, instance, then the split.
        auto a1Series = [](const QString& name, const QString& extra = {}) {
            return name + R"({gateway="gw-a",connection="gw-a",instance="A1")" +
                   (extra.isEmpty() ? QString() : "," + extra) + "}";
        };
        QCOMPARE(valueOf(text, a1Series("stormwatch_tags", R"(quality="good")")), 2.0);
        QCOMPARE(valueOf(text, a1Series("stormwatch_tags", R"(quality="stale")")), 1.0);
        QCOMPARE(valueOf(text, a1Series("stormwatch_tags", R"(quality="bad")")), 0.0);
        QCOMPARE(valueOf(text, a1Series("stormwatch_outstanding_subscribes")), 2.0);
        QCOMPARE(valueOf(text, a1Series("stormwatch_retry_interval_seconds")), 5.0);
        QCOMPARE(valueOf(text, a1Series("stormwatch_retry_interval_max_seconds")), 60.0);
        QCOMPARE(valueOf(text, a1Series("stormwatch_orphaned_tags")), 1.0);
        QCOMPARE(valueOf(text, a1Series("stormwatch_frozen_tags")), 2.0);
        QCOMPARE(
            valueOf(
                text,
                R"(stormwatch_tags{gateway="gw-b",connection="gw-b",instance="B1",quality="bad"})"),
            2.0);
        // An instance with no sample yet is listed with nothing Good.
        QCOMPARE(
            valueOf(
                text,
                R"(stormwatch_tags{gateway="gw-a",connection="gw-a",instance="A2",quality="good"})"),
            0.0);
        QCOMPARE(valueOf(text, R"(stormwatch_build_info{version="1.2.3"})"), 1.0);
        QCOMPARE(valueOf(text, "stormwatch_process_start_time_seconds"), 1000.0);
    }

    void connectionStateIsAStateSet()
    {
        FleetMetrics metrics("x", 0);
        metrics.setRun(twoGatewaySite());
        ConnectionInfo a;
        a.name = "gw-a";
        a.state = "unreachable";
        metrics.update(QVector<ConnectionInfo>{a});
        const std::string text = metrics.text();
        for (const QString& state : connectionStates())
            QCOMPARE(
                valueOf(
                    text,
                    QString(
                        R"(stormwatch_connection_state{gateway="gw-a",connection="gw-a",state="%1"})")
                        .arg(state)),
                state == "unreachable" ? 1.0 : 0.0);
        QCOMPARE(
            valueOf(
                text,
                R"(stormwatch_connection_state{gateway="gw-b",connection="gw-b",state="connecting"})"),
            1.0);
    }

    void latencyIsACumulativeHistogram()
    {
        FleetMetrics metrics("x", 0);
        metrics.setRun(twoGatewaySite());
        CommandLatency latency;
        latency.record(0.003);
        latency.record(0.2);
        latency.record(0.2);
        latency.record(100);
        ConnectionCounters c;
        c.connection = "gw-a";
        c.latencyCounts = QVector<qint64>(latency.counts.begin(), latency.counts.end());
        c.latencySumS = latency.sumS;
        c.latencyCount = latency.count;
        metrics.update(QVector<ConnectionCounters>{c});
        const std::string text = metrics.text();
        const QString base =
            R"(stormwatch_command_latency_seconds_bucket{gateway="gw-a",connection="gw-a",le="%1"})";
        QCOMPARE(valueOf(text, base.arg("0.005")), 1.0);
        QCOMPARE(valueOf(text, base.arg("0.1")), 1.0);
        QCOMPARE(valueOf(text, base.arg("0.25")), 3.0);
        QCOMPARE(valueOf(text, base.arg("60")), 3.0);
        QCOMPARE(valueOf(text, base.arg("+Inf")), 4.0);
        QCOMPARE(
            valueOf(
                text,
                R"(stormwatch_command_latency_seconds_count{gateway="gw-a",connection="gw-a"})"),
            4.0);
    }

    // A reloaded site restarts the run, whose counts start at 0: the service's counters go on
    // from where they were for what stays, and what the site no longer has is gone.
    void aReloadedSiteKeepsCountersOfWhatStaysAndDropsWhatWent()
    {
        FleetMetrics metrics("x", 0);
        metrics.setRun(twoGatewaySite({"A1", "A2"}));
        ConnectionCounters a;
        a.connection = "gw-a";
        a.invokes = 40;
        a.eventsLost = 3;
        SubscriptionSample a1 = sample("A1", "gw-a", 3, 0);
        a1.requestsSent = 7;
        metrics.update(QVector<ConnectionCounters>{a});
        metrics.update(QVector<SubscriptionSample>{a1});

        metrics.setRun(twoGatewaySite({"A1"})); // A2 removed
        a.invokes = 5;
        a.eventsLost = 0;
        a1.requestsSent = 1;
        metrics.update(QVector<ConnectionCounters>{a});
        metrics.update(QVector<SubscriptionSample>{a1});
        const std::string text = metrics.text();
        QCOMPARE(
            valueOf(text, R"(stormwatch_gateway_rpcs_total{gateway="gw-a",connection="gw-a"})"),
            45.0);
        QCOMPARE(valueOf(text, R"(stormwatch_events_lost_total{gateway="gw-a",connection="gw-a"})"),
                 3.0);
        QCOMPARE(
            valueOf(
                text,
                R"(stormwatch_subscribe_requests_total{gateway="gw-a",connection="gw-a",instance="A1"})"),
            8.0);
        QVERIFY(!QString::fromStdString(text).contains(R"(instance="A2")"));
    }

    void metricsAreServedOnLoopbackUnlessRemoteIsAllowed()
    {
        QString error;
        QCOMPARE(WatchService::bindAddress("127.0.0.1:9464", false, &error),
                 std::optional<QString>("127.0.0.1:9464"));
        QCOMPARE(WatchService::bindAddress("localhost:0", false, &error),
                 std::optional<QString>("127.0.0.1:0"));
        QCOMPARE(WatchService::bindAddress("[::1]:9464", false, &error),
                 std::optional<QString>("[::1]:9464"));
        QVERIFY(!WatchService::bindAddress("0.0.0.0:9464", false, &error));
        QVERIFY2(error.contains("--allow-remote"), qPrintable(error));
        QCOMPARE(WatchService::bindAddress("0.0.0.0:9464", true, &error),
                 std::optional<QString>("0.0.0.0:9464"));
        for (const QString bad : {"9464", "127.0.0.1:", "127.0.0.1:70000", "plant:9464", ":9464"}) {
            error.clear();
            QVERIFY2(!WatchService::bindAddress(bad, true, &error), qPrintable(bad));
            QVERIFY2(error.startsWith("--metrics-listen " + bad + ":"), qPrintable(error));
        }
    }

    // docs/fleet.md lists every exported metric, so what a user reads there is what is served.
    void theFleetDocListsEveryMetric()
    {
        QFile doc(testpaths::sourceFile("docs/fleet.md"));
        QVERIFY2(doc.open(QIODevice::ReadOnly), qPrintable(doc.fileName()));
        const QString text = QString::fromUtf8(doc.readAll());
        for (const ExportedMetric& m : exportedMetrics())
            QVERIFY2(text.contains("`" + m.name + "`"),
                     qPrintable("docs/fleet.md does not list " + m.name));
    }
};

QTEST_GUILESS_MAIN(TestFleetMetrics)
#include "tst_fleet_metrics.moc"
