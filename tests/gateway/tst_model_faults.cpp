// GatewayModel faults on the VirtualScheduler: wedge, slow, drop replies, restart, kill, end
// streams, source outage, refuse sessions, capability toggle; and seed determinism.
#include "gateway/mock_control.h"
#include "support_model.h"

#include <QTest>
#include <map>

using namespace testsupport;
using namespace mxgateway::v1;
using grpc::StatusCode;

namespace {
GatewayConfig quietConfig()
{
    GatewayConfig c;
    c.commandMs = 2;
    c.perItemMs = 0.5;
    c.dataHz = 0;
    return c;
}
Duration ms(double v)
{
    return Duration(static_cast<std::int64_t>(v * 1000));
}

// Records, in delivery order, the end of one event stream and the answers of invokes.
struct Delivery {
    std::vector<std::string> order;
    std::map<std::string, CallStatus> status;
};
void listenLogged(GatewayModel& model, const std::string& sessionId,
                  const std::shared_ptr<Delivery>& log)
{
    StreamEventsRequest request;
    request.set_session_id(sessionId);
    model.streamEvents(
        request, [](const MxEventBatch&) {},
        [log](CallStatus st) {
            log->order.push_back("stream");
            log->status["stream"] = std::move(st);
        });
}
void invokeLogged(GatewayModel& model, const std::string& sessionId, const MxCommand& command,
                  const std::string& name, const std::shared_ptr<Delivery>& log)
{
    MxCommandRequest request;
    request.set_session_id(sessionId);
    *request.mutable_command() = command;
    model.invoke(request, [log, name](CallStatus st, MxCommandReply) {
        log->order.push_back(name);
        log->status[name] = std::move(st);
    });
}
} // namespace

class TestModelFaults : public QObject {
    Q_OBJECT
private slots:
    void wedgeHoldsTheStaUntilItEnds();
    void wedgedCommandsExpireAndRunAfterwards();
    void slowMultipliesCostForItsDuration();
    void droppedReplyFailsAtTheDeadlineAfterRunning();
    void dropRepliesIsDeterministicForASeed();
    void dropDecisionsDoNotDependOnTheDataSource();
    void restartDropsSessionsStreamsAndPendingInvokes();
    void endEventStreamsKeepsTheSession();
    void sourceOutageTurnsAdvisedItemsBad();
    void refuseSessionsForADuration();
    void capabilityToggleAppliesToNewSessions();
    void watchStatsReportsAtTheInterval();
    void shutdownAnswersEverythingUnavailable();
    void restartCancelsAFreeCommandAboutToFinish();
    void restartFailsInvokesBeforeEndingStreams();
    void killEndsStreamsBeforeFailingInFlightInvokes();
    void killIsDownForItsDowntimeThenComesBackEmpty();
    void killFaultRequestIsValidatedAndInjected();
};

void TestModelFaults::wedgeHoldsTheStaUntilItEnds()
{
    VirtualScheduler sched;
    GatewayModel model(sched, quietConfig());
    const auto id = open(model, sched).id();
    const int sh = registerClient(model, sched, id);
    const Time t0 = sched.now();
    model.wedge(5s);
    QVERIFY(model.wedged());
    QVERIFY(model.stats().wedged());
    auto a = send(model, id, addItem(sh, "T"));
    sched.runUntil(t0 + ms(4999));
    QVERIFY(!a->answered());
    QCOMPARE(model.staQueueDepth(), std::size_t(1));
    QVERIFY(runUntilAnswered(sched, a));
    QCOMPARE(a->at - t0, ms(5000 + 2.5));
    QVERIFY(a->status.ok());
    QVERIFY(!model.wedged());
}

void TestModelFaults::wedgedCommandsExpireAndRunAfterwards()
{
    VirtualScheduler sched;
    GatewayModel model(sched, quietConfig());
    const auto id = open(model, sched, 1s).id();
    const int sh = registerClient(model, sched, id);
    const Time t0 = sched.now();
    model.wedge(10s);
    auto a = send(model, id, subscribeBulk(sh, tagNames(10), true));
    QVERIFY(runUntilAnswered(sched, a));
    QCOMPARE(a->status.code, StatusCode::DEADLINE_EXCEEDED);
    QCOMPARE(a->at - t0, ms(1000));
    QCOMPARE(model.commandsRun(CommandKind::SubscribeBulk), 0);
    sched.runUntil(t0 + 11s);
    QCOMPARE(model.commandsRun(CommandKind::SubscribeBulk), 1);
    QCOMPARE(model.session(id)->items.size(), std::size_t(10));
    QCOMPARE(model.commandsExpired(CommandKind::SubscribeBulk), 1);
    QCOMPARE(a->calls, 1);
}

