// SeriesStore: step series fed in batches of recorded series, retention, lookup and CSV export.
#include "models/series_store.h"
#include "models/support_series_updates.h"

#include <QSignalSpy>
#include <QtTest>
#include <cmath>
#include <limits>

using namespace stormwatch;
using namespace stormwatch::testsupport;

namespace {

const SubscriptionKey k0{0, false};

} // namespace

class TestSeriesStore : public QObject {
    Q_OBJECT
private slots:
    void stepSeriesKeepsAPointPerChangeOnly()
    {
        SeriesStore store;
        feed(store, {sample(0, 0, 0), sample(1, 0, 1), sample(2, 0, 1), sample(3, 0, 0)});
        const auto& s = store.series(k0, SubMetric::Outstanding);
        QCOMPARE(s, (QVector<QPointF>{{0, 0}, {1, 1}, {3, 0}}));
        // interval stored in seconds, unchanged after the first point
        QCOMPARE(store.series(k0, SubMetric::IntervalS), (QVector<QPointF>{{0, 5.0}}));
        QCOMPARE(store.latestTime(), 3.0);
        QCOMPARE(store.earliestTime(), 0.0);
    }

    void sameTimestampCollapsesOntoOnePoint()
    {
        SeriesStore store;
        feed(store, {sample(0, 0, 0), sample(1, 0, 1)});
        feed(store, {sample(1, 0, 2)});
        QCOMPARE(store.series(k0, SubMetric::Outstanding), (QVector<QPointF>{{0, 0}, {1, 2}}));
        // back to the value before it: the change at t=1 vanishes
        feed(store, {sample(1, 0, 0)});
        QCOMPARE(store.series(k0, SubMetric::Outstanding), (QVector<QPointF>{{0, 0}}));
    }

    void gatewayStepSeriesAndUnknownQueueDepth()
    {
        SeriesStore store;
        const double unknown = std::numeric_limits<double>::quiet_NaN();
        for (int t = 0; t < 4; ++t)
            feed(store, GatewayStep{.t = double(t),
                                    .staQueueDepth = unknown,
                                    .recoveryState = t == 3 ? 0 : t});
        QCOMPARE(store.gatewaySeries(GatewayMetric::RecoveryState),
                 (QVector<QPointF>{{0, 0}, {1, 1}, {2, 2}, {3, 0}}));
        // NaN (no STA queue depth from a real gateway) repeats as "no change", one point only
        QCOMPARE(store.gatewaySeries(GatewayMetric::StaQueueDepth).size(), 1);
        QVERIFY(std::isnan(store.gatewayValueAt(GatewayMetric::StaQueueDepth, 3)));
    }

    void valueAtBeforeAtBetweenAndAfterPoints()
    {
        SeriesStore store;
        feed(store, {sample(10, 0, 0), sample(20, 0, 3), sample(30, 0, 1)});
        QVERIFY(std::isnan(store.valueAt(k0, SubMetric::Outstanding, 9.999)));
        QCOMPARE(store.valueAt(k0, SubMetric::Outstanding, 10), 0.0);
        QCOMPARE(store.valueAt(k0, SubMetric::Outstanding, 19.5), 0.0);
        QCOMPARE(store.valueAt(k0, SubMetric::Outstanding, 20), 3.0);
        QCOMPARE(store.valueAt(k0, SubMetric::Outstanding, 29), 3.0);
        QCOMPARE(store.valueAt(k0, SubMetric::Outstanding, 1e9), 1.0);
        QVERIFY(std::isnan(store.valueAt(SubscriptionKey{7, false}, SubMetric::Outstanding, 20)));
    }

