// GatewayModel on the VirtualScheduler: sessions, command semantics, STA cost and queue
// arithmetic, FIFO order, command deadlines, queued commands of a closed session and the
// outstanding-subscribe counter.
#include "gateway/mock_control.h"
#include "support_model.h"

#include <QTest>
#include <algorithm>
#include <limits>

using namespace testsupport;
using namespace mxgateway::v1;
using grpc::StatusCode;

namespace {
GatewayConfig costConfig(double commandMs = 2, double perItemMs = 0.5)
{
    GatewayConfig c;
    c.commandMs = commandMs;
    c.perItemMs = perItemMs;
    c.dataHz = 0; // no data ticks: only the STA schedules events
    return c;
}
Duration ms(double v)
{
    return Duration(static_cast<std::int64_t>(v * 1000));
}

// OpenSession with a raw google.protobuf.Duration, as a hostile or careless client sends it.
Opened openRaw(GatewayModel& model, VirtualScheduler& scheduler, std::int64_t seconds,
               std::int32_t nanos)
{
    OpenSessionRequest request;
    request.mutable_command_timeout()->set_seconds(seconds);
    request.mutable_command_timeout()->set_nanos(nanos);
    auto result = std::make_shared<std::optional<Opened>>();
    model.openSession(request, [result](CallStatus st, OpenSessionReply reply) {
        *result = Opened{std::move(st), std::move(reply)};
    });
    while (!*result && scheduler.runNext()) {
    }
    return result->value_or(Opened{CallStatus::error(StatusCode::INTERNAL, "never answered"), {}});
}
} // namespace

class TestModelCommands : public QObject {
    Q_OBJECT
private slots:
    void openSessionDefaultsTo30sAndTenCapabilities();
    void openSessionEchoesRequestedCommandTimeout();
    void openSessionRejectsNonPositiveCommandTimeout();
    void openSessionValidatesTheDurationByItsOwnRules_data();
    void openSessionValidatesTheDurationByItsOwnRules();
    void openSessionClampsTheCommandTimeoutTo24Hours();
    void defaultCommandTimeoutAbove24HoursIsInvalidConfig();
    void oldGatewayAdvertisesNineCapabilities();
    void closeSessionForgetsTheSession();
    void unknownSessionIsNotFound();
    void unknownServerHandleFailsTheCommand();
    void legacySupervisorySubscribeCostsOnePlusNCommands();
    void bulkSupervisorySubscribeIsOneCommand();
    void staRunsCommandsFifoAcrossSessions();
    void queueDepthCountsWaitingAndRunning();
    void expiredCommandStillRunsAndAddsItems();
    void deadlineCountsByKindInStats();
    void partialSuccessPerItem();
    void supervisoryFlagIgnoredByOldGateway();
    void writeWithoutUserNeedsSupervisoryAdvise();
    void addingATagTwiceReturnsItsHandle();
    void anItemIsItsServerHandleAndTag();
    void removedHandlesAreHandedOutAgainLowestFirstWhenConfigured();
    void removeAndUnAdvise();
    void statsCountOpenSessions();
    void closeSessionDropsItsQueuedCommands();
    void closeSessionKeepsQueuedCommandsWhenConfigured();
    void closeDropsQueuedCommandsInMockConfig();
    void outstandingSubscribesCountsConcurrentIdenticalOnes();
    void outstandingSubscribesSequentialStaysAtOne();
    void outstandingSubscribesKeyedBySessionAndTagSet();
    void outstandingSubscribeEndsWithItsDeadlineOrAFailure();
    void queuedBulkCommandsShareOnePayload();
    void handleCountersStopAtTheEndOfTheirRange();
};

void TestModelCommands::openSessionDefaultsTo30sAndTenCapabilities()
{
    VirtualScheduler sched;
    GatewayModel model(sched, costConfig());
    const auto o = open(model, sched);
    QVERIFY(o.status.ok());
    QVERIFY(!o.id().empty());
    QCOMPARE(o.reply.default_command_timeout().seconds(), 30);
    QCOMPARE(o.reply.default_command_timeout().nanos(), 0);
    QCOMPARE(o.reply.capabilities_size(), 10);
    const auto& caps = o.reply.capabilities();
    QVERIFY(std::find(caps.begin(), caps.end(), "bulk-subscribe-supervisory") != caps.end());
    QVERIFY(std::find(caps.begin(), caps.end(), "server-stream-events") != caps.end());
    QCOMPARE(o.reply.gateway_protocol_version(), kGatewayProtocolVersion);
    QCOMPARE(model.sessionCount(), std::size_t(1));
    QCOMPARE(model.session(o.id())->commandTimeout, Duration(30s));
}

void TestModelCommands::openSessionEchoesRequestedCommandTimeout()
{
    VirtualScheduler sched;
    GatewayConfig config = costConfig();
    config.defaultCommandTimeout = 12s;
    GatewayModel model(sched, config);
    const auto def = open(model, sched);
    QCOMPARE(def.reply.default_command_timeout().seconds(), 12);
    const auto o = open(model, sched, Duration(60'500'000));
    QVERIFY(o.status.ok());
    QCOMPARE(o.reply.default_command_timeout().seconds(), 60);
    QCOMPARE(o.reply.default_command_timeout().nanos(), 500'000'000);
    QCOMPARE(model.session(o.id())->commandTimeout, Duration(60'500'000));
}

void TestModelCommands::openSessionRejectsNonPositiveCommandTimeout()
{
    VirtualScheduler sched;
    GatewayModel model(sched, costConfig());
    QCOMPARE(open(model, sched, Duration(0)).status.code, StatusCode::INVALID_ARGUMENT);
    QCOMPARE(open(model, sched, Duration(-1'000'000)).status.code, StatusCode::INVALID_ARGUMENT);
    QCOMPARE(model.sessionCount(), std::size_t(0));
}

