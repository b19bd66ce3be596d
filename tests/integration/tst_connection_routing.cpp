// GatewayConnection's data routing and its reused subscribe request:
// each change reaches the tag that owns its item tick after tick, an item shared by two
// subscribers reaches both and, once one is removed, only the other; routes follow a
// reconnect; and the reused bulk request follows a lever switch between SubscribeBulk and
// AddItemBulk. Against the mock gateway model on the in-process port, in virtual time.
#include "support_routing.h"

#include <QTest>

using namespace stormwatch;
using namespace stormwatch::testing;
using namespace stormwatch::testing::routing;
using namespace std::chrono_literals;

class TestConnectionRouting : public QObject {
    Q_OBJECT
private slots:
    void eachChangeReachesItsTagTickAfterTick()
    {
        VirtualGateway gw(config(true));
        GatewayConnection c(gw.sched, gw.port, {}, nullptr, [] { return 0.5; });
        c.start();
        auto got = std::make_shared<Received>();
        const auto tags = makeTags("A", 5);
        const auto sub = addRecorded(c, tags, got);
        c.subscribe(sub, [](const SubscribeOutcome&) {});
        gw.sched.runFor(2500ms); // first values and two ticks
        for (int tick = 0; tick < 3; ++tick) {
            const int before = got->updates();
            gw.sched.runFor(1s);
            QCOMPARE(got->updates() - before, 5); // one change per tag per tick
            for (int i = 0; i < 5; ++i) {
                const auto item = gatewayItem(gw, c, tags[std::size_t(i)]);
                QVERIFY(item);
                QCOMPARE(got->handle[i], item->first);
                QCOMPARE(got->value[i], item->second); // the tag got its own item's value
            }
        }
        QVERIFY(c.routed(sub, 4));
    }

    void sharedItemReachesBothSubscribersThenOnlyTheOneLeft()
    {
        VirtualGateway gw(config(true));
        GatewayConnection c(gw.sched, gw.port, {}, nullptr, [] { return 0.5; });
        c.start();
        auto a = std::make_shared<Received>();
        auto b = std::make_shared<Received>();
        const auto subA = addRecorded(c, {"X.1", "X.2"}, a);
        const auto subB = addRecorded(c, {"X.2", "X.3"}, b); // X.2 is one item on the gateway
        c.subscribe(subA, [](const SubscribeOutcome&) {});
        c.subscribe(subB, [](const SubscribeOutcome&) {});
        gw.sched.runFor(2500ms);
        QCOMPARE(a->handle[1], b->handle[0]);
        const auto shared = gatewayItem(gw, c, "X.2");
        QVERIFY(shared);
        QCOMPARE(a->handle[1], shared->first);
        const int aBefore = a->updates();
        const int bBefore = b->updates();
        gw.sched.runFor(1s);
        QCOMPARE(a->updates() - aBefore, 2);
        QCOMPARE(b->updates() - bBefore, 2);
        QCOMPARE(a->value[1], b->value[0]);

        c.removeSubscriber(subA);
        const int aAfter = a->updates();
        const int bAfter = b->updates();
        const int b0 = b->count[0];
        gw.sched.runFor(3s);
        QCOMPARE(a->updates(), aAfter); // nothing reaches a removed subscriber
        QCOMPARE(b->updates() - bAfter, 6);
        QCOMPARE(b->count[0] - b0, 3); // the shared item still reaches the one left
        QCOMPARE(b->value[0], gatewayItem(gw, c, "X.2")->second);
    }

    void routesFollowAReconnect()
    {
        VirtualGateway gw(config(true));
        GatewayConnection c(gw.sched, gw.port, {}, nullptr, [] { return 0.5; });
        c.start();
        auto got = std::make_shared<Received>();
        const auto tags = makeTags("R", 4);
        const auto sub = addRecorded(c, tags, got);
        c.subscribe(sub, [](const SubscribeOutcome&) {});
        gw.sched.runFor(3s);
        const std::string firstSession = c.sessionId();
        QVERIFY(c.routed(sub, 0));
        gw.model.restart(2s);
        gw.sched.runFor(30s); // reconnect and the connection's own re-subscribe
        QVERIFY(c.connected());
        QVERIFY(c.sessionId() != firstSession);
        gw.sched.runFor(500ms); // between ticks: each tick below is delivered within the window
        const int before = got->updates();
        gw.sched.runFor(2s);
        QCOMPARE(got->updates() - before, 8);
        for (int i = 0; i < 4; ++i) {
            const auto item = gatewayItem(gw, c, tags[std::size_t(i)]);
            QVERIFY(item);
            QCOMPARE(got->handle[i], item->first);
            QCOMPARE(got->value[i], item->second);
        }
    }

