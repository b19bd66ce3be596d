// RecoveryGate on a VirtualScheduler: each strategy and fail handler, and the recovery
// period's manual runs (docs/background.md) replayed at their exact times.

#include "client/recovery_gate.h"
#include "client/virtual_scheduler.h"

#include <QTest>
#include <cmath>
#include <utility>
#include <vector>

using namespace stormwatch;

namespace {

Time at(double seconds)
{
    return Time{static_cast<std::int64_t>(std::llround(seconds * 1e6))};
}

RecoveryConfig windowed(int k, double windowSeconds, double recoverySeconds)
{
    RecoveryConfig c;
    c.enabled = true;
    c.strategy = RecoveryConfig::Strategy::Simple;
    c.failHandler = RecoveryConfig::FailHandler::Windowed;
    c.failuresToEnterRecovery = k;
    c.failuresWindowSeconds = windowSeconds;
    c.recoverySeconds = recoverySeconds;
    return c;
}

RecoveryConfig direct(RecoveryConfig::Strategy strategy)
{
    RecoveryConfig c;
    c.enabled = true;
    c.strategy = strategy;
    c.failHandler = RecoveryConfig::FailHandler::Simple;
    return c;
}

void failTimes(RecoveryGate& gate, int n, const char* cause = "DEADLINE_EXCEEDED: subscribe")
{
    for (int i = 0; i < n; ++i)
        gate.recordFailure(cause);
}

} // namespace

class TestRecoveryGate : public QObject {
    Q_OBJECT
private slots:
    void disabledGateAlwaysAllowsAndCountsNothing()
    {
        VirtualScheduler sched;
        RecoveryConfig c = direct(RecoveryConfig::Strategy::None);
        c.enabled = false;
        RecoveryGate gate(sched, c);
        failTimes(gate, 50);
        QVERIFY(gate.check().allowed);
        QCOMPARE(gate.state(), RecoveryGate::State::Normal);
        QCOMPARE(gate.suppressedCalls(), 0u);
        QCOMPARE(gate.failuresInWindow(), 0);
    }

    void instantStrategyAlwaysAllows()
    {
        for (auto handler :
             {RecoveryConfig::FailHandler::Simple, RecoveryConfig::FailHandler::Windowed}) {
            VirtualScheduler sched;
            RecoveryConfig c = direct(RecoveryConfig::Strategy::Instant);
            c.failHandler = handler;
            c.failuresToEnterRecovery = 2;
            RecoveryGate gate(sched, c);
            for (int i = 0; i < 20; ++i) {
                gate.recordFailure("UNAVAILABLE");
                QVERIFY(gate.check().allowed);
                sched.runFor(at(0.5));
            }
            QVERIFY(!gate.recovering());
            QCOMPARE(gate.suppressedCalls(), 0u);
        }
    }

    // Manual run "default": FailuresToEnterRecovery 10, FailuresWindowSeconds 60.
    void windowedPrDefaultRun_tenFailuresIn60sEnterRecovery()
    {
        VirtualScheduler sched;
        RecoveryGate gate(sched, windowed(10, 60, 60));
        failTimes(gate, 6);
        QVERIFY(!gate.recovering());
        QVERIFY(gate.check().allowed);

        sched.runUntil(at(17.84));
        failTimes(gate, 3);
        QVERIFY(!gate.recovering());
        failTimes(gate, 1);
        QCOMPARE(gate.state(), RecoveryGate::State::Recovering);
        QCOMPARE(gate.recoveryEndsAt(), std::optional<Time>(at(77.84)));

        for (double t : {37.16, 59.21, 76.8}) { // 76.8 s = 1.28 min
            sched.runUntil(at(t));
            QVERIFY2(!gate.check().allowed, qPrintable(QString("t=%1").arg(t)));
        }
        sched.runUntil(at(77.84) - Time{1});
        QVERIFY(!gate.check().allowed);
        sched.runUntil(at(77.84));
        QVERIFY(gate.check().allowed);
        sched.runUntil(at(87.6)); // 1.46 min: recovery period ended
        QVERIFY(gate.check().allowed);
        QCOMPARE(gate.suppressedCalls(), 4u);
    }

