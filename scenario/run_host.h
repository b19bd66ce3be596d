#pragma once
// The one run host: hosts ONE ScenarioRunner at a time on a worker thread it owns — the
// console's open-ended live run, a playback in virtual time, or a scenario played live —
// and reports what the run does as batches: subscription samples, tag changes, log lines,
// connection infos and the gateway as GatewayPoints. Every panel of the console reads its
// state (levers, speed, instances, gateway, whether faults can be injected and why not), so
// the panels always describe the run that is shown. Faults and run-time changes from the
// console are timeline events at "now", applied by the runner through its GatewayAccess,
// exactly as a scenario file's timeline is. Two modes, one worker:
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
// Each step's batch comes from an EngineBatcher observing the runner's engine: the first step is a
// snapshot, later ones carry what changed, and the engine's own log lines (at most
// kMaxLogLinesPerStep a step, then one line saying how many were suppressed), with the timeline's
// actions and connection state changes added as the run passes them. Times are run times: seconds
// since the run's start.

#include "client/engine_samples.h"
#include "client/lever_set.h"
#include "client/thread_host.h"
#include "scenario/scenario.h"
#include "scenario/scenario_runner.h"

#include <QMap>
#include <QObject>
#include <QSharedPointer>
#include <QTimer>
#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>

class QThread;

namespace stormwatch {

class RunHost : public QObject {
    Q_OBJECT
public:
    static constexpr double kMaxSpeed = 0; // as fast as possible
    static constexpr int kStepMs = 50;     // wall time between paced (and live) steps
    // A storm logs a line per failed subscribe: the event log gets this many a step at most.
    static constexpr int kMaxLogLinesPerStep = 200;
    // The console's live run is a scenario without an end (30 days of wall time).
    static constexpr double kOpenEndedS = 30.0 * 24 * 3600;
    // A step with this many tag changes is a burst (a site's deployment, or a large site's
    // updates), and the memory bursts freed is given back this long after the first one, at
    // most once per that interval while they go on.
    static constexpr int kBurstTags = 1000;
    static constexpr int kReturnMemoryAfterMs = 5000;
    // Times the freed memory was given back after a burst.
    int memoryReturns() const { return m_memoryReturns; }

    // A moment worth a line on the plots' time axis: a fault, a redeploy or a lever change
    // ("wedge 90 s", "redeploy inst-03", "lever1 on"), at run time tS.
    struct Marker {
        double tS = 0;
        QString label;
        bool operator==(const Marker&) const = default;
    };
    // The short label of a timeline event ("" for none: end_event_streams has no duration
    // worth naming but still gets its name); the same words whether the event came from a
    // scenario file or a console button.
    static QString markerLabel(const TimelineEvent& event);
    // The same without the gateway it names.
    static QString actionLabel(const TimelineEvent& event);
    // A lever change as what changed: a preset's name ("lever1 on"), else the levers that
    // differ ("guard off, backoff off").
    static QString leverChangeLabel(const LeverSet& before, const LeverSet& after);
    // A scenario's timeline as markers (the report PNGs and the compare view: the run is
    // over, its timeline is the source).
    static QVector<Marker> timelineMarkers(const Scenario& scenario);

    enum class State {
        Idle,     // nothing started yet
        Running,  // steps are coming (a paused virtual run is Running and paused())
        Finished, // reached its end; its plots stay until the next run
        Stopped,  // stopped before its end
    };

    // The console's live run: `scenario`'s connections and instances, no timeline, no end,
    // with `levers`, against LiveOptions::gateway or an embedded mock gateway of its own.
    static Scenario openEndedLive(const Scenario& scenario, const LeverSet& levers);

    explicit RunHost(QObject* parent = nullptr);
    ~RunHost() override; // stop()

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
    // A timeline event at "now" (a fault, redeploy, set_levers, set_capability), applied by
    // the runner through its GatewayAccess like a scenario's own timeline; what happened is
    // said in the event log (applied, or skipped and why). Nothing when no run is running.
    void inject(const TimelineEvent& event);
    // The engine's levers as last known: the variant's at start, then every change (a
    // timeline set_levers, applyLevers) once a step has reported it.
    const LeverSet& levers() const { return m_levers; }

    // The engine log lines a step carries at most (from the next start on).
    void setMaxLogLinesPerStep(int lines) { m_maxLogLines = std::max(1, lines); }