void TestModelFaults::slowMultipliesCostForItsDuration()
{
    VirtualScheduler sched;
    GatewayModel model(sched, quietConfig());
    const auto id = open(model, sched).id();
    const int sh = registerClient(model, sched, id);
    model.slow(4, 10s);
    QCOMPARE(model.stats().slow_factor(), 4.0);
    Time t0 = sched.now();
    auto a = send(model, id, addItem(sh, "T"));
    QVERIFY(runUntilAnswered(sched, a));
    QCOMPARE(a->at - t0, ms(2.5 * 4));
    sched.runFor(10s);
    QCOMPARE(model.slowFactor(), 1.0);
    t0 = sched.now();
    auto b = send(model, id, addItem(sh, "U"));
    QVERIFY(runUntilAnswered(sched, b));
    QCOMPARE(b->at - t0, ms(2.5));
}

void TestModelFaults::droppedReplyFailsAtTheDeadlineAfterRunning()
{
    VirtualScheduler sched;
    GatewayModel model(sched, quietConfig());
    const auto id = open(model, sched, 2s).id();
    const int sh = registerClient(model, sched, id);
    model.dropReplies(1.0, 5s);
    const Time t0 = sched.now();
    auto a = send(model, id, addItem(sh, "T"));
    sched.runUntil(t0 + ms(100));
    QCOMPARE(model.commandsRun(CommandKind::AddItem), 1); // it ran ...
    QCOMPARE(model.session(id)->items.size(), std::size_t(1));
    QVERIFY(!a->answered()); // ... but no reply came
    QVERIFY(runUntilAnswered(sched, a));
    QCOMPARE(a->status.code, StatusCode::DEADLINE_EXCEEDED);
    QCOMPARE(a->at - t0, ms(2000));
    QCOMPARE(model.deadlineExceeded(), 1);
    QCOMPARE(model.commandsExpired(CommandKind::AddItem), 0); // it ran in time

    sched.runUntil(t0 + 5s);
    auto b = send(model, id, addItem(sh, "U"));
    QVERIFY(runUntilAnswered(sched, b));
    QVERIFY(b->status.ok());
}

void TestModelFaults::dropRepliesIsDeterministicForASeed()
{
    auto outcomes = [](std::uint64_t seed) {
        VirtualScheduler sched;
        GatewayConfig config = quietConfig();
        config.seed = seed;
        GatewayModel model(sched, config);
        const auto id = open(model, sched, 1s).id();
        const int sh = registerClient(model, sched, id);
        model.dropReplies(0.5, 1000s);
        std::vector<AnswerPtr> answers;
        for (int i = 0; i < 64; ++i)
            answers.push_back(send(model, id, addItem(sh, "T" + std::to_string(i))));
        sched.runFor(10s);
        std::string pattern;
        for (const auto& a : answers)
            pattern += a->status.ok() ? '1' : '0';
        return pattern;
    };
    const auto a = outcomes(7);
    QCOMPARE(outcomes(7), a);
    QVERIFY(a.find('0') != std::string::npos);
    QVERIFY(a.find('1') != std::string::npos);
    QVERIFY(outcomes(8) != a);
}

// The data source draws its values from its own generator: which replies a drop fault drops
// depends on the seed and the commands, not on how many values were generated meanwhile
// (how many tags are advised, at what rate).
void TestModelFaults::dropDecisionsDoNotDependOnTheDataSource()
{
    auto outcomes = [](double dataHz, int advised) {
        VirtualScheduler sched;
        GatewayConfig config = quietConfig();
        config.seed = 7;
        config.dataHz = dataHz;
        GatewayModel model(sched, config);
        const auto id = open(model, sched, 1s).id();
        const int sh = registerClient(model, sched, id);
        auto log = listen(model, id);
        if (advised > 0) {
            auto a = send(model, id, subscribeBulk(sh, tagNames(advised, "Data."), true));
            if (!runUntilAnswered(sched, a) || !a->status.ok())
                return std::string("subscribe failed");
        }
        model.dropReplies(0.5, 1000s);
        std::vector<AnswerPtr> answers;
        for (int i = 0; i < 64; ++i) {
            answers.push_back(send(model, id, addItem(sh, "T" + std::to_string(i))));
            sched.runFor(300ms); // values are generated between the commands
        }
        sched.runFor(10s);
        std::string pattern;
        for (const auto& a : answers)
            pattern += a->status.ok() ? '1' : '0';
        return pattern;
    };
    const auto quiet = outcomes(0, 0);
    QVERIFY(quiet.find('0') != std::string::npos);
    QVERIFY(quiet.find('1') != std::string::npos);
    QCOMPARE(outcomes(10, 50), quiet);
    QCOMPARE(outcomes(1, 500), quiet);
}

