#include "ui/console_controller.h"

#include "gateway/mock_gateway_server.h"
#include "scenario/metric_table.h"
#include "scenario/scenario_parser.h"
#include "ui/compare_view.h"
#include "ui/console_view.h"
#include "ui/scenario_playback.h"

#include <QDateTime>
#include <QLoggingCategory>
#include <QWidget>

#include <cmath>

namespace stormwatch {

Q_LOGGING_CATEGORY(lcConsole, "stormwatch.ui.console")

const QString ConsoleController::kExternalFaultsReason =
    QStringLiteral("fault injection needs the mock gateway's control service; this is an external gateway");

namespace {

constexpr auto kStatsInterval = std::chrono::milliseconds(250); // 4 Hz is plenty for a plot

Duration seconds(double s)
{
    return Duration(std::llround(s * 1e6));
}

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

} // namespace

ConsoleController::ConsoleController(ConsoleView* view, QObject* parent)
    : QObject(parent), m_view(view), m_playback(new ScenarioPlayback(this))
{
    ConsoleIntents* intents = view->intents();
    connect(intents, &ConsoleIntents::leversChanged, this, &ConsoleController::applyLevers);
    connect(intents, &ConsoleIntents::faultRequested, this, &ConsoleController::injectFault);
    connect(intents, &ConsoleIntents::capabilityToggled, this, &ConsoleController::setAdvertiseBulkSupervisory);
    connect(intents, &ConsoleIntents::redeployRequested, this, &ConsoleController::redeploy);
    connect(intents, &ConsoleIntents::playRequested, this, &ConsoleController::play);
    connect(intents, &ConsoleIntents::stopRequested, this, &ConsoleController::stop);
    connect(intents, &ConsoleIntents::pauseToggled, this, &ConsoleController::togglePause);
    connect(intents, &ConsoleIntents::compareRequested, this, &ConsoleController::compare);
    connectPlayback();
    QString ignored;
    setDemoScenario(QString(), &ignored);
}

ConsoleController::~ConsoleController()
{
    if (m_compare)
        delete m_compare.data(); // joins its worker before the window goes
    m_playback->stop();
    if (m_worker)
        m_worker->stop(); // closes the sessions while the gateway still answers
    stopEmbedded();
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
    m_external = false;
    gateway::GatewayConfig config = gatewayConfigFor(m_demo, m_demo.seed);
    // Live data carries wall-clock source timestamps.
    config.timestampEpochUs = QDateTime::currentMSecsSinceEpoch() * 1000;
    m_server = std::make_unique<gateway::MockGatewayServer>(config);
    if (!m_server->start("127.0.0.1:0")) {
        const QString why = QStringLiteral("cannot start the embedded mock gateway: %1")
                                .arg(QString::fromStdString(m_server->lastError()));
        m_server.reset();
        if (error)
            *error = why;
        m_view->showError(QStringLiteral("Embedded gateway"), why);
        return false;
    }
    m_address = QString::fromStdString(m_server->address());
    m_view->setFaultsAvailable(true, QString());
    watchEmbeddedStats();
    GrpcPortOptions port;
    port.address = m_server->address();
    startWorker(port);
    log(int(Severity::Info), QStringLiteral("console"),
        QStringLiteral("embedded mock gateway on %1; live client started").arg(m_address));
    return true;
}

bool ConsoleController::startExternal(const GrpcPortOptions& port, QString* error)
{
    if (const QString bad = GrpcGatewayPort::validate(port); !bad.isEmpty()) {
        if (error)
            *error = bad;
        return false;
    }
    m_external = true;
    m_externalPort = port;
    m_address = QString::fromStdString(port.address);
    m_view->setFaultsAvailable(false, kExternalFaultsReason);
    startWorker(port);
    log(int(Severity::Info), QStringLiteral("console"),
        QStringLiteral("external gateway %1; live client started (the connection retries with backoff "
                       "until it answers)")
            .arg(m_address));
    return true;
}

void ConsoleController::startWorker(const GrpcPortOptions& port)
{
    QString configError;
    EngineConfig config =
        engineConfigFor(m_demo, VariantSpec{QStringLiteral("console"), QJsonValue(QStringLiteral("all"))},
                        m_demo.seed, &configError);
    config.levers = m_levers;
    config.clientName = "stormwatch-console";
    if (!configError.isEmpty())
        m_view->showError(QStringLiteral("Demo configuration"), configError);

    QStringList instances;
    for (const ScenarioInstance& i : m_demo.instances)
        instances << i.name;
    m_view->setInstances(instances);
    m_view->setLevers(m_levers);
    m_view->setGatewaySummary(m_address, QStringLiteral("normal"));
    showLive();

    m_worker = std::make_unique<ClientWorker>();
    connect(m_worker.get(), &ClientWorker::subscriptionSamples, this, [this](const auto& samples) {
        if (!m_showingPlayback)
            m_view->store()->appendSamples(samples);
    });
    connect(m_worker.get(), &ClientWorker::tagChanges, this, [this](const QVector<TagChange>& changes) {
        for (const TagChange& t : changes)
            m_liveTags.insert((qint64(t.instance) << 32) | quint32(t.tag), t);
        if (!m_showingPlayback)
            m_view->applyTagChanges(changes);
    });
    // The event log keeps the live client's lines during a playback too: they are events.
    connect(m_worker.get(), &ClientWorker::logEntries, this,
            [this](const auto& entries) { m_view->appendLog(entries); });
    connect(m_worker.get(), &ClientWorker::connectionInfo, this, [this](const auto& infos) {
        m_liveConnections = infos;
        if (!m_showingPlayback)
            m_view->setConnectionInfo(infos);
    });
    connect(m_worker.get(), &ClientWorker::gatewaySample, this, &ConsoleController::onGatewaySample);
    m_worker->start(config, [port](Scheduler& scheduler) -> std::unique_ptr<GatewayPort> {
        return std::make_unique<GrpcGatewayPort>(scheduler, port);
    });
}

void ConsoleController::watchEmbeddedStats()
{
    m_statsWatch = m_server->runOnModel([this](gateway::GatewayModel& model) {
        return model.watchStats(
            kStatsInterval,
            [this](const mxgateway::mock::v1::GatewayStats& s) {
                const ModelStats stats{true, s.sta_queue_depth(), s.invoke_rpcs(), s.deadline_exceeded()};
                QMetaObject::invokeMethod(this, [this, stats] { m_modelStats = stats; }, Qt::QueuedConnection);
            },
            [](gateway::CallStatus) {});
    });
}

void ConsoleController::stopEmbedded()
{
    if (!m_server)
        return;
    if (m_statsWatch)
        m_server->runOnModel([id = m_statsWatch](gateway::GatewayModel& model) { model.cancelWatch(id); });
    m_statsWatch = 0;
    m_server->stop();
    m_server.reset();
}

void ConsoleController::onGatewaySample(const GatewaySample& sample)
{
    if (m_showingPlayback)
        return;
    GatewayPoint point = GatewayPoint::fromSample(sample);
    if (!m_external && m_modelStats.valid) {
        // The gateway's own view: its STA queue and every Invoke it received.
        point.staQueueDepth = double(m_modelStats.staQueueDepth);
        point.invokesTotal = m_modelStats.invokeRpcs;
        point.deadlineExceededTotal = m_modelStats.deadlineExceeded;
    }
    m_view->store()->appendGateway(point);
    if (sample.recoveryState != m_recoveryState) {
        m_recoveryState = sample.recoveryState;
        m_view->setGatewaySummary(m_address, m_recoveryState);
    }
}

void ConsoleController::loadDemoScenario()
{
    m_view->setScenarioNames(bundledScenarioNames());
    m_view->selectScenario(m_demoName);
}

void ConsoleController::applyLevers(const LeverSet& levers)
{
    if (m_playback->running()) {
        // The panel shows the playback's levers: the change is to them.
        m_playback->applyLevers(levers);
        return;
    }
    m_levers = levers;
    if (m_worker)
        m_worker->applyLevers(levers);
}

void ConsoleController::injectFault(const TimelineEvent& e)
{
    if (e.action == TimelineAction::Redeploy) {
        redeploy(e.instance);
        return;
    }
    if (e.action == TimelineAction::SetLevers) {
        QString why;
        if (auto levers = leverSetFromJson(e.levers, &why)) {
            applyLevers(*levers);
            m_view->setLevers(*levers);
        } else {
            m_view->showError(QStringLiteral("Levers"), why);
        }
        return;
    }
    if (e.action == TimelineAction::SetCapability) {
        setAdvertiseBulkSupervisory(e.advertiseBulkSupervisory);
        return;
    }
    if (!m_server) {
        log(int(Severity::Warning), QStringLiteral("faults"), kExternalFaultsReason);
        return;
    }
    m_server->runOnModel([e, outages = m_sourceOutages](gateway::GatewayModel& model) {
        switch (e.action) {
        case TimelineAction::Wedge: model.wedge(seconds(e.durationS)); break;
        case TimelineAction::Slow: model.slow(e.factor, seconds(e.durationS)); break;
        case TimelineAction::DropReplies: model.dropReplies(e.probability, seconds(e.durationS)); break;
        case TimelineAction::RestartGateway: model.restart(seconds(e.downtimeS)); break;
        case TimelineAction::KillGateway: model.kill(seconds(e.downtimeS)); break;
        case TimelineAction::EndEventStreams: model.endEventStreams(); break;
        case TimelineAction::RefuseSessions: model.refuseSessions(seconds(e.durationS)); break;
        case TimelineAction::SourceOutage: {
            // Overlapping outages: the source stays Bad until the last one ends.
            ++*outages;
            model.setSourceOutage(true);
            model.scheduler().callAfter(seconds(e.durationS), [&model, outages] {
                if (--*outages == 0)
                    model.setSourceOutage(false);
            });
            break;
        }
        case TimelineAction::Redeploy:
        case TimelineAction::SetLevers:
        case TimelineAction::SetCapability: break;
        }
    });
    log(int(Severity::Warning), QStringLiteral("faults"),
        QStringLiteral("injected %1 into the embedded mock gateway").arg(timelineActionName(e.action)));
}

void ConsoleController::setAdvertiseBulkSupervisory(bool advertise)
{
    if (!m_server) {
        log(int(Severity::Warning), QStringLiteral("faults"), kExternalFaultsReason);
        return;
    }
    m_server->runOnModel([advertise](gateway::GatewayModel& model) { model.setAdvertiseBulkSupervisory(advertise); });
    log(int(Severity::Info), QStringLiteral("gateway"),
        QStringLiteral("bulk-subscribe-supervisory %1 for sessions opened from now on")
            .arg(advertise ? QStringLiteral("advertised") : QStringLiteral("not advertised (an old gateway)")));
}

void ConsoleController::redeploy(const QString& instance)
{
    if (m_worker)
        m_worker->redeploy(instance);
}

std::optional<Scenario> ConsoleController::loadScenarioOrSay(const QString& nameOrPath)
{
    QList<ScenarioError> errors;
    auto scenario = loadScenario(nameOrPath, &errors);
    if (!scenario) {
        QStringList lines;
        for (const ScenarioError& e : errors)
            lines << e.toString();
        m_view->showError(QStringLiteral("Scenario"), lines.isEmpty()
                                                          ? QStringLiteral("unknown scenario \"%1\"").arg(nameOrPath)
                                                          : lines.join(QLatin1Char('\n')));
    }
    return scenario;
}

void ConsoleController::play(const QString& scenarioNameOrPath, const QString& variant, double speed)
{
    const auto scenario = loadScenarioOrSay(scenarioNameOrPath);
    if (!scenario)
        return;
    if (speed < 0) {
        playLive(*scenario, variant);
        return;
    }
    QString error;
    if (!m_playback->start(*scenario, variant, speed, &error)) {
        m_view->showError(QStringLiteral("Playback"), error);
        return;
    }
    showPlayback();
}

void ConsoleController::playLive(const Scenario& scenario, const QString& variant)
{
    LiveOptions live;
    if (m_external)
        live.gateway = m_externalPort;
    QString error;
    if (!m_playback->startLive(scenario, variant, live, &error)) {
        m_view->showError(QStringLiteral("Live playback"), error);
        return;
    }
    showPlayback();
}

void ConsoleController::showPlayback()
{
    m_showingPlayback = true;
    m_view->store()->clear();
    m_view->clearTags();
    m_view->setLevers(m_playback->levers());
    m_view->setPlaybackState(true, 0.0,
                             QStringLiteral("%1 / %2%3")
                                 .arg(m_playback->scenarioName(), m_playback->variantName(),
                                      m_playback->live() ? QStringLiteral(" — live") : QString()));
}

void ConsoleController::stop()
{
    if (m_playback->running()) {
        m_playback->stop();
        return;
    }
    if (m_showingPlayback)
        showLive();
}

void ConsoleController::togglePause()
{
    if (!m_playback->running())
        return;
    if (m_playback->live()) {
        // The panel offers no pause for a live run; Space or a stray click land here.
        log(int(Severity::Info), QStringLiteral("playback"),
            QStringLiteral("a live run cannot be paused (its gateway and timeline go on in wall time); Stop ends it"));
        return;
    }
    const bool paused = !m_playback->paused();
    m_playback->setPaused(paused);
    const double fraction = m_playback->durationS() > 0 ? m_playback->virtualS() / m_playback->durationS() : 0;
    m_view->setPlaybackState(true, fraction,
                             QStringLiteral("%1 / %2%3").arg(m_playback->scenarioName(), m_playback->variantName(),
                                                             paused ? QStringLiteral(" — paused") : QString()));
}

void ConsoleController::compare(const QString& scenarioNameOrPath)
{
    const auto scenario = loadScenarioOrSay(scenarioNameOrPath);
    if (!scenario)
        return;
    if (m_compare)
        delete m_compare.data();
    m_compare = new CompareView(*scenario, m_view->widget());
    m_compare->setAttribute(Qt::WA_DeleteOnClose);
    m_compare->show();
    m_compare->start();
}

CompareView* ConsoleController::compareView() const
{
    return m_compare.data();
}

void ConsoleController::connectPlayback()
{
    connect(m_playback, &ScenarioPlayback::subscriptionSamples, this,
            [this](const auto& samples) { m_view->store()->appendSamples(samples); });
    connect(m_playback, &ScenarioPlayback::tagChanges, this,
            [this](const auto& changes) { m_view->applyTagChanges(changes); });
    connect(m_playback, &ScenarioPlayback::logEntries, this,
            [this](const auto& entries) { m_view->appendLog(entries); });
    connect(m_playback, &ScenarioPlayback::connectionInfo, this,
            [this](const auto& infos) { m_view->setConnectionInfo(infos); });
    connect(m_playback, &ScenarioPlayback::gatewayPoint, this,
            [this](const GatewayPoint& p) { m_view->store()->appendGateway(p); });
    connect(m_playback, &ScenarioPlayback::leversChanged, this,
            [this](const LeverSet& levers) { m_view->setLevers(levers); });
    connect(m_playback, &ScenarioPlayback::progress, this, [this](double t, double duration) {
        m_view->setPlaybackState(true, duration > 0 ? t / duration : 0,
                                 QStringLiteral("%1 / %2%3 — %4 of %5 s")
                                     .arg(m_playback->scenarioName(), m_playback->variantName(),
                                          m_playback->live() ? QStringLiteral(" — live") : QString())
                                     .arg(t, 0, 'f', 1)
                                     .arg(duration, 0, 'f', 0));
    });
    connect(m_playback, &ScenarioPlayback::finished, this, &ConsoleController::onPlaybackFinished);
    connect(m_playback, &ScenarioPlayback::stopped, this, [this] {
        m_view->setLevers(m_levers); // lever changes go to the live client again
        log(int(Severity::Info), QStringLiteral("playback"),
            QStringLiteral("stopped at %1 s; Stop again returns to the live view").arg(m_playback->virtualS(), 0, 'f', 1));
        m_view->setPlaybackState(false, m_playback->durationS() > 0 ? m_playback->virtualS() / m_playback->durationS() : 0,
                                 QStringLiteral("%1 / %2 — stopped").arg(m_playback->scenarioName(), m_playback->variantName()));
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
    const QString summary = QStringLiteral("%1 / %2 finished: %3")
                                .arg(m_playback->scenarioName(), m.name, values.join(QStringLiteral(", ")));
    log(int(Severity::Info), QStringLiteral("playback"), summary);
    for (const QString& skipped : m.skippedActions)
        log(int(Severity::Warning), QStringLiteral("timeline"), skipped);
    m_view->setLevers(m_levers); // lever changes go to the live client again
    m_view->setPlaybackState(false, 1.0,
                             QStringLiteral("%1 / %2 — finished (Stop returns to live)")
                                 .arg(m_playback->scenarioName(), m.name));
    emit playbackFinished(run);
}

void ConsoleController::showLive()
{
    m_showingPlayback = false;
    m_view->store()->clear();
    m_view->clearTags();
    // The live feed only sends what changes: restore what it sent while a playback showed.
    if (!m_liveTags.isEmpty())
        m_view->applyTagChanges(QVector<TagChange>(m_liveTags.cbegin(), m_liveTags.cend()));
    if (!m_liveConnections.isEmpty())
        m_view->setConnectionInfo(m_liveConnections);
    m_view->setPlaybackState(false, -1.0, liveLabel());
}

QString ConsoleController::liveLabel() const
{
    return m_external ? QStringLiteral("live — gateway %1").arg(m_address)
                      : QStringLiteral("live — embedded mock gateway %1").arg(m_address);
}

void ConsoleController::log(int severity, const QString& subject, const QString& message)
{
    qCInfo(lcConsole).noquote() << subject << message;
    m_view->appendLog({LogEntry{0, QDateTime::currentDateTime(), severity, subject, message}});
}

} // namespace stormwatch
