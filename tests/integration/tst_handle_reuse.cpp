// Handle reuse in virtual time (review findings on aea3cf1 and e9a3377): a gateway that hands a
// removed item's handle out again (mxgw-mock --reuse-handles). The connection learns it from
// the first reply that does, keeps values of items being removed only from then on, and
// advises an item again when its reused handle's first value is unknown or what was kept may
// be another item's. The same at the real boundary: integration.handle_reuse_live.
#include "support_routing.h"

#include <QTest>

using namespace stormwatch;
using namespace stormwatch::testing;
using namespace stormwatch::testing::routing;
using namespace std::chrono_literals;

namespace {

// Tag "X" subscribed on a gateway sending first values only, then the STA slowed to 500 ms a
// command, so what the test sends next queues in order.
struct SubscribedThenSlow {
    explicit SubscribedThenSlow(const ConnectionConfig& cc)
        : gw([] {
              gateway::GatewayConfig g = config(true);
              g.dataHz = 0;
              return g;
          }()),
          c(gw.sched, gw.port, cc, nullptr, [] { return 0.5; })
    {
        c.start();
        sub = addRecorded(c, {"X"}, got);
        c.subscribe(sub, [](const SubscribeOutcome&) {});
        gw.sched.runFor(1s);
        handle = got->handle[0];
        gateway::GatewayConfig slow = gw.model.config();
        slow.commandMs = 500;
        gw.model.setConfig(slow);
    }
    VirtualGateway gw;
    GatewayConnection c;
    std::shared_ptr<Received> got = std::make_shared<Received>();
    GatewayConnection::SubscriberId sub = 0;
    std::int32_t handle = 0;
};

} // namespace

class TestHandleReuse : public QObject {
    Q_OBJECT
private slots:
    // Review finding on aea3cf1: a handle retired by a timed-out RemoveItem, handed out again
    // by the gateway to a later subscribe, whose first value comes before that subscribe's
    // reply. It is the first reuse seen: the value was dropped (values of items being removed
    // are kept only on a gateway known to reuse handles), so the item is advised again and
    // its first value comes anew (a tag that never changes would otherwise stay without a
    // value, not-Good, for ever).
    void aReusedHandlesFirstValueIsNotLostAfterATimedOutRemove()
    {
        ReusedHandleRun r(true);
        QVERIFY(!r.c.reusesHandles());
        const std::int32_t handleA = r.run();
        QCOMPARE(r.timedOut, std::int64_t(1));
        QCOMPARE(r.retiredAfterTimeout, std::size_t(1));
        QVERIFY(r.bDone);
        QVERIFY(r.c.reusesHandles());
        QCOMPARE(r.c.stats().readvises, std::int64_t(1));
        QCOMPARE(r.gw.model.invokeRpcs(gateway::CommandKind::UnAdvise), std::int64_t(1));
        const auto item = gatewayItem(r.gw, r.c, "B");
        QVERIFY(item);
        QCOMPARE(item->first, handleA); // the gateway did hand A's handle to B
        QVERIFY(!gatewayItem(r.gw, r.c, "A"));
        QCOMPARE(r.b->count[0], 1); // its one value reached it
        QCOMPARE(r.b->handle[0], handleA);
        QCOMPARE(r.b->value[0], item->second);
        QCOMPARE(r.c.retiringHandles(), std::size_t(0));
        QCOMPARE(r.c.unroutedValues(), std::size_t(0));
    }

    // The same with a string value: a timed-out remove's handle keeps its text apart from
    // the value, and the reused handle's tag gets its own item's text.
    void aReusedHandlesFirstTextIsNotLostAfterATimedOutRemove()
    {
        ReusedHandleRunOver<TextPort> r(true);
        const std::int32_t handleA = r.run();
        QCOMPARE(r.timedOut, std::int64_t(1));
        QVERIFY(r.bDone);
        const auto item = gatewayItem(r.gw, r.c, "B");
        QVERIFY(item);
        QCOMPARE(item->first, handleA);
        QCOMPARE(r.b->count[0], 1);
        QCOMPARE(r.b->text[0], TextPort::textFor(handleA, item->second));
        QCOMPARE(r.c.retiringHandles(), std::size_t(0));
        QCOMPARE(r.c.unroutedValues(), std::size_t(0));
    }

