#include "recording/recording_schema.h"

#include <QSqlError>
#include <QSqlQuery>
#include <QStringList>
#include <atomic>

namespace stormwatch::recording {

QString createSchema(QSqlDatabase& db)
{
    // Run-scoped rows carry `run`; points carry their series (whose run is known). Rowid
    // order is arrival order: points are replayed into the plots in the order they came.
    const QStringList statements{
        QStringLiteral("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT)"),
        QStringLiteral(
            "CREATE TABLE runs(id INTEGER PRIMARY KEY, started_utc TEXT, live INTEGER, "
            "open_ended INTEGER, scenario TEXT, variant TEXT, gateway TEXT, source_json TEXT, "
            "levers_json TEXT, duration_s REAL, end_s REAL, ended TEXT, metrics_json TEXT)"),
        QStringLiteral("CREATE TABLE series(id INTEGER PRIMARY KEY, run INTEGER, instance INTEGER, "
                       "label TEXT, metric TEXT)"),
        QStringLiteral("CREATE TABLE points(series INTEGER, t REAL, v REAL)"),
        QStringLiteral("CREATE TABLE logs(run INTEGER, t REAL, wall_ms INTEGER, severity INTEGER, "
                       "subject TEXT, message TEXT)"),
        QStringLiteral(
            "CREATE TABLE tags(run INTEGER, instance INTEGER, tag INTEGER, instance_name TEXT, "
            "tag_name TEXT, value REAL, text TEXT, quality INTEGER, source_ts_us INTEGER, "
            "item_handle INTEGER, error TEXT, orphaned INTEGER, first_good_s REAL, advise TEXT, "
            "rejected INTEGER, received_s REAL, stale INTEGER, stale_after_s REAL, "
            "PRIMARY KEY(run, instance, tag))"),
        QStringLiteral(
            "CREATE TABLE tag_events(run INTEGER, t REAL, instance INTEGER, tag INTEGER, "
            "quality INTEGER, item_handle INTEGER, error TEXT, orphaned INTEGER, rejected INTEGER, "
            "stale INTEGER)"),
        QStringLiteral(
            "CREATE TABLE connections(run INTEGER, t REAL, name TEXT, state TEXT, error TEXT, "
            "address TEXT, session_id TEXT, capabilities TEXT, protocol_version INTEGER, "
            "echoed_timeout_s REAL, ceiling_s REAL, bulk_supervisory INTEGER)"),
        QStringLiteral("CREATE TABLE levers(run INTEGER, t REAL, levers_json TEXT)"),
        QStringLiteral("CREATE TABLE timeline(run INTEGER, t REAL, event_json TEXT)"),
        QStringLiteral("CREATE INDEX series_run ON series(run)"),
    };
    QSqlQuery q(db);
    for (const QString& s : statements)
        if (!q.exec(s))
            return q.lastError().text();
    return {};
}

QString driverProblem()
{
    if (QSqlDatabase::isDriverAvailable(QStringLiteral("QSQLITE")))
        return {};
    return QStringLiteral(
        "the Qt SQLite driver (QSQLITE) is not installed: install libqt6sql6-sqlite");
}

QString uniqueConnectionName(const char* role)
{
    static std::atomic<quint64> next{0};
    return QStringLiteral("stormwatch-%1-%2").arg(QLatin1String(role)).arg(++next);
}

} // namespace stormwatch::recording
