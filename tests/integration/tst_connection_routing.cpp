// GatewayConnection's data routing and its reused subscribe request (issue 14, finding 4):
// each change reaches the tag that owns its item tick after tick, an item shared by two
// subscribers reaches both and, once one is removed, only the other; routes follow a
// reconnect; and the reused bulk request follows a lever switch between SubscribeBulk and
// AddItemBulk. Against the mock gateway model on the in-process port, in virtual time.
#include "support_virtual_gateway.h"

#include <QTest>

#include <map>

using namespace stormwatch;
using namespace stormwatch::testing;
using namespace std::chrono_literals;

namespace {

gateway::GatewayConfig config(bool advertise)
{
    gateway::GatewayConfig c;
    c.advertiseBulkSupervisory = advertise;
    c.commandMs = 2;
    c.perItemMs = 0.1;
    c.dataHz = 1;
    return c;
}

// What a subscriber received, per tag index: how many updates, the last item handle and value.
struct Received {
    std::map<int, int> count;
    std::map<int, std::int32_t> handle;
    std::map<int, double> value;
    std::map<int, std::string> text; // a string value's text, the latest
    std::map<int, std::int64_t> oldestStampUs; // the oldest source timestamp it was given
    int batches = 0;
    int updates() const
    {
        int n = 0;
        for (const auto& [index, c] : count)
            n += c;
        return n;
    }
};

GatewayConnection::SubscriberId addRecorded(GatewayConnection& c, std::vector<std::string> tags,
                                            std::shared_ptr<Received> into)
{
    return c.addSubscriber(
        std::move(tags),
        [into](const std::vector<TagUpdate>& updates) {
            ++into->batches;
            for (const TagUpdate& u : updates) {
                ++into->count[u.index];
                into->handle[u.index] = u.itemHandle;
                into->value[u.index] = u.value;
                auto [oldest, first] = into->oldestStampUs.try_emplace(u.index, u.sourceTimestampUs);
                if (!first)
                    oldest->second = std::min(oldest->second, u.sourceTimestampUs);
                if (u.text)
                    into->text[u.index] = *u.text;
            }
        },
        [](bool) {});
}

// The gateway's item for `tag` on the connection's session: its handle and current value.
std::optional<std::pair<std::int32_t, double>> gatewayItem(VirtualGateway& gw, const GatewayConnection& c,
                                                           const std::string& tag)
{
    const auto* s = gw.model.session(c.sessionId());
    if (!s)
        return std::nullopt;
    for (const auto& [handle, item] : s->items)
        if (item.tag == tag)
            return std::make_pair(handle, s->items.value(handle));
    return std::nullopt;
}

// The in-process port with every reply 50 ms late (values as they are): an item's first
// value comes before the reply that routes it.
class LateReplyPort : public GatewayPort {
public:
    LateReplyPort(GatewayPort& inner, Scheduler& scheduler) : m_inner(inner), m_scheduler(scheduler) {}
    void openSession(const mxgateway::v1::OpenSessionRequest& r, OpenDone d) override
    {
        m_inner.openSession(r, std::move(d));
    }
    void closeSession(const mxgateway::v1::CloseSessionRequest& r, CloseDone d) override
    {
        m_inner.closeSession(r, std::move(d));
    }
    void invoke(const mxgateway::v1::MxCommandRequest& r, InvokeDone d) override
    {
        m_inner.invoke(r, [this, d = std::move(d)](RpcStatus status, mxgateway::v1::MxCommandReply reply) {
            m_scheduler.callAfter(std::chrono::milliseconds(50), [d, status, reply] { d(status, reply); });
        });
    }
    StreamId streamEvents(const mxgateway::v1::StreamEventsRequest& r, EventFn onEvent, EndFn onEnd) override
    {
        return m_inner.streamEvents(r, std::move(onEvent), std::move(onEnd));
    }
    void cancelStream(StreamId id) override { m_inner.cancelStream(id); }
    std::string describe() const override { return "late replies over " + m_inner.describe(); }

protected:
    GatewayPort& m_inner;

private:
    Scheduler& m_scheduler;
};

// The late-reply port with every data change's value turned into the string
// "v<item handle>@<value>": string values reach a subscriber's tag with their own text.
class TextPort final : public LateReplyPort {
public:
    using LateReplyPort::LateReplyPort;
    StreamId streamEvents(const mxgateway::v1::StreamEventsRequest& r, EventFn onEvent, EndFn onEnd) override
    {
        return m_inner.streamEvents(
            r,
            [onEvent = std::move(onEvent)](const MxEventBatch& event) {
                MxEventBatch copy = event;
                for (auto& change : copy.changes) {
                    const std::string text = textFor(change.itemHandle, change.number);
                    change.kind = MxValueKind::String;
                    change.text = copy.texts.size();
                    copy.texts.push_back(text);
                }
                onEvent(copy); // the copy is gone once this returns, as a gRPC event is
            },
            std::move(onEnd));
    }
    std::string describe() const override { return "text over " + m_inner.describe(); }

