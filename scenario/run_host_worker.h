#pragma once
// The run host's worker, internal to scenario/ (run_host.cpp starts it, run_host_worker.cpp
// is it): it lives on the run thread, builds, runs and destroys the runner there, and turns
// each step of the run into one batch for the UI thread.

#include "client/engine_batcher.h"
#include "scenario/run_host.h"

#include <QElapsedTimer>
#include <QHash>
#include <QTimer>
#include <limits>
#include <optional>

namespace stormwatch {

struct RunHost::Step {
    QVector<Marker> markers;
    EngineBatch batch;
    QVector<SeriesUpdate> series;
    GatewayPoint gateway;
    QVector<GatewayPoint> gateways; // one per gateway, when the run has several
    double virtualS = 0;
    std::optional<LeverSet> levers;  // when the engine's levers changed since the last step
    QVector<TimelineEvent> timeline; // passed since the last step
};

class RunHost::Worker : public QObject {
public:
    Worker(Scenario scenario, VariantSpec variant, RunnerFactory factory, bool live,
           int maxLogLines, std::shared_ptr<Shared> shared, RunHost* owner);

    // Builds the runner (blocking the caller: a live one starts its gateway here). "" when
    // it is ready, else what is wrong; *levers: the variant's.
    struct Created {
        LeverSet levers;
        QString gatewayAddress;
        QString faultsUnavailable;
        QStringList instances;
        QStringList gateways;
    };
    QString create(Created* created);
    // The console's fault panel: a timeline event at "now", through the runner.
    void inject(const TimelineEvent& event);
    void begin();
    // The owner wants the thread to end. Inside a live step (this call then comes from the
    // runner's event loop) the step sees the stop flag when it returns, within kStepMs.
    void onStopRequested();
    void applyLevers(const LeverSet& levers);

private:
    // The timer and the runner go where they lived, then the thread ends.
    void shutdown();
    // Max speed ticks every millisecond: about 400 steps a run, so even a short run shows
    // its course, and waiting for the UI to catch up does not spin.
    int interval() const { return m_shared->speed.load() > 0 ? kStepMs : 1; }
    void tick();
    // Live: no pacing and no pause — the runner's own event loop waits out each step of
    // wall time, and the next step is queued behind whatever that loop left pending.
    void liveTick();
    void afterAdvance();
    static double maxChunk(double duration);
    void sendStep(bool last);
    // What the run's recorder added to each series since the last step. A point the
    // recorder took back (a change undone at the same instant) is restated at its time with
    // the value in force, so the receiver's step series collapses it the same way.
    QVector<SeriesUpdate> seriesSinceLastStep();

    Scenario m_scenario;
    VariantSpec m_variant;
    RunnerFactory m_factory;
    const bool m_live;
    const int m_maxLogLines;
    std::shared_ptr<Shared> m_shared;
    RunHost* m_owner;
    std::unique_ptr<ScenarioRunner> m_runner;
    std::unique_ptr<EngineBatcher> m_batcher; // an observer of the runner's engine
    bool m_sentFirst = false;
    Time m_t0{0};
    QTimer* m_timer = nullptr; // virtual time only
    QElapsedTimer m_wall;
    double m_virtualS = 0;
    double m_anchorVirtualS = 0;
    double m_pacedSpeed = -1;
    bool m_pacingValid = false;
    bool m_inRunnerLoop = false;
    bool m_done = false;
    bool m_shutDown = false;
    qsizetype m_nextTimeline = 0;
    QHash<QString, QString> m_connectionStates;
    LeverSet m_sentLevers;
    std::int64_t m_markedEventsLost = 0;      // events lost already marked on the plots
    QVector<LogEntry> m_pendingLogs;          // injected events, said with the next step
    QVector<TimelineEvent> m_pendingTimeline; // injected events applied, with the next step
    QVector<Marker> m_pendingMarkers;
    QHash<QString, int> m_instanceOfSubject; // series subject "inst/conn" -> instance index
    struct Sent {                            // per series: the last point sent
        bool any = false;
        double t = -std::numeric_limits<double>::infinity();
        double value = 0;
    };
    std::vector<Sent> m_sent;
};

} // namespace stormwatch
