// GatewayModel's silent faults and the connection reset, on the VirtualScheduler: a frozen or
// half-open gateway sends nothing (replies, deadline answers, session answers, events) until
// the silence ends, then all of it in order; a reset fails what is in flight and ends every
// stream while the sessions and the STA's queue stay.
#include "gateway/mock_control.h"
#include "support_model.h"

#include <QTest>

using namespace testsupport;
using namespace mxgateway::v1;
using grpc::StatusCode;

namespace {
GatewayConfig config(double dataHz)
{
    GatewayConfig c;
    c.commandMs = 2;
    c.perItemMs = 0.5;
    c.dataHz = dataHz;
    return c;
}
} // namespace

class TestModelSilence : public QObject {
    Q_OBJECT
private slots:
    void aSilentGatewaySendsNothingUntilItEnds();
    void aDeadlineThatPassesInASilenceIsAnsweredAfterIt();
    void halfOpenAnswersPingsAFreezeDoesNot();
    void silenceListenersHearItsStartAndEnd();
    void aResetFailsWhatIsInFlightAndKeepsTheSessions();
    void freezeFaultRequestsGoToTheProcessWhenItCanStop();
};

void TestModelSilence::aSilentGatewaySendsNothingUntilItEnds()
{
    VirtualScheduler sched;
    GatewayModel model(sched, config(2));
    const auto id = open(model, sched).id();
    const int sh = registerClient(model, sched, id);
    auto stream = listen(model, id);
    auto subscribed = send(model, id, subscribeBulk(sh, tagNames(5), true));
    QVERIFY(runUntilAnswered(sched, subscribed));
    sched.runUntil(sched.now() + 2s);
    QVERIFY(stream->changes() > 0);

    const Time t0 = sched.now();
    model.silence(10s, false);
    QVERIFY(model.silent() && model.frozen());
    stream->clear();
    auto during = send(model, id, addItem(sh, "Late"));
    Opened second;
    bool opened = false;
    model.openSession(OpenSessionRequest{}, [&](CallStatus st, OpenSessionReply r) {
        second = Opened{st, r};
        opened = true;
    });
    sched.runUntil(t0 + 9999ms);
    QCOMPARE(stream->changes(), std::size_t(0)); // no value changes while stopped
    QVERIFY(!during->answered());
    QVERIFY(!opened);
    QCOMPARE(model.commandsRun(CommandKind::AddItem), 0);

    QVERIFY(runUntilAnswered(sched, during));
    QVERIFY(during->status.ok());
    QVERIFY(during->at >= t0 + 10s);
    QVERIFY(opened && second.status.ok());
    QVERIFY(!model.silent());
    sched.runUntil(sched.now() + 2s);
    QVERIFY(stream->changes() > 0); // data flows again
}

void TestModelSilence::aDeadlineThatPassesInASilenceIsAnsweredAfterIt()
{
    VirtualScheduler sched;
    GatewayModel model(sched, config(0));
    const auto id = open(model, sched, 1s).id();
    const int sh = registerClient(model, sched, id);
    const Time t0 = sched.now();
    model.silence(5s, true);
    auto a = send(model, id, addItem(sh, "T"));
    QVERIFY(runUntilAnswered(sched, a));
    QCOMPARE(a->status.code, StatusCode::DEADLINE_EXCEEDED); // its deadline passed at 1 s
    QVERIFY(a->at >= t0 + 5s);                               // but nobody heard it before 5 s
}

void TestModelSilence::halfOpenAnswersPingsAFreezeDoesNot()
{
    VirtualScheduler sched;
    GatewayModel model(sched, config(0));
    model.silence(5s, true);
    QVERIFY(model.silent() && !model.frozen());
    model.silence(5s, false);
    QVERIFY(model.silent() && model.frozen());
    model.silence(Duration::zero(), false);
    QVERIFY(!model.silent() && !model.frozen());
}

void TestModelSilence::silenceListenersHearItsStartAndEnd()
{
    VirtualScheduler sched;
    GatewayModel model(sched, config(0));
    std::vector<bool> heard;
    const int listener = model.addSilenceListener([&] { heard.push_back(model.silent()); });
    const Time t0 = sched.now();
    model.silence(3s, false);
    sched.runUntil(t0 + 4s);
    QCOMPARE(heard, std::vector<bool>({true, false}));
    model.removeSilenceListener(listener);
    model.silence(1s, false);
    QCOMPARE(heard.size(), std::size_t(2));
}

void TestModelSilence::aResetFailsWhatIsInFlightAndKeepsTheSessions()
{
    VirtualScheduler sched;
    GatewayModel model(sched, config(0));
    const auto id = open(model, sched).id();
    const int sh = registerClient(model, sched, id);
    auto stream = listen(model, id);
    model.wedge(5s);
    auto queued = send(model, id, subscribeBulk(sh, tagNames(4), true));
    sched.runUntil(sched.now() + 1s);
    QCOMPARE(model.outstandingSubscribes(), std::int64_t(1));

    model.resetPeer();
    QVERIFY(runUntilAnswered(sched, queued));
    QCOMPARE(queued->status.code, StatusCode::UNAVAILABLE);
    QVERIFY(QString::fromStdString(queued->status.message).contains("connection reset"));
    QCOMPARE(stream->ends, 1);
    QCOMPARE(stream->endStatus.code, StatusCode::UNAVAILABLE);
    QCOMPARE(model.sessionCount(), std::size_t(1));           // the process and its sessions stay
    QCOMPARE(model.outstandingSubscribes(), std::int64_t(0)); // answered, to nobody's use

    // The STA still runs what it queued: the items exist when the wedge ends.
    sched.runUntil(sched.now() + 6s);
    QCOMPARE(model.commandsRun(CommandKind::SubscribeBulk), 1);
    QCOMPARE(model.session(id)->items.size(), std::size_t(4));
    QCOMPARE(queued->calls, 1);
}

void TestModelSilence::freezeFaultRequestsGoToTheProcessWhenItCanStop()
{
    VirtualScheduler sched;
    GatewayModel model(sched, config(0));
    mxgateway::mock::v1::FaultRequest freeze;
    freeze.mutable_freeze()->set_duration_s(2);
    std::string description;
    // Without a process to stop (virtual time): the model freezes.
    QVERIFY(injectFault(model, freeze, description).ok());
    QVERIFY(model.frozen());
    model.silence(Duration::zero(), false);
    // A process that can stop itself is asked, and the model is left alone.
    double asked = 0;
    QVERIFY(injectFault(model, freeze, description, [&](double s, std::string& d) {
                asked = s;
                d = "stopped";
                return CallStatus{};
            }).ok());
    QCOMPARE(asked, 2.0);
    QCOMPARE(description, std::string("stopped"));
    QVERIFY(!model.silent());
    // One inside another program refuses, and says why.
    const CallStatus refused = injectFault(model, freeze, description, refuseFreeze);
    QCOMPARE(refused.code, StatusCode::FAILED_PRECONDITION);
    QVERIFY(QString::fromStdString(refused.message).contains("own process"));
    freeze.mutable_freeze()->set_duration_s(-1);
    QCOMPARE(injectFault(model, freeze, description).code, StatusCode::INVALID_ARGUMENT);

    mxgateway::mock::v1::FaultRequest halfOpen;
    halfOpen.mutable_half_open()->set_duration_s(3);
    QVERIFY(injectFault(model, halfOpen, description).ok());
    QVERIFY(model.silent() && !model.frozen());
}

QTEST_GUILESS_MAIN(TestModelSilence)
#include "tst_model_silence.moc"
