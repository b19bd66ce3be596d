#include "recording/recording.h"

#include "models/event_log_model.h"
#include "models/series_store.h"
#include "models/tag_table_model.h"
#include "recording/recording_schema.h"
#include "scenario/series.h"

#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonDocument>
#include <QSqlError>
#include <QSqlQuery>
#include <cmath>
#include <limits>

namespace stormwatch {

namespace {

QJsonObject jsonObject(const QVariant& text)
{
    return QJsonDocument::fromJson(text.toString().toUtf8()).object();
}

// The scenario file's form of one event (recorder.cpp writes it), back into an event.
std::optional<TimelineEvent> timelineEventFrom(double atS, const QJsonObject& o)
{
    const auto action = timelineActionFromName(o.value(QStringLiteral("action")).toString());
    if (!action)
        return std::nullopt;
    TimelineEvent e;
    e.atS = atS;
    e.action = *action;
    e.durationS = o.value(QStringLiteral("duration_s")).toDouble(e.durationS);
    e.factor = o.value(QStringLiteral("factor")).toDouble(e.factor);
    e.probability = o.value(QStringLiteral("probability")).toDouble(e.probability);
    e.downtimeS = o.value(QStringLiteral("downtime_s")).toDouble(e.downtimeS);
    e.instance = o.value(QStringLiteral("instance")).toString();
    e.levers = o.value(QStringLiteral("levers"));
    e.advertiseBulkSupervisory = o.value(QStringLiteral("advertise_bulk_supervisory")).toBool(true);
    e.gateway =
        o.value(QStringLiteral("gateway")).toString(); // the gateway it was aimed at; "" = all
    return e;
}

bool looksLikeSqlite(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return false;
    return f.read(16) == QByteArray("SQLite format 3\0", 16);
}

} // namespace

std::unique_ptr<Recording> Recording::open(const QString& path, QString* error)
{
    auto fail = [&](const QString& why) -> std::unique_ptr<Recording> {
        if (error)
            *error = QStringLiteral("%1: %2").arg(path, why);
        return nullptr;
    };
    if (const QString missing = recording::driverProblem(); !missing.isEmpty())
        return fail(missing);
    if (!QFileInfo::exists(path))
        return fail(QStringLiteral("no such file"));
    if (!looksLikeSqlite(path))
        return fail(QStringLiteral("not a stormwatch recording (not an SQLite file)"));

    std::unique_ptr<Recording> r(new Recording);
    r->m_path = path;
    QString why;
    // Read-only first: the user's file stays as it is. A file whose write-ahead log was
    // never checkpointed (a crash, a copy taken while recording) needs its log recovered,
    // which a read-only connection may not do: it is then read from a private copy.
    r->m_connection = recording::uniqueConnectionName("recording");
    r->m_db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), r->m_connection);
    r->m_db.setDatabaseName(path);
    r->m_db.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY"));
    if (r->m_db.open() && r->readHeader(&why))
        return r;
    if (why.startsWith(QLatin1Char('!'))) // a definite answer: not ours, or too new
        return fail(why.mid(1));
    r->m_warnings.clear();
    r->m_db.close();
    r->m_copy = std::make_unique<QTemporaryDir>();
    const QString copy = r->m_copy->filePath(QStringLiteral("recording.sqlite"));
    if (!r->m_copy->isValid() || !QFile::copy(path, copy))
        return fail(QStringLiteral("cannot be read (%1)").arg(why));
    if (QFile::exists(path + QStringLiteral("-wal")))
        QFile::copy(path + QStringLiteral("-wal"), copy + QStringLiteral("-wal"));
    r->m_db.setConnectOptions();
    r->m_db.setDatabaseName(copy);
    QString again;
    if (!r->m_db.open())
        return fail(QStringLiteral("cannot be read (%1)").arg(r->m_db.lastError().text()));
    if (!r->readHeader(&again))
        return fail(again.startsWith(QLatin1Char('!')) ? again.mid(1) : again);
    return r;
}

Recording::~Recording()
{
    if (m_db.isValid())
        m_db.close();
    m_db = QSqlDatabase();
    if (!m_connection.isEmpty())
        QSqlDatabase::removeDatabase(m_connection);
}

