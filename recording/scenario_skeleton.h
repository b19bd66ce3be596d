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
#include <optional>

namespace stormwatch {

// The scenario a recorded run ran (its `source`), parsed as a scenario file. What only a
// recording holds is taken out first: the mark of a recording begun mid-run, and the live
// run's open-ended duration (30 days), held to a file's limit. nullopt, with the parser's
// errors in `error`, when the source is not a valid scenario even so.
std::optional<Scenario> scenarioOfRecordedRun(const RecordedRun& run, QString* error = nullptr);

QJsonObject scenarioSkeleton(const Recording& recording, const RecordedRun& run,
                             const RunData& data);

} // namespace stormwatch
