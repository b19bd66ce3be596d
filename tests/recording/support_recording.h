#pragma once
// What the recording suites share: scenarios, a run recorded through a RunHost with the
// console's own models fed beside it, and comparisons.

#include "models/event_log_model.h"
#include "models/series_store.h"
#include "models/tag_table_model.h"
#include "recording/recorder.h"
#include "recording/recording.h"
#include "scenario/run_host.h"
#include "scenario/support_short_live.h"

#include <QSharedPointer>
#include <QString>
#include <functional>
#include <memory>
#include <optional>

namespace stormwatch::test {

// `durationS` of virtual time: two instances of `tags` tags on one connection, a wedge at
// 120 s for 60 s and a lever change (set_levers `leversAt300`) at 300 s, played with `variant`.
Scenario wedgeAndLeverChange(double durationS = 600, int tags = 50,
                             const QString& variant = "lever1",
                             const QString& leversAt300 = "levers-off");
// A few seconds of live run: one instance, data at 10 Hz (shared with tests/ui).
using testsupport::shortLive;

// The console's side of a run: the models fed from the host's signals, as the controller does.
struct ConsoleModels {
    SeriesStore store;
    EventLogModel log;
    TagTableModel tags;
    int logLines = 0;
    void follow(RunHost& host);
};

// A recorded run shown in the models as the console's "Open recording…" shows it: the
// store cleared and fed the run's series, held to its end and kept whole; the log's lines;
// the tags' final states. Null models are skipped. False with *error when the run cannot
// be read.
bool showRecordedRun(Recording& recording, qint64 runId, SeriesStore* store, EventLogModel* log,
                     TagTableModel* tags, QString* error);

struct RecordedRunResult {
    QSharedPointer<VariantRun> run; // null when the run did not finish
    qint64 commits = 0;
};

// Plays `scenario`'s first variant on a RunHost (virtual at max speed, or live with
// `liveOptions`: an embedded mock by default), recorded to `path`, the models fed beside it.
// `onProgress` runs at every step with the recorder open.
RecordedRunResult recordRun(const Scenario& scenario, const QString& path, ConsoleModels* models,
                            bool live = false, int commitIntervalMs = 500,
                            const std::function<void(double)>& onProgress = {},
                            const LiveOptions& liveOptions = {});

// The Qt SQL connection of the newest Recorder writing `file` ("" when none): a test makes
// SQLite refuse writes on it (PRAGMA query_only) as a full disk would.
QString recorderConnection(const QString& file);

// "" when the two series sets hold the same series with exactly the same points, else the first
// difference.
QString compareSeries(const SeriesSet& expected, const SeriesSet& actual);
// "" when both stores plot the same points.
QString compareStores(const SeriesStore& expected, const SeriesStore& actual);

} // namespace stormwatch::test
