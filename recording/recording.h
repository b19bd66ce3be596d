#pragma once
// A recording reopened, read-only: its runs, and per run what the console shows — the
// series (replayed into a SeriesStore through appendSeries, exactly as they reached the
// plots), the event log, every tag's final state, connection infos, lever changes and the
// timeline events the run passed.
//
// open() never crashes on a bad file: a file that is not SQLite, not a recording, or of a
// newer schema gives a clear error; a file cut while it was written (a crash, a copy taken
// mid-run) opens with what was committed, and warnings() says so.

#include "client/engine_samples.h"
#include "scenario/scenario.h"

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QSqlDatabase>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QVector>
#include <memory>
#include <optional>

namespace stormwatch {

class SeriesStore;
class EventLogModel;
class TagTableModel;
class SeriesSet;

struct RecordedRun {
    qint64 id = 0;
    QDateTime startedUtc;
    bool live = false;
    bool openEnded = false; // the console's live run
    QString scenario, variant, gateway;
    QJsonObject source; // the scenario as run, in the file form (scenarioToJson)
    QJsonObject levers; // at the start, LeverSet's JSON form
    double durationS = 0;
    double endS = 0;     // run time of the last step committed
    QString ended;       // "finished", "stopped", "recording stopped"; "" = never closed
    QJsonObject metrics; // the report's variant object when the run finished
};

struct LeverChange {
    double tS = 0;
    QJsonObject levers;
};

struct RecordedTag {
    TagChange state;        // the final one
    double firstGoodS = -1; // run time of the step that first brought it Good; -1 never
};

// Everything of one run the console shows.
struct RunData {
    QVector<SeriesUpdate> series; // one update per series, its points in arrival order
    QVector<LogEntry> logs;
    QVector<RecordedTag> tags;
    QVector<ConnectionInfo> connections; // the last state of each
    QVector<LeverChange> leverChanges;
    QList<TimelineEvent> timeline; // at their run times
};

class Recording {
public:
    // nullptr with *error ("<file>: not an SQLite file", "...written by a newer stormwatch
    // (recording schema 3); this one ... reads schema 2 and older", ...) when it cannot be shown at
    // all.
    static std::unique_ptr<Recording> open(const QString& path, QString* error);
    ~Recording();
    Recording(const Recording&) = delete;
    Recording& operator=(const Recording&) = delete;

    QString path() const { return m_path; }
    int schemaVersion() const { return m_schemaVersion; }
    QString appVersion() const { return m_appVersion; }
    QDateTime createdUtc() const { return m_created; }
    const QList<RecordedRun>& runs() const { return m_runs; }
    // What the reader should know (a run never closed, a damaged part skipped).
    QStringList warnings() const { return m_warnings; }

    // One run's data; nullopt with *error when the run is unknown. Damage found while
    // reading becomes a warning and the data read so far.
    std::optional<RunData> load(qint64 runId, QString* error);
    // The run's series as the runner held them (scenario/series.h semantics).
    SeriesSet seriesSet(const RunData& data) const;

private:
    Recording() = default;
    bool readHeader(QString* error);
    bool query(QSqlQuery& q, const QString& what); // false: a warning says what was skipped

    QString m_path;
    QString m_connection;
    QSqlDatabase m_db;
    std::unique_ptr<QTemporaryDir> m_copy; // a cut file is read from a private copy
    int m_schemaVersion = 0;
    QString m_appVersion;
    QDateTime m_created;
    QList<RecordedRun> m_runs;
    QStringList m_warnings;
};

} // namespace stormwatch