    void retentionDropsOldPointsAndBoundsMemory()
    {
        SeriesStore store;
        QCOMPARE(store.retentionSeconds(), 3600.0);
        std::size_t bytesAtTwoHours = 0, maxBytesAfter = 0;
        for (int t = 0; t < 3 * 3600; ++t) {
            feed(store,
                 {sample(t, 0, t % 2, 1000.0 * (t % 7), t % 5, t % 3), sample(t, 1, (t + 1) % 2)});
            feed(store, GatewayStep{.t = double(t),
                                    .staQueueDepth = double(t % 4),
                                    .invokeRps = double(10 * (t % 3)),
                                    .recoveryState = t % 2});
            if (t == 2 * 3600)
                bytesAtTwoHours = store.approxBytes();
            if (t > 2 * 3600)
                maxBytesAfter = std::max(maxBytesAfter, store.approxBytes());
            if (t == 2 * 3600 - 1) { // fed 2 h with 1 h retention
                const auto& s = store.series(k0, SubMetric::Outstanding);
                QVERIFY2(s.size() <= 3600 + 12, qPrintable(QString::number(s.size())));
                QVERIFY(s.size() >= 3600);
                QVERIFY(s.first().x() >= t - 3600 - 11);
                QVERIFY(store.gatewaySeries(GatewayMetric::InvokeRps).size() <= 3600 + 12);
                // the window starts one hour before the latest point (pruned every 10 s)
                QVERIFY(std::abs(store.earliestTime() - (t - 3600)) <= 10);
            }
        }
        // steady state: a third hour needs no more memory than the second, and the
        // capacity kept is a small multiple of the points held
        QVERIFY2(maxBytesAfter <= bytesAtTwoHours * 11 / 10,
                 qPrintable(QStringLiteral("%1 vs %2").arg(maxBytesAfter).arg(bytesAtTwoHours)));
        QVERIFY(store.approxBytes() <= 3 * store.pointCount() * sizeof(QPointF) + 65536);
    }

    void retentionKeepsTheValueInForceAtTheCut()
    {
        SeriesStore store;
        store.setRetentionSeconds(100);
        feed(store, {sample(0, 0, 1)}); // never changes again
        for (int t = 1; t <= 500; ++t)
            feed(store, {sample(t, 1, t % 2)});
        QCOMPARE(store.series(k0, SubMetric::Outstanding).size(), 1);
        QCOMPARE(store.valueAt(k0, SubMetric::Outstanding, 450), 1.0);
        QVERIFY(store.series(SubscriptionKey{1, false}, SubMetric::Outstanding).size() <= 102);
    }

    void labelsAreTheRecordedSubjects()
    {
        SeriesStore store;
        QSignalSpy changed(&store, &SeriesStore::subscriptionsChanged);
        QSignalSpy appended(&store, &SeriesStore::appended);
        feed(store, {sample(0, 1, 0), sample(0, 0, 0)});
        QCOMPARE(changed.count(), 1);
        QCOMPARE(appended.count(), 1);
        QCOMPARE(store.subscriptions(), (QList<SubscriptionKey>{{0, false}, {1, false}}));
        QCOMPARE(store.label({0, false}), QStringLiteral("Z28061 × gw1"));
        QCOMPARE(store.label({1, false}), QStringLiteral("Z28062 × gw1"));
        feed(store, {sample(1, 1, 1)}); // known subscription, same label
        QCOMPARE(changed.count(), 1);
        QCOMPARE(appended.count(), 2);
    }

