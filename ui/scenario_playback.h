#pragma once
// Plays one scenario variant in virtual time on a worker thread, paced against the wall
// clock (1×, 10×, 60×) or as fast as possible, and reports what the live ClientWorker
// reports — subscription samples, tag changes, log lines, connection infos — plus the
// gateway as GatewayPoints (the mock model's STA queue and counters), so the same store
// and models show a replay and a live run alike. The UI thread is never blocked: steps
// arrive queued, at most two batches in flight — paced, a slow UI makes steps coarser,
// not late; at max speed the replay waits for the UI, so every step is shown.
//
// The runner's engine has a single observer slot, taken by the runner's metrics; the
// batches are therefore built by reading the engine's state after each step (an
// EngineBatcher snapshot, diffed against what was already sent), and the log carries the
// timeline's actions and connection state changes as the replay passes them.

#include "client/engine_samples.h"
#include "models/series_store.h"
#include "scenario/scenario.h"
#include "scenario/scenario_runner.h"

#include <QObject>
#include <QSharedPointer>

#include <atomic>
#include <memory>

class QThread;

namespace stormwatch {

class ScenarioPlayback : public QObject {
    Q_OBJECT
public:
    static constexpr double kMaxSpeed = 0; // as fast as possible
    static constexpr int kStepMs = 50;     // wall time between paced steps

    explicit ScenarioPlayback(QObject* parent = nullptr);
    ~ScenarioPlayback() override; // stop()

    // Starts playing `variant` of `scenario` ("" = its first variant) at `speed` × wall
    // time (0 = max). False with *error when the variant cannot be built; a running
    // playback is stopped first.
    bool start(const Scenario& scenario, const QString& variant, double speed, QString* error);
    // Stops at once (joins the worker after its current step); emits stopped() when a run
    // was in progress. Nothing more is emitted for that run.
    void stop();
    void setPaused(bool paused);
    bool paused() const { return m_shared && m_shared->paused; }
    void setSpeed(double speed);
    double speed() const { return m_shared ? m_shared->speed.load() : 0.0; }

    bool running() const { return m_thread != nullptr; }
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
    void progress(double virtualS, double durationS);
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
};

} // namespace stormwatch

Q_DECLARE_METATYPE(stormwatch::GatewayPoint)
