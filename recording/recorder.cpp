#include "recording/recorder.h"

#include "client/lever_set.h"
#include "recording/recording_schema.h"
#include "scenario/report.h"
#include "scenario/scenario_parser.h"

#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryFile>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace stormwatch {

namespace {

QString compactJson(const QJsonObject& o)
{
    return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
}

// One timeline event in the scenario file's form (scenarioToJson writes exactly the
// parameters of its action).
QJsonObject timelineEventJson(const TimelineEvent& e)
{
    Scenario one;
    one.timeline = {e};
    return scenarioToJson(one).value(QStringLiteral("timeline")).toArray().first().toObject();
}

qint64 tagKey(int instance, int tag)
{
    return (qint64(instance) << 32) | quint32(tag);
}

constexpr int kGoodQualityFloor = 192; // OPC Good: the top two bits 11

} // namespace

struct Recorder::Statements {
    explicit Statements(const QSqlDatabase& db)
        : run(db), runEnd(db), runMetrics(db), series(db), point(db), log(db), tag(db),
          tagEvent(db), connection(db), levers(db), timeline(db)
    {
    }
    bool prepare()
    {
        return run.prepare(
                   QStringLiteral("INSERT INTO runs(started_utc, live, open_ended, scenario, "
                                  "variant, gateway, source_json, "
                                  "levers_json, duration_s, end_s) VALUES(?,?,?,?,?,?,?,?,?,0)")) &&
               runEnd.prepare(
                   QStringLiteral("UPDATE runs SET end_s = ?, ended = ? WHERE id = ?")) &&
               runMetrics.prepare(
                   QStringLiteral("UPDATE runs SET metrics_json = ? WHERE id = ?")) &&
               series.prepare(QStringLiteral(
                   "INSERT INTO series(run, instance, label, metric) VALUES(?,?,?,?)")) &&
               point.prepare(QStringLiteral("INSERT INTO points(series, t, v) VALUES(?,?,?)")) &&
               log.prepare(QStringLiteral("INSERT INTO logs(run, t, wall_ms, severity, subject, "
                                          "message) VALUES(?,?,?,?,?,?)")) &&
               tag.prepare(
                   QStringLiteral("INSERT OR REPLACE INTO tags(run, instance, tag, instance_name, "
                                  "tag_name, value, text, quality, "
                                  "source_ts_us, item_handle, error, orphaned, first_good_s, "
                                  "advise, rejected, received_s, stale, "
                                  "stale_after_s) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")) &&
               tagEvent.prepare(QStringLiteral("INSERT INTO tag_events(run, t, instance, tag, "
                                               "quality, item_handle, error, orphaned, rejected, "
                                               "stale) VALUES(?,?,?,?,?,?,?,?,?,?)")) &&
               connection.prepare(
                   QStringLiteral("INSERT INTO connections(run, t, name, state, error, address, "
                                  "session_id, capabilities, "
                                  "protocol_version, echoed_timeout_s, ceiling_s, "
                                  "bulk_supervisory) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)")) &&
               levers.prepare(
                   QStringLiteral("INSERT INTO levers(run, t, levers_json) VALUES(?,?,?)")) &&
               timeline.prepare(
                   QStringLiteral("INSERT INTO timeline(run, t, event_json) VALUES(?,?,?)"));
    }
    QSqlQuery run, runEnd, runMetrics, series, point, log, tag, tagEvent, connection, levers,
        timeline;
};

Recorder::Recorder(QObject* parent) : QObject(parent)
{
    m_commitTimer.setInterval(500);
    connect(&m_commitTimer, &QTimer::timeout, this, [this] {
        if (m_inTransaction)
            commit();
    });
}

Recorder::~Recorder()
{
    close();
}

void Recorder::setCommitIntervalMs(int ms)
{
    m_commitTimer.setInterval(std::max(1, ms));
}