void TestModelCommands::openSessionValidatesTheDurationByItsOwnRules_data()
{
    QTest::addColumn<qint64>("seconds");
    QTest::addColumn<int>("nanos");
    QTest::addColumn<QString>("rule"); // what the INVALID_ARGUMENT message must say
    constexpr qint64 kMax = 315'576'000'000;
    const QString range = QStringLiteral(
        "command_timeout.seconds = %1: must be within +-315576000000 (google.protobuf.Duration)");
    QTest::newRow("10^12 s (echoed wrapped before)")
        << qint64(1'000'000'000'000) << 0 << range.arg(1'000'000'000'000);
    QTest::newRow("INT64_MAX s (UBSan overflow before)")
        << std::numeric_limits<qint64>::max() << 0 << range.arg(std::numeric_limits<qint64>::max());
    QTest::newRow("just above the range") << kMax + 1 << 0 << range.arg(kMax + 1);
    QTest::newRow("INT64_MIN s") << std::numeric_limits<qint64>::min() << 0
                                 << range.arg(std::numeric_limits<qint64>::min());
    QTest::newRow("nanos 10^9")
        << qint64(1) << 1'000'000'000
        << QStringLiteral("command_timeout.nanos = 1000000000: must be within +-999999999 "
                          "(google.protobuf.Duration)");
    QTest::newRow("nanos INT32_MIN")
        << qint64(0) << std::numeric_limits<int>::min()
        << QStringLiteral("command_timeout.nanos = -2147483648: must be within "
                          "+-999999999 (google.protobuf.Duration)");
    QTest::newRow("positive seconds, negative nanos")
        << qint64(5) << -1
        << QStringLiteral("command_timeout = 5 s -1 ns: nanos must have the sign of seconds "
                          "(google.protobuf.Duration)");
    QTest::newRow("negative seconds, positive nanos")
        << qint64(-5) << 1
        << QStringLiteral("command_timeout = -5 s 1 ns: nanos must have the sign of seconds "
                          "(google.protobuf.Duration)");
    QTest::newRow("zero") << qint64(0) << 0 << QStringLiteral("command_timeout = 0 s: must be > 0");
    QTest::newRow("negative") << qint64(-1) << -500
                              << QStringLiteral("command_timeout = -1 s -500 ns: must be > 0");
    QTest::newRow("most negative valid")
        << -kMax << -999'999'999
        << QStringLiteral("command_timeout = -315576000000 s -999999999 ns: must be > 0");
}

void TestModelCommands::openSessionValidatesTheDurationByItsOwnRules()
{
    QFETCH(qint64, seconds);
    QFETCH(int, nanos);
    QFETCH(QString, rule);
    VirtualScheduler sched;
    GatewayModel model(sched, costConfig());
    const auto o = openRaw(model, sched, seconds, nanos);
    QCOMPARE(o.status.code, StatusCode::INVALID_ARGUMENT);
    QCOMPARE(QString::fromStdString(o.status.message), rule);
    QCOMPARE(model.sessionCount(), std::size_t(0));
}

