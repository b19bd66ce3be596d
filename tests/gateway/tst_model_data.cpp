// GatewayModel data source: rate, batching per session per tick, initial values, stream
// cancellation, and the cost of a long virtual replay.
#include "gateway/grpc_services.h"
#include "support_model.h"

#include <QElapsedTimer>
#include <QTest>
#include <cmath>
#include <map>

using namespace testsupport;
using namespace mxgateway::v1;

class TestModelData : public QObject {
    Q_OBJECT
private slots:
    void advisedItemsChangeAtDataHzInOneBatchPerTick();
    void firstValueArrivesPromptlyAfterAdvise();
    void zeroRateGivesOneInitialValuePerAdvise();
    void sessionsGetSeparateBatches();
    void streamOpenedAfterAdviseGetsFirstValues();
    void firstValuesSkipItemsRemovedOrUnadvisedMeanwhile();
    void oneFirstValueBetweenTicksLeavesTheTickBatchWhole();
    void cancelledStreamGetsNothingMore();
    void unknownSessionStreamEndsNotFound();
    void sharedStreamBatchIsNotChangedWhileHeld();
    void replayOf30MinutesIsCheap();
    void tickBatchStaysWholeAcrossManyRemovals();
};

namespace {
struct Fixture {
    VirtualScheduler sched;
    GatewayModel model;
    explicit Fixture(double hz)
        : model(sched, [hz] {
              GatewayConfig c;
              c.dataHz = hz;
              return c;
          }())
    {
    }
    std::string subscribed(int tags, std::shared_ptr<StreamLog>& log)
    {
        const auto id = open(model, sched).id();
        const int sh = registerClient(model, sched, id);
        log = listen(model, id);
        auto a = send(model, id, subscribeBulk(sh, tagNames(tags), true));
        runUntilAnswered(sched, a);
        return id;
    }
};
} // namespace

void TestModelData::advisedItemsChangeAtDataHzInOneBatchPerTick()
{
    Fixture f(2);
    std::shared_ptr<StreamLog> log;
    f.subscribed(3, log);
    f.sched.runFor(1ms); // the initial batch
    log->clear();
    f.sched.runFor(10s);
    QCOMPARE(log->events.size(), std::size_t(20));
    for (const auto& e : log->events) {
        QCOMPARE(e.data_changes().changes_size(), 3);
        for (const auto& c : e.data_changes().changes())
            QCOMPARE(c.quality(), kQualityGood);
    }
    for (std::size_t i = 1; i < log->times.size(); ++i)
        QCOMPARE(log->times[i] - log->times[i - 1], Duration(500ms));
    // Every change is a new value.
    QVERIFY(log->events[0].data_changes().changes(0).value().double_value() !=
            log->events[1].data_changes().changes(0).value().double_value());
    QCOMPARE(f.model.dataChangesSent(), std::int64_t(3 + 60));
}

void TestModelData::firstValueArrivesPromptlyAfterAdvise()
{
    Fixture f(0.1); // ticks every 10 s
    std::shared_ptr<StreamLog> log;
    f.sched.runFor(1s); // past the tick at 0
    f.subscribed(5, log);
    const Time advisedAt = f.sched.now();
    f.sched.runFor(1ms);
    QCOMPARE(log->events.size(), std::size_t(1));
    QCOMPARE(log->times[0], advisedAt);
    QCOMPARE(log->events[0].data_changes().changes_size(), 5);
}

void TestModelData::zeroRateGivesOneInitialValuePerAdvise()
{
    Fixture f(0);
    std::shared_ptr<StreamLog> log;
    const auto id = f.subscribed(4, log);
    f.sched.runFor(60s);
    QCOMPARE(log->changes(), std::size_t(4));
    // Advising one again emits its value once more.
    auto a = send(f.model, id, adviseSupervisory(1, 1));
    QVERIFY(runUntilAnswered(f.sched, a));
    f.sched.runFor(60s);
    QCOMPARE(log->changes(), std::size_t(5));
}

void TestModelData::sessionsGetSeparateBatches()
{
    Fixture f(1);
    std::shared_ptr<StreamLog> a, b;
    f.subscribed(2, a);
    f.subscribed(7, b);
    f.sched.runFor(1ms);
    a->clear();
    b->clear();
    f.sched.runFor(5s);
    QCOMPARE(a->events.size(), std::size_t(5));
    QCOMPARE(b->events.size(), std::size_t(5));
    QCOMPARE(a->events[0].data_changes().changes_size(), 2);
    QCOMPARE(b->events[0].data_changes().changes_size(), 7);
}

void TestModelData::streamOpenedAfterAdviseGetsFirstValues()
{
    Fixture f(0);
    const auto id = open(f.model, f.sched).id();
    const int sh = registerClient(f.model, f.sched, id);
    auto a = send(f.model, id, subscribeBulk(sh, tagNames(6), true));
    QVERIFY(runUntilAnswered(f.sched, a));
    f.sched.runFor(10s);
    auto log = listen(f.model, id);
    f.sched.runFor(1ms);
    QCOMPARE(log->events.size(), std::size_t(1));
    QCOMPARE(log->changes(), std::size_t(6));
    f.sched.runFor(60s);
    QCOMPARE(log->changes(), std::size_t(6)); // once only
}