    // A redeploy's removes run a few per tick (or all at once, more than the connection looks
    // ahead for): the items after them move forward in each event. Every change must still
    // reach its own tag, values of items being removed are kept only while a subscribe runs,
    // and the subscribe queued behind the removes gets its tags right too.
    void itemsAheadGoingAwayDoNotMisrouteTheRest_data()
    {
        QTest::addColumn<double>("commandMs");
        QTest::newRow("five removes a tick") << 200.0;
        QTest::newRow("all 100 within one tick") << 1.0;
    }
    void itemsAheadGoingAwayDoNotMisrouteTheRest()
    {
        QFETCH(double, commandMs);
        gateway::GatewayConfig cfg = config(true);
        VirtualGateway gw(cfg);
        GatewayConnection c(gw.sched, gw.port, {}, nullptr, [] { return 0.5; });
        c.start();
        auto old = std::make_shared<Received>();
        auto kept = std::make_shared<Received>();
        auto late = std::make_shared<Received>();
        const auto oldTags = makeTags("Old.", 100);
        const auto keptTags = makeTags("Kept.", 20);
        const auto lateTags = makeTags("Late.", 10);
        const auto subOld = addRecorded(c, oldTags, old);
        const auto subKept = addRecorded(c, keptTags, kept);
        c.subscribe(subOld, [](const SubscribeOutcome&) {});
        c.subscribe(subKept, [](const SubscribeOutcome&) {});
        gw.sched.runFor(2500ms);
        QCOMPARE(kept->handle[0], gatewayItem(gw, c, keptTags[0])->first);
        cfg.commandMs = commandMs;
        QCOMPARE(gw.model.setConfig(cfg), std::string());
        c.removeItems(subOld);
        c.removeSubscriber(subOld);
        const auto subLate = addRecorded(c, lateTags, late);
        bool lateDone = false;
        c.subscribe(subLate, [&](const SubscribeOutcome& o) { lateDone = o.success; });
        auto items = [&] { return gw.model.session(c.sessionId())->items.size(); };
        bool sawPartial = false;
        std::size_t maxKept = 0;
        for (int tick = 0; tick < 30; ++tick) {
            const int before = kept->updates();
            gw.sched.runFor(1s);
            sawPartial = sawPartial || (items() > 20 && items() < 120);
            maxKept = std::max(maxKept, c.unroutedValues());
            QCOMPARE(kept->updates() - before, 20); // one change per tag per tick, none lost
            for (int i = 0; i < 20; ++i) {
                const auto item = gatewayItem(gw, c, keptTags[std::size_t(i)]);
                QVERIFY(item);
                QCOMPARE(kept->handle[i], item->first);
                QCOMPARE(kept->value[i], item->second);
            }
        }
        QVERIFY(lateDone);
        QCOMPARE(items(), std::size_t(30)); // the old items are gone, the late ones are there
        QVERIFY(maxKept <= 100);
        QCOMPARE(c.unroutedValues(), std::size_t(0)); // no subscribe runs: nothing is kept
        if (commandMs > 100) {
            QVERIFY(sawPartial); // the removes did spread over several ticks
            // The old items streamed while the late subscribe ran, but their values are not
            // kept (their removes are queued: they belong to items going away); at most the
            // late items' first values are.
            QVERIFY(maxKept <= 10);
        }
        const int lateBefore = late->updates();
        gw.sched.runFor(1s);
        QCOMPARE(late->updates() - lateBefore, 10);
        for (int i = 0; i < 10; ++i) {
            const auto item = gatewayItem(gw, c, lateTags[std::size_t(i)]);
            QVERIFY(item);
            QCOMPARE(late->handle[i], item->first);
            QCOMPARE(late->value[i], item->second);
        }
        QCOMPARE(old->updates() > 0, true); // it had its values before it left
    }

