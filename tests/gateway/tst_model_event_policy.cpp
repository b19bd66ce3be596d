// The published gateway's event policy in the model, on the VirtualScheduler: events numbered
// per session, a stream resumed after a sequence gets the held events that follow it (and a
// gap where they were evicted), one subscriber per session, lost events leave a gap, and a
// subscriber past the event queue faults its session (FailFast) or loses only its stream
// (DisconnectSubscriber).
#include "support_model.h"

#include <QTest>

using namespace testsupport;
using namespace mxgateway::v1;

namespace {

// What a stream received: each batch's numbers and size, and its end.
struct Received {
    struct Batch {
        std::uint64_t first = 0, last = 0;
        std::size_t changes = 0;
    };
    std::vector<Batch> batches;
    int ends = 0;
    CallStatus end;
    GatewayModel::StreamId id = 0;
    std::uint64_t lastSequence() const { return batches.empty() ? 0 : batches.back().last; }
    std::size_t changes() const
    {
        std::size_t n = 0;
        for (const Batch& b : batches)
            n += b.changes;
        return n;
    }
    // Every number from the first to the last, once, in order.
    bool contiguous() const
    {
        for (std::size_t i = 0; i < batches.size(); ++i) {
            if (batches[i].last - batches[i].first + 1 != batches[i].changes)
                return false;
            if (i > 0 && batches[i].first != batches[i - 1].last + 1)
                return false;
        }
        return true;
    }
};

std::shared_ptr<Received> stream(GatewayModel& model, const std::string& sessionId,
                                 EventStreamOptions options = {})
{
    auto r = std::make_shared<Received>();
    StreamEventsRequest request;
    request.set_session_id(sessionId);
    r->id = model.streamEvents(
        request,
        [r](const MxEventBatch& e) {
            r->batches.push_back({e.firstSequence, e.sequence, e.changes.size()});
        },
        [r](CallStatus st) {
            ++r->ends;
            r->end = st;
        },
        std::move(options));
    return r;
}

GatewayConfig published(double hz)
{
    GatewayConfig c;
    c.dataHz = hz;
    applyPublishedEventPolicy(c);
    return c;
}

struct Fixture {
    VirtualScheduler sched;
    GatewayModel model;
    std::string session;
    explicit Fixture(GatewayConfig config) : model(sched, config) {}
    // A session with `tags` advised items and a stream on it.
    std::shared_ptr<Received> subscribed(int tags, EventStreamOptions options = {})
    {
        session = open(model, sched).id();
        const int sh = registerClient(model, sched, session);
        auto r = stream(model, session, std::move(options));
        auto a = send(model, session, addItemBulk(sh, tagNames(tags)));
        runUntilAnswered(sched, a);
        for (int handle = 1; handle <= tags; ++handle)
            runUntilAnswered(sched, send(model, session, adviseSupervisory(sh, handle)));
        return r;
    }
};

} // namespace

class TestModelEventPolicy : public QObject {
    Q_OBJECT
private slots:
    void eventsAreNumberedPerSessionWithoutAGap()
    {
        Fixture f(published(2));
        auto r = f.subscribed(5);
        f.sched.runFor(3s);
        QVERIFY(r->changes() >= 25);
        QCOMPARE(r->batches.front().first, std::uint64_t(1));
        QVERIFY(r->contiguous());
    }

    void aResumedStreamGetsTheHeldEventsAfterItsSequence()
    {
        Fixture f(published(2));
        auto first = f.subscribed(5);
        f.sched.runFor(2s);
        const std::uint64_t seen = first->lastSequence();
        f.model.cancelStream(first->id);
        f.sched.runFor(3s); // numbered and held while nobody listens
        auto resumed = stream(f.model, f.session, {seen, nullptr});
        f.sched.runFor(2s);
        QVERIFY(!resumed->batches.empty());
        QCOMPARE(resumed->batches.front().first, seen + 1); // nothing missed, nothing repeated
        QVERIFY(resumed->batches.front().changes >= 25);    // the 3 s it was away
        QVERIFY(resumed->contiguous());
        QCOMPARE(f.model.streamsResumed(), std::int64_t(1));
        QCOMPARE(resumed->ends, 0);
    }

    void aResumePastTheReplayBufferShowsTheGap()
    {
        GatewayConfig c = published(10);
        c.replayCapacity = 20;
        Fixture f(c);
        auto first = f.subscribed(5);
        f.sched.runFor(1s);
        const std::uint64_t seen = first->lastSequence();
        f.model.cancelStream(first->id);
        f.sched.runFor(2s); // 100 events, 20 held
        auto resumed = stream(f.model, f.session, {seen, nullptr});
        f.sched.runFor(1ms);
        QCOMPARE(resumed->batches.size(), std::size_t(1));
        QCOMPARE(resumed->batches.front().changes, std::size_t(20));
        QVERIFY(resumed->batches.front().first > seen + 1); // the evicted ones are a gap
        QCOMPARE(resumed->batches.front().last, resumed->batches.front().first + 19);
    }

