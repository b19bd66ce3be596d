// Stale tags in a run, in virtual time: a Good tag whose data stops while its connection still
// looks fine (events lost, a half-open link before any command is due) turns stale once its
// expected update period × the stale factor passed, and fresh with its next update. The run
// counts stale_tag_seconds and records a tags_stale series per subscription; without an
// expected period (MXAccess sends on change only) nothing is ever stale.
#include "scenario/scenario_parser.h"
#include "scenario/scenario_runner.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace stormwatch;

namespace {

// One instance of 10 tags on a gateway that answers at once and changes every value each
// second; the timeline loses its events from 10 s for 20 s (the published contract numbers
// its events, so a loss is a gap the client can see afterwards, not while it lasts).
QJsonObject quietScenario(QJsonValue expectedUpdateS,
                          QJsonValue staleFactor = QJsonValue::Undefined,
                          const char* fault = "lose_events")
{
    QJsonObject instance{{"name", "probe"}, {"connection", "gw1"}, {"tags", 10}};
    if (!expectedUpdateS.isUndefined())
        instance.insert("expected_update_s", expectedUpdateS);
    QJsonObject o{
        {"name", "quiet"},
        {"description", "data stops while the connection looks fine"},
        {"duration_s", 60},
        {"seed", 3},
        {"gateway", QJsonObject{{"network_latency_ms", 0},
                                {"command_ms", 0},
                                {"per_item_ms", 0},
                                {"data_hz", 1},
                                {"contract_family", "mxaccess-gateway-v1"}}},
        {"connections", QJsonArray{QJsonObject{{"name", "gw1"}}}},
        {"instances", QJsonArray{instance}},
        {"timeline", QJsonArray{QJsonObject{{"at_s", 10}, {"action", fault}, {"duration_s", 20}}}},
        {"variants", QJsonArray{"all"}},
    };
    if (!staleFactor.isUndefined())
        o.insert("stale_factor", staleFactor);
    return o;
}

struct Run {
    VariantMetrics metrics;
    SeriesSet series;
};

Run run(const QJsonObject& o)
{
    QList<ScenarioError> errors;
    const auto s = parseScenario(QJsonDocument(o).toJson(), QStringLiteral("quiet.json"), &errors);
    for (const auto& e : errors)
        qWarning() << e.toString();
    if (!s)
        return {};
    QString error;
    QList<SeriesSet> series;
    const ScenarioReport report = runScenario(*s, {}, std::nullopt, {}, &error, &series);
    if (report.variants.size() != 1 || series.size() != 1) {
        qWarning() << error;
        return {};
    }
    return Run{report.variants.first(), series.first()};
}

} // namespace

class TestStaleTags : public QObject {
    Q_OBJECT
private slots:
    void lostEventsMakeGoodTagsStaleAfterTheirLimit()
    {
        // 1 s expected, factor 5: stale from about 15 s (the last value before the loss plus
        // 5 s) until the first value after it (about 30 s), for each of the 10 tags.
        const Run r = run(quietScenario(1));
        QVERIFY2(r.metrics.staleTagSeconds >= 10 * 13.0 && r.metrics.staleTagSeconds <= 10 * 16.0,
                 qPrintable(QString::number(r.metrics.staleTagSeconds)));
        const Series* stale =
            r.series.find(QStringLiteral("probe/gw1"), QStringLiteral("tags_stale"));
        QVERIFY(stale);
        QCOMPARE(stale->maxValue(), 10.0);
        // Stale is a kind of Good: the tags were Good all along, and fresh again at the end.
        QCOMPARE(stale->points().back().value, 0.0);
        QVERIFY(r.metrics.badTagSeconds < 10 * 2.0);
        QCOMPARE(r.metrics.frozenTagSeconds, 0.0);
    }

    void aLargerFactorOutlastsTheGap()
    {
        // 1 s × 30: the 20 s silence never reaches the limit.
        const Run r = run(quietScenario(1, 30));
        QCOMPARE(r.metrics.staleTagSeconds, 0.0);
    }

    void withoutAnExpectedPeriodNothingIsStale()
    {
        const Run r = run(quietScenario(QJsonValue::Undefined));
        QCOMPARE(r.metrics.staleTagSeconds, 0.0);
        QVERIFY(r.metrics.badTagSeconds < 10 * 2.0); // the run did happen
    }

    void aPeriodPerTagLeavesTheOthersFresh()
    {
        // Only the first 4 tags have an expectation; the other 6 send on change only.
        QJsonArray periods;
        for (int t = 0; t < 10; ++t)
            periods.append(t < 4 ? 1.0 : 0.0);
        const Run r = run(quietScenario(periods));
        QVERIFY2(r.metrics.staleTagSeconds >= 4 * 13.0 && r.metrics.staleTagSeconds <= 4 * 16.0,
                 qPrintable(QString::number(r.metrics.staleTagSeconds)));
        const Series* stale =
            r.series.find(QStringLiteral("probe/gw1"), QStringLiteral("tags_stale"));
        QVERIFY(stale);
        QCOMPARE(stale->maxValue(), 4.0);
    }

    void aHalfOpenLinkIsStaleBeforeItIsUnresponsive()
    {
        // Nothing is asked of the gateway while the tags are Good, so the liveness rule has no
        // unanswered command to go by; the tags' own silence shows.
        const Run r = run(quietScenario(1, QJsonValue::Undefined, "half_open"));
        QVERIFY2(r.metrics.staleTagSeconds >= 10 * 10.0,
                 qPrintable(QString::number(r.metrics.staleTagSeconds)));
        QCOMPARE(r.metrics.frozenTagSeconds, 0.0);
    }
};

QTEST_GUILESS_MAIN(TestStaleTags)
#include "tst_stale_tags.moc"