    // The retired set is bounded by the gateway's answers: its STA is one FIFO, so the answer
    // to any command sent after a timed-out RemoveItem proves that the remove has run. Before,
    // such a handle stayed retired for the whole session.
    void aTimedOutRemoveLeavesTheRetiredSetOnceALaterCommandIsAnswered()
    {
        ReusedHandleRun r(false);
        const std::int32_t handleA = r.run();
        QCOMPARE(r.timedOut, std::int64_t(1));
        QCOMPARE(r.retiredAfterTimeout, std::size_t(1));
        QVERIFY(r.bDone);
        QVERIFY(gatewayItem(r.gw, r.c, "B")->first != handleA); // a new handle: nothing to keep
        QCOMPARE(r.b->count[0], 1);
        QCOMPARE(r.c.retiringHandles(), std::size_t(0));
        QVERIFY(!r.c.reusesHandles());
        QCOMPARE(r.c.stats().readvises, std::int64_t(0));
    }

    // Once the gateway is known to reuse handles, a removed item's values are kept while a
    // subscribe sent after the remove runs: the same tag subscribed again and handed its old
    // handle gets its first value (which came before the reply) without being advised again.
    void onceReuseIsKnownTheSameTagGetsItsKeptValueWithoutAdvisingAgain()
    {
        ReusedHandleRun r(true);
        r.run(); // A's handle to B: learned
        QCOMPARE(r.c.stats().readvises, std::int64_t(1));
        auto oldC = std::make_shared<Received>();
        auto newC = std::make_shared<Received>();
        bool done = false;
        const std::int32_t handleC = r.round("C", oldC, "C", newC, done);
        QVERIFY(done);
        QCOMPARE(r.timedOut, std::int64_t(2));
        const auto item = gatewayItem(r.gw, r.c, "C");
        QVERIFY(item);
        QCOMPARE(item->first, handleC); // the same handle again
        QCOMPARE(newC->count[0], 1);    // its one value (dataHz 0), kept across the reply
        QCOMPARE(newC->value[0], item->second);
        QCOMPARE(r.c.stats().readvises, std::int64_t(1)); // not advised again
        QCOMPARE(r.c.retiringHandles(), std::size_t(0));
        QCOMPARE(r.c.unroutedValues(), std::size_t(0));
    }

    // Review finding on e9a3377: a handle handed to another tag than the removed one. What was
    // kept for it may be the removed item's last value (Good, old timestamp): here it is, as the
    // new item's first value comes after the reply. It is not shown; the item is advised again
    // and the new tag's values are all its own item's (stamped after the remove ran).
    void aHandleGivenToAnotherTagNeverShowsTheRemovedItemsValue()
    {
        ReusedHandleRunOver<LateEventPort> r([] {
            gateway::GatewayConfig c = config(true);
            c.dataHz = 10;
            c.reuseHandles = true;
            return c;
        }());
        r.run(); // learned
        QVERIFY(r.c.reusesHandles());
        QCOMPARE(r.c.stats().readvises, std::int64_t(1));
        r.gw.sched.runFor(50ms); // the remove's end falls between two ticks
        auto gotC = std::make_shared<Received>();
        auto gotD = std::make_shared<Received>();
        bool done = false;
        const std::int32_t handleC = r.round("C", gotC, "D", gotD, done);
        QVERIFY(done);
        const auto item = gatewayItem(r.gw, r.c, "D");
        QVERIFY(item);
        QCOMPARE(item->first, handleC);
        QVERIFY(gotC->count[0] > 0); // C streamed
        QVERIFY(gotD->count[0] > 0);
        // The STA ran C's remove for 2 s from removeSentAt: D's item is younger than that.
        QVERIFY2(
            gotD->oldestStampUs[0] >= r.stampUs(r.removeSentAt + 2s),
            qPrintable(QStringLiteral("D was given a value stamped %1 us before C's remove ended")
                           .arg(r.stampUs(r.removeSentAt + 2s) - gotD->oldestStampUs[0])));
        QCOMPARE(r.c.stats().readvises, std::int64_t(2));
        QCOMPARE(r.c.retiringHandles(), std::size_t(0));
    }