void TestModelData::firstValuesSkipItemsRemovedOrUnadvisedMeanwhile()
{
    Fixture f(0);
    const auto id = open(f.model, f.sched).id();
    const int sh = registerClient(f.model, f.sched, id);
    auto a = send(f.model, id, subscribeBulk(sh, tagNames(4), true)); // handles 1..4, owed
    QVERIFY(runUntilAnswered(f.sched, a));
    MxCommand remove;
    remove.mutable_remove_item()->set_server_handle(sh);
    remove.mutable_remove_item()->set_item_handle(2);
    MxCommand unadvise;
    unadvise.mutable_un_advise()->set_server_handle(sh);
    unadvise.mutable_un_advise()->set_item_handle(3);
    auto r = send(f.model, id, remove);
    QVERIFY(runUntilAnswered(f.sched, r));
    auto u = send(f.model, id, unadvise);
    QVERIFY(runUntilAnswered(f.sched, u));
    // Advised again after the un-advise: owed once, not twice.
    auto again = send(f.model, id, adviseSupervisory(sh, 3));
    QVERIFY(runUntilAnswered(f.sched, again));
    auto log = listen(f.model, id);
    f.sched.runFor(1ms);
    QCOMPARE(log->events.size(), std::size_t(1));
    const auto& changes = log->events[0].data_changes().changes();
    QCOMPARE(changes.size(), 3);
    QCOMPARE(changes[0].item_handle(), 1); // in handle order
    QCOMPARE(changes[1].item_handle(), 3);
    QCOMPARE(changes[2].item_handle(), 4);
    f.sched.runFor(60s);
    QCOMPARE(log->changes(), std::size_t(3));
}

void TestModelData::oneFirstValueBetweenTicksLeavesTheTickBatchWhole()
{
    Fixture f(1);
    std::shared_ptr<StreamLog> log;
    const auto id = f.subscribed(5, log);
    f.sched.runFor(1500ms); // initial values and the tick at 1 s
    log->clear();
    auto a = send(f.model, id, addItem(1, "Extra.Attr"));
    QVERIFY(runUntilAnswered(f.sched, a));
    auto adv = send(f.model, id, adviseSupervisory(1, 6));
    QVERIFY(runUntilAnswered(f.sched, adv));
    f.sched.runFor(1ms);
    QCOMPARE(log->events.size(), std::size_t(1));
    QCOMPARE(log->events[0].data_changes().changes_size(), 1); // only the new item's first value
    QCOMPARE(log->events[0].data_changes().changes(0).item_handle(), 6);
    f.sched.runUntil(Time(2s));
    QCOMPARE(log->events.size(), std::size_t(2));
    QCOMPARE(log->events[1].data_changes().changes_size(), 6); // the tick: every advised item
}

void TestModelData::cancelledStreamGetsNothingMore()
{
    Fixture f(1);
    std::shared_ptr<StreamLog> log;
    f.subscribed(2, log);
    f.sched.runFor(2s);
    f.model.cancelStream(log->id);
    const auto seen = log->events.size();
    f.sched.runFor(5s);
    QCOMPARE(log->events.size(), seen);
    QCOMPARE(log->ends, 0);
    QCOMPARE(f.model.streamCount(), std::size_t(0));
}

void TestModelData::unknownSessionStreamEndsNotFound()
{
    Fixture f(1);
    auto log = listen(f.model, "nope");
    QCOMPARE(log->ends, 0); // never from inside the call
    f.sched.runFor(1ms);
    QCOMPARE(log->ends, 1);
    QCOMPARE(log->endStatus.code, grpc::StatusCode::NOT_FOUND);
}

// The in-process port keeps each shared batch until its network latency has passed: the
// model must build the next tick's batch elsewhere, and reuse a batch once it is let go.
void TestModelData::sharedStreamBatchIsNotChangedWhileHeld()
{
    Fixture f(1);
    std::shared_ptr<StreamLog> log;
    const std::string id = f.subscribed(3, log);
    f.model.cancelStream(log->id);
    f.sched.runFor(1ms); // the initial values
    std::vector<std::shared_ptr<const MxEventBatch>> held;
    StreamEventsRequest req;
    req.set_session_id(id);
    f.model.streamEventsShared(
        req, [&](const std::shared_ptr<const MxEventBatch>& e) { held.push_back(e); },
        [](CallStatus) {});
    auto wire = [](const MxEventBatch& e) { // every field, as the gRPC service sends it
        MxEvent w;
        encodeEvent(e, w);
        return w.SerializeAsString();
    };
    // One tick at a time (ticks come every second, at the model's own phase).
    auto nextTick = [&] {
        const std::size_t before = held.size();
        for (int i = 0; i < 2000 && held.size() == before; ++i)
            f.sched.runFor(1ms);
        return held.size() == before + 1;
    };
    QVERIFY(nextTick());
    const std::string first = wire(*held[0]);
    QVERIFY(nextTick());
    QVERIFY(held[1] != held[0]);     // a held batch is not rebuilt ...
    QCOMPARE(wire(*held[0]), first); // ... nor changed
    QVERIFY(wire(*held[1]) != first);
    QCOMPARE(held[1]->changes.size(), std::size_t(3));
    const MxEventBatch* second = held[1].get();
    held.clear(); // let go: the next tick reuses that batch rather than allocating
    QVERIFY(nextTick());
    QCOMPARE(held[0].get(), second);
}

