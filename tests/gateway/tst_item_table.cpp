// ItemTable: a session's items by handle, with the flat list the data tick walks. The list must
// always be the live items in handle order, whatever order they were added or removed in, and the
// tick batch must follow it.
#include "gateway/session.h"
#include "support_model.h"

#include <QTest>
#include <cmath>
#include <functional>

using namespace testsupport;
using namespace mxgateway::v1;

class TestItemTable : public QObject {
    Q_OBJECT
private slots:
    void flatListIsTheLiveItemsInHandleOrder();
    void flatListFollowsErasesAndOutOfOrderInserts();
    void tickBatchSkipsRemovedItemsAndTakesNewOnesInHandleOrder();
    void flatListFollowsManyErasesBetweenWalks();
    void valueAndAdvisedLiveInTheFlatEntry();
    void tickAdvancesValuesOfAdvisedItemsOnlyAndWritesReachThem();
};

namespace {
Item named(const std::string& tag)
{
    Item item;
    item.tag = tag;
    item.serverHandle = std::int32_t(std::hash<std::string>{}(tag) % 1000);
    return item;
}

std::vector<std::int32_t> handlesOf(ItemTable& table)
{
    std::vector<std::int32_t> handles;
    for (const ItemTable::Hot& entry : table.flat()) {
        // Each entry is the table's own item's: its server handle, and the entry hot() finds.
        if (!table.contains(entry.handle) ||
            table.at(entry.handle).serverHandle != entry.serverHandle ||
            table.hot(entry.handle) != &entry || !entry.live)
            return {-1};
        handles.push_back(entry.handle);
    }
    return handles;
}
} // namespace

void TestItemTable::flatListIsTheLiveItemsInHandleOrder()
{
    ItemTable table;
    QVERIFY(table.emplace(1, named("a")).second);
    QVERIFY(table.emplace(2, named("b")).second);
    QVERIFY(!table.emplace(2, named("again")).second); // an existing handle is kept
    QVERIFY(table.emplace(3, named("c")).second);
    QCOMPARE(table.size(), std::size_t(3));
    QCOMPARE(handlesOf(table), (std::vector<std::int32_t>{1, 2, 3}));
    QCOMPARE(table.at(2).tag, std::string("b"));
    QCOMPARE(table.flat()[1].handle, 2);
}

void TestItemTable::flatListFollowsErasesAndOutOfOrderInserts()
{
    ItemTable table;
    for (std::int32_t h : {5, 6, 7})
        table.emplace(h, named(std::to_string(h)));
    QCOMPARE(handlesOf(table), (std::vector<std::int32_t>{5, 6, 7}));
    QCOMPARE(table.erase(6), std::size_t(1));
    QCOMPARE(table.erase(6), std::size_t(0));
    QCOMPARE(handlesOf(table), (std::vector<std::int32_t>{5, 7}));
    table.emplace(2, named("2")); // below the last handle: not appended, the list is rebuilt
    table.emplace(9, named("9"));
    QCOMPARE(handlesOf(table), (std::vector<std::int32_t>{2, 5, 7, 9}));
    table.erase(table.find(5));
    QCOMPARE(handlesOf(table), (std::vector<std::int32_t>{2, 7, 9}));
    table.clear();
    QVERIFY(table.flat().empty());
    table.emplace(4, named("4"));
    QCOMPARE(handlesOf(table), (std::vector<std::int32_t>{4}));
}

// A redeploy removes its items one at a time between ticks: each erase clears the item's
// entry and the next walk leaves it out, whatever else happened meanwhile (an erased last
// entry, the same handle added back, higher handles appended).
void TestItemTable::flatListFollowsManyErasesBetweenWalks()
{
    ItemTable table;
    std::vector<std::int32_t> expected;
    for (std::int32_t h = 1; h <= 100; ++h) {
        table.emplace(h, named(std::to_string(h)));
        expected.push_back(h);
    }
    QCOMPARE(handlesOf(table), expected);
    for (std::int32_t h = 2; h <= 100; h += 3) // between two walks, some erased ...
        QCOMPARE(table.erase(h), std::size_t(1));
    table.erase(table.find(100)); // ... the last one too
    std::erase_if(expected, [](std::int32_t h) { return h % 3 == 2 || h == 100; });
    QCOMPARE(handlesOf(table), expected);
    QCOMPARE(table.erase(2), std::size_t(0)); // already gone: nothing changes
    table.emplace(101, named("101"));         // appended after cleared entries were dropped
    table.erase(101);
    table.emplace(101, named("101 again")); // the same handle back (not above the last entry)
    table.emplace(102, named("102"));
    for (std::int32_t h = 1; h <= 60; ++h)
        table.erase(h);
    std::erase_if(expected, [](std::int32_t h) { return h <= 60; });
    expected.push_back(101);
    expected.push_back(102);
    QCOMPARE(handlesOf(table), expected);
    QCOMPARE(table.at(101).tag, std::string("101 again"));
    QCOMPARE(table.size(), expected.size());
}