    // Review finding on bac130a: a redeploy before reuse is known. Every tag of the instance is
    // handed its old handle back, and every first value came before the reply while the
    // handles were retired (removes timed out): each item is advised again, not only the one
    // that taught the connection that the gateway reuses handles.
    void aRedeployBeforeReuseIsKnownAdvisesEveryReusedItemAgain()
    {
        ReusedHandleRun r(true); // first values only, replies 50 ms late
        r.c.start();
        const auto tags = makeTags("T", 3);
        auto before = std::make_shared<Received>();
        const auto subOld = addRecorded(r.c, tags, before);
        r.c.subscribe(subOld, [](const SubscribeOutcome&) {});
        r.gw.sched.runFor(1s);
        gateway::GatewayConfig slow = r.gw.model.config();
        const double commandMs = slow.commandMs;
        slow.commandMs = 2000; // the first RemoveItem holds the STA for 2 s
        r.gw.model.setConfig(slow);
        r.c.removeItems(subOld);
        r.c.removeSubscriber(subOld);
        r.gw.sched.runFor(1500ms); // the client gave up on all three at 1 s
        QCOMPARE(r.c.stats().deadlineExceeded, std::int64_t(3));
        slow.commandMs = commandMs;
        r.gw.model.setConfig(slow);
        auto after = std::make_shared<Received>();
        const auto subNew = addRecorded(r.c, tags, after); // the same tags again
        bool done = false;
        r.c.subscribe(subNew, [&done](const SubscribeOutcome& o) { done = o.success; });
        r.gw.sched.runFor(3s);
        QVERIFY(done);
        QVERIFY(r.c.reusesHandles());
        for (int i = 0; i < 3; ++i) {
            const auto item = gatewayItem(r.gw, r.c, tags[std::size_t(i)]);
            QVERIFY(item);
            QCOMPARE(item->first, before->handle[i]); // its own handle back
            QCOMPARE(after->count[i], 1);             // and its value (dataHz 0: first values only)
            QCOMPARE(after->value[i], item->second);
        }
        QCOMPARE(r.c.stats().readvises, std::int64_t(3));
    }

    // Learning reuse after a redeploy of 40 items re-advises all 40 (80 commands on the STA):
    // they go at most adviseParallelism at a time, like a fan-out's advises, and every item
    // gets its value.
    void reAdvisesArePacedAtTheAdviseParallelism()
    {
        ReusedHandleRunOver<ReadviseCountingPort> r(true);
        r.c.start();
        const auto tags = makeTags("T", 40);
        auto before = std::make_shared<Received>();
        const auto subOld = addRecorded(r.c, tags, before);
        r.c.subscribe(subOld, [](const SubscribeOutcome&) {});
        r.gw.sched.runFor(1s);
        gateway::GatewayConfig slow = r.gw.model.config();
        const double commandMs = slow.commandMs;
        slow.commandMs = 2000; // the first RemoveItem holds the STA for 2 s: every remove times out
        r.gw.model.setConfig(slow);
        r.c.removeItems(subOld);
        r.c.removeSubscriber(subOld);
        r.gw.sched.runFor(1500ms);
        slow.commandMs = commandMs;
        r.gw.model.setConfig(slow);
        auto after = std::make_shared<Received>();
        const auto subNew = addRecorded(r.c, tags, after);
        bool done = false;
        r.c.subscribe(subNew, [&done](const SubscribeOutcome& o) { done = o.success; });
        r.gw.sched.runFor(10s);
        QVERIFY(done);
        QVERIFY(r.c.reusesHandles());
        QCOMPARE(r.c.stats().readvises, std::int64_t(40));
        const int parallel = r.c.config().adviseParallelism;
        QVERIFY2(r.port.maxInFlight <= parallel,
                 qPrintable(QString("%1 in flight").arg(r.port.maxInFlight)));
        QCOMPARE(r.port.maxInFlight, parallel); // and not slower than that
        QCOMPARE(r.c.stats().maxReadvisesInFlight, parallel);
        for (int i = 0; i < 40; ++i)
            QCOMPARE(after->count[i], 1);
    }

    // Review finding on bac130a: the advise goes only once its UnAdvise is answered (two
    // calls can reach the STA in either order; an UnAdvise run after the advise would leave
    // the item silent for good).
    void anItemIsAdvisedAgainOnlyOnceItsUnAdviseIsAnswered()
    {
        ReusedHandleRunOver<OrderPort> r(true);
        r.run();
        QCOMPARE(r.c.stats().readvises, std::int64_t(1));
        const auto unadvise = r.port.first("un_advise");
        const auto advise = r.port.first("advise_supervisory");
        QVERIFY(unadvise && advise);
        QVERIFY(unadvise->answeredAt);
        QVERIFY2(advise->sentAt >= *unadvise->answeredAt,
                 "the advise went before its UnAdvise was answered");
        QCOMPARE(r.b->count[0], 1);
    }

