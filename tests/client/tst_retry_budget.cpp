// The retry budget (lever retry_budget): gRPC's retry throttling, one token bucket per
// gateway connection, and the probe that keeps a throttled gateway from stranding a tag.

#include "client/retry_budget.h"

#include <QtTest>

using namespace stormwatch;
using namespace std::chrono_literals;

class TestRetryBudget : public QObject {
    Q_OBJECT

private slots:
    void aFullBucketLetsRetriesThrough()
    {
        RetryBudget budget;
        QCOMPARE(budget.tokens(), 10.0);
        QVERIFY(budget.tryRetry(Time{0}, 5s));
        QCOMPARE(budget.throttledRetries(), std::uint64_t(0));
    }

    // gRFC A6: retries go out only while tokens > max_tokens / 2. Five failures leave 5,
    // which is not above half.
    void retriesStopOnceHalfTheBucketIsSpent()
    {
        RetryBudget budget;
        for (int i = 0; i < 4; ++i)
            budget.recordFailure();
        QCOMPARE(budget.tokens(), 6.0);
        QVERIFY(!budget.throttling());
        budget.recordFailure();
        QCOMPARE(budget.tokens(), 5.0);
        QVERIFY(budget.throttling());
    }

    void tokensNeverGoBelowZeroNorAboveTheMaximum()
    {
        RetryBudget budget;
        for (int i = 0; i < 30; ++i)
            budget.recordFailure();
        QCOMPARE(budget.tokens(), 0.0);
        for (int i = 0; i < 300; ++i)
            budget.recordSuccess();
        QCOMPARE(budget.tokens(), 10.0);
    }

    // Each success earns token_ratio (0.1) back, counted exactly (milli-tokens), so ten
    // successes pay for one failure.
    void tenSuccessesPayForOneFailure()
    {
        RetryBudget budget;
        for (int i = 0; i < 5; ++i)
            budget.recordFailure();
        QVERIFY(budget.throttling());
        budget.recordSuccess();
        QCOMPARE(budget.tokens(), 5.1);
        QVERIFY(!budget.throttling());
        budget.recordFailure();
        QVERIFY(budget.throttling());
        for (int i = 0; i < 10; ++i)
            budget.recordSuccess();
        QCOMPARE(budget.tokens(), 5.1);
    }

    // Throttled, one retry per probe interval still goes out for the whole gateway: with
    // only retries left to bring a subscription back, a bucket that successes alone refill
    // would otherwise stay empty for good. Every other retry is refused and counted.
    void aThrottledGatewayGetsOneProbePerInterval()
    {
        RetryBudget budget;
        for (int i = 0; i < 8; ++i)
            budget.recordFailure();
        QVERIFY(budget.tryRetry(Time{100s}, 5s)); // the probe
        QVERIFY(!budget.tryRetry(Time{100s}, 5s));
        QVERIFY(!budget.tryRetry(Time{104s}, 5s));
        QCOMPARE(budget.throttledRetries(), std::uint64_t(2));
        QVERIFY(budget.tryRetry(Time{105s}, 5s)); // the next probe
        QCOMPARE(budget.probes(), std::uint64_t(2));
        QVERIFY(!budget.tryRetry(Time{106s}, 5s));
        QCOMPARE(budget.throttledRetries(), std::uint64_t(3));
    }

    void unthrottledRetriesAreNeitherProbesNorThrottled()
    {
        RetryBudget budget;
        for (int i = 0; i < 20; ++i)
            QVERIFY(budget.tryRetry(Time{0}, 5s));
        QCOMPARE(budget.probes(), std::uint64_t(0));
        QCOMPARE(budget.throttledRetries(), std::uint64_t(0));
    }

    void aSmallerBucketThrottlesSooner()
    {
        RetryBudget budget(RetryBudgetConfig{.maxTokens = 4, .tokenRatio = 0.5});
        budget.recordFailure();
        QVERIFY(!budget.throttling()); // 3 > 2
        budget.recordFailure();
        QVERIFY(budget.throttling()); // 2
        budget.recordSuccess();
        QCOMPARE(budget.tokens(), 2.5);
        QVERIFY(!budget.throttling());
    }
};

QTEST_GUILESS_MAIN(TestRetryBudget)
#include "tst_retry_budget.moc"
