// ClientEngine against the mock model in virtual time: levers applied at run time, redeploy,
// the alarm guard lever, and session setup past a recovering gate.
#include "client/client_engine.h"
#include "client/engine_batcher.h"
#include "support_virtual_gateway.h"

#include <QtTest>
#include <numeric>

using namespace stormwatch;
using namespace stormwatch::testing;
using namespace std::chrono_literals;
using gateway::CommandKind;

namespace {

struct Recorder : EngineObserver {
    std::vector<std::pair<int, std::size_t>> tagBatches; // instance, size
    std::vector<std::string> logs;
    void onTagsChanged(const Instance&, int instance, const std::vector<int>& tags) override
    {
        tagBatches.emplace_back(instance, tags.size());
    }
    void onLog(Severity, const std::string& subject, const std::string& message) override
    {
        logs.push_back(subject + ": " + message);
    }
    bool logged(const std::string& fragment) const
    {
        return std::any_of(logs.begin(), logs.end(), [&](const std::string& l) {
            return l.find(fragment) != std::string::npos;
        });
    }
};

// The in-process port, speaking a contract without a SubscribeAlarms command (the published
// one), or one set up with an error (a contract that does not check).
class NoAlarmsPort final : public GatewayPort {
public:
    explicit NoAlarmsPort(GatewayPort& inner, std::string setupError = {})
        : m_inner(inner), m_setupError(std::move(setupError))
    {
    }
    const std::string& setupError() const override { return m_setupError; }
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
        m_inner.invoke(r, std::move(d));
    }
    StreamId streamEvents(const mxgateway::v1::StreamEventsRequest& r, EventFn e,
                          EndFn end) override
    {
        return m_inner.streamEvents(r, std::move(e), std::move(end));
    }
    void cancelStream(StreamId id) override { m_inner.cancelStream(id); }
    bool canSubscribeAlarms() const override { return false; }
    std::string describe() const override { return "no alarms"; }

private:
    GatewayPort& m_inner;
    std::string m_setupError;
};

EngineConfig config(const QString& preset, int tags = 10, bool alarms = false)
{
    EngineConfig c;
    c.levers = *leverPreset(preset, nullptr);
    c.connections.push_back({"gw1", 0});
    c.instances.push_back({"Z28061", "gw1", makeTags("Z28061.Attr", tags), alarms});
    return c;
}

} // namespace

class TestClientEngine : public QObject {
    Q_OBJECT
private slots:
    // A gateway whose session lives but which answers nothing and sends nothing (its STA
    // wedged, no data changing): once a command goes past MxCommandTimeoutMs with nothing
    // heard for as long, the connection is unresponsive and every Good tag is Uncertain, last
    // usable value, never Good; the first answer makes them Good again on the same session.
    void anUnansweringGatewayMakesGoodTagsLastUsableUntilItAnswers()
    {
        gateway::GatewayConfig gc;
        gc.dataHz = 0; // on change only, and nothing changes
        VirtualGateway gw(gc);
        EngineConfig c = config("lever1+2", 10);
        c.instances.push_back({"Z28062", "gw1", makeTags("Z28062.Attr", 5), false});
        ClientEngine engine(gw.sched, gw.port, c);
        Recorder rec;
        engine.setObserver(&rec);
        engine.startConnections();
        engine.deploy(0);
        gw.sched.runFor(3s);
        QCOMPARE(engine.instances()[0]->counts().good, 10);
        const std::string session = engine.connections()[0]->sessionId();

        gw.model.wedge(120s);
        engine.deploy(1); // its subscribe waits on the wedged STA
        // The session's command timeout (shorter than the client's MxCommandTimeoutMs here)
        // is the first deadline the subscribe passes.
        QVERIFY(gc.defaultCommandTimeout < engine.connections()[0]->config().commandTimeout);
        gw.sched.runFor(gc.defaultCommandTimeout - 1s);
        QCOMPARE(engine.connections()[0]->stateText(),
                 std::string("connected")); // a slow STA, so far
        QCOMPARE(engine.instances()[0]->counts().good, 10);
        gw.sched.runFor(2s);
        QCOMPARE(engine.connections()[0]->stateText(), std::string("unresponsive"));
        QVERIFY(engine.connections()[0]->unresponsiveSince().has_value());
        QCOMPARE(engine.instances()[0]->counts().good, 0);
        QCOMPARE(engine.instances()[0]->counts().uncertain, 10);
        for (int t = 0; t < 10; ++t)
            QCOMPARE(engine.instances()[0]->tags()[std::size_t(t)].quality,
                     kQualityUncertainLastUsable);
        QVERIFY(rec.logged("unresponsive: a command went unanswered past its deadline"));

        gw.sched.runFor(150s); // the wedge ends; the STA answers what it holds
        QCOMPARE(engine.connections()[0]->stateText(), std::string("connected"));
        QVERIFY(!engine.connections()[0]->unresponsiveSince());
        QCOMPARE(engine.connections()[0]->sessionId(), session); // no new session was needed
        QCOMPARE(engine.instances()[0]->counts().good, 10);
        QCOMPARE(engine.orphanedTags(), 0);
        QVERIFY(rec.logged("responsive again after"));
    }

