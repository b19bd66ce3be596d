#pragma once
// Lever retry_budget: gRPC's retry throttling (gRFC A6), one token bucket per gateway
// connection shared by every subscription on it. The bucket starts full (max_tokens); each
// failed or presumed-lost subscribe spends a token, each confirmed one earns token_ratio
// back. Retries go out only while more than half the bucket is left; first attempts (a
// deployment, a re-subscribe after a restore) are never throttled.
//
// One departure from A6: a gRPC client keeps making new calls whose successes refill the
// bucket, but a subscription that failed has only its retries to come back with. So while
// throttled, one retry per probe interval still goes out for the whole connection; its
// success refills the bucket. Without it a failed gateway would strand its tags for good.

#include "scheduler.h"

#include <cstdint>
#include <optional>

namespace stormwatch {

struct RetryBudgetConfig {
    int maxTokens = 10;      // gRFC A6 max_tokens
    double tokenRatio = 0.1; // gRFC A6 token_ratio
    bool operator==(const RetryBudgetConfig&) const = default;
};

class RetryBudget {
public:
    explicit RetryBudget(RetryBudgetConfig config = {});

    void recordFailure(); // a subscribe failed or was presumed lost: one token
    void recordSuccess(); // a subscribe was confirmed: token_ratio back

    // Whether a retry may go out at `now`: always while not throttling; while throttling,
    // the first retry `probeEvery` after the last probe (counted as a probe), none else
    // (counted as throttled).
    bool tryRetry(Time now, Duration probeEvery);

    double tokens() const { return m_milliTokens / 1000.0; }
    bool throttling() const { return m_milliTokens <= m_maxMilliTokens / 2; }
    std::uint64_t throttledRetries() const { return m_throttled; }
    std::uint64_t probes() const { return m_probes; }
    const RetryBudgetConfig& config() const { return m_config; }

private:
    // Milli-tokens, as gRPC counts them, so a ratio of 0.1 adds up exactly.
    RetryBudgetConfig m_config;
    int m_maxMilliTokens;
    int m_ratioMilliTokens;
    int m_milliTokens;
    std::optional<Time> m_lastProbe;
    std::uint64_t m_throttled = 0;
    std::uint64_t m_probes = 0;
};

} // namespace stormwatch
