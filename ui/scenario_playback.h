#pragma once
// Plays one scenario variant on a worker thread and reports what the live ClientWorker
// reports — subscription samples, tag changes, log lines, connection infos — plus the
// gateway as GatewayPoints, so the same store and models show a replay and a live run
// alike. Two modes, one worker:
// - virtual time (start()): a virtual ScenarioRunner paced against the wall clock (1×, 10×,
//   60×) or as fast as possible (the mock model's STA queue and counters as the gateway);
// - live (startLive()): the live ScenarioRunner over gRPC — an embedded mock gateway of its
//   own, or LiveOptions::gateway — stepped in kStepMs of wall time. The runner, its
//   QtScheduler and its embedded gateway are created, run and destroyed on the worker
//   thread; advanceTo() runs that thread's event loop between steps.
// The UI thread is never blocked beyond building the runner: steps arrive queued, at most
// two batches in flight — paced or live, a slow UI makes steps coarser, not late; at max
// speed the replay waits for the UI, so every step is shown.
//
// Each step's batch comes from an EngineBatcher observing the runner's engine, as in the
// live ClientWorker: the first step is a snapshot, later ones carry what changed, and the
// engine's own log lines (at most kMaxLogLinesPerStep a step, then one line saying how many
// were suppressed), with the timeline's actions and connection state changes added as the
// run passes them. Times are run times: seconds since the run's start.

#include "client/engine_samples.h"
#include "client/lever_set.h"
#include "models/series_store.h"
#include "scenario/scenario.h"
#include "scenario/scenario_runner.h"

#include <QObject>
#include <QSharedPointer>

#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>

class QThread;

namespace stormwatch {

class ScenarioPlayback : public QObject {
    Q_OBJECT
public:
    static constexpr double kMaxSpeed = 0; // as fast as possible
    static constexpr int kStepMs = 50;     // wall time between paced (and live) steps
    // A storm logs a line per failed subscribe: the event log gets this many a step at most.
    static constexpr int kMaxLogLinesPerStep = 200;

    explicit ScenarioPlayback(QObject* parent = nullptr);
    ~ScenarioPlayback() override; // stop()

    // Starts playing `variant` of `scenario` ("" = its first variant) at `speed` × wall
    // time (0 = max). False with *error when the variant cannot be built; a running
    // playback is stopped first.
    bool start(const Scenario& scenario, const QString& variant, double speed, QString* error);
    // The same, live: the variant takes durationS of wall time against an embedded mock
    // gateway started for it (live.gateway unset) or live.gateway (faults through its
    // MockGatewayControl, skipped when it has none). live.progress is not used: progress()
    // is. False with *error when the variant or its gateway cannot be set up.
    bool startLive(const Scenario& scenario, const QString& variant, const LiveOptions& live,
                   QString* error);
    // Stops at once (joins the worker after its current step); emits stopped() when a run
    // was in progress. Nothing more is emitted for that run.
    void stop();
    // Holds virtual time. A live run cannot be paused (its gateway and timeline go on in
    // wall time): ignored there.
    void setPaused(bool paused);
    bool paused() const { return m_shared && m_shared->paused; }
    void setSpeed(double speed);
    double speed() const { return m_shared ? m_shared->speed.load() : 0.0; }

    // To the running variant's engine, on the worker thread, as ClientEngine::applyLevers
    // (Lever 3 at the next session). Nothing when no run is in progress.
    void applyLevers(const LeverSet& levers);
    // The engine's levers as last known: the variant's at start, then every change (a
    // timeline set_levers, applyLevers) once a step has reported it.
    const LeverSet& levers() const { return m_levers; }

    // The engine log lines a step carries at most (from the next start on).
    void setMaxLogLinesPerStep(int lines) { m_maxLogLines = std::max(1, lines); }

    bool running() const { return m_thread != nullptr; }
    bool live() const { return m_live; }
    QString scenarioName() const { return m_scenarioName; }
    QString variantName() const { return m_variantName; }
    double durationS() const { return m_durationS; }
    double virtualS() const { return m_virtualS; } // as last reported

signals:
    void subscriptionSamples(const QVector<stormwatch::SubscriptionSample>& samples);
    void tagChanges(const QVector<stormwatch::TagChange>& changes);
    void logEntries(const QVector<stormwatch::LogEntry>& entries);
    void connectionInfo(const QVector<stormwatch::ConnectionInfo>& connections);
    void gatewayPoint(const stormwatch::GatewayPoint& point);
    void progress(double virtualS, double durationS); // live: wall seconds into the run
    // The engine's levers changed during the run (a timeline set_levers or applyLevers).
    void leversChanged(const stormwatch::LeverSet& levers);
    // The run reached its end: metrics and the full step series of the run.
    void finished(QSharedPointer<stormwatch::VariantRun> run);
    void stopped();

private:
    struct Shared {
        std::atomic<bool> stop{false};
        std::atomic<bool> paused{false};
        std::atomic<double> speed{0};
        std::atomic<int> batchesInFlight{0};
    };
    struct Step; // one step's batch, queued from the worker
    class Worker;

    // Called on the worker thread: the runner lives and dies there.
    using RunnerFactory =
        std::function<std::unique_ptr<ScenarioRunner>(const Scenario&, const VariantSpec&)>;
    bool launch(const Scenario& scenario, const QString& variant, bool live, double speed,
                RunnerFactory makeRunner, QString* error);
    // `run` tells a step of the current run from one queued before a stop.
    void onStep(Shared* run, const QSharedPointer<Step>& step);
    void onWorkerFinished(Shared* run, const QSharedPointer<VariantRun>& result);
    void joinWorker();

    QThread* m_thread = nullptr;
    Worker* m_worker = nullptr;
    std::shared_ptr<Shared> m_shared;
    QString m_scenarioName;
    QString m_variantName;
    double m_durationS = 0;
    double m_virtualS = 0;
    bool m_live = false;
    LeverSet m_levers;
    int m_maxLogLines = kMaxLogLinesPerStep;
};

} // namespace stormwatch

Q_DECLARE_METATYPE(stormwatch::GatewayPoint)
