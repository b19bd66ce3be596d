// The compare view's overlays over a run on several gateways: each gateway's own series
// ("gateway:NAME") sit beside the subscriptions and are not one of them.

#include "ui/compare_view_results.h"

#include <QtTest>

using namespace stormwatch;

class TestCompareViewSubjects : public QObject {
    Q_OBJECT

private slots:
    void aGatewaysOwnSeriesIsNotASubscription()
    {
        SeriesSet set;
        set.at(set.indexOf("i1/gw-a", "tags_not_good")).add(0, 2);
        set.at(set.indexOf("i2/gw-b", "tags_not_good")).add(5, 3);
        // Each gateway's own and the run's sum, under the same metric name: none of them is
        // a subscription, so none of them is added in or maximised over.
        set.at(set.indexOf("gateway:gw-a", "tags_not_good")).add(1, 100);
        set.at(set.indexOf("gateway:gw-b", "tags_not_good")).add(2, 200);
        set.at(set.indexOf("gateway", "tags_not_good")).add(3, 300);
        set.endS = 10;
        const QVector<QPointF> sum = sumOverSubscriptions(set, {"tags_not_good"});
        QCOMPARE(sum, (QVector<QPointF>{{0, 2}, {5, 5}, {10, 5}}));
        const QVector<QPointF> max = maxOverSubscriptions(set, "tags_not_good");
        QCOMPARE(max, (QVector<QPointF>{{0, 2}, {5, 3}, {10, 3}}));
    }
};

QTEST_GUILESS_MAIN(TestCompareViewSubjects)
#include "tst_compare_view_subjects.moc"
