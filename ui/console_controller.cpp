#include "ui/console_controller.h"

#include "models/series_store.h"
#include "scenario/metric_table.h"
#include "scenario/run_host.h"
#include "scenario/scenario_parser.h"
#include "ui/compare_view.h"
#include "ui/console_view.h"

#include <QDateTime>
#include <QHash>
#include <QLocale>
#include <QLoggingCategory>
#include <QWidget>
#include <cmath>

namespace stormwatch {

QString RunCaption::text() const
{
    QStringList parts{variant.isEmpty() ? scenario
                                        : QStringLiteral("%1 — %2").arg(scenario, variant)};
    if (!levers.isEmpty())
        parts << QStringLiteral("levers: %1").arg(levers);
    if (!gateway.isEmpty())
        parts << QStringLiteral("gateway %1").arg(gateway);
    return parts.join(QStringLiteral(" · "));
}

Q_LOGGING_CATEGORY(lcConsole, "stormwatch.ui.console")

namespace {

// The incident in miniature (2 × 244 tags) makes the liveliest demo; the others are
// fallbacks should it be renamed.
QString defaultDemoScenario()
{
    const QStringList bundled = bundledScenarioNames();
    for (const char* name : {"subscribe-storm", "live-gate-lever1"})
        if (bundled.contains(QLatin1String(name)))
            return QLatin1String(name);
    return bundled.value(0);
}

QString recoveryStateName(int code)
{
    switch (code) {
    case 1:
        return QStringLiteral("recovering");
    case 2:
        return QStringLiteral("closed");
    default:
        return QStringLiteral("normal");
    }
}

} // namespace

ConsoleController::ConsoleController(ConsoleView* view, QObject* parent)
    : QObject(parent), m_view(view), m_host(new RunHost(this))
{
    ConsoleIntents* intents = view->intents();
    connect(intents, &ConsoleIntents::leversChanged, this, &ConsoleController::applyLevers);
    connect(intents, &ConsoleIntents::faultRequested, this, &ConsoleController::injectFault);
    connect(intents, &ConsoleIntents::capabilityToggled, this,
            &ConsoleController::setAdvertiseBulkSupervisory);
    connect(intents, &ConsoleIntents::redeployRequested, this, &ConsoleController::redeploy);
    connect(intents, &ConsoleIntents::playRequested, this, &ConsoleController::play);
    connect(intents, &ConsoleIntents::stopRequested, this, &ConsoleController::stop);
    connect(intents, &ConsoleIntents::pauseToggled, this, &ConsoleController::togglePause);
    connect(intents, &ConsoleIntents::compareRequested, this, &ConsoleController::compare);
    connectHost();
    connectRecording();
    QString ignored;
    setDemoScenario(QString(), &ignored);
}

ConsoleController::~ConsoleController()
{
    if (m_compare)
        delete m_compare.data(); // joins its worker before the window goes
    m_host->stop();              // closes the run's sessions while its gateway still answers
}

bool ConsoleController::setDemoScenario(const QString& nameOrPath, QString* error)
{
    const QString which = nameOrPath.isEmpty() ? defaultDemoScenario() : nameOrPath;
    QList<ScenarioError> errors;
    const auto scenario = loadScenario(which, &errors);
    if (!scenario) {
        QStringList lines;
        for (const ScenarioError& e : errors)
            lines << e.toString();
        if (error)
            *error = lines.isEmpty() ? QStringLiteral("unknown scenario \"%1\"").arg(which)
                                     : lines.join(QLatin1Char('\n'));
        return false;
    }
    m_demo = *scenario;
    m_demoName = which;
    return true;
}

bool ConsoleController::startEmbedded(QString* error)
{
    m_externalPort.reset();
    return startLiveRun(error);
}

bool ConsoleController::startExternal(const GrpcPortOptions& port, QString* error)
{
    // The run checks the options (address, TLS files, token) and says what is wrong.
    const auto before = m_externalPort;
    m_externalPort = port;
    if (startLiveRun(error))
        return true;
    m_externalPort = before;
    return false;
}

bool ConsoleController::startLiveRun(QString* error)
{
    LiveOptions live;
    if (m_externalPort)
        live.gateway = *m_externalPort;
    live.gateways = m_siteGateways;
    QString why;
    if (!m_host->startLive(RunHost::openEndedLive(m_site.value_or(m_demo), m_levers),
                           QStringLiteral("live"), live, &why)) {
        if (error)
            *error = why;
        m_view->showError(QStringLiteral("Live run"), why);
        return false;
    }
    m_started = true;
    m_showingLive = true;
    startOver();
    refresh();
    log(int(Severity::Info), QStringLiteral("console"),
        m_site ? QStringLiteral("live run on site \"%1\": %2 (each connection retries with backoff "
                                "until its gateway "
                                "answers)")
                     .arg(m_site->name, m_host->gatewayAddress())
        : m_externalPort
            ? QStringLiteral("live run on gateway %1 (the connection retries with backoff until it "
                             "answers)")
                  .arg(m_host->gatewayAddress())
            : QStringLiteral("live run on an embedded mock gateway, %1")
                  .arg(m_host->gatewayAddress()));
    return true;
}

QString ConsoleController::gatewayAddress() const
{
    return m_host->gatewayAddress();
}

void ConsoleController::startOver()
{
    m_shownRecording.reset();
    if (m_retentionBeforeRecording) {
        m_view->store()->setRetentionSeconds(*m_retentionBeforeRecording);
        m_retentionBeforeRecording.reset();
    }
    m_recoveryState = QStringLiteral("normal");
    m_view->store()->clear();
    m_view->clearMarkers();
    m_runStart = QDateTime::currentDateTimeUtc();
    m_view->clearTags();
    m_connections.clear();
    m_view->setConnectionInfo({});
    m_view->setRunGateways(runGateways());
}

QMap<QString, QList<int>> ConsoleController::runGateways() const
{
    // A run on a site's gateways, live or virtual (RunHost::gatewayNames); a scenario's one
    // gateway has nothing to filter.
    if (m_host->gatewayNames().size() < 2)
        return {};
    return gatewaysOf(m_host->scenario());
}

QMap<QString, QList<int>> ConsoleController::gatewaysOf(const Scenario& run)
{
    QMap<QString, QList<int>> by;
    QHash<QString, QString> gatewayOf; // connection -> its gateway
    for (const ScenarioConnection& c : run.connections)
        gatewayOf.insert(c.name, c.gateway);
    for (int i = 0; i < run.instances.size(); ++i)
        if (const QString g = gatewayOf.value(run.instances[i].connection); !g.isEmpty())
            by[g] << i;
    return by.size() > 1 ? by : QMap<QString, QList<int>>{};
}

void ConsoleController::refresh()
{
    if (m_shownRecording) {
        refreshRecording(); // nothing runs: the panels describe the recorded run
        return;
    }
    // A run that is over has no session left: its connections must not still read "connected".
    if (!m_host->running() && !m_connections.isEmpty() &&
        m_connections.front().state != QLatin1String("stopped")) {
        for (ConnectionInfo& c : m_connections) {
            c.state = QStringLiteral("stopped");
            c.sessionId.clear();
            c.retryInS = -1;
        }
        m_view->setConnectionInfo(m_connections);
    }
    m_view->setLevers(m_host->levers());
    // Several connections (a site's gateways): the topology groups the instances by them.
    if (const auto grouped = m_host->instancesByConnection(); grouped.size() > 1)
        m_view->setInstancesByConnection(grouped);
    else
        m_view->setInstances(m_host->instanceNames());
    m_view->setGatewaySummary(m_host->gatewayAddress(), m_recoveryState);
    const QString reason = m_host->faultsUnavailableReason();
    m_view->setFaultsAvailable(m_host->running() && reason.isEmpty(),
                               m_host->running() ? reason : QStringLiteral("no run is running"));
    m_view->setFaultGateways(m_host->gatewayNames());
    RunState state;
    state.playback = !m_showingLive;
    state.running = m_host->running();
    state.paused = m_host->running() && m_host->paused();
    state.live = m_host->live();
    state.progress = m_host->openEnded() || m_host->durationS() <= 0
                         ? -1.0
                         : (m_host->state() == RunHost::State::Finished
                                ? 1.0
                                : m_host->virtualS() / m_host->durationS());
    state.speed = m_host->live() ? -1.0 : m_host->speed();
    state.label = runLabel(m_host->virtualS());
    if (!m_showingLive) {
        state.scenario = m_played;
        state.variant = m_host->variantName();
    } else if (m_site) {
        state.site = m_site->name;
        state.siteSummary = siteSummary();
    }
    m_view->setRunState(state);
    RunCaption caption;
    caption.scenario = m_showingLive ? QStringLiteral("live") : m_host->scenarioName();
    caption.variant = m_showingLive ? QString() : m_host->variantName();
    const auto preset = presetNameOf(m_host->levers());
    caption.levers = preset ? *preset : describeLevers(m_host->levers());
    caption.gateway = m_host->gatewayAddress();
    caption.start = m_runStart;
    caption.virtualTime = !m_host->live();
    m_view->setRunCaption(caption);
}

QString ConsoleController::siteSummary() const
{
    QStringList gateways;
    for (const auto& [name, options] : m_siteGateways)
        gateways << QStringLiteral("%1 (%2)").arg(QString::fromStdString(name),
                                                  QString::fromStdString(options.address));
    qint64 tags = 0;
    for (const ScenarioInstance& i : m_site->instances)
        tags += i.tags;
    const auto count = [](qint64 n, const QString& one, const QString& many) {
        return n == 1 ? one : many.arg(QLocale().toString(n));
    };
    QString text =
        tr("Site %1: %2, %3, %4.")
            .arg(m_site->name, count(gateways.size(), tr("1 gateway"), tr("%1 gateways")),
                 count(m_site->instances.size(), tr("1 instance"), tr("%1 instances")),
                 count(tags, tr("1 tag"), tr("%1 tags")));
    if (!gateways.isEmpty())
        text += QStringLiteral("\n") + tr("Gateways: %1.").arg(gateways.join(QStringLiteral(", ")));
    if (!m_site->description.isEmpty())
        text += QStringLiteral("\n\n") + m_site->description;
    return text;
}

QString ConsoleController::runLabel(double t) const
{
    if (m_showingLive)
        return QStringLiteral("live — %1 %2")
            .arg(m_site       ? QStringLiteral("site %1:").arg(m_site->name)
                 : external() ? QStringLiteral("gateway")
                              : QStringLiteral("embedded mock gateway"),
                 m_host->gatewayAddress());
    QString label = QStringLiteral("%1 / %2").arg(m_host->scenarioName(), m_host->variantName());
    if (m_host->live())
        label += QStringLiteral(" — live");
    switch (m_host->state()) {
    case RunHost::State::Finished:
        return label + QStringLiteral(" — finished (Back to live returns to the live run)");
    case RunHost::State::Stopped:
        return label + QStringLiteral(" — stopped at %1 s (Back to live returns to the live run)")
                           .arg(t, 0, 'f', 1);
    case RunHost::State::Idle:
        return label;
    case RunHost::State::Running:
        break;
    }
    if (m_host->paused())
        label += QStringLiteral(" — paused");
    return label +
           QStringLiteral(" — %1 of %2 s").arg(t, 0, 'f', 1).arg(m_host->durationS(), 0, 'f', 0);
}

void ConsoleController::loadDemoScenario()
{
    m_view->setScenarioNames(bundledScenarioNames());
    m_view->selectScenario(m_demoName);
}

void ConsoleController::applyLevers(const LeverSet& levers)
{
    if (m_showingLive)
        m_levers = levers;       // the next live run starts with them too
    m_host->applyLevers(levers); // the shown run's engine, whichever run it is
}

void ConsoleController::injectFault(const TimelineEvent& e)
{
    if (!m_host->running()) {
        log(int(Severity::Warning), QStringLiteral("faults"),
            QStringLiteral("%1 not applied: no run is running").arg(timelineActionName(e.action)));
        return;
    }
    // One path for every mode: the run applies it through its GatewayAccess, or says why not.
    m_host->inject(e);
}

void ConsoleController::setAdvertiseBulkSupervisory(bool advertise)
{
    TimelineEvent e;
    e.action = TimelineAction::SetCapability;
    e.advertiseBulkSupervisory = advertise;
    injectFault(e);
}

void ConsoleController::redeploy(const QString& instance)
{
    TimelineEvent e;
    e.action = TimelineAction::Redeploy;
    e.instance = instance;
    injectFault(e);
}

std::optional<Scenario> ConsoleController::loadScenarioOrSay(const QString& nameOrPath)
{
    QList<ScenarioError> errors;
    auto scenario = loadScenario(nameOrPath, &errors);
    if (!scenario) {
        QStringList lines;
        for (const ScenarioError& e : errors)
            lines << e.toString();
        m_view->showError(QStringLiteral("Scenario"),
                          lines.isEmpty()
                              ? QStringLiteral("unknown scenario \"%1\"").arg(nameOrPath)
                              : lines.join(QLatin1Char('\n')));
    }
    return scenario;
}

void ConsoleController::play(const QString& scenarioNameOrPath, const QString& variant,
                             double speed)
{
    const auto scenario = loadScenarioOrSay(scenarioNameOrPath);
    if (!scenario)
        return;
    if (speed < 0) {
        playLive(*scenario, variant, scenarioNameOrPath);
        return;
    }
    QString error;
    if (!m_host->start(*scenario, variant, speed, &error)) {
        m_view->showError(QStringLiteral("Playback"), error);
        return;
    }
    m_played = scenarioNameOrPath;
    m_showingLive = false;
    startOver();
    refresh();
}

bool ConsoleController::playLive(const Scenario& scenario, const QString& variant,
                                 const QString& nameOrPath)
{
    LiveOptions live;
    if (m_externalPort)
        live.gateway = *m_externalPort;
    QString error;
    if (!m_host->startLive(scenario, variant, live, &error)) {
        m_view->showError(QStringLiteral("Live playback"), error);
        return false;
    }
    m_played = nameOrPath.isEmpty() ? scenario.name : nameOrPath;
    m_showingLive = false;
    startOver();
    refresh();
    return true;
}

void ConsoleController::stop()
{
    if (m_showingLive)
        return; // the live run has no Stop; playing a scenario ends it
    if (m_host->running()) {
        m_host->stop();
        return;
    }
    // A playback that is over: Back to live.
    if (m_started) {
        QString ignored;
        startLiveRun(&ignored);
    }
}

void ConsoleController::togglePause()
{
    if (m_showingLive || !m_host->running())
        return;
    if (m_host->live()) {
        // The panel offers no pause for a live run; Space or a stray click land here.
        log(int(Severity::Info), QStringLiteral("playback"),
            QStringLiteral("a live run cannot be paused (its gateway and timeline go on in wall "
                           "time); Stop ends it"));
        return;
    }
    m_host->setPaused(!m_host->paused());
}

void ConsoleController::compare(const QString& scenarioNameOrPath)
{
    const auto scenario = loadScenarioOrSay(scenarioNameOrPath);
    if (!scenario)
        return;
    // One compare window: Compare again runs in it, where the person put it and as they
    // sized it (a new window each time also cost the UI thread its first layout and paint).
    if (m_compare) {
        m_compare->rerun(*scenario);
        if (m_compare->isMinimized())
            m_compare->showNormal();
        m_compare->raise();
        if (!m_compare->isActiveWindow())
            m_compare->activateWindow();
        return;
    }
    m_compare = new CompareView(*scenario, m_view->widget());
    m_compare->setAttribute(Qt::WA_DeleteOnClose);
    m_compare->show();
    m_compare->start();
}

CompareView* ConsoleController::compareView() const
{
    return m_compare.data();
}

void ConsoleController::connectHost()
{
    // The plots draw the run's own recorded series: the very points its report is made of.
    connect(m_host, &RunHost::seriesUpdates, this,
            [this](const auto& updates) { m_view->store()->appendSeries(updates); });
    connect(m_host, &RunHost::tagChanges, this,
            [this](const auto& changes) { m_view->applyTagChanges(changes); });
    connect(m_host, &RunHost::logEntries, this,
            [this](const auto& entries) { m_view->appendLog(entries); });
    connect(m_host, &RunHost::connectionInfo, this, [this](const auto& infos) {
        m_connections = infos;
        m_view->setConnectionInfo(infos);
    });
    connect(m_host, &RunHost::gatewayPoint, this, [this](const GatewayPoint& p) {
        if (!p.gateway.isEmpty())
            return; // one gateway's own: the summary is the run's
        const QString state = recoveryStateName(p.recoveryState);
        if (state != m_recoveryState) {
            m_recoveryState = state;
            m_view->setGatewaySummary(m_host->gatewayAddress(), m_recoveryState);
        }
    });
    connect(m_host, &RunHost::leversChanged, this, [this](const LeverSet& levers) {
        if (m_showingLive)
            m_levers = levers;
        m_view->setLevers(levers);
    });
    connect(m_host, &RunHost::progress, this, [this](double t) {
        m_view->store()->advanceTo(t);
        m_view->setTagClock(t, m_host->live() ? QDateTime::currentMSecsSinceEpoch() : 0);
        refresh();
    });
    connect(m_host, &RunHost::stateChanged, this, [this] { refresh(); });
    connect(m_host, &RunHost::markersAdded, this,
            [this](const QVector<RunHost::Marker>& markers) { m_view->addMarkers(markers); });
    connect(m_host, &RunHost::finished, this, &ConsoleController::onPlaybackFinished);
    connect(m_host, &RunHost::stopped, this, [this] {
        if (!m_showingLive)
            log(int(Severity::Info), QStringLiteral("playback"),
                QStringLiteral("stopped at %1 s; Back to live returns to the live run")
                    .arg(m_host->virtualS(), 0, 'f', 1));
    });
}

void ConsoleController::onPlaybackFinished(const QSharedPointer<VariantRun>& run)
{
    const VariantMetrics& m = run->metrics;
    // Every metric of the one metric table, "key value", in its order (the per-kind breakdown
    // stays in the reports).
    QStringList values;
    for (const MetricDescriptor& metric : metricTable())
        if (metric.shape == MetricShape::Scalar)
            values << metric.keyString() + QLatin1Char(' ') + metric.text(m);
    log(int(Severity::Info), QStringLiteral("playback"),
        QStringLiteral("%1 / %2 finished: %3")
            .arg(m_host->scenarioName(), m.name, values.join(QStringLiteral(", "))));
    for (const QString& skipped : m.skippedActions)
        log(int(Severity::Warning), QStringLiteral("timeline"), skipped);
    for (const QString& note : m.notes)
        log(int(Severity::Info), QStringLiteral("playback"), note);
    m_view->fitWholeRun(); // the finished run seen whole, not its follow window's last minutes
    refresh();
    emit playbackFinished(run);
}

void ConsoleController::log(int severity, const QString& subject, const QString& message)
{
    qCInfo(lcConsole).noquote() << subject << message;
    // The console's own lines carry the shown run's time, so the t (s) column stays in order.
    const double t = m_view->store()->latestTime();
    m_view->appendLog({LogEntry{std::isnan(t) ? 0 : t, QDateTime::currentDateTime(), severity,
                                subject, message}});
}

} // namespace stormwatch
