#pragma once
// The pure backoff step behind every retry in the client (tag subscribe, alarm subscribe,
// reconnect): double the interval just used, apply ±20 % jitter so N subscribers on one
// gateway do not re-storm in lockstep, clamp to [floor, max]. A max below the floor
// degrades to a fixed floor interval rather than shrinking below it.

#include "scheduler.h"

namespace stormwatch {

namespace Backoff {
// jitterUnit is a uniform sample in [0, 1]; 0.5 means no jitter (factor 0.8 + 0.4·u).
Duration next(Duration current, Duration floor, Duration max, double jitterUnit);
} // namespace Backoff

} // namespace stormwatch
