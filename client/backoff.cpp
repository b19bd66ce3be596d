#include "backoff.h"

#include <algorithm>

namespace stormwatch::Backoff {

Duration next(Duration current, Duration floor, Duration max, double jitterUnit)
{
    const Duration ceiling = max < floor ? floor : max;
    if (current < floor)
        current = floor;
    const double doubled = static_cast<double>(current.count()) * 2.0;
    const double jittered = doubled * (0.8 + 0.4 * std::clamp(jitterUnit, 0.0, 1.0));
    const double clamped = std::clamp(jittered, static_cast<double>(floor.count()),
                                      static_cast<double>(ceiling.count()));
    return Duration(static_cast<Duration::rep>(clamped + 0.5));
}

} // namespace stormwatch::Backoff
