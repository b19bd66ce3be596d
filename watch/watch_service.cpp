#include "watch/watch_service.h"

#include "client/gateway_connection.h"
#include "recording/recorder.h"
#include "scenario/scenario_parser.h"
#include "watch/fleet_metrics.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QHostAddress>
#include <QRegularExpression>
#include <QSet>
#include <prometheus/exposer.h>

namespace stormwatch {

namespace {

// /-/healthy: answers 200 while the service serves; it has nothing to say beyond that.
class Healthy : public prometheus::Collectable {
public:
    std::vector<prometheus::MetricFamily> Collect() const override { return {}; }
};

QString plural(qsizetype n, const char* one, const char* many)
{
    return QStringLiteral("%1 %2").arg(n).arg(QLatin1String(n == 1 ? one : many));
}

QStringList instanceNames(const Site& site)
{
    QStringList names;
    for (const SiteInstance& i : site.instances)
        names << i.name;
    return names;
}

} // namespace

WatchService::WatchService(WatchOptions options, QObject* parent)
    : QObject(parent), m_options(std::move(options)),
      m_metrics(
          std::make_shared<FleetMetrics>(QStringLiteral(STORMWATCH_VERSION),
                                         double(QDateTime::currentMSecsSinceEpoch()) / 1000.0)),
      m_health(std::make_shared<Healthy>())
{
    FleetMetrics::follow(m_metrics, m_host, this);
    connect(&m_host, &RunHost::logEntries, this, [this](const QVector<LogEntry>& entries) {
        for (const LogEntry& e : entries)
            emit line(
                QStringLiteral("%1 %2: %3")
                    .arg(QLatin1String(toString(Severity(e.severity))), e.subject, e.message));
    });
    // A watch has no end: the run host's open-ended run lasts a month, then starts again.
    connect(&m_host, &RunHost::finished, this, [this] {
        if (m_stopping)
            return;
        emit line(QStringLiteral("the run reached its end; watching again"));
        QString error;
        if (!startRun(&error))
            emit line(QStringLiteral("cannot watch again: %1").arg(error));
    });
    m_dayTimer.setInterval(60 * 1000);
    connect(&m_dayTimer, &QTimer::timeout, this, [this] {
        if (m_recorder && QDate::currentDate() != m_recordingDate)
            rotateRecording();
    });
}

WatchService::~WatchService()
{
    stop();
}

std::optional<QString> WatchService::bindAddress(const QString& listen, bool allowRemote,
                                                 QString* error)
{
    const auto fail = [&](const QString& why) -> std::optional<QString> {
        if (error)
            *error = QStringLiteral("--metrics-listen %1: %2").arg(listen, why);
        return std::nullopt;
    };
    const qsizetype colon = listen.lastIndexOf(QLatin1Char(':'));
    if (colon <= 0)
        return fail(QStringLiteral("must be HOST:PORT"));
    QString host = listen.left(colon);
    bool ok = false;
    const int port = listen.mid(colon + 1).toInt(&ok);
    if (!ok || port < 0 || port > 65535)
        return fail(QStringLiteral("the port must be 0 (any free one) to 65535"));
    if (host == QLatin1String("localhost"))
        host = QStringLiteral("127.0.0.1");
    const bool bracketed = host.startsWith(QLatin1Char('[')) && host.endsWith(QLatin1Char(']'));
    const QHostAddress address(bracketed ? host.mid(1, host.size() - 2) : host);
    if (address.isNull())
        return fail(QStringLiteral("the host must be an IP address or localhost"));
    if (!allowRemote && !address.isLoopback())
        return fail(QStringLiteral("not a loopback address: metrics are served to other "
                                   "machines only with --allow-remote"));
    const QString bound = address.protocol() == QAbstractSocket::IPv6Protocol
                              ? QStringLiteral("[%1]").arg(address.toString())
                              : address.toString();
    return bound + QLatin1Char(':') + QString::number(port);
}

std::optional<WatchService::Loaded> WatchService::load(QString* error)
{
    QList<ScenarioError> errors;
    auto site = loadSiteFile(m_options.siteFile, &errors);
    if (!site) {
        QStringList lines;
        for (const ScenarioError& e : errors)
            lines << e.toString();
        *error = lines.join(QLatin1Char('\n'));
        return std::nullopt;
    }
    QStringList refused;
    auto ports = sitePortOptions(*site, m_options.endpoints, error, &refused);
    if (!ports)
        return std::nullopt;
    for (const QString& r : refused)
        emit line(r + QStringLiteral(" — nothing is sent to it"));
    return Loaded{std::move(*site), std::move(*ports)};
}

bool WatchService::start(QString* error, bool* badInput)
{
    const auto bad = [&] {
        if (badInput)
            *badInput = true;
        return false;
    };
    QString why;
    const auto levers = leverPreset(m_options.variant, &why);
    if (!levers) {
        *error = QStringLiteral("--variant %1: %2").arg(m_options.variant, why);
        return bad();
    }
    m_levers = *levers;
    if (!(m_options.keepDays >= 1 && m_options.keepDays <= kMaxKeepDays)) {
        *error = QStringLiteral("--keep-days must be 1 to %1").arg(kMaxKeepDays);
        return bad();
    }
    const auto bind = bindAddress(m_options.metricsListen, m_options.allowRemote, error);
    if (!bind)
        return bad();
    m_loaded = load(error);
    if (!m_loaded)
        return bad();
    if (!m_options.recordDir.isEmpty() && !QDir().mkpath(m_options.recordDir)) {
        *error = QStringLiteral("--record-dir %1: cannot be made").arg(m_options.recordDir);
        return false;
    }
    try {
        m_exposer = std::make_unique<prometheus::Exposer>(bind->toStdString(), 2);
    } catch (const std::exception& e) {
        *error = QStringLiteral("--metrics-listen %1: cannot serve there (%2)")
                     .arg(m_options.metricsListen, QString::fromUtf8(e.what()));
        return false;
    }
    m_exposer->RegisterCollectable(m_metrics, "/metrics");
    m_exposer->RegisterCollectable(m_health, "/-/healthy");
    const auto ports = m_exposer->GetListeningPorts();
    m_port = ports.empty() ? 0 : ports.front();
    if (!m_options.recordDir.isEmpty()) {
        openRecording();
        m_dayTimer.start();
    }
    return startRun(error);
}

bool WatchService::startRun(QString* error)
{
    const Site& site = m_loaded->site;
    const Scenario scenario = RunHost::openEndedLive(siteScenario(site), m_levers);
    m_metrics->setRun(scenario);
    LiveOptions live;
    live.gateways = m_loaded->ports;
    if (!m_host.startLive(scenario, QStringLiteral("live"), live, error))
        return false;
    emit line(QStringLiteral("watching site \"%1\": %2, %3, %4 with levers %5")
                  .arg(site.name, plural(site.gateways.size(), "gateway", "gateways"),
                       plural(site.instances.size(), "instance", "instances"),
                       plural(site.tagCount(), "tag", "tags"), m_options.variant));
    return true;
}

void WatchService::reload()
{
    if (!m_loaded || m_stopping)
        return;
    QString error;
    auto loaded = load(&error);
    if (!loaded) {
        emit line(QStringLiteral("reload of %1 refused, still watching the site as it was:\n%2")
                      .arg(m_options.siteFile, error));
        return;
    }
    if (loaded->site == m_loaded->site) {
        emit line(QStringLiteral("reload of %1: the site is unchanged").arg(m_options.siteFile));
        return;
    }
    const QStringList before = instanceNames(m_loaded->site);
    const QStringList after = instanceNames(loaded->site);
    QStringList added, removed;
    for (const QString& n : after)
        if (!before.contains(n))
            added << n;
    for (const QString& n : before)
        if (!after.contains(n))
            removed << n;
    emit line(
        QStringLiteral("reload of %1: the site changed (%2 added, %3 removed); its sessions "
                       "are opened again")
            .arg(m_options.siteFile,
                 added.isEmpty() ? QStringLiteral("none") : added.join(QStringLiteral(", ")),
                 removed.isEmpty() ? QStringLiteral("none") : removed.join(QStringLiteral(", "))));
    const std::optional<Loaded> previous = std::move(m_loaded);
    m_host.stop();
    m_loaded = std::move(loaded);
    if (!startRun(&error)) {
        emit line(QStringLiteral("the changed site cannot run (%1); watching the site as it was")
                      .arg(error));
        m_loaded = previous;
        if (!startRun(&error))
            emit line(QStringLiteral("cannot watch again: %1").arg(error));
    }
}

void WatchService::stop()
{
    if (m_stopping)
        return;
    m_stopping = true;
    m_dayTimer.stop();
    m_host.stop(); // closes every session, bounded
    if (m_recorder) {
        m_recorder->close();
        m_recorder.reset();
    }
    m_exposer.reset();
}

QString WatchService::recordingPath() const
{
    return m_recorder ? m_recorder->path() : QString();
}

void WatchService::openRecording()
{
    // A file per day and per start, so a restart the same day never replaces the morning's.
    const QDateTime now = QDateTime::currentDateTime();
    const QString path =
        QDir(m_options.recordDir)
            .filePath(
                QStringLiteral("%1-%2.sqlite")
                    .arg(recordingBase(), now.toString(QStringLiteral("yyyy-MM-dd'T'HHmmss"))));
    auto recorder = std::make_unique<Recorder>();
    QString error;
    if (!recorder->open(path, &error)) {
        emit line(QStringLiteral("not recording: %1").arg(error));
        return;
    }
    connect(recorder.get(), &Recorder::failed, this, [this](const QString& why) {
        emit line(QStringLiteral("recording stopped: %1 (a new file is tried tomorrow)").arg(why));
    });
    recorder->attach(&m_host);
    m_recorder = std::move(recorder);
    m_recordingDate = now.date();
    emit line(QStringLiteral("recording to %1").arg(path));
    pruneRecordings();
}

QString WatchService::recordingBase() const
{
    static const QRegularExpression unsafe(QStringLiteral("[^A-Za-z0-9._-]"));
    QString base = m_loaded->site.name;
    return base.replace(unsafe, QStringLiteral("_"));
}

void WatchService::rotateRecording()
{
    if (m_recorder) {
        m_recorder->close();
        m_recorder.reset();
    }
    openRecording();
}

void WatchService::pruneRecordings()
{
    const QDateTime oldest = QDateTime::currentDateTime().addDays(-m_options.keepDays);
    const QString current = m_recorder ? QFileInfo(m_recorder->path()).fileName() : QString();
    const QFileInfoList files =
        QDir(m_options.recordDir)
            .entryInfoList({recordingBase() + QStringLiteral("-*.sqlite")}, QDir::Files);
    for (const QFileInfo& f : files) {
        if (f.fileName() == current || f.lastModified() >= oldest)
            continue;
        if (QFile::remove(f.absoluteFilePath()))
            emit line(QStringLiteral("removed the recording %1 (older than %2 days)")
                          .arg(f.fileName())
                          .arg(m_options.keepDays));
    }
}

} // namespace stormwatch