void TestItemTable::tickBatchSkipsRemovedItemsAndTakesNewOnesInHandleOrder()
{
    VirtualScheduler sched;
    GatewayConfig config;
    config.dataHz = 1;
    GatewayModel model(sched, config);
    const auto id = open(model, sched).id();
    const int sh = registerClient(model, sched, id);
    auto log = listen(model, id);
    auto a = send(model, id, subscribeBulk(sh, tagNames(4), true)); // handles 1..4
    QVERIFY(runUntilAnswered(sched, a));
    MxCommand remove;
    remove.mutable_remove_item()->set_server_handle(sh);
    remove.mutable_remove_item()->set_item_handle(2);
    auto r = send(model, id, remove);
    QVERIFY(runUntilAnswered(sched, r));
    auto added = send(model, id, subscribeBulk(sh, {"Extra.Attr"}, true)); // handle 5
    QVERIFY(runUntilAnswered(sched, added));
    QCOMPARE(added->reply.subscribe_bulk().results(0).item_handle(), 5);
    sched.runFor(2s);
    log->clear();
    sched.runFor(1s); // one tick
    QCOMPARE(log->events.size(), std::size_t(1));
    const auto& changes = log->events[0].data_changes().changes();
    QCOMPARE(changes.size(), 4);
    const std::vector<std::int32_t> expected{1, 3, 4, 5};
    for (int i = 0; i < changes.size(); ++i) {
        QCOMPARE(changes[i].item_handle(), expected[std::size_t(i)]);
        QCOMPARE(changes[i].server_handle(), sh);
        QCOMPARE(changes[i].quality(), kQualityGood);
    }
    // The same timestamp on every change of one tick: the tick's virtual time.
    QCOMPARE(changes[0].source_timestamp().seconds(), changes[3].source_timestamp().seconds());
    QCOMPARE(changes[0].source_timestamp().nanos(), changes[3].source_timestamp().nanos());
}

// The tick reads an item's value and whether it is advised from its flat entry alone: the
// entry keeps the value across inserts and erases around it, and follows the advise state.
void TestItemTable::valueAndAdvisedLiveInTheFlatEntry()
{
    ItemTable table;
    table.emplace(5, named("5"), 50.5);
    table.emplace(7, named("7"), 70.5);
    table.emplace(3, named("3"), 30.5); // out of order: inserted in place
    table.emplace(9, named("9"), 90.5);
    table.erase(7);
    QCOMPARE(handlesOf(table), (std::vector<std::int32_t>{3, 5, 9}));
    QCOMPARE(table.value(3), 30.5);
    QCOMPARE(table.value(5), 50.5);
    QCOMPARE(table.value(9), 90.5);
    QCOMPARE(table.value(7), 0.0); // erased
    QVERIFY(!table.hot(7));
    table.hot(5)->value = -1.25;
    table.emplace(4, named("4"), 40.5);
    QCOMPARE(table.value(5), -1.25);
    QCOMPARE(table.value(4), 40.5);
    QVERIFY(!table.hot(5)->advised);
    table.at(5).advise.supervisory = true;
    table.adviseChanged(5);
    QVERIFY(table.hot(5)->advised);
    QVERIFY(!table.hot(4)->advised);
    table.at(5).advise = {};
    table.adviseChanged(5);
    QVERIFY(!table.hot(5)->advised);
    Item advised = named("11");
    advised.advise.plain = true;
    table.emplace(11, advised, 1.0); // added advised: its entry says so
    QVERIFY(table.hot(11)->advised);
}

// Through the model: a tick moves the value of every advised item (and only theirs) by at
// most half a unit, an un-advised item keeps its value and leaves the batch, and a Write
// sets the value the next change starts from.
void TestItemTable::tickAdvancesValuesOfAdvisedItemsOnlyAndWritesReachThem()
{
    VirtualScheduler sched;
    GatewayConfig config;
    config.dataHz = 1;
    GatewayModel model(sched, config);
    const auto id = open(model, sched).id();
    const int sh = registerClient(model, sched, id);
    auto log = listen(model, id);
    auto a = send(model, id, subscribeBulk(sh, tagNames(3), true)); // handles 1..3
    QVERIFY(runUntilAnswered(sched, a));
    sched.runFor(2s);
    MxCommand unadvise;
    unadvise.mutable_un_advise()->set_server_handle(sh);
    unadvise.mutable_un_advise()->set_item_handle(2);
    QVERIFY(runUntilAnswered(sched, send(model, id, unadvise)));
    const auto* s = model.session(id);
    QVERIFY(s);
    const double before2 = s->items.value(2);
    log->clear();
    sched.runFor(1s); // one tick
    QCOMPARE(log->events.size(), std::size_t(1));
    const auto& changes = log->events[0].data_changes().changes();
    QCOMPARE(changes.size(), 2);
    QCOMPARE(changes[0].item_handle(), 1);
    QCOMPARE(changes[1].item_handle(), 3);
    QCOMPARE(changes[0].value().double_value(), s->items.value(1)); // the entry holds what was sent
    QCOMPARE(changes[1].value().double_value(), s->items.value(3));
    QCOMPARE(s->items.value(2), before2);
    MxCommand write;
    write.mutable_write()->set_server_handle(sh);
    write.mutable_write()->set_item_handle(1);
    write.mutable_write()->mutable_value()->set_double_value(500);
    QVERIFY(runUntilAnswered(sched, send(model, id, write)));
    QCOMPARE(s->items.value(1), 500.0);
    log->clear();
    sched.runFor(1s);
    QCOMPARE(log->events.size(), std::size_t(1));
    const double next = log->events[0].data_changes().changes(0).value().double_value();
    QVERIFY(next != 500.0 &&
            std::abs(next - 500.0) <= 0.5); // the walk went on from the written value
}

QTEST_GUILESS_MAIN(TestItemTable)
#include "tst_item_table.moc"