    // Lever retry_budget through the engine: a restart fails the deployed subscribes at
    // once, the connection says once that its budget holds retries back, the run counts them,
    // and every tag still comes back (one probe per longest retry interval), none orphaned.
    void aRestartSpendsTheRetryBudgetAndTheConnectionSaysSoOnce()
    {
        gateway::GatewayConfig gc;
        gc.perItemMs = 100; // each subscribe holds the STA for about a second
        VirtualGateway gw(gc);
        EngineConfig c;
        c.levers = *leverPreset("levers-off", nullptr);
        c.levers.retryBudget = true;
        c.connections.push_back({"gw1", 0});
        for (int i = 0; i < 6; ++i) {
            const std::string name = "I" + std::to_string(i);
            c.instances.push_back({name, "gw1", makeTags(name + ".Attr", 10), false});
        }
        ClientEngine engine(gw.sched, gw.port, c);
        Recorder rec;
        engine.setObserver(&rec);
        engine.startConnections();
        engine.deployAll();
        gw.sched.runFor(500ms);
        gw.model.restart(5s);
        gw.sched.runFor(60s);
        QVERIFY(engine.connections()[0]->retryBudget().throttling());
        QVERIFY(engine.throttledRetries() > 0);
        const auto warned =
            std::count_if(rec.logs.begin(), rec.logs.end(), [](const std::string& l) {
                return l.find(
                           "gw1: retry budget half spent by failures: retries held back, one probe "
                           "per 60 s") != std::string::npos;
            });
        QCOMPARE(warned, 1);
        gw.sched.runFor(600s);
        for (const auto& instance : engine.instances())
            QCOMPARE(instance->counts().good, 10);
        QCOMPARE(engine.orphanedTags(), 0);
    }

    void rejectsAnInstanceOnAnUnknownConnection()
    {
        EngineConfig c = config("all");
        c.instances[0].connection = "plc9";
        QVERIFY(QString::fromStdString(ClientEngine::validate(c)).contains("plc9"));
        QVERIFY(ClientEngine::validate(config("all")).empty());
    }

    void redeployRemovesReaddsAndResetsTags()
    {
        VirtualGateway gw;
        ClientEngine engine(gw.sched, gw.port, config("lever1+2", 10));
        Recorder rec;
        engine.setObserver(&rec);
        engine.startConnections();
        engine.deployAll();
        gw.sched.runFor(3s);
        QCOMPARE(engine.deployedCounts().good, 10);

        rec.tagBatches.clear();
        QVERIFY(engine.redeploy("Z28061"));
        QCOMPARE(engine.deployedCounts().uncertain, 10); // every tag starts over ...
        QVERIFY(!rec.tagBatches.empty());
        QCOMPARE(rec.tagBatches.front().second, std::size_t(10)); // ... and the views are told
        gw.sched.runFor(3s);
        QCOMPARE(gw.model.invokeRpcs(CommandKind::RemoveItem), std::int64_t(10));
        QCOMPARE(gw.model.invokeRpcs(CommandKind::SubscribeBulk), std::int64_t(2));
        QCOMPARE(engine.deployedCounts().good, 10);
        QCOMPARE(engine.subscribeRequests(), std::int64_t(2)); // one per deployment
        QVERIFY(!engine.redeploy("nope"));
    }

