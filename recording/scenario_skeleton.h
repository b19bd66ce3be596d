#pragma once
// A recorded run as the start of a scenario file, so an incident captured at a site becomes
// a replayable scenario: its instances with the tag counts and tag prefixes seen, the
// connections, the gateway block it ran with, the faults and lever changes it passed (at
// their run times), the levers it started with as the "as-recorded" variant beside the
// presets, and what was observed (time to first Good value per instance, tags Good at the
// end, the session timeout the gateway echoed) in its description. Valid per
// scenario_parser.h; an engineer edits it from there.

#include "recording/recording.h"

#include <QJsonObject>

namespace stormwatch {

QJsonObject scenarioSkeleton(const Recording& recording, const RecordedRun& run, const RunData& data);

} // namespace stormwatch
