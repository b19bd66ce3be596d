#pragma once
// The headless --record: the variants of a scenario played one after another on a RunHost
// (virtual time as fast as possible, or live), with a Recorder attached — the same steps
// the console's plots get, so a headless recording reopens exactly like a console one.
// Needs a Qt event loop to be possible (a Q(Core)Application); it runs its own.

#include "recording/recorder.h"
#include "scenario/report.h"
#include "scenario/scenario_runner.h"

#include <optional>

namespace stormwatch {

// `live` unset: virtual time. Unknown variants, a variant that cannot start, or a recorder
// that fails (at a variant's start or during it; or not open): an empty report and *error,
// at once — the run stops there, and no variant after it is played. `series` (when given)
// receives each variant's series.
ScenarioReport recordScenario(const Scenario& scenario, const QStringList& variantNames,
                              std::optional<quint64> seedOverride,
                              const std::optional<LiveOptions>& live, Recorder& recorder,
                              QString* error, QList<SeriesSet>* series = nullptr);

} // namespace stormwatch