    void leversApplyAtRunTime()
    {
        VirtualGateway gw;
        gw.model.refuseSessions(std::chrono::hours(1)); // every subscribe stays unanswered
        ClientEngine engine(gw.sched, gw.port, config("levers-off"));
        Recorder rec;
        engine.setObserver(&rec);
        engine.startConnections();
        engine.deployAll();
        gw.sched.runUntil(20s - 1us);
        QCOMPARE(engine.subscribeRequests(), std::int64_t(4)); // 0, 5, 10, 15 s
        engine.applyLevers(*leverPreset("lever1", nullptr));
        QVERIFY(rec.logged("levers changed"));
        gw.sched.runUntil(60s - 1us); // the 15 s request blocks re-sends until its 45 s ceiling
        QCOMPARE(engine.subscribeRequests(), std::int64_t(4));
        gw.sched.runUntil(60s);
        QCOMPARE(engine.subscribeRequests(), std::int64_t(5));
    }

    void severalObserversHearTheSameEngine()
    {
        VirtualGateway gw;
        ClientEngine engine(gw.sched, gw.port, config("lever1+2", 10));
        Recorder metrics, console;
        engine.addObserver(&metrics);
        engine.addObserver(&console);
        engine.addObserver(&console); // once is enough
        engine.startConnections();
        engine.deployAll();
        gw.sched.runFor(3s);
        QVERIFY(!metrics.logs.empty());
        QCOMPARE(console.logs, metrics.logs); // every line, once each, to both
        QCOMPARE(console.tagBatches, metrics.tagBatches);
        QVERIFY(console.logged("deployed with 10 tags"));

        engine.removeObserver(&console);
        const std::size_t heard = console.logs.size();
        engine.applyLevers(*leverPreset("all", nullptr));
        QVERIFY(metrics.logged("levers changed"));
        QCOMPARE(console.logs.size(), heard);

        engine.setObserver(&console); // the one observer: the others leave
        const std::size_t metricsHeard = metrics.logs.size();
        engine.redeploy("Z28061");
        QVERIFY(console.logged("redeploy"));
        QCOMPARE(metrics.logs.size(), metricsHeard);
        engine.setObserver(nullptr);
        engine.redeploy("Z28061");
        QCOMPARE(metrics.logs.size(), metricsHeard);
    }

    void lever3ChangeIsLoggedForTheNextSession()
    {
        VirtualGateway gw;
        ClientEngine engine(gw.sched, gw.port, config("lever1"));
        Recorder rec;
        engine.setObserver(&rec);
        engine.startConnections();
        gw.sched.runFor(1s);
        LeverSet levers = engine.levers();
        levers.sessionCommandTimeoutMs = 45000;
        engine.applyLevers(levers);
        QVERIFY(rec.logged("applies at the next session open"));
        QCOMPARE(engine.connections()[0]->echoedCommandTimeout(), std::optional<Duration>(30s));
    }

    void alarmGuardOffIsThePreFixAlarmRetry()
    {
        for (const bool guardOn : {false, true}) {
            VirtualGateway gw;
            gw.model.refuseSessions(std::chrono::hours(1));
            EngineConfig c = config("lever1", 3, /*alarms=*/true);
            c.levers.alarmGuard = guardOn;
            ClientEngine engine(gw.sched, gw.port, c);
            engine.startConnections();
            engine.deployAll();
            gw.sched.runUntil(110s - 1us);
            const auto sent = engine.instances()[0]->alarmRequestsSent();
            // Off: a fixed 2 × 5 s interval, no in-flight check — 11 in 110 s. On: guarded like
            // tags.
            QCOMPARE(sent, guardOn ? std::int64_t(3) : std::int64_t(11));
        }
    }