bool Recorder::open(const QString& path, QString* error)
{
    close();
    QString temp; // the new recording while it is made, before it replaces `path`
    auto failWith = [&](const QString& why) {
        if (error)
            *error = QStringLiteral("cannot record to \"%1\": %2").arg(path, why);
        m_sql.reset();
        dropConnection();
        if (!temp.isEmpty())
            for (const QString& suffix :
                 {QString(), QStringLiteral("-wal"), QStringLiteral("-shm")})
                QFile::remove(temp + suffix);
        return false;
    };
    if (const QString missing = recording::driverProblem(); !missing.isEmpty())
        return failWith(missing);
    // Made and checked under a temporary name beside `path`, then renamed over it: a path
    // that cannot be written (a full disk, a read-only directory) leaves an old recording
    // there whole. The same directory, so the rename is one atomic step.
    const QFileInfo target(path);
    const bool replacing = target.exists();
    QTemporaryFile file(target.absolutePath() + QStringLiteral("/.") + target.fileName() +
                        QStringLiteral("-XXXXXX"));
    file.setAutoRemove(false);
    if (!file.open())
        return failWith(QStringLiteral("cannot create a file in %1 (%2)")
                            .arg(target.absolutePath(), file.errorString()));
    temp = file.fileName();
    // A temporary file is private (0600); a recording is as readable as any file SQLite makes.
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadGroup |
                        QFileDevice::ReadOther);
    file.close();
    const QString kept = replacing ? QStringLiteral("; the existing file is kept") : QString();
    if (const QString bad = openConnection(temp); !bad.isEmpty())
        return failWith(bad + kept);
    if (const QString bad = recording::createSchema(m_db); !bad.isEmpty())
        return failWith(QStringLiteral("cannot write a new recording (%1)%2").arg(bad, kept));
    const QList<std::pair<QString, QString>> meta{
        {QStringLiteral("format"), QString::fromLatin1(recording::kFormat)},
        {QStringLiteral("schema_version"), QString::number(recording::kSchemaVersion)},
        {QStringLiteral("app_version"), QStringLiteral(STORMWATCH_VERSION)},
        {QStringLiteral("created_utc"),
         QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs)},
        {QStringLiteral("closed"), QStringLiteral("0")},
    };
    {
        QSqlQuery q(m_db);
        q.prepare(QStringLiteral("INSERT INTO meta(key, value) VALUES(?, ?)"));
        for (const auto& [key, value] : meta) {
            q.addBindValue(key);
            q.addBindValue(value);
            if (!q.exec())
                return failWith(QStringLiteral("cannot write a new recording (%1)%2")
                                    .arg(q.lastError().text(), kept));
        }
    }
    // Closed, the new file is whole (its log folded in); only then does it replace the old.
    dropConnection();
    if (std::rename(QFile::encodeName(temp).constData(), QFile::encodeName(path).constData()) != 0)
        return failWith(QStringLiteral("the existing file cannot be replaced (%1)%2")
                            .arg(QString::fromLocal8Bit(std::strerror(errno)), kept));
    temp.clear();
    // The old file's log, if it was cut while written, belongs to the old file: beside the
    // new one SQLite would replay it into it.
    for (const QString& suffix : {QStringLiteral("-wal"), QStringLiteral("-shm")})
        if (QFile::exists(path + suffix) && !QFile::remove(path + suffix))
            return failWith(
                QStringLiteral("the old recording's %1 file cannot be removed").arg(suffix));
    if (const QString bad = openConnection(path); !bad.isEmpty())
        return failWith(bad);
    m_sql = std::make_unique<Statements>(m_db);
    if (!m_sql->prepare())
        return failWith(m_db.lastError().text());
    m_path = path;
    m_commitTimer.start();
    return true;
}

QString Recorder::openConnection(const QString& file)
{
    m_connection = recording::uniqueConnectionName("recorder");
    m_db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_connection);
    m_db.setDatabaseName(file);
    if (!m_db.open())
        return m_db.lastError().text();
    QSqlQuery q(m_db);
    // WAL: a commit appends to the log, readers never block the writer, and a crash loses
    // only what was not committed. NORMAL sync: a process crash loses nothing committed;
    // only a power cut may lose the commits since the last checkpoint.
    if (!q.exec(QStringLiteral("PRAGMA journal_mode=WAL")) || !q.next() ||
        q.value(0).toString().compare(QLatin1String("wal"), Qt::CaseInsensitive) != 0) {
        const QString sqlError = q.lastError().text();
        return sqlError.isEmpty()
                   ? QStringLiteral("the file system does not allow a write-ahead log")
                   : QStringLiteral("cannot write a new recording (%1)").arg(sqlError);
    }
    q.exec(QStringLiteral("PRAGMA synchronous=NORMAL"));
    return {};
}