    void windowedFourFailuresEnterRecovery()
    {
        VirtualScheduler sched;
        RecoveryGate gate(sched, windowed(4, 100, 60));
        failTimes(gate, 3);
        QVERIFY(gate.check().allowed);
        failTimes(gate, 1);
        QVERIFY(gate.recovering());
        sched.runFor(at(30));
        QVERIFY(!gate.check().allowed);
    }

    // Manual run "window": FailuresToEnterRecovery 7, FailuresWindowSeconds 30. Batches spread
    // wider than the window never add up; recovery starts only with the last batch.
    void windowedPrRun_failuresWiderThanWindowNeverAccumulate()
    {
        VirtualScheduler sched;
        RecoveryGate gate(sched, windowed(7, 30, 60));
        const std::vector<std::pair<double, int>> batches = {{0, 6}, {51.07, 5}, {82.8, 5}};
        for (auto [t, n] : batches) {
            sched.runUntil(at(t));
            failTimes(gate, n);
            QVERIFY2(!gate.recovering(), qPrintable(QString("t=%1").arg(t)));
            QVERIFY(gate.check().allowed);
        }
        QCOMPARE(gate.failuresInWindow(), 5); // the 51.07 batch is 31.7 s old at 82.8
        sched.runUntil(at(100.8));            // 1.68 min
        failTimes(gate, 2);
        QVERIFY(gate.recovering());
        sched.runUntil(at(116.4)); // 1.94 min
        QVERIFY(!gate.check().allowed);
    }

    void windowedFailureExactlyWindowOldStillCounts()
    {
        VirtualScheduler sched;
        RecoveryGate gate(sched, windowed(2, 10, 60));
        gate.recordFailure("a");
        sched.runUntil(at(10));
        gate.recordFailure("b");
        QVERIFY(gate.recovering());

        VirtualScheduler sched2;
        RecoveryGate gate2(sched2, windowed(2, 10, 60));
        gate2.recordFailure("a");
        sched2.runUntil(at(10) + Time{1});
        gate2.recordFailure("b");
        QVERIFY(!gate2.recovering());
        QCOMPARE(gate2.failuresInWindow(), 1);
    }

    void simpleHandlerForwardsEveryFailure()
    {
        VirtualScheduler sched;
        RecoveryConfig c = direct(RecoveryConfig::Strategy::Simple);
        c.recoverySeconds = 20;
        RecoveryGate gate(sched, c);
        gate.recordFailure("UNAVAILABLE");
        QVERIFY(gate.recovering());
        QCOMPARE(gate.recoveryEndsAt(), std::optional<Time>(at(20)));
    }

    // Manual run "shorter period": RecoverySeconds 20.
    void simpleStrategyPrRun_recoveryLastsAfterMostRecentFailure()
    {
        VirtualScheduler sched;
        RecoveryConfig c = direct(RecoveryConfig::Strategy::Simple);
        c.recoverySeconds = 20;
        RecoveryGate gate(sched, c);
        sched.runUntil(at(22.2134));
        gate.recordFailure("DEADLINE_EXCEEDED: subscribe timed out");
        sched.runUntil(at(41.41));
        const GateDecision d = gate.check();
        QVERIFY(!d.allowed);
        const QString msg = QString::fromStdString(d.message());
        QVERIFY2(msg.contains("19.2 s ago"),
                 qPrintable(msg)); // "within recovery due to error 19.1968s ago"
        QVERIFY2(msg.contains("until t=42.2 s"), qPrintable(msg));
        sched.runUntil(at(51.07));
        QVERIFY(gate.check().allowed);
    }