    void csvOfARangeIsStepFilled()
    {
        SeriesStore store;
        feed(store, {sample(0, 0, 0, 5000, 10, 0), sample(0, 1, 0)});
        feed(store,
             {SubscriptionStep{
                 .t = 5, .instance = 0, .outstanding = 1, .good = 8, .bad = 2, .orphaned = 2}});
        feed(store,
             {SubscriptionStep{
                 .t = 7, .instance = 1, .outstanding = 1, .intervalMs = 10000, .frozen = 3}});
        feed(store, {sample(20, 0, 0)}); // outside the range
        feed(store, GatewayStep{.t = 0, .staQueueDepth = 3, .invokeRps = 10});
        feed(store, GatewayStep{.t = 6, .staQueueDepth = 3, .invokeRps = 10, .recoveryState = 1});

        const QList<QByteArray> lines = store.toCsv(2, 10, {k0, {1, false}}).split('\n');
        QCOMPARE(
            lines.first(),
            QByteArray("t_s,Z28061 × gw1/outstanding,Z28061 × gw1/interval_ms,"
                       "Z28061 × gw1/tags_good,Z28061 × gw1/tags_uncertain,"
                       "Z28061 × gw1/tags_bad,Z28061 × gw1/requests_sent,Z28061 × gw1/tags_stale,"
                       "Z28061 × gw1/tags_orphaned,Z28061 × gw1/tags_frozen,"
                       "Z28062 × gw1/outstanding,Z28062 × gw1/interval_ms,"
                       "Z28062 × gw1/tags_good,Z28062 × gw1/tags_uncertain,"
                       "Z28062 × gw1/tags_bad,Z28062 × gw1/requests_sent,Z28062 × gw1/tags_stale,"
                       "Z28062 × gw1/tags_orphaned,Z28062 × gw1/tags_frozen,"
                       "gateway/sta_queue_depth,gateway/invoke_rpcs_per_s,"
                       "gateway/deadline_exceeded_per_s,gateway/suppressed_calls_per_s,"
                       "gateway/recovery_state"));
        // a row at the start of the range with the values in force, then one per change
        QCOMPARE(lines.value(1),
                 QByteArray("2.000,0,5000,10,0,0,0,0,0,0,0,5000,0,0,0,0,0,0,0,3,10,0,0,0"));
        QCOMPARE(lines.value(2),
                 QByteArray("5.000,1,5000,8,0,2,0,0,2,0,0,5000,0,0,0,0,0,0,0,3,10,0,0,0"));
        QCOMPARE(lines.value(3),
                 QByteArray("6.000,1,5000,8,0,2,0,0,2,0,0,5000,0,0,0,0,0,0,0,3,10,0,0,1"));
        QCOMPARE(lines.value(4),
                 QByteArray("7.000,1,5000,8,0,2,0,0,2,0,1,10000,0,0,0,0,0,0,3,3,10,0,0,1"));
        QCOMPARE(lines.size(), 6); // trailing newline; t=20 left out
        QCOMPARE(lines.last(), QByteArray());
    }

    void csvQuotesLabelsAndLeavesCellsEmptyBeforeTheFirstPoint()
    {
        SeriesStore store;
        store.loadSeries(k0, QStringLiteral("odd, \"name\""), SubMetric::Outstanding,
                         {{0, 1}, {4, 2}});
        store.loadSeries({1, false}, QStringLiteral("late"), SubMetric::Outstanding, {{3, 5}});
        const QList<QByteArray> lines = store.toCsv(0, 10, {k0, {1, false}}).split('\n');
        QVERIFY(lines.first().startsWith("t_s,\"odd, \"\"name\"\"/outstanding\","));
        // columns: 9 of k0 then 9 of the late one; outstanding is first of each
        QCOMPARE(lines.value(1), QByteArray("0.000,1,,,,,,,,,,,,,,,,,"));
        QCOMPARE(lines.value(2), QByteArray("3.000,1,,,,,,,,,5,,,,,,,,"));
        QCOMPARE(lines.value(3), QByteArray("4.000,2,,,,,,,,,5,,,,,,,,"));
    }

    void loadSeriesReplacesWholeSeriesAndBumpsGeneration()
    {
        SeriesStore store;
        QSignalSpy changed(&store, &SeriesStore::subscriptionsChanged);
        const quint64 g = store.generation();
        store.loadSeries(k0, QStringLiteral("Z1 × gw"), SubMetric::Good, {{0, 3}, {10, 4}});
        store.loadGatewaySeries(GatewayMetric::InvokeRps, {{0, 1}, {12, 2}});
        QCOMPARE(changed.count(), 1);
        QVERIFY(store.generation() > g);
        QCOMPARE(store.label(k0), QStringLiteral("Z1 × gw"));
        QCOMPARE(store.valueAt(k0, SubMetric::Good, 11), 4.0);
        QCOMPARE(store.latestTime(), 12.0);
        QCOMPARE(store.pointCount(), std::size_t(4));
        store.clear();
        QCOMPARE(store.pointCount(), std::size_t(0));
        QVERIFY(store.subscriptions().isEmpty());
        QVERIFY(std::isnan(store.latestTime()));
        QCOMPARE(changed.count(), 2);
    }
};

QTEST_GUILESS_MAIN(TestSeriesStore)
#include "tst_series_store.moc"