void TestModelFaults::restartDropsSessionsStreamsAndPendingInvokes()
{
    VirtualScheduler sched;
    GatewayModel model(sched, quietConfig());
    const auto id = open(model, sched).id();
    const int sh = registerClient(model, sched, id);
    auto stream = listen(model, id);
    model.wedge(100s);
    auto pending = send(model, id, addItem(sh, "T"));
    sched.runFor(1s);
    model.restart(3s);
    QVERIFY(model.down());
    QCOMPARE(model.sessionCount(), std::size_t(0));
    QCOMPARE(model.staQueueDepth(), std::size_t(0));
    QVERIFY(!model.wedged()); // a restarted process is not wedged
    sched.runFor(1ms);
    QCOMPARE(pending->status.code, StatusCode::UNAVAILABLE);
    QCOMPARE(stream->ends, 1);
    QCOMPARE(stream->endStatus.code, StatusCode::UNAVAILABLE);

    QCOMPARE(open(model, sched).status.code, StatusCode::UNAVAILABLE);
    auto during = send(model, id, registerCommand());
    QVERIFY(runUntilAnswered(sched, during));
    QCOMPARE(during->status.code, StatusCode::UNAVAILABLE);

    sched.runFor(3s);
    QVERIFY(!model.down());
    auto old = send(model, id, registerCommand());
    QVERIFY(runUntilAnswered(sched, old));
    QCOMPARE(old->status.code, StatusCode::NOT_FOUND);
    const auto reopened = open(model, sched);
    QVERIFY(reopened.status.ok());
    QVERIFY(reopened.id() != id);
    sched.runFor(200s); // the cancelled wedge/deadline timers answer nobody twice
    QCOMPARE(pending->calls, 1);
}

void TestModelFaults::endEventStreamsKeepsTheSession()
{
    VirtualScheduler sched;
    GatewayConfig config = quietConfig();
    config.dataHz = 1;
    GatewayModel model(sched, config);
    const auto id = open(model, sched).id();
    const int sh = registerClient(model, sched, id);
    auto first = listen(model, id);
    auto sub = send(model, id, subscribeBulk(sh, tagNames(2), true));
    QVERIFY(runUntilAnswered(sched, sub));
    model.endEventStreams();
    sched.runFor(1ms);
    QCOMPARE(first->ends, 1);
    QVERIFY(first->endStatus.ok());
    QCOMPARE(model.sessionCount(), std::size_t(1));
    const auto before = first->events.size();

    auto second = listen(model, id);
    sched.runFor(3s);
    QCOMPARE(first->events.size(), before);
    QVERIFY(second->changes() >= 4); // the advises survive: data flows on the new stream
    auto again = send(model, id, registerCommand());
    QVERIFY(runUntilAnswered(sched, again));
    QVERIFY(again->reply.success());
}

void TestModelFaults::sourceOutageTurnsAdvisedItemsBad()
{
    VirtualScheduler sched;
    GatewayConfig config = quietConfig(); // data_hz 0: only initial values and outage changes
    GatewayModel model(sched, config);
    const auto id = open(model, sched).id();
    const int sh = registerClient(model, sched, id);
    auto stream = listen(model, id);
    auto sub = send(model, id, subscribeBulk(sh, tagNames(3), true));
    QVERIFY(runUntilAnswered(sched, sub));
    sched.runFor(1ms);
    QCOMPARE(stream->events.size(), std::size_t(1));
    QCOMPARE(stream->events[0].data_changes().changes(0).quality(), kQualityGood);

    model.setSourceOutage(true);
    sched.runFor(1ms);
    QCOMPARE(stream->events.size(), std::size_t(2));
    QCOMPARE(stream->events[1].data_changes().changes_size(), 3);
    for (const auto& c : stream->events[1].data_changes().changes())
        QCOMPARE(c.quality(), kQualityBad);
    QVERIFY(model.stats().source_outage());

    model.setSourceOutage(false);
    sched.runFor(1ms);
    QCOMPARE(stream->events.size(), std::size_t(3));
    for (const auto& c : stream->events[2].data_changes().changes())
        QCOMPARE(c.quality(), kQualityGood);
}

