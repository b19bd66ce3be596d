// The bundled scenarios tell the story their description promises: each figure the
// description names is asserted here, on the virtual runner, for every variant.
#include "scenario/scenario_parser.h"
#include "scenario/scenario_runner.h"

#include <QLoggingCategory>
#include <QMap>
#include <QtTest>

using namespace stormwatch;

namespace {

Scenario bundled(const QString& name)
{
    QList<ScenarioError> errors;
    const auto s = loadScenario(name, &errors);
    for (const auto& e : errors)
        qWarning() << e.toString();
    return s.value_or(Scenario{});
}

// Each scenario runs once (all its variants) and its report is shared by the tests.
const ScenarioReport& report(const QString& name)
{
    static QMap<QString, ScenarioReport> reports;
    if (!reports.contains(name)) {
        QString error;
        reports.insert(name, runScenario(bundled(name), {}, std::nullopt, {}, &error));
        if (!error.isEmpty())
            qWarning() << error;
    }
    return reports[name];
}

const VariantMetrics& metrics(const QString& scenario, const QString& variant)
{
    for (const VariantMetrics& m : report(scenario).variants)
        if (m.name == variant)
            return m;
    static const VariantMetrics none;
    qWarning() << "no variant" << variant << "in" << scenario;
    return none;
}

qint64 kind(const VariantMetrics& m, const QString& k)
{
    return m.gatewayRpcsByKind.value(k, 0);
}

const QString kIncident = QStringLiteral("incident-2026-08-26");
const QString kCommissioning = QStringLiteral("commissioning");
const QString kReconnect = QStringLiteral("reconnect-storm");
const QStringList kPresets{"levers-off", "lever1", "lever1+2", "all"};

} // namespace