void TestModelData::replayOf30MinutesIsCheap()
{
    Fixture f(1);
    std::shared_ptr<StreamLog> a, b;
    f.subscribed(244, a);
    f.subscribed(244, b);
    f.sched.runFor(1ms); // initial values out of the way
    // Count rather than copy, like a client that reads each batch once.
    std::size_t changes = 0;
    StreamEventsRequest req;
    for (const auto& log : {a, b}) {
        f.model.cancelStream(log->id);
    }
    for (const auto& id : {std::string("session-1"), std::string("session-2")}) {
        req.set_session_id(id);
        f.model.streamEvents(
            req, [&](const MxEventBatch& e) { changes += e.changes.size(); }, [](CallStatus) {});
    }
    QElapsedTimer wall;
    wall.start();
    f.sched.runFor(30min);
    const auto elapsedMs = wall.elapsed();
    QCOMPARE(changes, std::size_t(2 * 244 * 1800));
    qInfo("30 min virtual replay, 2 x 244 tags at 1 Hz: %lld ms wall",
          static_cast<long long>(elapsedMs));
#ifdef NDEBUG
    QVERIFY2(elapsedMs < 300, "the per-tick path must stay cheap");
#else
    QVERIFY2(elapsedMs < 3000, "the per-tick path must stay cheap");
#endif
}

// The tick's batch lives on an arena that changes dropped from it do not give back: once they
// outnumber the live ones it is made anew. Through all that, every tick carries exactly the
// items still advised, in handle order, and each item's value goes on from where it was (a
// bounded random walk: at most 0.5 from one tick to the next), not from a fresh start.
void TestModelData::tickBatchStaysWholeAcrossManyRemovals()
{
    VirtualScheduler sched;
    GatewayConfig config;
    config.commandMs = 1;
    config.perItemMs = 0.01;
    config.dataHz = 1;
    GatewayModel model(sched, config);
    const auto id = open(model, sched).id();
    const int sh = registerClient(model, sched, id);
    auto log = listen(model, id);
    auto a = send(model, id, subscribeBulk(sh, tagNames(3000), true)); // handles 1..3000
    QVERIFY(runUntilAnswered(sched, a));
    sched.runFor(2s);
    QVERIFY(!log->events.empty());
    std::map<std::int32_t, double> last;
    for (const auto& c : log->events.back().data_changes().changes())
        last[c.item_handle()] = c.value().double_value();
    QCOMPARE(last.size(), std::size_t(3000));
    // 2,500 removed over about 25 ticks (100 per second), then a tick with what is left.
    std::vector<AnswerPtr> removes;
    for (std::int32_t h = 1; h <= 2500; ++h) {
        MxCommand remove;
        remove.mutable_remove_item()->set_server_handle(sh);
        remove.mutable_remove_item()->set_item_handle(h);
        removes.push_back(send(model, id, remove));
        if (h % 100 == 0)
            sched.runFor(1s);
    }
    QVERIFY(runUntilAnswered(sched, removes.back()));
    for (const auto& r : removes)
        QVERIFY(r->status.ok() && r->reply.success());
    log->clear();
    sched.runFor(3s);
    QCOMPARE(log->events.size(), std::size_t(3));
    for (const auto& e : log->events) {
        const auto& changes = e.data_changes().changes();
        QCOMPARE(changes.size(), 500);
        for (int i = 0; i < changes.size(); ++i) {
            const std::int32_t handle = 2501 + i;
            QCOMPARE(changes[i].item_handle(), handle);
            QCOMPARE(changes[i].server_handle(), sh);
            QCOMPARE(changes[i].quality(), kQualityGood);
            const double value = changes[i].value().double_value();
            // Not more than 0.5 a tick since it was last seen (at most 30 ticks ago).
            QVERIFY2(std::abs(value - last[handle]) <= 0.5 * 30, "values walk on across ticks");
            last[handle] = value;
        }
    }
    // Consecutive ticks of the last three: one step each.
    const auto& one = log->events[1].data_changes().changes();
    const auto& two = log->events[2].data_changes().changes();
    for (int i = 0; i < one.size(); ++i)
        QVERIFY(std::abs(two[i].value().double_value() - one[i].value().double_value()) <= 0.5);
}

QTEST_GUILESS_MAIN(TestModelData)
#include "tst_model_data.moc"