void Recorder::dropConnection()
{
    if (m_db.isValid())
        m_db.close();
    m_db = QSqlDatabase();
    if (!m_connection.isEmpty())
        QSqlDatabase::removeDatabase(m_connection);
    m_connection.clear();
}

void Recorder::attach(RunHost* host)
{
    detach();
    m_host = host;
    if (!host)
        return;
    m_hostConnections = {
        connect(host, &RunHost::stateChanged, this, &Recorder::onStateChanged),
        connect(host, &RunHost::logEntries, this, &Recorder::onLogs),
        connect(host, &RunHost::tagChanges, this, &Recorder::onTags),
        connect(host, &RunHost::seriesUpdates, this, &Recorder::onSeries),
        connect(host, &RunHost::connectionInfo, this, &Recorder::onConnections),
        connect(host, &RunHost::leversChanged, this, &Recorder::onLevers),
        connect(host, &RunHost::timelinePassed, this, &Recorder::onTimeline),
        connect(host, &RunHost::finished, this, &Recorder::onFinished),
        connect(host, &RunHost::stopped, this, [this] { endRun(QStringLiteral("stopped")); }),
    };
    onStateChanged();
}

void Recorder::detach()
{
    for (const QMetaObject::Connection& c : std::as_const(m_hostConnections))
        disconnect(c);
    m_hostConnections.clear();
    if (m_run >= 0)
        endRun(QStringLiteral("recording stopped"));
    m_host = nullptr;
}

void Recorder::close()
{
    detach();
    m_commitTimer.stop();
    if (isOpen()) {
        QSqlQuery q(m_db);
        begin();
        q.exec(QStringLiteral("UPDATE meta SET value = '1' WHERE key = 'closed'"));
        commit();
        // Closed, the recording is one file: the log is folded in and removed, and readers
        // (read-only) then need no -wal or -shm beside it.
        q.exec(QStringLiteral("PRAGMA journal_mode=DELETE"));
    }
    m_sql.reset();
    dropConnection();
}

double Recorder::now() const
{
    return m_host ? m_host->virtualS() : 0.0;
}

bool Recorder::ensureRun()
{
    if (!isOpen() || !m_host)
        return false;
    if (m_run < 0 && m_host->state() == RunHost::State::Running)
        beginRun();
    return m_run >= 0;
}

void Recorder::onStateChanged()
{
    if (!m_host)
        return;
    if (m_host->state() == RunHost::State::Running)
        ensureRun();
    else if (m_run >= 0)
        endRun(m_host->state() == RunHost::State::Finished ? QStringLiteral("finished")
                                                           : QStringLiteral("stopped"));
}

void Recorder::beginRun()
{
    begin();
    const RunHost& h = *m_host;
    QJsonObject source = scenarioToJson(h.scenario());
    if (h.virtualS() > 0)
        source.insert(QStringLiteral("started_mid_run_at_s"), h.virtualS());
    QSqlQuery& q = m_sql->run;
    q.addBindValue(QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs));
    q.addBindValue(h.live() ? 1 : 0);
    q.addBindValue(h.openEnded() ? 1 : 0);
    q.addBindValue(h.scenarioName());
    q.addBindValue(h.variantName());
    q.addBindValue(h.gatewayAddress());
    q.addBindValue(compactJson(source));
    q.addBindValue(compactJson(leverSetToJson(h.levers())));
    q.addBindValue(h.durationS());
    if (!exec(q))
        return;
    m_run = q.lastInsertId().toLongLong();
    ++m_runs;
    m_seriesIds.clear();
    m_tags.clear();
    m_lastConnections.clear();
}

void Recorder::endRun(const QString& how)
{
    if (m_run < 0 || !isOpen()) {
        m_run = -1;
        return;
    }
    begin();
    writeTags();
    if (!isOpen())
        return; // a tag failed to write: fail() closed the file (and ended the run)
    QSqlQuery& q = m_sql->runEnd;
    q.addBindValue(now());
    q.addBindValue(how);
    q.addBindValue(m_run);
    exec(q);
    m_run = -1;
    if (isOpen())
        commit();
}