    static std::string textFor(std::int32_t handle, double value)
    {
        return "v" + std::to_string(handle) + "@" + std::to_string(value);
    }
};

// The in-process port with every event 50 ms late (replies as they are): a new item's first
// value comes after the reply that routes it, and what was kept before is older.
class LateEventPort final : public GatewayPort {
public:
    LateEventPort(GatewayPort& inner, Scheduler& scheduler) : m_inner(inner), m_scheduler(scheduler) {}
    void openSession(const mxgateway::v1::OpenSessionRequest& r, OpenDone d) override
    {
        m_inner.openSession(r, std::move(d));
    }
    void closeSession(const mxgateway::v1::CloseSessionRequest& r, CloseDone d) override
    {
        m_inner.closeSession(r, std::move(d));
    }
    void invoke(const mxgateway::v1::MxCommandRequest& r, InvokeDone d) override { m_inner.invoke(r, std::move(d)); }
    StreamId streamEvents(const mxgateway::v1::StreamEventsRequest& r, EventFn onEvent, EndFn onEnd) override
    {
        auto deliver = std::make_shared<EventFn>(std::move(onEvent));
        return m_inner.streamEvents(
            r,
            [this, deliver](const MxEventBatch& event) {
                m_scheduler.callAfter(std::chrono::milliseconds(50), [deliver, copy = event] { (*deliver)(copy); });
            },
            std::move(onEnd));
    }
    void cancelStream(StreamId id) override { m_inner.cancelStream(id); }
    std::string describe() const override { return "late events over " + m_inner.describe(); }

private:
    GatewayPort& m_inner;
    Scheduler& m_scheduler;
};

// A gateway that reuses handles (mxgw-mock --reuse-handles) and sends only first values
// (a supervisory tag that never changes), a 1 s client command timeout, replies 50 ms late.
// Tag A is subscribed, then removed while the STA is slow: the RemoveItem times out on the
// client (the STA still runs it). Then tag B is subscribed; the gateway hands it A's freed
// handle, and B's only value arrives before the subscribe's reply.
// Port: LateReplyPort, or TextPort for string values.
template <class Port>
struct ReusedHandleRunOver {
    explicit ReusedHandleRunOver(bool reuse)
        : ReusedHandleRunOver([reuse] {
              gateway::GatewayConfig c = config(true);
              c.dataHz = 0; // first values only
              c.reuseHandles = reuse;
              return c;
          }())
    {
    }
    explicit ReusedHandleRunOver(const gateway::GatewayConfig& gateway)
        : gw(gateway)
        , port(gw.port, gw.sched)
        , c(gw.sched, port, connectionConfig(), nullptr, [] { return 0.5; })
    {
    }
    static ConnectionConfig connectionConfig()
    {
        ConnectionConfig cc;
        cc.commandTimeout = 1s;
        return cc;
    }
    // Returns A's handle; leaves B's subscribe answered.
    std::int32_t run()
    {
        c.start();
        return round("A", a, "B", b, bDone);
    }
    // `oldTag` is subscribed, then removed while the STA is slow (the remove times out on the
    // client at 1 s; the STA still runs it, for 2 s); then `newTag` is subscribed. Returns the
    // old tag's handle; `removeSentAt` is when its remove was sent.
    std::int32_t round(const std::string& oldTag, const std::shared_ptr<Received>& oldGot, const std::string& newTag,
                       const std::shared_ptr<Received>& newGot, bool& newDone)
    {
        const auto subOld = addRecorded(c, {oldTag}, oldGot);
        c.subscribe(subOld, [](const SubscribeOutcome&) {});
        gw.sched.runFor(1s);
        const std::int32_t oldHandle = oldGot->handle[0];
        gateway::GatewayConfig slow = gw.model.config();
        const double commandMs = slow.commandMs;
        slow.commandMs = 2000; // the RemoveItem holds the STA for 2 s
        gw.model.setConfig(slow);
        removeSentAt = gw.sched.now();
        c.removeItems(subOld);
        c.removeSubscriber(subOld);
        gw.sched.runFor(1500ms); // the client gave up on it at 1 s: DEADLINE_EXCEEDED
        timedOut = c.stats().deadlineExceeded;
        retiredAfterTimeout = c.retiringHandles();
        slow.commandMs = commandMs;
        gw.model.setConfig(slow);
        const auto subNew = addRecorded(c, {newTag}, newGot);
        c.subscribe(subNew, [&newDone](const SubscribeOutcome& o) { newDone = o.success; });
        gw.sched.runFor(2s);
        return oldHandle;
    }
    std::int64_t stampUs(Time t) const { return gw.model.config().timestampEpochUs + t.count(); }
    VirtualGateway gw;
    Port port;
    GatewayConnection c;
    std::shared_ptr<Received> a = std::make_shared<Received>();
    std::shared_ptr<Received> b = std::make_shared<Received>();
    std::int64_t timedOut = 0;
    std::size_t retiredAfterTimeout = 0;
    bool bDone = false;
    Time removeSentAt{};
};
using ReusedHandleRun = ReusedHandleRunOver<LateReplyPort>;

} // namespace

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
        QVERIFY2(gotD->oldestStampUs[0] >= r.stampUs(r.removeSentAt + 2s),
                 qPrintable(QStringLiteral("D was given a value stamped %1 us before C's remove ended")
                                .arg(r.stampUs(r.removeSentAt + 2s) - gotD->oldestStampUs[0])));
        QCOMPARE(r.c.stats().readvises, std::int64_t(2));
        QCOMPARE(r.c.retiringHandles(), std::size_t(0));
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
            QCOMPARE(outcomes[2].tags[std::size_t(i)].itemHandle, gatewayItem(gw, c, tags[std::size_t(i)])->first);
    }
};

QTEST_GUILESS_MAIN(TestConnectionRouting)
#include "tst_connection_routing.moc"