    void aResumeAcrossLostEventsKeepsTheirGap()
    {
        Fixture f(published(2));
        auto first = f.subscribed(5);
        f.sched.runFor(1s);
        const std::uint64_t seen = first->lastSequence();
        f.model.cancelStream(first->id);
        f.sched.runFor(1s);
        f.model.loseEvents(1s);
        f.sched.runFor(2s); // held, lost (numbered, not held), held
        auto resumed = stream(f.model, f.session, {seen, nullptr});
        f.sched.runFor(1ms);
        QCOMPARE(resumed->batches.size(), std::size_t(2)); // one batch each side of the hole
        QVERIFY(resumed->contiguous() == false);
        QCOMPARE(resumed->batches[0].first, seen + 1);
        for (const auto& b : resumed->batches)
            QCOMPARE(b.last - b.first + 1, std::uint64_t(b.changes));
        QCOMPARE(resumed->batches[1].first - resumed->batches[0].last - 1,
                 std::uint64_t(f.model.eventsDropped()));
    }

    void aResumeBeyondTheLastEventIsRefused()
    {
        Fixture f(published(1));
        auto first = f.subscribed(1);
        f.sched.runFor(1s);
        f.model.cancelStream(first->id);
        auto ahead = stream(f.model, f.session, {first->lastSequence() + 100, nullptr});
        f.sched.runFor(1ms);
        QCOMPARE(ahead->ends, 1);
        QCOMPARE(ahead->end.code, grpc::StatusCode::OUT_OF_RANGE);
    }

    void aSecondSubscriberIsRefused()
    {
        Fixture f(published(1));
        auto first = f.subscribed(1);
        auto second = stream(f.model, f.session);
        f.sched.runFor(1ms);
        QCOMPARE(second->ends, 1);
        QCOMPARE(second->end.code, grpc::StatusCode::FAILED_PRECONDITION);
        QVERIFY(second->end.message.starts_with("EventSubscriberAlreadyActive"));
        QCOMPARE(first->ends, 0);
        // Once the first is gone, a new one is taken.
        f.model.cancelStream(first->id);
        auto third = stream(f.model, f.session);
        f.sched.runFor(2s);
        QCOMPARE(third->ends, 0);
        QVERIFY(!third->batches.empty());
    }

    void lostEventsAreNumberedAndNeverSent()
    {
        Fixture f(published(2));
        auto r = f.subscribed(5);
        f.sched.runFor(2s);
        const std::size_t before = r->batches.size();
        f.model.loseEvents(2s);
        f.sched.runFor(4s);
        QVERIFY(f.model.eventsDropped() >= 15);
        // A gap of exactly the dropped events between two received batches.
        std::uint64_t gap = 0;
        for (std::size_t i = std::max<std::size_t>(before, 1); i < r->batches.size(); ++i)
            gap += r->batches[i].first - r->batches[i - 1].last - 1;
        QCOMPARE(gap, std::uint64_t(f.model.eventsDropped()));
    }

    void aReaderPastTheQueueFaultsItsSession()
    {
        GatewayConfig c = published(10);
        c.eventQueueCapacity = 100;
        Fixture f(c);
        auto reader = std::make_shared<EventReader>();
        auto r = f.subscribed(5, {0, reader}); // a reader that never takes anything
        f.sched.runFor(5s);                    // 50 events a second
        QCOMPARE(r->ends, 1);
        QCOMPARE(r->end.code, grpc::StatusCode::RESOURCE_EXHAUSTED);
        QVERIFY2(r->end.message.starts_with("EventQueueOverflow"), r->end.message.c_str());
        QVERIFY(r->changes() > 100 && r->changes() <= 110);
        QCOMPARE(f.model.sessionsFaulted(), std::int64_t(1));
        QCOMPARE(f.model.sessionCount(), std::size_t(0)); // the session is gone
        auto again = stream(f.model, f.session, {r->lastSequence(), nullptr});
        f.sched.runFor(1ms);
        QCOMPARE(again->end.code, grpc::StatusCode::NOT_FOUND);
    }

    void aReaderThatKeepsUpIsNeverCutOff()
    {
        GatewayConfig c = published(10);
        c.eventQueueCapacity = 100;
        Fixture f(c);
        auto reader = std::make_shared<EventReader>();
        auto r = f.subscribed(5, {0, reader});
        for (int i = 0; i < 100; ++i) {
            f.sched.runFor(100ms);
            reader->taken.store(r->changes()); // everything delivered is read
        }
        QCOMPARE(r->ends, 0);
        QCOMPARE(f.model.sessionsFaulted(), std::int64_t(0));
    }

    void disconnectSubscriberEndsOnlyTheStream()
    {
        GatewayConfig c = published(10);
        c.eventQueueCapacity = 100;
        c.backpressure = BackpressurePolicy::DisconnectSubscriber;
        Fixture f(c);
        auto reader = std::make_shared<EventReader>();
        auto r = f.subscribed(5, {0, reader});
        f.sched.runFor(5s);
        QCOMPARE(r->ends, 1);
        QCOMPARE(r->end.code, grpc::StatusCode::RESOURCE_EXHAUSTED);
        QVERIFY(r->end.message.find("subscriber disconnected") != std::string::npos);
        QCOMPARE(f.model.subscribersDisconnected(), std::int64_t(1));
        QCOMPARE(f.model.sessionCount(), std::size_t(1)); // still Ready
        auto resumed = stream(f.model, f.session, {r->lastSequence(), nullptr});
        f.sched.runFor(1s);
        QCOMPARE(resumed->ends, 0);
        QCOMPARE(resumed->batches.front().first, r->lastSequence() + 1);
    }
};

QTEST_GUILESS_MAIN(TestModelEventPolicy)
#include "tst_model_event_policy.moc"