class TestBundledScenarios : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        // A storm logs every failed subscribe: thousands of lines, and most of the run time.
        QLoggingCategory::setFilterRules(QStringLiteral("stormwatch.*=false"));
    }

    void everyScenarioHasADescriptionAndTheFourPresets_data()
    {
        QTest::addColumn<QString>("name");
        for (const QString& name : {kIncident, kCommissioning, kReconnect})
            QTest::newRow(qPrintable(name)) << name;
    }
    void everyScenarioHasADescriptionAndTheFourPresets()
    {
        QFETCH(QString, name);
        QVERIFY(bundledScenarioNames().contains(name));
        const Scenario s = bundled(name);
        QCOMPARE(s.name, name);
        QVERIFY(s.description.size() > 200); // says what to look for, not just a title
        QStringList variants;
        for (const VariantSpec& v : s.variants)
            variants << v.name;
        QCOMPARE(variants, kPresets);
        QCOMPARE(report(name).variants.size(), 4);
    }

    // --- incident-2026-08-26 ----------------------------------------------------------

    void incidentMatchesTheSeed()
    {
        const Scenario s = bundled(kIncident);
        QCOMPARE(s.instances.size(), 2);
        QStringList names;
        for (const ScenarioInstance& i : s.instances) {
            names << i.name;
            QCOMPARE(i.tags, 244);
        }
        QCOMPARE(names, (QStringList{"Z28062", "Z28061"}));
        QCOMPARE(s.connections.size(), 1);
        QCOMPARE(s.connections[0].writeUserId, 0); // supervisory advise, as QA runs
        QVERIFY(s.gateway.advertiseBulkSupervisory);
        QCOMPARE(s.gateway.defaultCommandTimeoutS, 30.0);
        // One legacy subscribe (AddItemBulk + 244 AdviseSupervisory) costs the STA well over
        // the 5 s retry interval.
        const double legacyMs = (s.gateway.commandMs + 244 * s.gateway.perItemMs) +
                                244 * (s.gateway.commandMs + s.gateway.perItemMs);
        QVERIFY2(legacyMs > 2 * 5000, qPrintable(QString::number(legacyMs)));
        QVERIFY(s.gateway.commandMs >= 10); // tens of ms per command under load
        // Z28061 is redeployed several times in quick succession, inside the wedge.
        int redeploys = 0;
        double wedgeStart = -1, wedgeEnd = -1;
        for (const TimelineEvent& e : s.timeline) {
            if (e.action == TimelineAction::Wedge) {
                wedgeStart = e.atS;
                wedgeEnd = e.atS + e.durationS;
            }
        }
        for (const TimelineEvent& e : s.timeline)
            if (e.action == TimelineAction::Redeploy && e.instance == "Z28061") {
                ++redeploys;
                QVERIFY(e.atS > wedgeStart && e.atS < wedgeEnd);
            }
        QVERIFY(redeploys >= 3);
        QVERIFY(s.durationS >= 25 * 60 && s.durationS <= 35 * 60);
    }

    // levers-off and lever1 predate Lever 2: they never use the bulk call the gateway offers.
    void incidentLegacyVariantsFanOut()
    {
        for (const QString& v : {QStringLiteral("levers-off"), QStringLiteral("lever1")}) {
            const VariantMetrics& m = metrics(kIncident, v);
            QCOMPARE(kind(m, rpc_kind::kSubscribeBulk), 0);
            QVERIFY(kind(m, rpc_kind::kAdviseSupervisory) > 244);
        }
        for (const QString& v : {QStringLiteral("lever1+2"), QStringLiteral("all")}) {
            const VariantMetrics& m = metrics(kIncident, v);
            QCOMPARE(kind(m, rpc_kind::kAdviseSupervisory), 0);
            QVERIFY(kind(m, rpc_kind::kSubscribeBulk) > 0);
        }
    }

    void incidentLeversOffStormNeverClears()
    {
        const VariantMetrics& m = metrics(kIncident, "levers-off");
        QVERIFY2(m.maxOutstanding >= 3, qPrintable(QString::number(m.maxOutstanding)));
        QVERIFY(m.deadlineExceeded > 0);
        QVERIFY(!m.timeToAllGoodS);
    }

    // The storm is self-sustaining: the site is healthy before the wedge, and long after
    // the wedge has ended (and nothing else is wrong) commands still expire and most
    // redeployed tags are still not Good.
    void incidentLeversOffStormSustainsItself()
    {
        const Scenario s = bundled(kIncident);
        ScenarioRunner runner(s, s.variants[0]);
        QVERIFY2(runner.ok(), qPrintable(runner.error()));
        QCOMPARE(s.variants[0].name, QStringLiteral("levers-off"));
        runner.start();
        runner.advanceTo(300);
        QCOMPARE(runner.notGoodTags(), 0); // both instances Good by 5 min
        runner.advanceTo(600);
        QCOMPARE(runner.model().deadlineExceeded(), std::int64_t(0));
        runner.advanceTo(1200); // 510 s after the wedge ended
        const std::int64_t expiredBy1200 = runner.model().deadlineExceeded();
        const VariantRun run = runner.finish();
        QVERIFY(run.metrics.deadlineExceeded > expiredBy1200 + 1000);
        QVERIFY2(runner.notGoodTags() > 244, qPrintable(QString::number(runner.notGoodTags())));
        // The queue held more than the 30 s command deadline's worth of STA work.
        const double advisesMs = s.gateway.commandMs + s.gateway.perItemMs;
        QVERIFY(double(run.metrics.maxStaQueueDepth.value_or(0)) * advisesMs > 30'000);
    }

    void incidentLever1HoldsOneSubscribeAndRecovers()
    {
        const VariantMetrics& m = metrics(kIncident, "lever1");
        QCOMPARE(m.maxOutstanding, 1);
        QVERIFY(m.timeToAllGoodS);
        QVERIFY2(*m.timeToAllGoodS <= 120, qPrintable(QString::number(*m.timeToAllGoodS)));
        QVERIFY(m.subscribeRequests * 10 < metrics(kIncident, "levers-off").subscribeRequests);
    }

    void incidentAllRecoversWithinTwoMinutesOnATenthOfTheCalls()
    {
        const VariantMetrics& all = metrics(kIncident, "all");
        const VariantMetrics& off = metrics(kIncident, "levers-off");
        QVERIFY(all.timeToAllGoodS);
        QVERIFY2(*all.timeToAllGoodS <= 120, qPrintable(QString::number(*all.timeToAllGoodS)));
        QVERIFY(all.gatewayRpcs * 10 < off.gatewayRpcs);
        QCOMPARE(all.maxOutstanding, 1);
    }

    // The description's account of "all" against "lever1+2": the wedge's expired commands
    // put the recovery gate into recovery, which refuses subscribes and stretches the retry
    // backoff, so "all" is back later (with more bad tag-seconds) than lever1+2.
    void incidentRecoveryGateDelaysAllAgainstLever12()
    {
        const VariantMetrics& all = metrics(kIncident, "all");
        const VariantMetrics& l12 = metrics(kIncident, "lever1+2");
        QVERIFY(l12.timeToAllGoodS && all.timeToAllGoodS);
        QVERIFY(all.suppressedCalls > 0);
        QCOMPARE(l12.suppressedCalls, 0);
        QVERIFY(*all.timeToAllGoodS > *l12.timeToAllGoodS);
        QVERIFY(all.badTagSeconds > l12.badTagSeconds);
    }

    // --- commissioning ----------------------------------------------------------------

    void commissioningAllGoodInEveryVariant()
    {
        const Scenario s = bundled(kCommissioning);
        QCOMPARE(s.instances.size(), 20);
        double lastDeploy = 0;
        for (const ScenarioInstance& i : s.instances) {
            QCOMPARE(i.tags, 244);
            lastDeploy = std::max(lastDeploy, i.startAtS);
        }
        QVERIFY(s.timeline.isEmpty()); // no fault: time_to_all_good counts from the start
        for (const QString& v : kPresets) {
            const VariantMetrics& m = metrics(kCommissioning, v);
            QVERIFY2(m.timeToAllGoodS, qPrintable(v));
            QVERIFY(*m.timeToAllGoodS >= lastDeploy);
            QCOMPARE(m.deadlineExceeded, 0);
        }
        // Lever 2: each instance is Good within a second of its deploy; the legacy fan-out
        // takes several seconds.
        QVERIFY(*metrics(kCommissioning, "lever1+2").timeToAllGoodS < lastDeploy + 1);
        QVERIFY(*metrics(kCommissioning, "lever1").timeToAllGoodS > lastDeploy + 3);
    }

    void commissioningLegacySubscribeOutlivesTheRetry()
    {
        const VariantMetrics& off = metrics(kCommissioning, "levers-off");
        const VariantMetrics& l1 = metrics(kCommissioning, "lever1");
        QCOMPARE(off.subscribeRequests, 40); // every instance sent a duplicate
        QCOMPARE(off.maxOutstanding, 2);
        QCOMPARE(l1.subscribeRequests, 20); // exactly one per instance
        QCOMPARE(l1.maxOutstanding, 1);
        QVERIFY(off.gatewayRpcs > l1.gatewayRpcs);
    }

    void commissioningPeakQueueIsLowerWithLever2()
    {
        const VariantMetrics& l1 = metrics(kCommissioning, "lever1");
        for (const QString& v : {QStringLiteral("lever1+2"), QStringLiteral("all")}) {
            const VariantMetrics& m = metrics(kCommissioning, v);
            QVERIFY(*m.maxStaQueueDepth < *l1.maxStaQueueDepth);
            QCOMPARE(m.gatewayRpcs, 21); // Register + one SubscribeBulk per instance
        }
        QVERIFY(*metrics(kCommissioning, "levers-off").maxStaQueueDepth >= *l1.maxStaQueueDepth);
    }

    // --- reconnect-storm --------------------------------------------------------------

    // The requests held through the restart carry their 244 tags (they once went out
    // empty, which let levers-off "recover"): levers-off's stacked fan-outs now keep the STA
    // past the deadline for good, as in the incident; every guarded variant recovers.
    void reconnectStormGuardedVariantsRecoverLeversOffNever()
    {
        const Scenario s = bundled(kReconnect);
        QCOMPARE(s.instances.size(), 10);
        QCOMPARE(s.timeline.size(), 1);
        QCOMPARE(s.timeline[0].action, TimelineAction::RestartGateway);
        const VariantMetrics& off = metrics(kReconnect, "levers-off");
        QVERIFY(!off.timeToAllGoodS);
        QVERIFY(off.deadlineExceeded > 10000);
        for (const QString& v : kPresets) {
            const VariantMetrics& m = metrics(kReconnect, v);
            QCOMPARE(m.orphanedTagSeconds, 0.0);
            if (v != QLatin1String("levers-off"))
                QVERIFY2(m.timeToAllGoodS, qPrintable(v));
        }
    }

    void reconnectStormGuardVariantsSendFewerSubscribes()
    {
        const VariantMetrics& off = metrics(kReconnect, "levers-off");
        QVERIFY(off.maxOutstanding > 1); // re-sends stacked in the held queue
        for (const QString& v :
             {QStringLiteral("lever1"), QStringLiteral("lever1+2"), QStringLiteral("all")}) {
            const VariantMetrics& m = metrics(kReconnect, v);
            QVERIFY2(m.subscribeRequests < off.subscribeRequests, qPrintable(v));
            QCOMPARE(m.maxOutstanding, 1);
            QVERIFY(*m.maxStaQueueDepth < *off.maxStaQueueDepth);
            QCOMPARE(*m.maxGatewayOutstandingSubscribes, qint64(1));
        }
    }

    void reconnectStormLever2IsGoodSecondsAfterTheRestart()
    {
        for (const QString& v : {QStringLiteral("lever1+2"), QStringLiteral("all")}) {
            const VariantMetrics& m = metrics(kReconnect, v);
            QVERIFY2(*m.timeToAllGoodS < 30, qPrintable(QString::number(*m.timeToAllGoodS)));
            QCOMPARE(kind(m, rpc_kind::kAdviseSupervisory), 0);
        }
    }

    // --- retry-budget ------------------------------------------------------------------

    // The reconnect storm with the budget on top of levers-off: capped and recovering, where
    // levers-off alone never recovers; on top of "all" it never bites.
    void retryBudgetCapsTheStormLeversOffLeavesOn()
    {
        const QString name = QStringLiteral("retry-budget");
        const VariantMetrics& off = metrics(name, "levers-off");
        const VariantMetrics& budget = metrics(name, "levers-off+budget");
        QVERIFY(!off.timeToAllGoodS);
        QCOMPARE(off.throttledRetries, qint64(0));
        QVERIFY2(budget.timeToAllGoodS, "levers-off+budget never all Good");
        QVERIFY2(*budget.timeToAllGoodS < 600, qPrintable(QString::number(*budget.timeToAllGoodS)));
        QVERIFY(budget.throttledRetries > 100);
        QVERIFY2(budget.subscribeRequests * 10 < off.subscribeRequests,
                 qPrintable(
                     QString("%1 vs %2").arg(budget.subscribeRequests).arg(off.subscribeRequests)));
        QVERIFY(*budget.maxStaQueueDepth * 10 < *off.maxStaQueueDepth);
        for (const char* v : {"levers-off", "levers-off+budget", "all", "all+budget"})
            QCOMPARE(metrics(name, v).orphanedTagSeconds, 0.0);
    }

    void retryBudgetNeverBitesWithTheGuardOn()
    {
        const QString name = QStringLiteral("retry-budget");
        const VariantMetrics& all = metrics(name, "all");
        const VariantMetrics& budget = metrics(name, "all+budget");
        QCOMPARE(budget.throttledRetries, qint64(0));
        QCOMPARE(budget.subscribeRequests, all.subscribeRequests);
        QCOMPARE(budget.badTagSeconds, all.badTagSeconds);
        QCOMPARE(budget.timeToAllGoodS, all.timeToAllGoodS);
    }

    // --- resubscribe-freeze (defect: a failed re-subscribe after reconnect) ------------

    void resubscribeFreezeOrphansTagsUntilTheGuardResubscribes()
    {
        const QString k = QStringLiteral("resubscribe-freeze");
        for (const char* v : {"levers-off", "lever1-as-planned"}) {
            const VariantMetrics& m = metrics(k, v);
            QVERIFY2(!m.timeToAllGoodS, v);
            // 244 tags orphaned from the failed re-subscribe (~65 s) to the end (600 s)
            QVERIFY2(m.orphanedTagSeconds > 244 * 500,
                     qPrintable(QString::number(m.orphanedTagSeconds)));
        }
        QCOMPARE(metrics(k, "lever1-as-planned").subscribeRequests, qint64(1));
        for (const char* v : {"lever1", "all"}) {
            const VariantMetrics& m = metrics(k, v);
            QVERIFY2(m.timeToAllGoodS && *m.timeToAllGoodS < 180, v);
            QCOMPARE(m.orphanedTagSeconds, 0.0);
            QVERIFY(m.subscribeRequests > 2); // retried until confirmed
        }
    }

    // --- held-subscribes (defect: superseded held requests all go out) ----------------

    void heldSubscribesStackOnlyWithoutDropSuperseded()
    {
        const QString k = QStringLiteral("held-subscribes");
        const VariantMetrics& planned = metrics(k, "lever1+2-as-planned");
        QCOMPARE(planned.maxOutstanding, 1);                          // the guard counts one ...
        QCOMPARE(kind(planned, rpc_kind::kSubscribeBulk), qint64(3)); // ... the gateway gets three
        QCOMPARE(*planned.maxGatewayOutstandingSubscribes, qint64(3));
        for (const char* v : {"lever1+2", "all"}) {
            const VariantMetrics& m = metrics(k, v);
            QCOMPARE(kind(m, rpc_kind::kSubscribeBulk), qint64(1));
            QCOMPARE(*m.maxGatewayOutstandingSubscribes, qint64(1));
            QVERIFY(m.timeToAllGoodS);
        }
        QVERIFY(metrics(k, "levers-off").maxOutstanding > 20); // every 5 s for 110 s
    }

    // Every bundled scenario: the guarded presets never orphan a tag.
    void guardedPresetsNeverOrphanATag()
    {
        for (const QString& name : bundledScenarioNames())
            for (const VariantMetrics& m : report(name).variants) {
                const bool guarded = m.levers.value("inflight_guard").toBool() &&
                                     m.levers.value("resubscribe_guard").toBool();
                if (guarded)
                    QVERIFY2(m.orphanedTagSeconds == 0.0,
                             qPrintable(name + " / " + m.name + ": " +
                                        QString::number(m.orphanedTagSeconds)));
            }
    }
};

QTEST_GUILESS_MAIN(TestBundledScenarios)
#include "tst_bundled_scenarios.moc"