    void anAlarmSubscriptionTheContractCannotCarryIsSaidOnceAndNeverSent()
    {
        VirtualGateway gw;
        NoAlarmsPort port(gw.port);
        ClientEngine engine(gw.sched, port, config("all", 3, /*alarms=*/true));
        Recorder rec;
        engine.setObserver(&rec);
        engine.startConnections();
        engine.deployAll();
        gw.sched.runFor(120s);
        QCOMPARE(engine.instances()[0]->alarmRequestsSent(), std::int64_t(0));
        QCOMPARE(std::count_if(rec.logs.begin(), rec.logs.end(),
                               [](const std::string& l) {
                                   return l.find("has no SubscribeAlarms command") !=
                                          std::string::npos;
                               }),
                 std::ptrdiff_t(1));
        QCOMPARE(engine.instances()[0]->counts().good, 3); // the tags themselves are unaffected
    }

    void aPortThatMaySendNothingIsRefusedAndSaysWhy()
    {
        VirtualGateway gw;
        NoAlarmsPort port(gw.port, "contract site.proto: MxEvent has no field item_handle");
        ClientEngine engine(gw.sched, port, config("all", 3));
        Recorder rec;
        engine.setObserver(&rec);
        engine.startConnections();
        engine.deployAll();
        gw.sched.runFor(300s);
        const GatewayConnection& c = *engine.connections()[0];
        QCOMPARE(c.state(), ConnectionState::Refused);
        QCOMPARE(c.stateText(), std::string("refused"));
        QVERIFY2(c.lastError().find("MxEvent has no field item_handle") != std::string::npos,
                 c.lastError().c_str());
        QVERIFY(rec.logged("no command is sent"));
        QCOMPARE(gw.model.sessionCount(), std::size_t(0));
        QCOMPARE(gw.model.invokeRpcs(), std::int64_t(0));
        QCOMPARE(engine.instances()[0]->counts().good, 0);
        QCOMPARE(c.stats().sessionsOpened, std::int64_t(0));
    }

    void sessionSetupPassesARecoveringGate()
    {
        VirtualGateway gw;
        EngineConfig c = config("lever1+2");
        c.levers.recovery.enabled = true;
        c.levers.recovery.strategy = RecoveryConfig::Strategy::None; // closed until reset
        c.levers.recovery.failHandler = RecoveryConfig::FailHandler::Simple;
        ClientEngine engine(gw.sched, gw.port, c);
        engine.startConnections();
        gw.sched.runFor(1s);
        engine.gate().recordFailure("DEADLINE_EXCEEDED: test");
        QVERIFY(engine.gate().recovering());
        gw.model.restart(1s);
        gw.sched.runFor(10s);
        QVERIFY(engine.connections()[0]->connected()); // Register is not a gated call
        QCOMPARE(engine.connections()[0]->stats().sessionsOpened, std::int64_t(2));
        engine.deployAll();
        gw.sched.runFor(1s);
        QVERIFY(engine.gate().suppressedCalls() >= 1); // the subscribe is
    }