    void simpleStrategyFailureDuringRecoveryExtendsIt()
    {
        VirtualScheduler sched;
        RecoveryConfig c = direct(RecoveryConfig::Strategy::Simple);
        c.recoverySeconds = 20;
        RecoveryGate gate(sched, c);
        gate.recordFailure("first");
        sched.runUntil(at(15));
        gate.recordFailure("late reply failed");
        QCOMPARE(gate.recoveryEndsAt(), std::optional<Time>(at(35)));
        QCOMPARE(gate.recoveryPeriods(), 1); // still the same period
        sched.runUntil(at(30));
        QVERIFY(!gate.check().allowed);
        sched.runUntil(at(35));
        QVERIFY(gate.check().allowed);
    }

    void exponentialPeriodsGrowAndCapAtMax()
    {
        VirtualScheduler sched;
        RecoveryConfig c = direct(RecoveryConfig::Strategy::Exponential);
        c.initialSeconds = 5;
        c.multiplier = 2;
        c.maxSeconds = 30;
        RecoveryGate gate(sched, c);
        for (double expected : {5.0, 10.0, 20.0, 30.0, 30.0}) {
            const Time start = sched.now();
            gate.recordFailure("UNAVAILABLE");
            QCOMPARE(gate.recoveryEndsAt(), std::optional<Time>(start + at(expected)));
            sched.runUntil(start + at(expected) - Time{1});
            QVERIFY(!gate.check().allowed);
            sched.runUntil(start + at(expected));
            QVERIFY(gate.check().allowed);
            sched.runFor(at(1));
        }
        QCOMPARE(gate.recoveryPeriods(), 5);
    }

    void exponentialFailuresDuringRecoveryCountOnce()
    {
        VirtualScheduler sched;
        RecoveryConfig c = direct(RecoveryConfig::Strategy::Exponential);
        RecoveryGate gate(sched, c); // 5, 10, 20 ... 300
        gate.recordFailure("a");
        sched.runUntil(at(2));
        failTimes(gate, 5, "in-flight replies failing");
        QCOMPARE(gate.recoveryEndsAt(), std::optional<Time>(at(5))); // not lengthened
        QCOMPARE(gate.recoveryPeriods(), 1);                         // not re-counted
        sched.runUntil(at(6));
        gate.recordFailure("b");
        QCOMPARE(gate.recoveryEndsAt(), std::optional<Time>(at(16))); // second period: 10 s
    }

    void exponentialResetReturnsToInitial()
    {
        VirtualScheduler sched;
        RecoveryGate gate(sched, direct(RecoveryConfig::Strategy::Exponential));
        gate.recordFailure("a");
        sched.runUntil(at(5));
        gate.recordFailure("b"); // 10 s period
        QCOMPARE(gate.recoveryEndsAt(), std::optional<Time>(at(15)));
        gate.reset();
        QVERIFY(!gate.recovering());
        QVERIFY(gate.check().allowed);
        gate.recordFailure("c");
        QCOMPARE(gate.recoveryEndsAt(), std::optional<Time>(at(10))); // 5 s again
    }

    void exponentialWindowedSuccessAfterRecoveryReturnsToInitial()
    {
        VirtualScheduler sched;
        RecoveryConfig c = direct(RecoveryConfig::Strategy::Exponential);
        c.failHandler = RecoveryConfig::FailHandler::Windowed;
        c.failuresToEnterRecovery = 1;
        RecoveryGate gate(sched, c);
        gate.recordFailure("a"); // 5 s
        sched.runUntil(at(6));
        gate.recordFailure("b"); // 10 s
        QCOMPARE(gate.recoveryPeriods(), 2);
        sched.runUntil(at(17));
        gate.recordSuccess();
        QCOMPARE(gate.recoveryPeriods(), 0);
        gate.recordFailure("c");
        QCOMPARE(gate.recoveryEndsAt(), std::optional<Time>(at(22))); // 5 s again
    }