void TestModelFaults::refuseSessionsForADuration()
{
    VirtualScheduler sched;
    GatewayModel model(sched, quietConfig());
    const auto existing = open(model, sched).id();
    model.refuseSessions(10s);
    QCOMPARE(open(model, sched).status.code, StatusCode::UNAVAILABLE);
    auto a = send(model, existing, registerCommand());
    QVERIFY(runUntilAnswered(sched, a));
    QVERIFY(a->status.ok()); // open sessions keep working
    sched.runFor(10s);
    QVERIFY(open(model, sched).status.ok());
}

void TestModelFaults::capabilityToggleAppliesToNewSessions()
{
    VirtualScheduler sched;
    GatewayModel model(sched, quietConfig());
    const auto modern = open(model, sched).id();
    model.setAdvertiseBulkSupervisory(false);
    const auto old = open(model, sched);
    QCOMPARE(old.reply.capabilities_size(), 9);
    QVERIFY(!model.stats().advertise_bulk_supervisory());

    const int shm = registerClient(model, sched, modern);
    const int sho = registerClient(model, sched, old.id());
    auto m = send(model, modern, subscribeBulk(shm, {"T"}, true));
    auto o = send(model, old.id(), subscribeBulk(sho, {"T"}, true));
    QVERIFY(runUntilAnswered(sched, o));
    QVERIFY(
        model.adviseState(modern, m->reply.subscribe_bulk().results(0).item_handle())->supervisory);
    const auto oldState =
        model.adviseState(old.id(), o->reply.subscribe_bulk().results(0).item_handle());
    QVERIFY(oldState->plain && !oldState->supervisory);

    model.setAdvertiseBulkSupervisory(true);
    QCOMPARE(open(model, sched).reply.capabilities_size(), 10);
}

void TestModelFaults::watchStatsReportsAtTheInterval()
{
    VirtualScheduler sched;
    GatewayModel model(sched, quietConfig());
    std::vector<mxgateway::mock::v1::GatewayStats> seen;
    int ends = 0;
    const auto w = model.watchStats(
        500ms, [&](const auto& st) { seen.push_back(st); }, [&](CallStatus) { ++ends; });
    sched.runFor(ms(1999)); // at 0, 500, 1000, 1500 ms
    QCOMPARE(seen.size(), std::size_t(4));
    open(model, sched);
    sched.runFor(ms(600));
    QCOMPARE(seen.back().sessions(), 1);
    model.cancelWatch(w);
    const auto count = seen.size();
    sched.runFor(5s);
    QCOMPARE(seen.size(), count);
    QCOMPARE(ends, 0);
}

void TestModelFaults::shutdownAnswersEverythingUnavailable()
{
    VirtualScheduler sched;
    GatewayModel model(sched, quietConfig());
    const auto id = open(model, sched).id();
    auto stream = listen(model, id);
    int watchEnds = 0;
    model.watchStats(
        1s, [](const auto&) {},
        [&](CallStatus st) { watchEnds += st.code == StatusCode::UNAVAILABLE; });
    model.wedge(100s);
    auto pending = send(model, id, registerCommand());
    model.shutdown();
    sched.runFor(1ms);
    QCOMPARE(pending->status.code, StatusCode::UNAVAILABLE);
    QCOMPARE(stream->endStatus.code, StatusCode::UNAVAILABLE);
    QCOMPARE(watchEnds, 1);
    QCOMPARE(open(model, sched).status.code, StatusCode::UNAVAILABLE);
    sched.runAll();
    QCOMPARE(sched.pending(), std::size_t(0)); // nothing keeps ticking after a shutdown
}

void TestModelFaults::restartCancelsAFreeCommandAboutToFinish()
{
    VirtualScheduler sched;
    GatewayConfig config = quietConfig();
    config.commandMs = 0;
    config.perItemMs = 0;
    GatewayModel model(sched, config);
    const auto id = open(model, sched).id();
    const int sh = registerClient(model, sched, id);
    QVERIFY(sh > 0);
    auto a = send(model, id, addItem(sh, "T"));
    QVERIFY(!a->answered()); // free, but still not answered from inside the call
    model.restart(1s);
    sched.runFor(2s);
    QCOMPARE(a->calls, 1);
    QCOMPARE(a->status.code, StatusCode::UNAVAILABLE);
    QCOMPARE(model.commandsRun(CommandKind::AddItem), 0);
}