    // A subscribe refused by the recovery gate never reached the gateway: the guard keeps
    // its floor, so the first retry after the period ends comes within one floor interval.
    void subscribesRefusedDuringRecoveryRetryPromptlyWhenItEnds()
    {
        VirtualGateway gw;
        EngineConfig c = config("lever1+2");
        c.levers.recovery.enabled = true;
        c.levers.recovery.strategy = RecoveryConfig::Strategy::Simple;
        c.levers.recovery.failHandler = RecoveryConfig::FailHandler::Simple;
        c.levers.recovery.recoverySeconds = 60;
        ClientEngine engine(gw.sched, gw.port, c);
        engine.startConnections();
        gw.sched.runFor(1s);
        engine.gate().recordFailure("DEADLINE_EXCEEDED: test");
        QVERIFY(engine.gate().recovering());
        const Time recoveryEnds = *engine.gate().recoveryEndsAt();
        engine.deployAll();
        const Instance& instance = *engine.instances()[0];
        const TagSubscribeGuard& guard = *instance.guard(0);
        const Duration floor = guard.timing().floor;
        while (gw.sched.now() < recoveryEnds) {
            QVERIFY(gw.sched.runNext());
            QCOMPARE(guard.interval(), floor); // refusals do not stretch it
        }
        QVERIFY(engine.gate().suppressedCalls() >= 10); // refused every floor interval
        QCOMPARE(instance.counts().good, 0);
        gw.sched.runUntil(recoveryEnds + floor + 1s);
        QCOMPARE(instance.counts().good, 10);
    }

    // Defect 2: the connection's one-shot re-subscribe after a reconnect fails (the STA is
    // slowed past the command timeout) and, the guard being confirmed, nothing retries it.
    // The tags are orphaned for good; with resubscribe_guard the guard retries until Good.
    void failedReSubscribeAfterReconnectIsRetriedByTheGuard()
    {
        for (bool lever : {false, true}) {
            gateway::GatewayConfig gc;
            gc.commandMs = 20;
            gc.perItemMs = 1;
            VirtualGateway gw(gc);
            EngineConfig c = config("lever1+2", 244);
            c.levers.resubscribeGuard = lever;
            ClientEngine engine(gw.sched, gw.port, c);
            engine.startConnections();
            engine.deployAll();
            gw.sched.runFor(30s);
            QCOMPARE(engine.deployedCounts().good, 244);
            QCOMPARE(engine.orphanedTags(), 0);
            gw.model.restart(5s);
            gw.sched.runFor(5s);
            gw.model.slow(400, 120s); // a 244-tag subscribe now takes ~100 s, past 30 s
            gw.sched.runFor(60s);
            QCOMPARE(engine.deployedCounts().good, 0);
            if (!lever) {
                QCOMPARE(engine.orphanedTags(), 244); // Bad, no route, nothing will retry
                gw.sched.runFor(600s);
                QCOMPARE(engine.deployedCounts().good, 0);
                QCOMPARE(engine.subscribeRequests(), std::int64_t(1));
            } else {
                QCOMPARE(engine.orphanedTags(), 0);
                gw.sched.runFor(600s);
                QCOMPARE(engine.deployedCounts().good, 244);
                QVERIFY(engine.subscribeRequests() > 2);
            }
        }
    }

    // Defect 4: Lever 3 raises the session's command timeout to 60 s; the 45 s ceiling
    // presumed the first subscribe lost while the gateway still held it. The ceiling is now
    // the echoed timeout + margin (75 s), and the gateway never holds two.
    void ceilingFollowsTheEchoedSessionTimeout()
    {
        gateway::GatewayConfig gc;
        gc.advertiseBulkSupervisory = false;
        VirtualGateway gw(gc);
        EngineConfig c = config("lever1", 50);
        c.levers.sessionCommandTimeoutMs = 60000;
        ClientEngine engine(gw.sched, gw.port, c);
        engine.startConnections();
        gw.sched.runFor(1s);
        gw.model.wedge(300s);
        engine.deployAll();
        QCOMPARE(engine.instances()[0]->guard(0)->timing().ceiling, Duration(75s));
        std::int64_t maxAtGateway = 0;
        for (int s = 0; s < 200; ++s) {
            gw.sched.runFor(1s);
            maxAtGateway = std::max(maxAtGateway, gw.model.maxOutstandingSubscribes());
        }
        QCOMPARE(maxAtGateway, std::int64_t(1));

        EngineConfig defaults = config("lever1", 5); // Lever 3 off: 30 s + 15 s = 45 s
        VirtualGateway gw2;
        ClientEngine plain(gw2.sched, gw2.port, defaults);
        plain.startConnections();
        plain.deployAll();
        gw2.sched.runFor(2s);
        QCOMPARE(plain.instances()[0]->guard(0)->timing().ceiling, Duration(45s));
    }