// "" on success; a leading '!' marks an answer a private copy would not change.
bool Recording::readHeader(QString* error)
{
    QSqlQuery q(m_db);
    if (!q.exec(QStringLiteral("SELECT key, value FROM meta"))) {
        const QString text = q.lastError().text();
        if (text.contains(QLatin1String("no such table")))
            *error = QStringLiteral(
                "!not a stormwatch recording (an SQLite file without its meta table)");
        else if (text.contains(QLatin1String("not a database")))
            *error = QStringLiteral("!not a stormwatch recording (not an SQLite file)");
        else
            *error = text;
        return false;
    }
    QHash<QString, QString> meta;
    while (q.next())
        meta.insert(q.value(0).toString(), q.value(1).toString());
    if (meta.value(QStringLiteral("format")) != QLatin1String(recording::kFormat)) {
        *error = QStringLiteral(
            "!not a stormwatch recording (its meta table names no stormwatch format)");
        return false;
    }
    bool ok = false;
    m_schemaVersion = meta.value(QStringLiteral("schema_version")).toInt(&ok);
    if (!ok || m_schemaVersion < 1) {
        *error =
            QStringLiteral("!not a stormwatch recording (schema_version \"%1\" is not a version)")
                .arg(meta.value(QStringLiteral("schema_version")));
        return false;
    }
    m_appVersion = meta.value(QStringLiteral("app_version"));
    if (m_schemaVersion > recording::kSchemaVersion) {
        *error =
            QStringLiteral(
                "!written by a newer stormwatch (%1, recording schema %2); this one (%3) reads "
                "schema %4 and older: open it with stormwatch %1 or later")
                .arg(m_appVersion.isEmpty() ? QStringLiteral("unknown version") : m_appVersion)
                .arg(m_schemaVersion)
                .arg(QStringLiteral(STORMWATCH_VERSION))
                .arg(recording::kSchemaVersion);
        return false;
    }
    m_created = QDateTime::fromString(meta.value(QStringLiteral("created_utc")), Qt::ISODateWithMs);

    m_runs.clear();
    if (!q.exec(QStringLiteral(
            "SELECT id, started_utc, live, open_ended, scenario, variant, gateway, source_json, "
            "levers_json, duration_s, end_s, ended, metrics_json FROM runs ORDER BY id"))) {
        *error = q.lastError().text();
        return false;
    }
    while (q.next()) {
        RecordedRun r;
        r.id = q.value(0).toLongLong();
        r.startedUtc = QDateTime::fromString(q.value(1).toString(), Qt::ISODateWithMs);
        r.live = q.value(2).toInt() != 0;
        r.openEnded = q.value(3).toInt() != 0;
        r.scenario = q.value(4).toString();
        r.variant = q.value(5).toString();
        r.gateway = q.value(6).toString();
        r.source = jsonObject(q.value(7));
        r.levers = jsonObject(q.value(8));
        r.durationS = q.value(9).toDouble();
        r.endS = q.value(10).toDouble();
        r.ended = q.value(11).toString();
        r.metrics = jsonObject(q.value(12));
        m_runs.push_back(r);
        if (r.ended.isEmpty())
            m_warnings
                << QStringLiteral(
                       "run %1 (%2 / %3) was not closed — the recording was cut while it was "
                       "written (a crash, or a copy taken while recording): it shows what was "
                       "committed, up to t = %4 s")
                       .arg(r.id)
                       .arg(r.scenario, r.variant)
                       .arg(r.endS, 0, 'f', 1);
    }
    if (meta.value(QStringLiteral("closed")) != QLatin1String("1") &&
        std::all_of(m_runs.cbegin(), m_runs.cend(),
                    [](const RecordedRun& r) { return !r.ended.isEmpty(); }))
        m_warnings << QStringLiteral(
            "the recording was not closed (a crash, or a copy taken while recording): "
            "it shows what was committed");
    return true;
}

bool Recording::query(QSqlQuery& q, const QString& what)
{
    if (q.exec())
        return true;
    m_warnings
        << QStringLiteral(
               "part of the recording is damaged: %1 could not be read (%2); it shows what could")
               .arg(what, q.lastError().text());
    return false;
}

