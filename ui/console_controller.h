#pragma once
// Wires the console window to what it shows and drives: the live client (ClientWorker over
// a GrpcGatewayPort) against the embedded mock gateway or an external one, the embedded
// mock's stats and faults, virtual playback of a scenario variant, and the compare view.
// The view is an interface (console_view.h): MainWindow implements it.
//
// One feed is shown at a time: live, or a playback. Playing a scenario mutes the live feed
// and starts the store and tag table over; Stop while nothing plays returns to live.
// While a playback runs the lever panel shows and drives the playback's engine (a change
// goes to it, not to the live client); when it ends the panel shows the live levers again.

#include "client/client_worker.h"
#include "client/grpc_gateway_port.h"
#include "client/lever_set.h"
#include "models/series_store.h"
#include "scenario/scenario.h"
#include "scenario/scenario_runner.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QSharedPointer>

#include <memory>
#include <optional>

namespace stormwatch {

namespace gateway {
class MockGatewayServer;
}

class CompareView;
class ConsoleView;
class ScenarioPlayback;

class ConsoleController : public QObject {
    Q_OBJECT
public:
    // Said by the fault panel (and the log) when the gateway is not the embedded mock.
    static const QString kExternalFaultsReason;

    explicit ConsoleController(ConsoleView* view, QObject* parent = nullptr);
    ~ConsoleController() override;

    // The lever set the live client starts with (default: the "all" preset).
    void setInitialLevers(const LeverSet& levers) { m_levers = levers; }
    // The scenario whose connections and instances the live client uses and which is
    // preselected for playback: a bundled name or a file ("" = the default demo scenario).
    // False with *error when it does not load.
    bool setDemoScenario(const QString& nameOrPath, QString* error);

    // Embedded MockGatewayServer on 127.0.0.1:0 + the live client over gRPC to it.
    bool startEmbedded(QString* error);
    // A real (or external) gateway: faults are disabled with kExternalFaultsReason.
    bool startExternal(const GrpcPortOptions& port, QString* error);
    // The demo scenario listed, selected and ready to play.
    void loadDemoScenario();

    // Live scenario playback over gRPC, on the worker thread of the playback: against a
    // mock gateway embedded for the run, or — when the console is on an external gateway —
    // that gateway (its address, TLS and token; faults only if it serves MockGatewayControl).
    void playLive(const Scenario& scenario, const QString& variant);

    bool external() const { return m_external; }
    bool showingPlayback() const { return m_showingPlayback; }
    const Scenario& demoScenario() const { return m_demo; }
    QString gatewayAddress() const { return m_address; }
    ClientWorker* worker() const { return m_worker.get(); }
    gateway::MockGatewayServer* embeddedGateway() const { return m_server.get(); }
    ScenarioPlayback* playback() const { return m_playback; }
    QString demoScenarioName() const { return m_demoName; } // bundled name or path
    CompareView* compareView() const;

public slots:
    void applyLevers(const stormwatch::LeverSet& levers);
    void injectFault(const stormwatch::TimelineEvent& fault);
    void setAdvertiseBulkSupervisory(bool advertise);
    void redeploy(const QString& instance);
    void play(const QString& scenarioNameOrPath, const QString& variant, double speed);
    void stop();
    void togglePause();
    void compare(const QString& scenarioNameOrPath);

signals:
    void playbackFinished(QSharedPointer<stormwatch::VariantRun> run);

private:
    void startWorker(const GrpcPortOptions& port);
    void connectPlayback();
    void watchEmbeddedStats();
    void stopEmbedded();
    void showLive();
    void log(int severity, const QString& subject, const QString& message);
    void onGatewaySample(const GatewaySample& sample);
    void onPlaybackFinished(const QSharedPointer<VariantRun>& run);
    void showPlayback(); // a playback just started: mute live, start the views over
    std::optional<Scenario> loadScenarioOrSay(const QString& nameOrPath);
    QString liveLabel() const;

    ConsoleView* m_view;
    LeverSet m_levers; // the "all" preset
    Scenario m_demo;
    QString m_demoName; // as given: bundled name or path
    std::unique_ptr<gateway::MockGatewayServer> m_server;
    std::unique_ptr<ClientWorker> m_worker;
    ScenarioPlayback* m_playback = nullptr;
    QPointer<CompareView> m_compare;
    bool m_external = false;
    bool m_showingPlayback = false;
    QString m_address;
    GrpcPortOptions m_externalPort; // when m_external: what live playback connects to
    QString m_recoveryState;
    QHash<qint64, TagChange> m_liveTags; // the live tag table, kept while a playback shows
    QVector<ConnectionInfo> m_liveConnections;
    std::shared_ptr<int> m_sourceOutages = std::make_shared<int>(0); // model thread only

    // The embedded model's stats, read on its thread and posted here (≤ 4 Hz).
    std::uint64_t m_statsWatch = 0;
    struct ModelStats {
        bool valid = false;
        qint64 staQueueDepth = 0;
        qint64 invokeRpcs = 0;
        qint64 deadlineExceeded = 0;
    } m_modelStats;
};

} // namespace stormwatch