    void closeEndsEverySessionWithoutTeardown()
    {
        VirtualGateway gw;
        ClientEngine engine(gw.sched, gw.port, config("all", 20));
        engine.startConnections();
        engine.deployAll();
        gw.sched.runFor(3s);
        bool closed = false;
        engine.close([&closed] { closed = true; });
        gw.sched.runFor(1s);
        QVERIFY(closed);
        QCOMPARE(gw.model.sessionCount(), std::size_t(0));
        QCOMPARE(gw.model.invokeRpcs(CommandKind::RemoveItem), std::int64_t(0));
    }

    // What the console is sent: orphaned tags flagged (red in the tag table) and counted
    // per subscription, and the effective ceiling of each guard.
    void batcherFlagsOrphanedTagsAndTheCeiling()
    {
        gateway::GatewayConfig gc;
        gc.commandMs = 20;
        gc.perItemMs = 1;
        VirtualGateway gw(gc);
        EngineConfig c = config("lever1+2", 244);
        c.levers.resubscribeGuard = false; // the plan as written: the failed re-subscribe is final
        ClientEngine engine(gw.sched, gw.port, c);
        EngineBatcher batcher(engine);
        engine.setObserver(&batcher);
        engine.startConnections();
        engine.deployAll();
        gw.sched.runFor(30s);
        EngineBatch first = batcher.take();
        QVERIFY(!first.samples.isEmpty());
        QCOMPARE(first.samples.back().ceilingMs, 45000.0);
        QCOMPARE(first.samples.back().orphaned, 0);
        gw.model.restart(5s);
        gw.sched.runFor(5s);
        gw.model.slow(400, 120s);
        gw.sched.runFor(60s);
        EngineBatch batch;
        for (int i = 0; i < 20; ++i) { // the once-a-second recheck included
            EngineBatch b = batcher.take();
            batch.samples += b.samples;
            batch.tags += b.tags;
        }
        QVERIFY(!batch.samples.isEmpty());
        QCOMPARE(batch.samples.back().orphaned, 244);
        int flagged = 0;
        for (const TagChange& t : batch.tags)
            flagged += t.orphaned;
        QCOMPARE(flagged, 244);
    }

    // Names the host already holds as QStrings are shared, not converted a second time; a
    // list that does not have one name per tag is not used.
    void batcherSharesTheHostsTagNames()
    {
        VirtualGateway gw;
        ClientEngine engine(gw.sched, gw.port, config("lever1+2", 5));
        QStringList names;
        for (const std::string& n : engine.instances().front()->tagNames())
            names << QString::fromStdString(n);
        EngineBatcher batcher(engine);
        batcher.shareTagNames(0, names.mid(0, 4)); // one short: ignored
        batcher.shareTagNames(0, names);
        engine.setObserver(&batcher);
        engine.startConnections();
        engine.deployAll();
        gw.sched.runFor(10s);
        const EngineBatch batch = batcher.take();
        QCOMPARE(batch.tags.size(), 5);
        // The list itself is shared too: reading a name does not copy it for the batcher.
        QVERIFY(!names.isDetached());
        for (const TagChange& t : batch.tags) {
            QCOMPARE(t.tagName, names.at(t.tag));
            QVERIFY(t.tagName.constData() == names.at(t.tag).constData()); // the same text
        }

        EngineBatcher own(engine);
        own.shareTagNames(0, names.mid(0, 4));
        own.onTagsChanged(*engine.instances().front(), 0, {0, 4});
        const EngineBatch converted = own.take();
        QCOMPARE(converted.tags.size(), 2);
        for (const TagChange& t : converted.tags) {
            QCOMPARE(t.tagName, names[t.tag]);
            QVERIFY(t.tagName.constData() != names[t.tag].constData());
        }
    }