void Recorder::onLogs(const QVector<LogEntry>& entries)
{
    if (!ensureRun())
        return;
    begin();
    QSqlQuery& q = m_sql->log;
    for (const LogEntry& e : entries) {
        q.addBindValue(m_run);
        q.addBindValue(e.tS);
        q.addBindValue(e.wall.isValid() ? e.wall.toMSecsSinceEpoch() : QVariant());
        q.addBindValue(e.severity);
        q.addBindValue(e.subject);
        q.addBindValue(e.message);
        if (!exec(q))
            return;
    }
}

void Recorder::onTags(const QVector<TagChange>& changes)
{
    if (!ensureRun())
        return;
    begin();
    const double t = now();
    QSqlQuery& q = m_sql->tagEvent;
    for (const TagChange& c : changes) {
        TagState& s = m_tags[tagKey(c.instance, c.tag)];
        s.last = c;
        s.dirty = true;
        if (s.firstGoodS < 0 && c.quality >= kGoodQualityFloor)
            s.firstGoodS = t;
        // Values change every second; what a review needs is when a tag's state changed.
        if (c.quality == s.quality && c.itemHandle == s.itemHandle && c.error == s.error &&
            c.orphaned == s.orphaned && c.rejected == s.rejected && c.stale == s.stale)
            continue;
        s.stale = c.stale;
        s.quality = c.quality;
        s.itemHandle = c.itemHandle;
        s.error = c.error;
        s.orphaned = c.orphaned;
        s.rejected = c.rejected;
        q.addBindValue(m_run);
        q.addBindValue(t);
        q.addBindValue(c.instance);
        q.addBindValue(c.tag);
        q.addBindValue(c.quality);
        q.addBindValue(c.itemHandle);
        q.addBindValue(c.error);
        q.addBindValue(c.orphaned ? 1 : 0);
        q.addBindValue(c.rejected ? 1 : 0);
        q.addBindValue(c.stale ? 1 : 0);
        if (!exec(q))
            return;
    }
}

// The final state of every tag that changed since the last commit.
void Recorder::writeTags()
{
    if (m_run < 0)
        return;
    QSqlQuery& q = m_sql->tag;
    for (auto it = m_tags.begin(); it != m_tags.end(); ++it) {
        TagState& s = it.value();
        if (!s.dirty)
            continue;
        s.dirty = false;
        const TagChange& c = s.last;
        q.addBindValue(m_run);
        q.addBindValue(c.instance);
        q.addBindValue(c.tag);
        q.addBindValue(c.instanceName);
        q.addBindValue(c.tagName);
        q.addBindValue(c.value);
        q.addBindValue(c.text);
        q.addBindValue(c.quality);
        q.addBindValue(c.sourceTimestampUs);
        q.addBindValue(c.itemHandle);
        q.addBindValue(c.error);
        q.addBindValue(c.orphaned ? 1 : 0);
        q.addBindValue(s.firstGoodS >= 0 ? QVariant(s.firstGoodS) : QVariant());
        q.addBindValue(c.advise);
        q.addBindValue(c.rejected ? 1 : 0);
        q.addBindValue(c.receivedUs >= 0 ? QVariant(double(c.receivedUs) / 1e6) : QVariant());
        q.addBindValue(c.stale ? 1 : 0);
        q.addBindValue(c.staleAfterS);
        if (!exec(q))
            return;
    }
}

void Recorder::onSeries(const QVector<SeriesUpdate>& updates)
{
    if (!ensureRun())
        return;
    begin();
    for (const SeriesUpdate& u : updates) {
        const QString key =
            QString::number(u.instance) + QChar(0x1f) + u.label + QChar(0x1f) + u.metric;
        auto id = m_seriesIds.constFind(key);
        if (id == m_seriesIds.cend()) {
            QSqlQuery& s = m_sql->series;
            s.addBindValue(m_run);
            s.addBindValue(u.instance);
            s.addBindValue(u.label);
            s.addBindValue(u.metric);
            if (!exec(s))
                return;
            id = m_seriesIds.insert(key, s.lastInsertId().toLongLong());
        }
        QSqlQuery& q = m_sql->point;
        for (const QPointF& p : u.points) {
            q.addBindValue(*id);
            q.addBindValue(p.x());
            q.addBindValue(p.y());
            if (!exec(q))
                return;
        }
    }
}