    void noneStrategyNeverAllowsUntilReset()
    {
        VirtualScheduler sched;
        RecoveryGate gate(sched, direct(RecoveryConfig::Strategy::None));
        QVERIFY(gate.check().allowed);
        gate.recordFailure("PERMISSION_DENIED");
        QCOMPARE(gate.state(), RecoveryGate::State::Closed);
        QCOMPARE(gate.recoveryEndsAt(), std::nullopt);
        sched.runFor(at(24 * 3600));
        gate.recordSuccess(); // a late in-flight success does not reopen it
        const GateDecision d = gate.check();
        QVERIFY(!d.allowed);
        QVERIFY(d.untilReset());
        QVERIFY2(QString::fromStdString(d.message()).contains("until reset"), d.message().c_str());
        gate.reset();
        QCOMPARE(gate.state(), RecoveryGate::State::Normal);
        QVERIFY(gate.check().allowed);
    }

    void firstSuccessAfterRecoveryResetsWindowedHistory()
    {
        VirtualScheduler sched;
        RecoveryGate gate(sched, windowed(3, 100, 10));
        failTimes(gate, 3); // recovery until t=10
        sched.runUntil(at(5));
        failTimes(gate, 2); // in-flight calls failing during recovery
        QCOMPARE(gate.failuresInWindow(), 2);
        sched.runUntil(at(12));
        gate.recordSuccess();
        QCOMPARE(gate.failuresInWindow(), 0);
        gate.recordFailure("one more");
        QVERIFY(!gate.recovering()); // 2 + 1 would have re-entered without the reset
    }

    void successDuringRecoveryDoesNotEndIt()
    {
        VirtualScheduler sched;
        RecoveryGate gate(sched, windowed(2, 100, 10));
        failTimes(gate, 2);
        sched.runUntil(at(4));
        gate.recordSuccess();
        QVERIFY(gate.recovering());
        QCOMPARE(gate.recoveryEndsAt(), std::optional<Time>(at(10)));
        QVERIFY(!gate.check().allowed);
    }

    void successBeforeAnyRecoveryKeepsWindowedHistory()
    {
        VirtualScheduler sched;
        RecoveryGate gate(sched, windowed(3, 100, 10));
        failTimes(gate, 2);
        gate.recordSuccess(); // no recovery period has ended yet: history stays
        QCOMPARE(gate.failuresInWindow(), 2);
        gate.recordFailure("third");
        QVERIFY(gate.recovering());
    }

    void suppressedCallsCountsRefusedChecksOnly()
    {
        VirtualScheduler sched;
        RecoveryGate gate(sched, windowed(1, 100, 10));
        QVERIFY(gate.check().allowed);
        gate.recordFailure("x");
        for (int i = 0; i < 3; ++i)
            QVERIFY(!gate.check().allowed);
        QCOMPARE(gate.suppressedCalls(), 3u);
        sched.runUntil(at(10));
        QVERIFY(gate.check().allowed);
        QCOMPARE(gate.suppressedCalls(), 3u);
        gate.reset(); // the count is a cumulative metric
        QCOMPARE(gate.suppressedCalls(), 3u);
    }

    void refusalNamesMostRecentCauseAndEnd()
    {
        VirtualScheduler sched;
        RecoveryConfig c = direct(RecoveryConfig::Strategy::Simple);
        c.recoverySeconds = 30;
        RecoveryGate gate(sched, c);
        sched.runUntil(at(10));
        gate.recordFailure("UNAVAILABLE: connection reset");
        sched.runUntil(at(12.2));
        gate.recordFailure("DEADLINE_EXCEEDED: AdviseSupervisory");
        sched.runUntil(at(23));
        const GateDecision d = gate.check();
        QVERIFY(!d.allowed);
        QCOMPARE(d.cause, std::string("DEADLINE_EXCEEDED: AdviseSupervisory"));
        QCOMPARE(d.recoveryEndsAt, at(42.2));
        QCOMPARE(QString::fromStdString(d.message()),
                 QString("temporarily unavailable: in recovery after "
                         "'DEADLINE_EXCEEDED: AdviseSupervisory' (10.8 s ago) until t=42.2 s "
                         "(19.2 s left)"));
    }

