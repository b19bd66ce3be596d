#pragma once
// Writes the runs a RunHost shows into one recording file (SQLite through Qt SQL, WAL).
//
// The recorder is one more consumer of the host's step batches — the series points its
// recorder added (the very points the plots and the report are made of), log lines, tag
// changes, connection infos, lever changes and the timeline events the run passed — so
// nothing is recomputed. It lives on the host's thread (the console's UI thread, or the
// headless main thread), which owns its SQL connection, and commits what arrived at least
// every commitIntervalMs (default 500 ms): a crash loses at most that much.
//
// Every run the host starts while the recorder is attached is a run of the file; a run
// already in progress at attach() is recorded from its next step (what it showed before is
// not in the file, and the run says so in its `started_mid_run` note).

#include "client/engine_samples.h"
#include "scenario/run_host.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QSqlDatabase>
#include <QString>
#include <QTimer>
#include <memory>

namespace stormwatch {

class Recorder : public QObject {
    Q_OBJECT
public:
    explicit Recorder(QObject* parent = nullptr);
    ~Recorder() override; // close()

    // Creates `path`. An existing file is replaced only once the new recording has been made
    // and checked beside it (a temporary name in the same directory, renamed over it): when
    // the path cannot be written, the old file stays whole. False with *error when it cannot
    // be written or Qt's SQLite driver is missing.
    bool open(const QString& path, QString* error);
    // Records the host's runs from now on (one host at a time).
    void attach(RunHost* host);
    void detach();
    // Ends the run in progress as "recording stopped", commits and closes the file.
    void close();

    bool isOpen() const { return m_db.isValid() && m_db.isOpen(); }
    QString path() const { return m_path; }
    void setCommitIntervalMs(int ms);
    int runsRecorded() const { return m_runs; }
    // Rows written so far (all tables), and commits made: for the measurements.
    qint64 rowsWritten() const { return m_rows; }
    qint64 commits() const { return m_commits; }

signals:
    // A write failed (disk full, file removed): the recording is closed, with why.
    void failed(const QString& error);

private:
    struct Statements;
    struct TagState {
        int quality = -1;
        int itemHandle = 0;
        QString error;
        bool orphaned = false;
        bool rejected = false;
        bool stale = false;
        double firstGoodS = -1;
        bool dirty = false;
        TagChange last;
    };

    QString openConnection(const QString& file); // m_db on `file`, in WAL mode; "" on success
    void dropConnection();
    bool ensureRun();
    void beginRun();
    void endRun(const QString& how);
    void onStateChanged();
    void onLogs(const QVector<LogEntry>& entries);
    void onTags(const QVector<TagChange>& changes);
    void onSeries(const QVector<SeriesUpdate>& updates);
    void onConnections(const QVector<ConnectionInfo>& infos);
    void onLevers(const LeverSet& levers);
    void onTimeline(const QVector<TimelineEvent>& events);
    void onFinished(const QSharedPointer<VariantRun>& run);
    void writeTags();
    bool exec(QSqlQuery& query); // false (and the recording closed) when it fails
    void begin();
    void commit();
    void fail(const QString& why);
    double now() const;

    QString m_path;
    QString m_connection;
    QSqlDatabase m_db;
    std::unique_ptr<Statements> m_sql;
    QPointer<RunHost> m_host;
    QList<QMetaObject::Connection> m_hostConnections;
    QTimer m_commitTimer;
    bool m_inTransaction = false;
    qint64 m_run = -1; // the runs.id being recorded; -1: none
    int m_runs = 0;
    qint64 m_rows = 0;
    qint64 m_commits = 0;
    QHash<QString, qint64> m_seriesIds; // "instance\x1flabel\x1fmetric" -> series.id
    QHash<qint64, TagState> m_tags;     // (instance << 32 | tag) -> last state
    QHash<QString, ConnectionInfo> m_lastConnections;
};

} // namespace stormwatch