void Recorder::onConnections(const QVector<ConnectionInfo>& infos)
{
    if (!ensureRun())
        return;
    begin();
    QSqlQuery& q = m_sql->connection;
    for (const ConnectionInfo& c : infos) {
        const auto last = m_lastConnections.constFind(c.name);
        // The retry countdown changes every step; the rest is what a review reads.
        if (last != m_lastConnections.cend() && last->state == c.state && last->error == c.error &&
            last->sessionId == c.sessionId && last->capabilities == c.capabilities &&
            last->echoedCommandTimeoutS == c.echoedCommandTimeoutS &&
            last->inFlightCeilingS == c.inFlightCeilingS && last->address == c.address)
            continue;
        m_lastConnections.insert(c.name, c);
        q.addBindValue(m_run);
        q.addBindValue(now());
        q.addBindValue(c.name);
        q.addBindValue(c.state);
        q.addBindValue(c.error);
        q.addBindValue(c.address);
        q.addBindValue(c.sessionId);
        q.addBindValue(c.capabilities.join(QLatin1Char(',')));
        q.addBindValue(c.protocolVersion);
        q.addBindValue(c.echoedCommandTimeoutS);
        q.addBindValue(c.inFlightCeilingS);
        q.addBindValue(c.supportsSupervisoryBulk ? 1 : 0);
        if (!exec(q))
            return;
    }
}

void Recorder::onLevers(const LeverSet& levers)
{
    if (!ensureRun())
        return;
    begin();
    QSqlQuery& q = m_sql->levers;
    q.addBindValue(m_run);
    q.addBindValue(now());
    q.addBindValue(compactJson(leverSetToJson(levers)));
    exec(q);
}

void Recorder::onTimeline(const QVector<TimelineEvent>& events)
{
    if (!ensureRun())
        return;
    begin();
    QSqlQuery& q = m_sql->timeline;
    for (const TimelineEvent& e : events) {
        q.addBindValue(m_run);
        q.addBindValue(e.atS);
        q.addBindValue(compactJson(timelineEventJson(e)));
        if (!exec(q))
            return;
    }
}

void Recorder::onFinished(const QSharedPointer<VariantRun>& run)
{
    if (m_run < 0 || !isOpen() || !run)
        return;
    begin();
    QSqlQuery& q = m_sql->runMetrics;
    q.addBindValue(compactJson(variantToJson(run->metrics)));
    q.addBindValue(m_run);
    if (exec(q))
        endRun(QStringLiteral("finished"));
}

bool Recorder::exec(QSqlQuery& query)
{
    if (query.exec()) {
        ++m_rows;
        return true;
    }
    fail(query.lastError().text());
    return false;
}

void Recorder::begin()
{
    if (m_inTransaction || !isOpen())
        return;
    m_inTransaction = m_db.transaction();
}

void Recorder::commit()
{
    if (!m_inTransaction || !isOpen())
        return;
    writeTags();
    if (!isOpen())
        return; // a tag failed to write: fail() closed the file, and said so once
    if (m_run >= 0) {
        QSqlQuery& q = m_sql->runEnd;
        q.addBindValue(now());
        q.addBindValue(QVariant()); // not ended yet
        q.addBindValue(m_run);
        if (!exec(q))
            return;
    }
    m_inTransaction = false;
    if (!m_db.commit())
        return fail(m_db.lastError().text());
    ++m_commits;
}

void Recorder::fail(const QString& why)
{
    const QString message = QStringLiteral("recording to \"%1\" stopped: %2").arg(m_path, why);
    // Close without writing more: the file keeps what was committed.
    for (const QMetaObject::Connection& c : std::as_const(m_hostConnections))
        disconnect(c);
    m_hostConnections.clear();
    m_host = nullptr;
    m_run = -1;
    m_commitTimer.stop();
    m_sql.reset();
    if (m_inTransaction)
        m_db.rollback();
    m_inTransaction = false;
    dropConnection();
    emit failed(message);
}

} // namespace stormwatch