    void observerSeesEveryStateChange()
    {
        VirtualScheduler sched;
        RecoveryGate gate(sched, windowed(2, 100, 10));
        std::vector<std::pair<RecoveryGate::State, std::string>> seen;
        gate.setObserver(
            [&](RecoveryGate::State s, const std::string& cause) { seen.emplace_back(s, cause); });
        gate.recordFailure("a");
        QVERIFY(seen.empty());
        gate.recordFailure("b");
        QCOMPARE(seen.size(), 1u);
        QCOMPARE(seen[0].first, RecoveryGate::State::Recovering);
        QCOMPARE(seen[0].second, std::string("b"));
        sched.runUntil(at(10)); // the end is reported on time, without anyone calling check()
        QCOMPARE(seen.size(), 2u);
        QCOMPARE(seen[1].first, RecoveryGate::State::Normal);
        QCOMPARE(seen[1].second, std::string("recovery period ended"));

        gate.reconfigure(direct(RecoveryConfig::Strategy::None));
        gate.recordFailure("c");
        QCOMPARE(seen.size(), 3u);
        QCOMPARE(seen[2].first, RecoveryGate::State::Closed);
        gate.reset();
        QCOMPARE(seen.size(), 4u);
        QCOMPARE(seen[3].first, RecoveryGate::State::Normal);
        QCOMPARE(seen[3].second, std::string("reset"));
    }

    void reconfigureSwitchesLeversAtRunTime()
    {
        VirtualScheduler sched;
        RecoveryConfig c = direct(RecoveryConfig::Strategy::Simple);
        c.recoverySeconds = 20;
        RecoveryGate gate(sched, c);
        gate.recordFailure("x");

        // Parameters only: the current period stands, the new length applies next time.
        RecoveryConfig shorter = c;
        shorter.recoverySeconds = 5;
        gate.reconfigure(shorter);
        QCOMPARE(gate.recoveryEndsAt(), std::optional<Time>(at(20)));

        // Strategy switched to instant: the gate opens at once.
        gate.reconfigure(direct(RecoveryConfig::Strategy::Instant));
        QVERIFY(gate.check().allowed);

        // Disabled: failures no longer count.
        RecoveryConfig off = c;
        off.enabled = false;
        gate.reconfigure(off);
        gate.recordFailure("y");
        QVERIFY(gate.check().allowed);
        QCOMPARE(gate.suppressedCalls(), 0u);
    }

    void destroyingGateCancelsItsTimer()
    {
        VirtualScheduler sched;
        {
            RecoveryGate gate(sched, direct(RecoveryConfig::Strategy::Simple));
            gate.recordFailure("x");
            QCOMPARE(sched.pending(), 1u);
        }
        QCOMPARE(sched.pending(), 0u);
    }

    void strategyAndHandlerNamesRoundTrip()
    {
        for (auto s : {RecoveryConfig::Strategy::Instant, RecoveryConfig::Strategy::None,
                       RecoveryConfig::Strategy::Simple, RecoveryConfig::Strategy::Exponential})
            QCOMPARE(strategyFromString(toString(s)), std::optional(s));
        for (auto h : {RecoveryConfig::FailHandler::Simple, RecoveryConfig::FailHandler::Windowed})
            QCOMPARE(failHandlerFromString(toString(h)), std::optional(h));
        QCOMPARE(strategyFromString("linear"), std::nullopt);
        QCOMPARE(failHandlerFromString("Windowed"), std::nullopt);
    }
};

QTEST_GUILESS_MAIN(TestRecoveryGate)
#include "tst_recovery_gate.moc"
