// The connection's reverse index from item handle to the tags it feeds: one route inline, the
// rare shared item's further routes apart, and erasing by subscriber or by one tag.

#include "client/item_routes.h"

#include <QtTest>
#include <algorithm>

using namespace stormwatch;
using Route = ItemRoutes::Route;

class TestItemRoutes : public QObject {
    Q_OBJECT

private slots:
    void anItemWithOneRouteIsItsSingleRoute()
    {
        ItemRoutes routes;
        QVERIFY(!routes.contains(7));
        QVERIFY(routes.single(7) == nullptr);
        routes.add(7, Route{1, 3});
        QVERIFY(routes.contains(7));
        QCOMPARE(routes.count(7), std::size_t(1));
        QVERIFY(routes.single(7) != nullptr);
        QVERIFY(*routes.single(7) == (Route{1, 3}));
        QCOMPARE(routes.items(), std::size_t(1));
    }

    void aSharedItemHasNoSingleRouteAndListsEveryRoute()
    {
        ItemRoutes routes;
        routes.add(7, Route{1, 3});
        routes.add(7, Route{2, 0});
        routes.add(7, Route{2, 5});
        routes.add(8, Route{1, 4});
        QCOMPARE(routes.count(7), std::size_t(3));
        QVERIFY(routes.single(7) == nullptr);
        QVERIFY(routes.single(8) != nullptr); // another item's extra routes do not count
        auto all = routes.routesOf(7);
        QCOMPARE(all.size(), std::size_t(3));
        QVERIFY(all.front() == (Route{1, 3})); // the first one first
        const auto has = [&](Route r) { return std::find(all.begin(), all.end(), r) != all.end(); };
        QVERIFY(has(Route{2, 0}));
        QVERIFY(has(Route{2, 5}));
        int visited = 0;
        routes.forEach(7, [&](const Route&) { ++visited; });
        QCOMPARE(visited, 3);
        QCOMPARE(routes.items(), std::size_t(2));
    }

    void erasingOneTagKeepsTheSubscribersOtherTags()
    {
        ItemRoutes routes;
        routes.add(7, Route{2, 0});
        routes.add(7, Route{2, 5});
        QVERIFY(routes.erase(7, 2, 5));
        QCOMPARE(routes.count(7), std::size_t(1));
        QVERIFY(*routes.single(7) == (Route{2, 0}));
        QVERIFY(!routes.erase(7, 2, 5));            // already gone
        QVERIFY(!routes.erase(7, 3, std::nullopt)); // another subscriber's: nothing
        QCOMPARE(routes.count(7), std::size_t(1));
    }

    void erasingTheFirstRouteLetsAFurtherOneTakeItsPlace()
    {
        ItemRoutes routes;
        routes.add(7, Route{1, 3});
        routes.add(7, Route{2, 0});
        QVERIFY(routes.erase(7, 1, std::nullopt));
        QVERIFY(routes.contains(7));
        QVERIFY(*routes.single(7) == (Route{2, 0}));
        QVERIFY(routes.erase(7, 2, 0));
        QVERIFY(!routes.contains(7));
        QCOMPARE(routes.count(7), std::size_t(0));
        QCOMPARE(routes.items(), std::size_t(0));
    }

    void erasingASubscriberTakesAllItsRoutesOfTheItem()
    {
        ItemRoutes routes;
        routes.add(7, Route{2, 0});
        routes.add(7, Route{1, 3});
        routes.add(7, Route{2, 5});
        QVERIFY(routes.erase(7, 2, std::nullopt));
        QCOMPARE(routes.count(7), std::size_t(1));
        QVERIFY(*routes.single(7) == (Route{1, 3}));
    }

    void clearForgetsEveryItem()
    {
        ItemRoutes routes;
        routes.add(7, Route{1, 3});
        routes.add(7, Route{2, 0});
        routes.add(9, Route{1, 1});
        routes.clear();
        QVERIFY(!routes.contains(7));
        QVERIFY(!routes.contains(9));
        QCOMPARE(routes.count(7), std::size_t(0));
        routes.add(7, Route{4, 4}); // no leftover further route comes back
        QVERIFY(routes.single(7) != nullptr);
    }
};

QTEST_GUILESS_MAIN(TestItemRoutes)
#include "tst_item_routes.moc"