    // String values: each update's text is its own item's, also for a value that came before
    // the subscribe's reply did (kept, then delivered with the reply), and a tag's text is
    // replaced tick after tick.
    void stringValuesReachTheirTagsAlsoWhenKept()
    {
        gateway::GatewayConfig cfg = config(true);
        VirtualGateway gw(cfg);
        TextPort port(gw.port, gw.sched); // the first values come before the reply: they are kept
        GatewayConnection c(gw.sched, port, {}, nullptr, [] { return 0.5; });
        c.start();
        const auto tags = makeTags("S.", 8);
        std::map<int, std::string> text;
        int updates = 0;
        int wrong = 0;
        const auto sub = c.addSubscriber(
            tags,
            [&](const std::vector<TagUpdate>& batch) {
                for (const TagUpdate& u : batch) {
                    ++updates;
                    if (!u.text || u.text->rfind("v" + std::to_string(u.itemHandle) + "@", 0) != 0)
                        ++wrong;
                    else
                        text[u.index] = *u.text;
                }
            },
            [](bool) {});
        bool done = false;
        c.subscribe(sub, [&](const SubscribeOutcome& o) { done = o.success; });
        std::size_t maxKept = 0;
        while (!done && gw.sched.now() < Duration(10s)) {
            gw.sched.runFor(1ms);
            maxKept = std::max(maxKept, c.unroutedValues());
        }
        QVERIFY(done);
        QVERIFY(maxKept > 0);
        gw.sched.runFor(1ms);
        QCOMPARE(updates, 8); // the kept first values, delivered with the reply
        QCOMPARE(wrong, 0);
        for (int tick = 0; tick < 3; ++tick) {
            gw.sched.runFor(1s);
            QCOMPARE(wrong, 0);
            for (int i = 0; i < 8; ++i) {
                const auto item = gatewayItem(gw, c, tags[std::size_t(i)]);
                QVERIFY(item);
                QCOMPARE(text[i], TextPort::textFor(item->first, item->second));
            }
        }
        QCOMPARE(updates, 32);
    }

    void reusedRequestFollowsALeverSwitch()
    {
        VirtualGateway gw(config(true));
        GatewayConnection c(gw.sched, gw.port, {}, nullptr, [] { return 0.5; });
        c.start();
        auto got = std::make_shared<Received>();
        const auto tags = makeTags("L", 3);
        const auto sub = addRecorded(c, tags, got);
        std::vector<SubscribeOutcome> outcomes;
        auto record = [&outcomes](const SubscribeOutcome& o) { outcomes.push_back(o); };
        c.subscribe(sub, record);
        gw.sched.runFor(2s);
        c.subscribe(sub, record); // the same request again
        gw.sched.runFor(2s);
        QCOMPARE(gw.model.invokeRpcs(gateway::CommandKind::SubscribeBulk), std::int64_t(2));
        QCOMPARE(gw.model.invokeRpcs(gateway::CommandKind::AddItemBulk), std::int64_t(0));
        ConnectionConfig legacy = c.config();
        legacy.bulkSupervisory = false; // Lever 2 off: AddItemBulk + advises from now on
        c.setConfig(legacy);
        c.subscribe(sub, record);
        gw.sched.runFor(2s);
        QCOMPARE(gw.model.invokeRpcs(gateway::CommandKind::SubscribeBulk), std::int64_t(2));
        QCOMPARE(gw.model.invokeRpcs(gateway::CommandKind::AddItemBulk), std::int64_t(1));
        QCOMPARE(gw.model.invokeRpcs(gateway::CommandKind::AdviseSupervisory), std::int64_t(3));
        QCOMPARE(outcomes.size(), std::size_t(3));
        for (const auto& o : outcomes) {
            QVERIFY2(o.success, o.error.c_str());
            QCOMPARE(o.tags.size(), std::size_t(3));
        }
        // Every tag of the AddItemBulk was its own: the gateway still holds three items.
        QCOMPARE(gw.model.session(c.sessionId())->items.size(), std::size_t(3));
        for (int i = 0; i < 3; ++i)
            QCOMPARE(outcomes[2].tags[std::size_t(i)].itemHandle,
                     gatewayItem(gw, c, tags[std::size_t(i)])->first);
    }
};

QTEST_GUILESS_MAIN(TestConnectionRouting)
#include "tst_connection_routing.moc"