void TestModelFaults::restartFailsInvokesBeforeEndingStreams()
{
    // The graceful restart's order is kept: pending invokes are answered, then streams end.
    VirtualScheduler sched;
    GatewayModel model(sched, quietConfig());
    const auto id = open(model, sched).id();
    const int sh = registerClient(model, sched, id);
    auto log = std::make_shared<Delivery>();
    listenLogged(model, id, log);
    invokeLogged(model, id, subscribeBulk(sh, tagNames(100), true), "invoke", log);
    sched.runFor(ms(10));
    model.restart(1s);
    sched.runFor(1ms);
    QCOMPARE(log->order, (std::vector<std::string>{"invoke", "stream"}));
}

void TestModelFaults::killEndsStreamsBeforeFailingInFlightInvokes()
{
    VirtualScheduler sched;
    GatewayModel model(sched, quietConfig());
    const auto id = open(model, sched).id();
    const int sh = registerClient(model, sched, id);
    auto log = std::make_shared<Delivery>();
    listenLogged(model, id, log);
    invokeLogged(model, id, subscribeBulk(sh, tagNames(100), true), "running",
                 log); // 52 ms on the STA
    invokeLogged(model, id, addItem(sh, "T"), "queued", log);
    sched.runFor(ms(10));
    QCOMPARE(model.staQueueDepth(), std::size_t(2));
    QVERIFY(log->order.empty());

    model.kill(3s);
    QVERIFY(model.down());
    QCOMPARE(model.sessionCount(), std::size_t(0));
    QCOMPARE(model.staQueueDepth(), std::size_t(0));
    QVERIFY(log->order.empty()); // nothing answered from inside the call
    sched.runFor(1ms);
    // What a SIGKILLed process produces at the client's transport: the streams break first,
    // then every call in flight is reset.
    QCOMPARE(log->order, (std::vector<std::string>{"stream", "running", "queued"}));
    for (const auto& [name, st] : log->status) {
        QCOMPARE(st.code, StatusCode::UNAVAILABLE);
        QVERIFY2(name == "stream" || st.message == "connection reset: gateway killed",
                 st.message.c_str());
    }
    QCOMPARE(model.commandsRun(CommandKind::SubscribeBulk), 0);
    sched.runFor(100s);
    QCOMPARE(log->order.size(), std::size_t(3)); // nobody answered twice
}

void TestModelFaults::killIsDownForItsDowntimeThenComesBackEmpty()
{
    VirtualScheduler sched;
    GatewayModel model(sched, quietConfig());
    const auto id = open(model, sched).id();
    registerClient(model, sched, id);
    model.wedge(100s);
    model.slow(5, 100s);
    model.kill(3s);
    QVERIFY(!model.wedged()); // a new process: no wedge or slowness left
    QCOMPARE(model.slowFactor(), 1.0);
    QCOMPARE(model.stats().sessions(), 0);
    QCOMPARE(open(model, sched).status.code, StatusCode::UNAVAILABLE);
    auto during = send(model, id, registerCommand());
    QVERIFY(runUntilAnswered(sched, during));
    QCOMPARE(during->status.code, StatusCode::UNAVAILABLE);
    auto stream = listen(model, id);
    sched.runFor(1ms);
    QCOMPARE(stream->endStatus.code, StatusCode::UNAVAILABLE);

    sched.runFor(3s);
    QVERIFY(!model.down());
    auto old = send(model, id, registerCommand());
    QVERIFY(runUntilAnswered(sched, old));
    QCOMPARE(old->status.code, StatusCode::NOT_FOUND); // back empty: new sessions only
    const auto reopened = open(model, sched);
    QVERIFY(reopened.status.ok());
    QVERIFY(reopened.id() != id);
    QVERIFY(registerClient(model, sched, reopened.id()) > 0);
}

void TestModelFaults::killFaultRequestIsValidatedAndInjected()
{
    VirtualScheduler sched;
    GatewayModel model(sched, quietConfig());
    mxgateway::mock::v1::FaultRequest bad;
    bad.mutable_kill()->set_downtime_s(-1);
    std::string description;
    const auto refused = injectFault(model, bad, description);
    QCOMPARE(refused.code, StatusCode::INVALID_ARGUMENT);
    QVERIFY2(refused.message.find("kill.downtime_s") != std::string::npos, refused.message.c_str());
    QVERIFY(!model.down());

    mxgateway::mock::v1::FaultRequest kill;
    kill.mutable_kill()->set_downtime_s(2);
    QVERIFY(injectFault(model, kill, description).ok());
    QVERIFY2(description.find("killed") != std::string::npos, description.c_str());
    QVERIFY(model.down());
    sched.runFor(2s);
    QVERIFY(!model.down());
}

QTEST_GUILESS_MAIN(TestModelFaults)
#include "tst_model_faults.moc"