    // A deployment changes every tag at once: a batch carries at most its bound of them, the
    // ones that changed first, and the rest follow in the next batches, each tag once with
    // its latest state, none lost.
    void batcherBoundsTheTagChangesOfOneBatch()
    {
        VirtualGateway gw;
        ClientEngine engine(gw.sched, gw.port, config("lever1+2", 244));
        EngineBatcher batcher(engine);
        engine.setObserver(&batcher);
        engine.startConnections();
        engine.deployAll();
        gw.sched.runFor(30s);
        QCOMPARE(batcher.pendingTags(), std::size_t(244));

        const EngineBatch first = batcher.take(100);
        QCOMPARE(first.tags.size(), 100);
        QVERIFY(!first.samples.isEmpty()); // subscriptions are never held back
        QCOMPARE(batcher.pendingTags(), std::size_t(144));
        // Tags that change again while waiting keep their place and are sent once.
        std::vector<int> again(244);
        std::iota(again.begin(), again.end(), 0);
        batcher.onTagsChanged(*engine.instances().front(), 0, again);
        QCOMPARE(batcher.pendingTags(), std::size_t(244));
        const EngineBatch second = batcher.take(144);
        QSet<int> sent;
        for (const TagChange& t : first.tags)
            sent.insert(t.tag);
        for (const TagChange& t : second.tags) {
            QVERIFY2(!sent.contains(t.tag), "the tags still waiting leave before those sent");
            sent.insert(t.tag);
        }
        QCOMPARE(sent.size(), 244);
        QCOMPARE(batcher.take(1000).tags.size(), 100); // the first 100, changed again
        QCOMPARE(batcher.pendingTags(), std::size_t(0));
        for (const TagChange& t : second.tags)
            QCOMPARE(t.quality, 0xC0); // every change carries the tag's latest state: Good
    }

    // Each tag with a live item says which advise its connection registered: Lever 2's one
    // SubscribeBulk{supervisory} on an advertising gateway, the fan-out on an old one, a
    // plain SubscribeBulk for a write user; a tag the gateway refused has none.
    void batcherNamesTheAdviseEachTagGot_data()
    {
        QTest::addColumn<bool>("advertised");
        QTest::addColumn<int>("writeUser");
        QTest::addColumn<QString>("advise");
        QTest::newRow("Lever 2") << true << 0 << "supervisory (SubscribeBulk)";
        QTest::newRow("old gateway")
            << false << 0 << "supervisory (AddItemBulk + AdviseSupervisory)";
        QTest::newRow("write user") << true << 7 << "plain (SubscribeBulk)";
    }
    void batcherNamesTheAdviseEachTagGot()
    {
        QFETCH(bool, advertised);
        QFETCH(int, writeUser);
        QFETCH(QString, advise);
        gateway::GatewayConfig gc;
        gc.advertiseBulkSupervisory = advertised;
        VirtualGateway gw(gc);
        gw.model.setUnknownTags({"Z28061.Attr.3"});
        EngineConfig c = config("lever1+2", 5);
        c.connections.front().writeUserId = writeUser;
        ClientEngine engine(gw.sched, gw.port, c);
        EngineBatcher batcher(engine);
        engine.setObserver(&batcher);
        engine.startConnections();
        engine.deployAll();
        gw.sched.runFor(10s);
        QHash<QString, QString> adviseOf;
        for (const TagChange& t : batcher.take().tags)
            adviseOf[t.tagName] = t.advise; // the last change of each tag
        QCOMPARE(adviseOf.size(), 5);
        for (auto it = adviseOf.cbegin(); it != adviseOf.cend(); ++it)
            QCOMPARE(it.value(), it.key() == "Z28061.Attr.3" ? QString() : advise);
    }
};

QTEST_GUILESS_MAIN(TestClientEngine)
#include "tst_client_engine.moc"