    // What a run keeps of its own recorded series (VariantRun::series): the whole run, but
    // an open-ended run only its last kOpenEndedSeriesWindowS (the plots' default retention;
    // they keep their own copy, a recorder writes every point): its memory stays flat.
    // Metrics never come from the series. setSeriesLimits applies other limits
    // to every run started after it (nullopt: this rule).
    static constexpr double kOpenEndedSeriesWindowS = 3600;
    static SeriesLimits seriesLimitsFor(const Scenario& scenario);
    void setSeriesLimits(std::optional<SeriesLimits> limits) { m_seriesLimits = limits; }

    bool running() const { return m_thread.running(); }
    State state() const { return m_state; }
    bool live() const { return m_live; }
    bool openEnded() const { return m_durationS >= kOpenEndedS; }
    // What the run connects to: "in-process mock" (virtual), "127.0.0.1:PORT" (live).
    QString gatewayAddress() const { return m_gatewayAddress; }
    // "" when faults reach the run's gateway; else why not (a gateway without the mock's
    // control service), for the fault controls to show.
    QString faultsUnavailableReason() const { return m_faultsUnavailable; }
    QStringList instanceNames() const { return m_instanceNames; }
    // The run's gateways by name (a site's), in scenario order; empty when it has one
    // unnamed gateway. A fault (inject) may name one of them; gatewayPoint() and the
    // series ("gateway:NAME") are published per gateway when there are several.
    QStringList gatewayNames() const { return m_gatewayNames; }
    // The run's instance names by the connection they subscribe through (a site's: by
    // gateway), in scenario order: what the topology groups them by.
    QMap<QString, QStringList> instancesByConnection() const
    {
        QMap<QString, QStringList> by;
        for (const ScenarioInstance& i : m_scenario.instances)
            by[i.connection] << i.name;
        return by;
    }
    QString scenarioName() const { return m_scenarioName; }
    // The scenario of the run shown (the live run's open-ended one): what a recording stores.
    const Scenario& scenario() const { return m_scenario; }
    QString variantName() const { return m_variantName; }
    double durationS() const { return m_durationS; }
    double virtualS() const { return m_virtualS; } // as last reported

signals:
    void subscriptionSamples(const QVector<stormwatch::SubscriptionSample>& samples);
    void tagChanges(const QVector<stormwatch::TagChange>& changes);
    void logEntries(const QVector<stormwatch::LogEntry>& entries);
    void connectionInfo(const QVector<stormwatch::ConnectionInfo>& connections);
    // Every step: each connection's running totals (a watch's counters).
    void connectionCounters(const QVector<stormwatch::ConnectionCounters>& counters);
    // Every step: the run's point (gateway ""), then, with several gateways, one per gateway.
    void gatewayPoint(const stormwatch::GatewayPoint& point);
    // The points the run's recorder added since the last step: what the plots draw, the
    // same series the run's report (VariantRun::series) is made of.
    void seriesUpdates(const QVector<stormwatch::SeriesUpdate>& updates);
    void progress(double virtualS, double durationS); // live: wall seconds into the run
    // Timeline events the run passed since the last step (the scenario's, and the console's
    // applied at "now" with their run time): what a recording keeps as faults and changes.
    void timelinePassed(const QVector<stormwatch::TimelineEvent>& events);
    // The engine's levers changed during the run (a timeline set_levers or applyLevers).
    void leversChanged(const stormwatch::LeverSet& levers);
    // The run reached its end: metrics and the full step series of the run.
    void finished(QSharedPointer<stormwatch::VariantRun> run);
    void stopped();
    // Faults, redeploys and lever changes the run passed since the last step (timeline,
    // console buttons, applyLevers), for the plots' time axis.
    void markersAdded(const QVector<stormwatch::RunHost::Marker>& markers);
    // state(), speed(), paused() or levers() changed: the panels re-read the host.
    void stateChanged();

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

    // Armed by a step with a burst of tag changes unless it already is: when it fires, the
    // memory the bursts freed goes back to the system (returnFreedMemory).
    QTimer m_returnMemory;
    int m_memoryReturns = 0;
    ThreadHost m_thread{QStringLiteral("stormwatch-run")};
    std::shared_ptr<Shared> m_shared;
    State m_state = State::Idle;
    QString m_gatewayAddress;
    QString m_faultsUnavailable;
    QStringList m_instanceNames;
    QStringList m_gatewayNames;
    QString m_scenarioName;
    Scenario m_scenario;
    QString m_variantName;
    double m_durationS = 0;
    double m_virtualS = 0;
    bool m_live = false;
    LeverSet m_levers;
    int m_maxLogLines = kMaxLogLinesPerStep;
    std::optional<SeriesLimits> m_seriesLimits;
};

} // namespace stormwatch