void TestModelCommands::openSessionClampsTheCommandTimeoutTo24Hours()
{
    // A valid Duration above the documented maximum is clamped to it (and the echo says so);
    // below it the value is kept to the microsecond, a positive sub-microsecond rest rounds up.
    struct Case {
        std::int64_t seconds;
        std::int32_t nanos;
        std::int64_t echoSeconds;
        std::int32_t echoNanos;
        Duration session;
    };
    const Case cases[] = {
        {315'576'000'000, 999'999'999, 86'400, 0, 24h}, // the largest valid Duration
        {315'576'000'000, 0, 86'400, 0, 24h},           // echoed 1,981,350,747 s before
        {86'400, 1, 86'400, 0, 24h},
        {86'400, 0, 86'400, 0, 24h},
        {86'399, 999'999'000, 86'399, 999'999'000, Duration(86'399'999'999)},
        {86'399, 999'999'001, 86'400, 0, 24h}, // rounds up to the maximum
        {0, 1, 0, 1'000, Duration(1)},
        {0, 1'500, 0, 2'000, Duration(2)},
        {60, 500'000'000, 60, 500'000'000, Duration(60'500'000)},
    };
    VirtualScheduler sched;
    GatewayModel model(sched, costConfig());
    for (const Case& c : cases) {
        const auto o = openRaw(model, sched, c.seconds, c.nanos);
        const QByteArray what =
            QByteArray::number(qint64(c.seconds)) + " s " + QByteArray::number(c.nanos) + " ns";
        QVERIFY2(o.status.ok(), what + ": " + o.status.message.c_str());
        QVERIFY2(o.reply.default_command_timeout().seconds() == c.echoSeconds, what);
        QVERIFY2(o.reply.default_command_timeout().nanos() == c.echoNanos, what);
        QVERIFY2(model.session(o.id())->commandTimeout == c.session, what);
    }
    QCOMPARE(kMaxCommandTimeout, Duration(24h));
}

void TestModelCommands::defaultCommandTimeoutAbove24HoursIsInvalidConfig()
{
    GatewayConfig config = costConfig();
    config.defaultCommandTimeout = 24h;
    QCOMPARE(validateConfig(config), std::string());
    config.defaultCommandTimeout = 24h + Duration(1);
    QCOMPARE(validateConfig(config),
             std::string("default_command_timeout_s = 86400: must be > 0 and <= 86400 "
                         "(the maximum command timeout)"));
}

void TestModelCommands::oldGatewayAdvertisesNineCapabilities()
{
    VirtualScheduler sched;
    GatewayConfig config = costConfig();
    config.advertiseBulkSupervisory = false;
    GatewayModel model(sched, config);
    const auto o = open(model, sched);
    QCOMPARE(o.reply.capabilities_size(), 9);
    const auto& caps = o.reply.capabilities();
    QVERIFY(std::find(caps.begin(), caps.end(), "bulk-subscribe-supervisory") == caps.end());
}

void TestModelCommands::closeSessionForgetsTheSession()
{
    VirtualScheduler sched;
    GatewayModel model(sched, costConfig());
    const auto id = open(model, sched).id();
    auto stream = listen(model, id);
    CallStatus closed{StatusCode::UNKNOWN, "not called"};
    CloseSessionRequest req;
    req.set_session_id(id);
    model.closeSession(req, [&](CallStatus st) { closed = st; });
    sched.runFor(1ms);
    QVERIFY(closed.ok());
    QCOMPARE(model.sessionCount(), std::size_t(0));
    QCOMPARE(stream->ends, 1);
    QVERIFY(stream->endStatus.ok());
    model.closeSession(req, [&](CallStatus st) { closed = st; });
    sched.runFor(1ms);
    QCOMPARE(closed.code, StatusCode::NOT_FOUND);
}

void TestModelCommands::unknownSessionIsNotFound()
{
    VirtualScheduler sched;
    GatewayModel model(sched, costConfig());
    auto a = send(model, "no-such-session", registerCommand());
    QVERIFY(!a->answered()); // never from inside the call
    QVERIFY(runUntilAnswered(sched, a));
    QCOMPARE(a->status.code, StatusCode::NOT_FOUND);
    QCOMPARE(a->calls, 1);
    QCOMPARE(model.invokeRpcs(CommandKind::Register), 1);
}

void TestModelCommands::unknownServerHandleFailsTheCommand()
{
    VirtualScheduler sched;
    GatewayModel model(sched, costConfig());
    const auto id = open(model, sched).id();
    auto a = send(model, id, addItem(42, "Tag.A"), "corr-7");
    QVERIFY(runUntilAnswered(sched, a));
    QVERIFY(a->status.ok());
    QVERIFY(!a->reply.success());
    QVERIFY(QString::fromStdString(a->reply.error_message()).contains("server handle 42"));
    QCOMPARE(a->reply.client_correlation_id(), std::string("corr-7"));
}

void TestModelCommands::legacySupervisorySubscribeCostsOnePlusNCommands()
{
    VirtualScheduler sched;
    GatewayModel model(sched, costConfig(2, 0.5));
    const auto id = open(model, sched).id();
    const int sh = registerClient(model, sched, id);
    QVERIFY(sh > 0);

    const Time t0 = sched.now();
    auto bulk = send(model, id, addItemBulk(sh, tagNames(244)));
    QVERIFY(runUntilAnswered(sched, bulk));
    QCOMPARE(bulk->at - t0, ms(2 + 0.5 * 244));
    QCOMPARE(bulk->reply.add_item_bulk().results_size(), 244);

    // The fan-out: every handle advised supervisory, one STA command each.
    std::vector<AnswerPtr> advises;
    for (const auto& r : bulk->reply.add_item_bulk().results())
        advises.push_back(send(model, id, adviseSupervisory(sh, r.item_handle())));
    QCOMPARE(model.staQueueDepth(), std::size_t(244));
    QVERIFY(runUntilAnswered(sched, advises.back()));
    QCOMPARE(advises.back()->at - t0, ms((2 + 0.5 * 244) + 244 * (2 + 0.5)));
    for (const auto& a : advises) {
        QVERIFY(a->status.ok());
        QVERIFY(a->reply.success());
    }
    for (const auto& r : bulk->reply.add_item_bulk().results())
        QVERIFY(model.adviseState(id, r.item_handle())->supervisory);
    QCOMPARE(model.commandsRun(CommandKind::AdviseSupervisory), 244);
    QCOMPARE(model.invokeRpcs(), 1 + 1 + 244);
}

void TestModelCommands::bulkSupervisorySubscribeIsOneCommand()
{
    VirtualScheduler sched;
    GatewayModel model(sched, costConfig(2, 0.5));
    const auto id = open(model, sched).id();
    const int sh = registerClient(model, sched, id);
    const Time t0 = sched.now();
    auto a = send(model, id, subscribeBulk(sh, tagNames(244), true));
    QVERIFY(runUntilAnswered(sched, a));
    QCOMPARE(a->at - t0, ms(2 + 244 * 0.5));
    QCOMPARE(a->reply.subscribe_bulk().results_size(), 244);
    for (const auto& r : a->reply.subscribe_bulk().results()) {
        QVERIFY(r.ok());
        const auto state = model.adviseState(id, r.item_handle());
        QVERIFY(state && state->supervisory && !state->plain);
    }
    QCOMPARE(model.commandsRun(CommandKind::SubscribeBulk), 1);
}

void TestModelCommands::staRunsCommandsFifoAcrossSessions()
{
    VirtualScheduler sched;
    GatewayModel model(sched, costConfig(10, 1));
    const auto a = open(model, sched).id();
    const auto b = open(model, sched).id();
    const int sha = registerClient(model, sched, a);
    const int shb = registerClient(model, sched, b);
    const Time t0 = sched.now();
    // Costs 11, 13, 10+5=15, 11 ms: each finishes after the previous one.
    std::vector<AnswerPtr> answers = {
        send(model, a, addItem(sha, "A.1"), "1"),
        send(model, b, addItemBulk(shb, tagNames(3)), "2"),
        send(model, a, addItemBulk(sha, tagNames(5)), "3"),
        send(model, b, addItem(shb, "B.1"), "4"),
    };
    sched.runFor(1s);
    const std::vector<double> finishes = {11, 11 + 13, 11 + 13 + 15, 11 + 13 + 15 + 11};
    for (std::size_t i = 0; i < answers.size(); ++i) {
        QVERIFY(answers[i]->answered());
        QCOMPARE(answers[i]->reply.client_correlation_id(), std::to_string(i + 1));
        QCOMPARE(answers[i]->at - t0, ms(finishes[i]));
    }
}

void TestModelCommands::queueDepthCountsWaitingAndRunning()
{
    VirtualScheduler sched;
    GatewayModel model(sched, costConfig(5, 0));
    const auto id = open(model, sched).id();
    QCOMPARE(model.staQueueDepth(), std::size_t(0));
    std::vector<AnswerPtr> answers;
    for (int i = 0; i < 10; ++i)
        answers.push_back(send(model, id, registerCommand()));
    QCOMPARE(model.staQueueDepth(), std::size_t(10));
    sched.runFor(ms(12)); // two finished
    QCOMPARE(model.staQueueDepth(), std::size_t(8));
    sched.runFor(1s);
    QCOMPARE(model.staQueueDepth(), std::size_t(0));
    QCOMPARE(model.maxStaQueueDepth(), std::size_t(10));
    const auto st = model.stats();
    QCOMPARE(st.sta_queue_depth(), 0);
    QCOMPARE(st.max_sta_queue_depth(), 10);
    QCOMPARE(st.sessions(), 1);
}

void TestModelCommands::expiredCommandStillRunsAndAddsItems()
{
    VirtualScheduler sched;
    GatewayModel model(sched, costConfig(400, 0));
    const auto id = open(model, sched, 1s).id();
    const int sh = registerClient(model, sched, id);
    const Time t0 = sched.now();
    // Finish at 400, 800, 1200, 1600 ms; the session allows 1000 ms.
    std::vector<AnswerPtr> answers;
    for (int i = 0; i < 4; ++i)
        answers.push_back(send(model, id, addItem(sh, "Tag." + std::to_string(i))));
    sched.runUntil(t0 + ms(1000));
    QVERIFY(answers[0]->status.ok() && answers[1]->status.ok());
    for (int i : {2, 3}) {
        QCOMPARE(answers[i]->status.code, StatusCode::DEADLINE_EXCEEDED);
        QCOMPARE(answers[i]->at - t0, ms(1000)); // at the deadline, not when the STA gets to it
    }
    QCOMPARE(model.session(id)->items.size(), std::size_t(2));
    QCOMPARE(model.commandsRun(CommandKind::AddItem), 2);
    QCOMPARE(model.staQueueDepth(), std::size_t(2)); // the expired work is still queued

    sched.runUntil(t0 + ms(1600));
    QCOMPARE(model.commandsRun(CommandKind::AddItem), 4); // wasted work, done anyway
    QCOMPARE(model.session(id)->items.size(), std::size_t(4));
    QCOMPARE(model.commandsExpired(CommandKind::AddItem), 2);
    QCOMPARE(model.deadlineExceeded(), 2);
    for (const auto& a : answers)
        QCOMPARE(a->calls, 1);
}

void TestModelCommands::deadlineCountsByKindInStats()
{
    VirtualScheduler sched;
    GatewayModel model(sched, costConfig(600, 0));
    const auto id = open(model, sched, 1s).id();
    const int sh = registerClient(model, sched, id);
    auto a1 = send(model, id, subscribeBulk(sh, {"T.1"}, true));
    auto a2 = send(model, id, adviseSupervisory(sh, 1));
    sched.runFor(5s);
    QVERIFY(a1->status.ok());
    QCOMPARE(a2->status.code, StatusCode::DEADLINE_EXCEEDED);
    const auto st = model.stats();
    QCOMPARE(st.invoke_rpcs(), 3);
    QCOMPARE(st.invoke_rpcs_by_kind().at("subscribe_bulk"), 1);
    QCOMPARE(st.invoke_rpcs_by_kind().at("advise_supervisory"), 1);
    QCOMPARE(st.invoke_rpcs_by_kind().at("register"), 1);
    QCOMPARE(st.commands_run_by_kind().at("advise_supervisory"), 1);
    QCOMPARE(st.commands_expired_by_kind().at("advise_supervisory"), 1);
    QVERIFY(!st.commands_expired_by_kind().contains("subscribe_bulk"));
    QCOMPARE(st.deadline_exceeded(), 1);
}

void TestModelCommands::partialSuccessPerItem()
{
    VirtualScheduler sched;
    GatewayModel model(sched, costConfig());
    const auto id = open(model, sched).id();
    const int sh = registerClient(model, sched, id);
    auto sub = send(model, id, subscribeBulk(sh, {"T.a", "T.missing.b", "T.c"}, false));
    QVERIFY(runUntilAnswered(sched, sub));
    QVERIFY(sub->reply.success());
    const auto& r = sub->reply.subscribe_bulk().results();
    QCOMPARE(r.size(), 3);
    QVERIFY(r[0].ok() && r[0].item_handle() > 0);
    QVERIFY(!r[1].ok());
    QCOMPARE(r[1].item_handle(), 0);
    QCOMPARE(r[1].tag_address(), std::string("T.missing.b"));
    QVERIFY(QString::fromStdString(r[1].error()).contains("does not resolve"));
    QVERIFY(r[2].ok());
    QCOMPARE(model.session(id)->items.size(), std::size_t(2));

    auto adv = send(model, id, adviseItemBulk(sh, {r[0].item_handle(), 999}));
    QVERIFY(runUntilAnswered(sched, adv));
    const auto& ar = adv->reply.advise_item_bulk().results();
    QCOMPARE(ar.size(), 2);
    QVERIFY(ar[0].ok());
    QVERIFY(!ar[1].ok());
    QVERIFY(QString::fromStdString(ar[1].error()).contains("unknown item handle 999"));

    auto single = send(model, id, addItem(sh, "missing.tag"));
    QVERIFY(runUntilAnswered(sched, single));
    QVERIFY(!single->reply.success());
    QVERIFY(QString::fromStdString(single->reply.error_message()).contains("does not resolve"));
}

void TestModelCommands::supervisoryFlagIgnoredByOldGateway()
{
    VirtualScheduler sched;
    GatewayConfig config = costConfig();
    config.advertiseBulkSupervisory = false;
    GatewayModel model(sched, config);
    const auto id = open(model, sched).id();
    const int sh = registerClient(model, sched, id);
    auto sub = send(model, id, subscribeBulk(sh, tagNames(3), true));
    QVERIFY(runUntilAnswered(sched, sub));
    for (const auto& r : sub->reply.subscribe_bulk().results()) {
        const auto state = model.adviseState(id, r.item_handle());
        QVERIFY(state->plain);
        QVERIFY(!state->supervisory);
    }
    // ... so a write without a user now fails: the reason a client must not send it blind.
    auto w =
        send(model, id, write(sh, sub->reply.subscribe_bulk().results(0).item_handle(), 1.5, 0));
    QVERIFY(runUntilAnswered(sched, w));
    QVERIFY(!w->reply.success());
}

void TestModelCommands::writeWithoutUserNeedsSupervisoryAdvise()
{
    VirtualScheduler sched;
    GatewayModel model(sched, costConfig());
    const auto id = open(model, sched).id();
    const int sh = registerClient(model, sched, id);
    auto plain = send(model, id, subscribeBulk(sh, {"P.1"}, false));
    auto sup = send(model, id, subscribeBulk(sh, {"S.1"}, true));
    QVERIFY(runUntilAnswered(sched, sup));
    const int hp = plain->reply.subscribe_bulk().results(0).item_handle();
    const int hs = sup->reply.subscribe_bulk().results(0).item_handle();

    auto w1 = send(model, id, write(sh, hp, 1, 0));
    auto w2 = send(model, id, write(sh, hs, 1, 0));
    auto w3 = send(model, id, write(sh, hp, 1, 17));
    QVERIFY(runUntilAnswered(sched, w3));
    QVERIFY(w1->status.ok());
    QVERIFY(!w1->reply.success());
    QVERIFY(QString::fromStdString(w1->reply.error_message()).contains("supervisory advise"));
    QVERIFY(QString::fromStdString(w1->reply.error_message()).contains("plainly"));
    QVERIFY(w2->reply.success());
    QVERIFY(w3->reply.success());

    // Adding the supervisory advise to the plain item makes the write legal.
    auto adv = send(model, id, adviseSupervisory(sh, hp));
    auto w4 = send(model, id, write(sh, hp, 2, 0));
    QVERIFY(runUntilAnswered(sched, w4));
    QVERIFY(adv->reply.success());
    QVERIFY(w4->reply.success());
    QVERIFY(model.adviseState(id, hp)->plain && model.adviseState(id, hp)->supervisory);
}

void TestModelCommands::addingATagTwiceReturnsItsHandle()
{
    VirtualScheduler sched;
    GatewayModel model(sched, costConfig());
    const auto id = open(model, sched).id();
    const int sh = registerClient(model, sched, id);
    auto first = send(model, id, subscribeBulk(sh, tagNames(4), true));
    auto again = send(model, id, subscribeBulk(sh, tagNames(4), true));
    QVERIFY(runUntilAnswered(sched, again));
    for (int i = 0; i < 4; ++i)
        QCOMPARE(again->reply.subscribe_bulk().results(i).item_handle(),
                 first->reply.subscribe_bulk().results(i).item_handle());
    QCOMPARE(model.session(id)->items.size(), std::size_t(4));
    QCOMPARE(model.commandsRun(CommandKind::SubscribeBulk), 2);
}

// An item is found again by its server handle and tag address, both: the same tag under
// another server handle is another item, and a removed item's tag added again is a new one.
void TestModelCommands::anItemIsItsServerHandleAndTag()
{
    VirtualScheduler sched;
    GatewayModel model(sched, costConfig());
    const auto id = open(model, sched).id();
    const int sh1 = registerClient(model, sched, id);
    const int sh2 = registerClient(model, sched, id);
    QVERIFY(sh1 != sh2);
    auto a1 = send(model, id, addItem(sh1, "Tank.Level"));
    auto b1 = send(model, id, addItem(sh1, "Tank.Temp"));
    auto a2 = send(model, id, addItem(sh2, "Tank.Level"));
    auto a1again = send(model, id, addItem(sh1, "Tank.Level"));
    QVERIFY(runUntilAnswered(sched, a1again));
    const int h1 = a1->reply.add_item().item_handle();
    QVERIFY(h1 != 0);
    QVERIFY(b1->reply.add_item().item_handle() != h1);
    QVERIFY(a2->reply.add_item().item_handle() != h1);
    QCOMPARE(a1again->reply.add_item().item_handle(), h1);
    MxCommand rm;
    rm.mutable_remove_item()->set_server_handle(sh1);
    rm.mutable_remove_item()->set_item_handle(h1);
    auto removed = send(model, id, rm);
    auto readded = send(model, id, addItem(sh1, "Tank.Level"));
    auto other = send(model, id, addItem(sh2, "Tank.Level"));
    QVERIFY(runUntilAnswered(sched, other));
    QVERIFY(removed->reply.success());
    const int h1new = readded->reply.add_item().item_handle();
    QVERIFY(h1new != 0 && h1new != h1);
    QCOMPARE(other->reply.add_item().item_handle(), a2->reply.add_item().item_handle());
    QCOMPARE(model.session(id)->items.size(), std::size_t(3));
}

// --reuse-handles: a new item gets the lowest freed handle of its session; without it,
// handles only count up.
void TestModelCommands::removedHandlesAreHandedOutAgainLowestFirstWhenConfigured()
{
    for (const bool reuse : {true, false}) {
        VirtualScheduler sched;
        GatewayConfig config = costConfig();
        config.reuseHandles = reuse;
        GatewayModel model(sched, config);
        const auto id = open(model, sched).id();
        const int sh = registerClient(model, sched, id);
        auto sub = send(model, id, subscribeBulk(sh, {"A", "B", "C", "D"}, true));
        QVERIFY(runUntilAnswered(sched, sub));
        std::vector<int> handles;
        for (const auto& r : sub->reply.subscribe_bulk().results())
            handles.push_back(r.item_handle());
        QCOMPARE(handles, (std::vector<int>{1, 2, 3, 4}));
        auto remove = [&](int handle) {
            MxCommand rm;
            rm.mutable_remove_item()->set_server_handle(sh);
            rm.mutable_remove_item()->set_item_handle(handle);
            return send(model, id, rm);
        };
        remove(3);
        auto last = remove(2);
        QVERIFY(runUntilAnswered(sched, last));
        QVERIFY(last->reply.success());
        auto again = send(model, id, subscribeBulk(sh, {"E", "F", "G"}, true));
        QVERIFY(runUntilAnswered(sched, again));
        std::vector<int> next;
        for (const auto& r : again->reply.subscribe_bulk().results())
            next.push_back(r.item_handle());
        const std::vector<int> expected =
            reuse ? std::vector<int>{2, 3, 5} : std::vector<int>{5, 6, 7};
        QCOMPARE(next, expected);
        // The reused handle is the new item's: its tag, advised, in the data path.
        const auto* s = model.session(id);
        QCOMPARE(s->items.size(), std::size_t(5));
        QCOMPARE(s->items.find(next[0])->second.tag, std::string("E"));
        QVERIFY(s->items.find(next[0])->second.advise.supervisory);
    }
}

void TestModelCommands::removeAndUnAdvise()
{
    VirtualScheduler sched;
    GatewayModel model(sched, costConfig());
    const auto id = open(model, sched).id();
    const int sh = registerClient(model, sched, id);
    auto sub = send(model, id, subscribeBulk(sh, {"A", "B"}, true));
    QVERIFY(runUntilAnswered(sched, sub));
    const int ha = sub->reply.subscribe_bulk().results(0).item_handle();
    const int hb = sub->reply.subscribe_bulk().results(1).item_handle();
    MxCommand un;
    un.mutable_un_advise()->set_server_handle(sh);
    un.mutable_un_advise()->set_item_handle(ha);
    MxCommand rm;
    rm.mutable_remove_item()->set_server_handle(sh);
    rm.mutable_remove_item()->set_item_handle(hb);
    auto a1 = send(model, id, un);
    auto a2 = send(model, id, rm);
    auto a3 = send(model, id, rm); // already gone
    QVERIFY(runUntilAnswered(sched, a3));
    QVERIFY(a1->reply.success() && a2->reply.success());
    QVERIFY(!a3->reply.success());
    QVERIFY(!model.adviseState(id, ha)->any());
    QVERIFY(!model.adviseState(id, hb).has_value());
}

void TestModelCommands::statsCountOpenSessions()
{
    VirtualScheduler sched;
    GatewayModel model(sched, costConfig());
    const auto a = open(model, sched).id();
    const auto b = open(model, sched).id();
    QCOMPARE(model.stats().sessions(), 2);
    QVERIFY(close(model, sched, a).ok());
    QCOMPARE(model.stats().sessions(), 1);
    QCOMPARE(close(model, sched, a).code, StatusCode::NOT_FOUND);
    QCOMPARE(model.stats().sessions(), 1);
    QVERIFY(close(model, sched, b).ok());
    QCOMPARE(model.stats().sessions(), 0);
    open(model, sched);
    model.restart(1s);
    QCOMPARE(model.stats().sessions(), 0);
}

void TestModelCommands::closeSessionDropsItsQueuedCommands()
{
    VirtualScheduler sched;
    GatewayModel model(sched, costConfig(2, 0.5));
    QVERIFY(model.config().closeDropsQueuedCommands); // the default
    const auto closing = open(model, sched).id();
    const auto other = open(model, sched).id();
    const int sh = registerClient(model, sched, closing);
    const auto registersRun = model.commandsRun(CommandKind::Register);
    model.wedge(10s);
    const Time t0 = sched.now();
    std::vector<AnswerPtr> queued;
    for (int i = 0; i < 20; ++i) // 20 × 52 ms of STA time
        queued.push_back(send(model, closing, subscribeBulk(sh, tagNames(100), true)));
    auto reg = send(model, other, registerCommand());
    QCOMPARE(model.staQueueDepth(), std::size_t(21));

    QVERIFY(close(model, sched, closing).ok());
    QCOMPARE(model.staQueueDepth(), std::size_t(1)); // only the other session's register
    for (const auto& a : queued) {                   // answered, not left hanging
        QCOMPARE(a->calls, 1);
        QCOMPARE(a->status.code, StatusCode::CANCELLED);
        QCOMPARE(a->status.message, std::string("session closed"));
    }
    QVERIFY(runUntilAnswered(sched, reg));
    QVERIFY(reg->status.ok());
    QCOMPARE(reg->at - t0, ms(10000 + 2)); // straight after the wedge: nothing ahead of it
    sched.runFor(100s);
    QCOMPARE(model.commandsRun(CommandKind::SubscribeBulk), 0);
    QCOMPARE(model.commandsRun(CommandKind::Register), registersRun + 1);
    QCOMPARE(model.deadlineExceeded(), 0);
    for (const auto& a : queued)
        QCOMPARE(a->calls, 1);
}

void TestModelCommands::closeSessionKeepsQueuedCommandsWhenConfigured()
{
    VirtualScheduler sched;
    GatewayConfig config = costConfig(2, 0.5);
    config.closeDropsQueuedCommands = false;
    GatewayModel model(sched, config);
    const auto closing = open(model, sched).id();
    const auto other = open(model, sched).id();
    const int sh = registerClient(model, sched, closing);
    model.wedge(10s);
    const Time t0 = sched.now();
    std::vector<AnswerPtr> queued;
    for (int i = 0; i < 20; ++i)
        queued.push_back(send(model, closing, subscribeBulk(sh, tagNames(100), true)));
    auto reg = send(model, other, registerCommand());
    QVERIFY(close(model, sched, closing).ok());
    QCOMPARE(model.staQueueDepth(), std::size_t(21));
    QVERIFY(runUntilAnswered(sched, reg));
    QCOMPARE(reg->at - t0, ms(10000 + 20 * 52 + 2)); // behind the closed session's work
    QCOMPARE(model.commandsRun(CommandKind::SubscribeBulk), 20);
    for (const auto& a : queued) {
        QVERIFY(a->status.ok());
        QVERIFY(!a->reply.success());
    }
}

void TestModelCommands::closeDropsQueuedCommandsInMockConfig()
{
    GatewayConfig config;
    QVERIFY(toProto(config).close_drops_queued_commands());
    mxgateway::mock::v1::SetConfigRequest request;
    QVERIFY(applied(config, request).closeDropsQueuedCommands); // absent: unchanged
    request.set_close_drops_queued_commands(false);
    config = applied(config, request);
    QVERIFY(!config.closeDropsQueuedCommands);
    QVERIFY(!toProto(config).close_drops_queued_commands());
}

void TestModelCommands::outstandingSubscribesCountsConcurrentIdenticalOnes()
{
    VirtualScheduler sched;
    GatewayModel model(sched, costConfig());
    const auto id = open(model, sched).id();
    const int sh = registerClient(model, sched, id);
    QCOMPARE(model.maxOutstandingSubscribes(), 0);
    const auto tags = tagNames(10);
    auto a = send(model, id, addItemBulk(sh, tags));
    auto b = send(model, id, addItemBulk(sh, tags));
    QCOMPARE(model.outstandingSubscribes(id, tags), 2);
    QCOMPARE(model.outstandingSubscribes(), 2);
    QCOMPARE(model.maxOutstandingSubscribes(), 2);
    QCOMPARE(model.stats().outstanding_subscribes(), 2);
    QVERIFY(runUntilAnswered(sched, a));
    QCOMPARE(model.outstandingSubscribes(id, tags), 1);
    QVERIFY(runUntilAnswered(sched, b));
    QCOMPARE(model.outstandingSubscribes(id, tags), 0);
    QCOMPARE(model.outstandingSubscribes(), 0);
    QCOMPARE(model.maxOutstandingSubscribes(), 2);
    const auto st = model.stats();
    QCOMPARE(st.max_outstanding_subscribes(), 2);
    QCOMPARE(st.outstanding_subscribes(), 0);
}

void TestModelCommands::outstandingSubscribesSequentialStaysAtOne()
{
    VirtualScheduler sched;
    GatewayModel model(sched, costConfig());
    const auto id = open(model, sched).id();
    const int sh = registerClient(model, sched, id);
    const auto tags = tagNames(10);
    for (int i = 0; i < 3; ++i) {
        auto a = send(model, id, i % 2 ? addItemBulk(sh, tags) : subscribeBulk(sh, tags, true));
        QCOMPARE(model.outstandingSubscribes(id, tags), 1);
        QVERIFY(runUntilAnswered(sched, a));
        QCOMPARE(model.outstandingSubscribes(id, tags), 0);
    }
    auto advise = send(model, id, adviseItemBulk(sh, {1, 2})); // not a subscribe-type command
    QCOMPARE(model.outstandingSubscribes(), 0);
    QVERIFY(runUntilAnswered(sched, advise));
    QCOMPARE(model.maxOutstandingSubscribes(), 1);
    QCOMPARE(model.stats().max_outstanding_subscribes(), 1);
}

void TestModelCommands::outstandingSubscribesKeyedBySessionAndTagSet()
{
    VirtualScheduler sched;
    GatewayModel model(sched, costConfig());
    const auto one = open(model, sched).id();
    const auto two = open(model, sched).id();
    const int sh1 = registerClient(model, sched, one);
    const int sh2 = registerClient(model, sched, two);
    const auto tagsA = tagNames(10, "A.Attr");
    const auto tagsB = tagNames(10, "B.Attr");
    auto reversed = tagsA;
    std::reverse(reversed.begin(), reversed.end());
    std::vector<AnswerPtr> answers = {
        send(model, one, addItemBulk(sh1, tagsA)), send(model, one, addItemBulk(sh1, tagsB)),
        send(model, one, addItemBulk(sh1, reversed)), // another list of addresses: another key
        send(model, two, addItemBulk(sh2, tagsA)),    // another session: another key
    };
    QCOMPARE(model.outstandingSubscribes(one, tagsA), 1);
    QCOMPARE(model.outstandingSubscribes(one, tagsB), 1);
    QCOMPARE(model.outstandingSubscribes(one, reversed), 1);
    QCOMPARE(model.outstandingSubscribes(two, tagsA), 1);
    QCOMPARE(model.outstandingSubscribes(), 1);
    QCOMPARE(model.maxOutstandingSubscribes(), 1);
    QVERIFY(runUntilAnswered(sched, answers.back()));
    QCOMPARE(model.outstandingSubscribes(), 0);
    QCOMPARE(model.maxOutstandingSubscribes(), 1);
}

void TestModelCommands::outstandingSubscribeEndsWithItsDeadlineOrAFailure()
{
    VirtualScheduler sched;
    GatewayModel model(sched, costConfig());
    const auto id = open(model, sched, 1s).id();
    const int sh = registerClient(model, sched, id);
    const auto tags = tagNames(10);
    model.wedge(5s);
    auto a = send(model, id, subscribeBulk(sh, tags, true));
    auto b = send(model, id, subscribeBulk(sh, tags, true));
    QVERIFY(runUntilAnswered(sched, b));
    QCOMPARE(b->status.code, StatusCode::DEADLINE_EXCEEDED);
    QCOMPARE(model.outstandingSubscribes(id, tags),
             0); // answered, though the STA still owes the work
    QCOMPARE(model.staQueueDepth(), std::size_t(2));
    sched.runFor(10s);
    QCOMPARE(model.commandsRun(CommandKind::SubscribeBulk), 2);
    QCOMPARE(model.outstandingSubscribes(), 0);
    QCOMPARE(model.maxOutstandingSubscribes(), 2);

    model.wedge(5s);
    auto c = send(model, id, addItemBulk(sh, tags));
    QCOMPARE(model.outstandingSubscribes(id, tags), 1);
    model.restart(1s); // failed UNAVAILABLE
    QCOMPARE(model.outstandingSubscribes(), 0);
    sched.runFor(1ms);
    QCOMPARE(c->status.code, StatusCode::UNAVAILABLE);
}

// A storm's stacked subscribes hold one tag list between them, not one
// each; a different kind, server handle, supervisory flag or tag list is a payload of its own,
// and nothing is held once the jobs are done.
void TestModelCommands::queuedBulkCommandsShareOnePayload()
{
    VirtualScheduler sched;
    GatewayModel model(sched, costConfig());
    const auto id = open(model, sched).id();
    const int sh = registerClient(model, sched, id);
    const auto tags = tagNames(50);
    model.wedge(10s);
    std::vector<AnswerPtr> same;
    for (int i = 0; i < 5; ++i)
        same.push_back(send(model, id, addItemBulk(sh, tags)));
    QCOMPARE(model.sharedPayloads(), std::size_t(1));
    auto p1 = model.shareCommand(addItemBulk(sh, tags));
    auto p2 = model.shareCommand(addItemBulk(sh, tags));
    QCOMPARE(p1.get(), p2.get());
    QCOMPARE(p1->add_item_bulk().tag_addresses_size(), 50);
    std::vector<AnswerPtr> other{
        send(model, id, subscribeBulk(sh, tags, true)),
        send(model, id, subscribeBulk(sh, tags, false)),
        send(model, id, addItemBulk(sh + 1, tags)),
        send(model, id, addItemBulk(sh, tagNames(50, "Z28062.Attr"))),
    };
    auto reversed = tags;
    std::reverse(reversed.begin(), reversed.end());
    other.push_back(send(model, id, addItemBulk(sh, reversed)));
    QCOMPARE(model.sharedPayloads(), std::size_t(6));
    QCOMPARE(model.staQueueDepth(), std::size_t(10));
    p1.reset();
    p2.reset();
    for (const auto& a : same) {
        QVERIFY(runUntilAnswered(sched, a));
        QVERIFY(a->status.ok());
        QCOMPARE(a->reply.add_item_bulk().results_size(), 50);
    }
    for (const auto& a : other)
        QVERIFY(runUntilAnswered(sched, a));
    sched.runFor(60s);
    QCOMPARE(model.staQueueDepth(), std::size_t(0));
    QCOMPARE(model.sharedPayloads(), std::size_t(0));
}

// Item handles, server handles and alarm subscription ids are int32 on the wire: a session
// that has handed out every one refuses the next instead of overflowing (undefined in C++)
// into negative or repeated handles.
void TestModelCommands::handleCountersStopAtTheEndOfTheirRange()
{
    std::int32_t counter = 1;
    QCOMPARE(takeHandle(counter), std::optional<std::int32_t>(1));
    QCOMPARE(takeHandle(counter), std::optional<std::int32_t>(2));
    counter = std::numeric_limits<std::int32_t>::max() - 1;
    QCOMPARE(takeHandle(counter),
             std::optional<std::int32_t>(std::numeric_limits<std::int32_t>::max() - 1));
    QCOMPARE(takeHandle(counter), std::nullopt);
    QCOMPARE(takeHandle(counter), std::nullopt); // and stays exhausted
}

QTEST_GUILESS_MAIN(TestModelCommands)
#include "tst_model_commands.moc"