std::optional<RunData> Recording::load(qint64 runId, QString* error)
{
    if (std::none_of(m_runs.cbegin(), m_runs.cend(),
                     [&](const RecordedRun& r) { return r.id == runId; })) {
        if (error)
            *error = QStringLiteral("%1: no run %2 in this recording").arg(m_path).arg(runId);
        return std::nullopt;
    }
    RunData d;
    QSqlQuery q(m_db);
    q.setForwardOnly(true);

    QHash<qint64, qsizetype> seriesIndex;
    q.prepare(
        QStringLiteral("SELECT id, instance, label, metric FROM series WHERE run = ? ORDER BY id"));
    q.addBindValue(runId);
    if (query(q, QStringLiteral("the series")))
        while (q.next()) {
            seriesIndex.insert(q.value(0).toLongLong(), d.series.size());
            d.series.push_back(
                SeriesUpdate{q.value(1).toInt(), q.value(2).toString(), q.value(3).toString(), {}});
        }
    q.prepare(
        QStringLiteral("SELECT p.series, p.t, p.v FROM points p JOIN series s ON s.id = p.series "
                       "WHERE s.run = ? ORDER BY p.rowid"));
    q.addBindValue(runId);
    if (query(q, QStringLiteral("the series points")))
        while (q.next())
            if (const auto i = seriesIndex.constFind(q.value(0).toLongLong());
                i != seriesIndex.cend())
                d.series[*i].points.append(QPointF(q.value(1).toDouble(), q.value(2).toDouble()));

    q.prepare(QStringLiteral(
        "SELECT t, wall_ms, severity, subject, message FROM logs WHERE run = ? ORDER BY rowid"));
    q.addBindValue(runId);
    if (query(q, QStringLiteral("the event log")))
        while (q.next())
            d.logs.push_back(LogEntry{
                q.value(0).toDouble(),
                q.value(1).isNull() ? QDateTime()
                                    : QDateTime::fromMSecsSinceEpoch(q.value(1).toLongLong()),
                q.value(2).toInt(), q.value(3).toString(), q.value(4).toString()});

    // Schema 1 did not record the advise kind nor whether the gateway refused the tag: unknown
    // (empty, not refused) when reopened. Before schema 3 there was no age: none, never stale.
    q.prepare(
        QStringLiteral(
            "SELECT instance, tag, instance_name, tag_name, value, text, quality, source_ts_us, "
            "item_handle, error, orphaned, first_good_s, %1, %2 FROM tags WHERE run = ? "
            "ORDER BY instance, tag")
            .arg(m_schemaVersion >= 2 ? QStringLiteral("advise, rejected")
                                      : QStringLiteral("NULL, NULL"),
                 m_schemaVersion >= 3 ? QStringLiteral("received_s, stale, stale_after_s")
                                      : QStringLiteral("NULL, NULL, NULL")));
    q.addBindValue(runId);
    if (query(q, QStringLiteral("the tag table")))
        while (q.next()) {
            RecordedTag t;
            t.state =
                TagChange{q.value(0).toInt(),      q.value(1).toInt(),       q.value(2).toString(),
                          q.value(3).toString(),   q.value(4).toDouble(),    q.value(5).toString(),
                          q.value(6).toInt(),      q.value(7).toLongLong(),  q.value(8).toInt(),
                          q.value(9).toString(),   q.value(10).toInt() != 0, q.value(12).toString(),
                          q.value(13).toInt() != 0};
            t.firstGoodS = q.value(11).isNull() ? -1 : q.value(11).toDouble();
            t.state.receivedUs =
                q.value(14).isNull() ? -1 : qint64(std::llround(q.value(14).toDouble() * 1e6));
            t.state.stale = q.value(15).toInt() != 0;
            t.state.staleAfterS = q.value(16).toDouble();
            d.tags.push_back(t);
        }

    q.prepare(QStringLiteral(
        "SELECT name, state, error, address, session_id, capabilities, protocol_version, "
        "echoed_timeout_s, ceiling_s, bulk_supervisory FROM connections WHERE run = ? ORDER BY "
        "rowid"));
    q.addBindValue(runId);
    if (query(q, QStringLiteral("the connections"))) {
        QHash<QString, qsizetype> byName;
        while (q.next()) {
            ConnectionInfo c;
            c.name = q.value(0).toString();
            c.state = q.value(1).toString();
            c.error = q.value(2).toString();
            c.address = q.value(3).toString();
            c.sessionId = q.value(4).toString();
            c.capabilities = q.value(5).toString().split(QLatin1Char(','), Qt::SkipEmptyParts);
            c.protocolVersion = q.value(6).toInt();
            c.echoedCommandTimeoutS = q.value(7).toDouble();
            c.inFlightCeilingS = q.value(8).toDouble();
            c.supportsSupervisoryBulk = q.value(9).toInt() != 0;
            if (const auto i = byName.constFind(c.name); i != byName.cend())
                d.connections[*i] = c;
            else {
                byName.insert(c.name, d.connections.size());
                d.connections.push_back(c);
            }
        }
    }

    q.prepare(QStringLiteral("SELECT t, levers_json FROM levers WHERE run = ? ORDER BY rowid"));
    q.addBindValue(runId);
    if (query(q, QStringLiteral("the lever changes")))
        while (q.next())
            d.leverChanges.push_back(LeverChange{q.value(0).toDouble(), jsonObject(q.value(1))});

    q.prepare(QStringLiteral("SELECT t, event_json FROM timeline WHERE run = ? ORDER BY t, rowid"));
    q.addBindValue(runId);
    if (query(q, QStringLiteral("the timeline")))
        while (q.next())
            if (const auto e = timelineEventFrom(q.value(0).toDouble(), jsonObject(q.value(1))))
                d.timeline.push_back(*e);
    return d;
}

SeriesSet Recording::seriesSet(const RunData& data) const
{
    // The recorder's own step semantics (Series::add): a restated point collapses the same way.
    SeriesSet set(std::numeric_limits<std::size_t>::max() / 2);
    for (const SeriesUpdate& u : data.series) {
        Series& s = set.at(set.indexOf(SeriesSubject::subjectOf(u), u.metric));
        for (const QPointF& p : u.points)
            s.add(p.x(), p.y());
    }
    return set;
}

} // namespace stormwatch
