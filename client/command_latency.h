#pragma once
// Invoke round trips (sent → the gateway's answer) counted in fixed buckets, the way a
// Prometheus histogram keeps them, so a long-running watch can export them without keeping
// every observation.

#include <array>
#include <cstdint>

namespace stormwatch {

struct CommandLatency {
    // Upper bounds in seconds: a healthy STA answers in milliseconds, a stacked one in tens of
    // seconds (a session's command timeout is 30 s by default).
    static constexpr std::array<double, 13> kBoundsS{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
                                                     1,     2.5,  5,     10,   30,  60};
    // Per bucket, not cumulative: counts[i] holds the observations in (bound[i-1], bound[i]];
    // the last one those above every bound.
    std::array<std::int64_t, kBoundsS.size() + 1> counts{};
    double sumS = 0;
    std::int64_t count = 0;

    void record(double seconds)
    {
        std::size_t i = 0;
        while (i < kBoundsS.size() && seconds > kBoundsS[i])
            ++i;
        ++counts[i];
        sumS += seconds;
        ++count;
    }
};

} // namespace stormwatch
