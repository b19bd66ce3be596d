#pragma once
// The command line's recording verbs (stormwatch_main.cpp wires them):
//   stormwatch --recording-info FILE                 the runs of a recording, and its warnings
//   stormwatch --export-skeleton FILE [--run N]   a run as a scenario file (stdout)
// Exit codes as the rest of the CLI: 0 ok, 2 a file that is no (readable) recording or an
// unknown run, with the reason on stderr.

#include <QString>

namespace stormwatch {

int recordingInfo(const QString& file);
// runText "" = the last run of the file.
int exportScenarioSkeleton(const QString& file, const QString& runText);

} // namespace stormwatch