    // The re-advise of a reused handle refused outright: the tag is routed to an item that
    // sends nothing, and without a word it would stay without a value for ever. Its route goes
    // and its subscriber is told (its guard subscribes it again); subscribing again brings
    // the value.
    void aRefusedReadviseLosesTheItemSoItIsSubscribedAgain()
    {
        ReusedHandleRunOver<RefusingAdvisePort> r(true);
        r.run();
        QCOMPARE(r.c.stats().readvises, std::int64_t(1));
        QCOMPARE(r.port.refused, 1);
        QCOMPARE(r.b->lost, std::vector<int>{0});
        QVERIFY(!r.c.routed(r.lastNew, 0));
        QCOMPARE(r.b->count[0], 0); // its first value was dropped before reuse was known

        bool again = false;
        r.c.subscribe(r.lastNew, [&](const SubscribeOutcome& o) { again = o.success; });
        r.gw.sched.runFor(2s);
        QVERIFY(again);
        QVERIFY(r.c.routed(r.lastNew, 0));
        QCOMPARE(r.b->count[0], 1);
        QCOMPARE(r.b->value[0], gatewayItem(r.gw, r.c, "B")->second);
    }

    // A subscribe sent before a remove is answered with the item's own handle (the gateway
    // adds a tag once per server handle), and the remove deletes that item next. No caller
    // may join it after the remove was sent: a new subscriber of the same tags gets an op of
    // its own, run after the remove, and a live item. Nor is the old handle taken for a reuse
    // (that would bring back keeping every removed item's values) and nothing is advised again.
    void aSubscriberDoesNotJoinASubscribeSentBeforeARemoveOfItsTags()
    {
        ConnectionConfig cc;
        cc.coalesce = true;
        SubscribedThenSlow r(cc);
        auto& [gw, c, first, subOld, handle] = r;
        c.subscribe(subOld, [](const SubscribeOutcome&) {}); // runs first on the STA
        c.removeItems(subOld);                               // then this remove
        c.removeSubscriber(subOld);
        auto second = std::make_shared<Received>();
        const auto subNew = addRecorded(c, {"X"}, second);
        bool done = false;
        c.subscribe(subNew, [&done](const SubscribeOutcome& o) { done = o.success; });
        gw.sched.runFor(3s);
        QVERIFY(done);
        QCOMPARE(c.stats().coalescedSubscribes, std::int64_t(0));
        const auto item = gatewayItem(gw, c, "X");
        QVERIFY(item);
        QVERIFY(item->first != handle); // a new item: the old one was removed
        QVERIFY(c.routed(subNew, 0));
        QCOMPARE(second->handle[0], item->first);
        QVERIFY(!c.reusesHandles());
        QCOMPARE(c.stats().readvises, std::int64_t(0));
    }

    // The subscriber's own subscribe sent before the remove of its item (a guard's request in
    // flight when an instance is redeployed) is answered with the item being removed. Confirmed,
    // the tag would be routed to a deleted item and never get a value: it fails, not for good,
    // and subscribing again (what its guard does) gets a live item.
    void aSubscribeAnsweredWithAnItemBeingRemovedFailsTransiently()
    {
        SubscribedThenSlow r{ConnectionConfig{}};
        auto& [gw, c, got, sub, handle] = r;
        std::optional<SubscribeOutcome> outcome;
        c.subscribe(sub, [&](const SubscribeOutcome& o) { outcome = o; }); // runs first on the STA
        c.removeItems(sub);                                                // then removes its item
        gw.sched.runFor(3s);
        QVERIFY(outcome);
        QVERIFY(!outcome->success);
        QCOMPARE(outcome->tags.size(), std::size_t(1));
        QVERIFY(!outcome->tags[0].ok);
        QVERIFY(!outcome->tags[0].definitive); // a guard retries it
        QVERIFY2(outcome->tags[0].error.find("item " + std::to_string(handle) +
                                             " is being removed") != std::string::npos,
                 outcome->tags[0].error.c_str());
        QVERIFY(!gatewayItem(gw, c, "X")); // the remove ran
        QVERIFY(!c.routed(sub, 0));        // so nothing is routed to it

        bool again = false;
        c.subscribe(sub, [&](const SubscribeOutcome& o) { again = o.success; });
        gw.sched.runFor(3s);
        QVERIFY(again);
        const auto item = gatewayItem(gw, c, "X");
        QVERIFY(item);
        QVERIFY(c.routed(sub, 0));
        QCOMPARE(got->handle[0], item->first);
    }
};

QTEST_GUILESS_MAIN(TestHandleReuse)
#include "tst_handle_reuse.moc"
