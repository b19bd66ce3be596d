#pragma once
// Run times as the runner, its host and the reports say them (seconds, a double) and as the
// scheduler counts them (µs): one conversion each way.

#include "client/scheduler.h"

#include <cmath>

namespace stormwatch::run_time {

inline Duration fromSeconds(double s)
{
    return Duration(std::llround(s * 1e6));
}

inline double toSeconds(Time t)
{
    return double(t.count()) / 1e6;
}

} // namespace stormwatch::run_time
