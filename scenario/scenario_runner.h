#pragma once

// Runs a scenario variant, in virtual time or live. One runner, one mechanism for both:
// it works on a Scheduler, a GatewayPort and a GatewayAccess (faults and the gateway's
// counters), and only the world those three are built from differs:
// - virtual: a VirtualScheduler, the mock gateway model configured from the scenario's
//   gateway block, the in-process port with its network latency, modelAccess(model) —
//   deterministic for a seed;
// - live: a QtScheduler on the caller's thread (wall time), the GrpcGatewayPort to either
//   an embedded MockGatewayServer (127.0.0.1, a free port, started per variant; one per
//   gateway for a site scenario) or an external gateway (LiveOptions::gateway, or a site's
//   LiveOptions::gateways), whose faults go through MockGatewayControl and are reported as
//   skipped when it has none.
// Connections start at t = 0, instances deploy at their start_at_s, timeline actions apply
// at their at_s, and the run covers the half-open interval [0, duration): "for 110 s" is
// every instant before 110 s. Times are measured from start() (live: the wall clock then).
//
// Metrics are gathered through the engine's observer as things
// happen — no polling — and the gateway's counters (GatewayAccess::stats(), or the
// client's own counts when the gateway exposes none) are sampled every second and read
// at the end. A few series are recorded for plots (series.h).

#include "client/client_engine.h"
#include "client/grpc_gateway_port.h"
#include "gateway/gateway_model.h"
#include "scenario/gateway_access.h"
#include "scenario/report.h"
#include "scenario/scenario.h"
#include "scenario/series.h"

#include <QElapsedTimer>
#include <QString>
#include <QStringList>
#include <functional>
#include <map>
#include <memory>
#include <optional>

namespace stormwatch {

class VirtualScheduler;
class QtScheduler;
namespace gateway {
class MockGatewayServer;
}

// Fraction of the work done, 0..1; called at most ~50 times per virtual variant, about
// once a second live.
using ProgressFn = std::function<void(double fraction)>;

struct VariantRun {
    VariantMetrics metrics;
    SeriesSet series;
};

// How a live run reaches its gateway.
struct LiveOptions {
    // nullopt: an embedded mock gateway per variant, configured from the scenario's gateway
    // block (its network latency aside: the network is real loopback) — one per gateway
    // when the scenario's connections name gateways (a site scenario). Otherwise the
    // gateway at gateway->address; faults and counters go through the MockGatewayControl
    // service at the same address (insecure, as mxgw-mock serves it) when it has one.
    std::optional<GrpcPortOptions> gateway;
    // A site's gateways (sitePortOptions), by gateway name (a connection without one: by
    // its own name): each gateway is reached through a port of its own (one engine, a port
    // and a recovery gate per gateway; docs/sites.md). When set, `gateway` is not used; a
    // fault goes to the gateway it names, or to every gateway (each one's
    // MockGatewayControl), and the gateway counters are the client's own per gateway (the
    // STA queue the gateway's, when its control service tells it).
    std::map<std::string, GrpcPortOptions> gateways;
    // About once per second of wall time: the variant running, seconds into it, its length.
    std::function<void(const QString& variant, double elapsedS, double durationS)> progress;
};

// What the engine config, gateway config and levers of a scenario variant are; errors
// name the variant and the problem (levers or options that do not parse).
EngineConfig engineConfigFor(const Scenario& scenario, const VariantSpec& variant, quint64 seed,
                             QString* error);
gateway::GatewayConfig gatewayConfigFor(const Scenario& scenario, quint64 seed);
// The seed of a run's gateway `index` (in the order the run's connections first name them):
// the first keeps the run's seed, so a run on one gateway is what it always was; each other
// one draws its own numbers (data values, dropped replies), not the first one's again.
quint64 gatewaySeedFor(quint64 runSeed, int index);
// Tag i (1-based) of an instance: its real address (tagAddresses) or "<tagPrefix><i>".
std::vector<std::string> tagNamesFor(const ScenarioInstance& instance);

class ScenarioRunner {
public:
    // Builds the world for one variant in virtual time. Check ok() (error() says what is wrong).
    ScenarioRunner(const Scenario& scenario, const VariantSpec& variant,
                   std::optional<quint64> seedOverride = std::nullopt,
                   SeriesLimits seriesLimits = {});
    // The same, live: starts the embedded mock gateway (when live.gateway is not set) and
    // builds the gRPC port on a QtScheduler of the calling thread, which must run a Qt
    // event loop only inside advanceTo()/run() (they run one themselves).
    ScenarioRunner(const Scenario& scenario, const VariantSpec& variant, const LiveOptions& live,
                   std::optional<quint64> seedOverride = std::nullopt,
                   SeriesLimits seriesLimits = {});
    ~ScenarioRunner();
    ScenarioRunner(const ScenarioRunner&) = delete;
    ScenarioRunner& operator=(const ScenarioRunner&) = delete;

    bool ok() const { return m_error.isEmpty(); }
    const QString& error() const { return m_error; }
    bool live() const { return m_live; }

    // The whole run: start(), advance to the end, finish(). Progress: ~50 steps in virtual
    // time, one a second live.
    // `cancelled`, asked after every step: true abandons the run (its result is empty).
    VariantRun run(const ProgressFn& progress = {}, const std::function<bool()>& cancelled = {});

    // Stepwise, for tests and the console: start() schedules the connections, deploys and
    // the timeline (nothing runs yet); advanceTo(s) runs every event before `s` (clipped
    // to the run's end) — live, it runs a Qt event loop until s seconds of wall time have
    // passed since start(); finish() closes the run, collects the metrics and stops the
    // engine. Each is called once, in that order (advanceTo any number of times).
    void start();
    void advanceTo(double s);
    VariantRun finish();
    // Ends a run that will not be finished (stopped by the user): closes every session and
    // waits for the answers (at most 2 s), and ends the faults it injected on a shared
    // gateway, so nothing of it stays on the gateway. No metrics. Nothing after it.
    void abandon();

    double durationS() const { return m_scenario.durationS; }
    quint64 seed() const { return m_seed; }
    Scheduler& scheduler() { return *m_scheduler; }
    // The gateway model of a virtual run (live, it is on the embedded server's thread): the
    // first gateway's, or the named one's (nullptr when the run has no such model).
    gateway::GatewayModel& model() { return *m_gateways.front().model; }
    gateway::GatewayModel* model(const QString& gateway);
    // The run's gateways by name, in scenario order; one "" when it has one unnamed gateway
    // (every scenario without a site, and any live run on one --gateway).
    QStringList gatewayNames() const;
    // The embedded mock gateway of a live run (a site scenario's first); nullptr otherwise.
    gateway::MockGatewayServer* server()
    {
        return m_servers.empty() ? nullptr : m_servers.front().get();
    }
    // A site's gateway's own embedded mock (live without endpoints); nullptr when it has none.
    gateway::MockGatewayServer* server(const QString& gateway);
    ClientEngine& engine() { return *m_engine; }
    // The port of the run's gateway (of a site's first gateway).
    GatewayPort& port() { return *m_gateways.front().port; }
    // Where the run's gateway(s) are: "host:port", or "NAME host:port, ..." for a site's.
    QString gatewayDescription() const;
    // One gateway as last sampled (once a second): its counters (the gateway's own, or the
    // client's for it) and its recovery gate. What the console's per-gateway points carry.
    struct GatewayNow {
        QString name;
        std::optional<std::int64_t> staQueueDepth; // only the gateway knows its queue
        std::int64_t invokes = 0;
        std::int64_t deadlineExceeded = 0;
        std::int64_t suppressed = 0;
        int recoveryState = 0; // RecoveryGate::State
    };
    std::vector<GatewayNow> gatewaysNow() const;
    // The first gateway's access; faultsUnavailableReason() speaks for every gateway.
    GatewayAccess& access() { return *m_gateways.front().access; }
    // The named gateway's access (nullptr when the run has no such gateway).
    GatewayAccess* access(const QString& gateway);
    // "" when faults reach every gateway of the run, else why not (naming the gateway when
    // the run has several).
    QString faultsUnavailableReason() const;
    // Seconds since start() (0 before it), clipped to the run's duration.
    double elapsedS() const;
    // A timeline event at "now" (the console's fault panel), applied exactly as the
    // timeline's own (faults through the GatewayAccess, counted as applied faults for
    // time_to_all_good_s). "" when applied everywhere, else why it was skipped where it
    // was; *applied says whether it took effect at all (on a site, a fault some gateways
    // took is a fault that happened, though another could not take it).
    QString applyNow(TimelineEvent event, bool* applied = nullptr);
    // The metrics gathered so far (bad_tag_seconds up to now; time_to_all_good not set).
    double badTagSecondsSoFar() const;
    int notGoodTags() const { return m_notGood; }
    // Tags orphaned now (not Good, no route, nothing in flight, no retry scheduled) and the
    // tag-seconds so far; checked on every guard, tag and connection event and every second.
    int orphanedTags() const { return m_orphaned; }
    // The series recorded so far (run times): what the plots and the report both read.
    const SeriesSet& series() const { return m_series; }
    double orphanedTagSecondsSoFar() const;

private:
    class Observer;
    friend class Observer;

    // The gateway's Invoke counters as one snapshot, from whichever source the run uses.
    struct GatewayCounters {
        std::int64_t rpcs = 0;
        QMap<QString, qint64> byKind;
        std::int64_t deadlineExceeded = 0;
        std::optional<std::int64_t> staQueueDepth; // only the gateway knows its queue
        std::int64_t maxStaQueueDepth = 0;
        std::optional<std::int64_t> outstandingSubscribes; // the gateway's own count, now
        std::int64_t maxOutstandingSubscribes = 0;
    };

    // One gateway of the run and what reaches it: its model (virtual), its port, its access
    // (faults, counters), and its own share of the faults, counters and series.
    struct Gateway {
        QString name;                                 // "" : the scenario's one unnamed gateway
        std::unique_ptr<gateway::GatewayModel> model; // virtual
        gateway::MockGatewayServer* server = nullptr; // live, its own embedded mock (in m_servers)
        std::unique_ptr<GatewayPort> port;
        std::unique_ptr<GatewayAccess> access;
        int sourceOutages = 0;  // overlapping outages: the source is Bad while any is on
        bool injected = false;  // a fault was injected (ended at the end of a shared gateway's run)
        GatewayCounters last;   // as last read
        bool queueRead = false; // its queue came from the latest read, not from `last`
        int queueReads = 0;     // samples at which it was
        // Its own series ("gateway:NAME"), recorded when the run has several gateways.
        std::size_t staDepth = 0, rpcsPerS = 0, deadlinePerS = 0, recoveryState = 0, suppressed = 0,
                    suppressedPerS = 0;
        std::int64_t lastRpcs = 0, lastDeadline = 0, lastSuppressed = 0;
    };

    void setUp(const EngineConfig& config);
    // Starts an embedded mock gateway (m_servers); nullptr with m_error set when it cannot.
    gateway::MockGatewayServer* startEmbeddedServer(const QString& name, quint64 seed);
    // `options` with the scenario's client_model keepalive where it gives one.
    GrpcPortOptions withScenarioKeepalive(GrpcPortOptions options) const;
    // The gateways a timeline event hits: the named one, or every one (nullopt: the run
    // has no gateway of that name).
    std::optional<std::vector<Gateway*>> targetsOf(const TimelineEvent& event);
    GatewayCounters countersOf(Gateway& gateway);
    void sampleGatewaySeries(double t, bool rates);
    // The largest STA queue any one gateway's series holds; nullopt when none was read.
    std::optional<qint64> deepestSampledQueue() const;
    // A queue not read at every sample makes max_sta_queue_depth a lower bound, said so
    // (the gaps, a note) and shown as one; a real gateway alone stays a plain n/a.
    void reportQueueGaps(VariantMetrics& m) const;
    Time end() const;
    Time sinceStart(Time at) const; // run time of a scheduler instant, clipped to [0, end]
    Time relNow() const { return sinceStart(m_scheduler->now()); }
    // Whether the event took effect (anywhere: a gateway that could not take it is
    // recorded as skipped, the others still had it).
    bool applyTimeline(const TimelineEvent& event);
    bool applyTimelineEvent(const TimelineEvent& event);
    void skip(const TimelineEvent& event, const QString& why);
    void deploy(int instance);
    void redeploy(const QString& instance);
    void resyncCounts();
    void onInstanceCounts(int instance);
    void checkOrphans(int instance); // -1: every instance; counted once the step is over
    void countOrphans();
    void onConnectionState(const GatewayConnection& connection, ConnectionState state);
    void closeSessions();
    void endFaults();
    void recordRecoveryStates();
    void setNotGood(int notGood);
    GatewayCounters gatewayCounters();
    void sampleGateway();

    Scenario m_scenario;
    VariantSpec m_variant;
    quint64 m_seed;
    QString m_error;
    LeverSet m_levers;
    bool m_live = false;

    // The world (declared in construction order; the destructor tears it down in reverse).
    std::unique_ptr<VirtualScheduler> m_virtualScheduler; // virtual
    std::unique_ptr<QtScheduler> m_qtScheduler;           // live
    Scheduler* m_scheduler = nullptr;
    std::vector<std::unique_ptr<gateway::MockGatewayServer>> m_servers; // live, embedded
    std::vector<Gateway> m_gateways;                                    // at least one once built
    ClientEngine::GatewayPorts m_gatewayPorts;      // their ports by name, when they are named
    std::map<std::string, std::string> m_gatewayOf; // connection name -> gateway name
    std::unique_ptr<ClientEngine> m_engine;
    std::unique_ptr<Observer> m_observer;
    QElapsedTimer m_wall;
    Time m_t0{0}; // the scheduler's now() at start(): run time 0
    bool m_started = false;
    bool m_finished = false;
    QStringList m_skipped;                        // timeline actions the gateway could not apply
    std::optional<double> m_lastAppliedFaultEndS; // faults the gateway did apply only

    // Gateway counters: the source is decided at start() (the gateway's own when it exposes
    // them), counted from a baseline then (an external gateway has been counting before).
    bool m_countersFromGateway = true;
    // A live site's own gateways (LiveOptions::gateways): others may use them too, so only
    // their STA queue is read from them, the Invoke counts are the client's.
    bool m_sharedGateways = false;
    GatewayCounters m_baseline, m_lastCounters;
    std::int64_t m_maxSampledDepth = 0;
    int m_queueSamples = 0; // sampleGateway() calls: each gateway's queue is read at each
    std::int64_t m_maxSampledOutstanding = 0;

    // Metric state (times are run times, from start()).
    int m_notGood = 0;                           // not-Good tags over deployed instances
    Time m_lastChange{0};                        // when m_notGood last changed
    std::int64_t m_badTagUs = 0;                 // tag·µs not Good before m_lastChange
    std::optional<Time> m_allGoodSince{Time{0}}; // since when every deployed tag is Good
    int m_stale = 0;                             // Good tags older than their limit
    Time m_lastStaleChange{0};
    std::int64_t m_staleUs = 0;          // tag·µs stale before m_lastStaleChange
    std::vector<QualityCounts> m_counts; // per instance, as last seen (deployed only)
    qint64 m_subscribeRequests = 0;
    int m_maxOutstanding = 0;
    std::vector<int> m_orphans; // per instance, as last checked
    int m_orphaned = 0;
    std::vector<int> m_orphanCheckDirty;
    bool m_orphanCheckAll = false;
    bool m_orphanCheckPosted = false;
    std::shared_ptr<int> m_life = std::make_shared<int>(0); // posted checks outlive nothing
    Time m_lastOrphanChange{0};
    std::int64_t m_orphanUs = 0; // tag·µs orphaned before m_lastOrphanChange
    // Frozen tags (Instance::frozenTags), counted with the orphans and the same way.
    std::vector<int> m_frozens;
    int m_frozen = 0;
    Time m_lastFrozenChange{0};
    std::int64_t m_frozenUs = 0;
    std::vector<const GatewayConnection*> m_connected; // connections that had a session
    std::optional<double> m_connectedAfterS;

    // Series.
    SeriesSet m_series;
    struct SubscriptionSeries {
        std::size_t outstanding, intervalMs, good, uncertain, bad, requestsSent, stale, orphaned,
            frozen;
        qint64 sent = 0;
    };
    std::vector<std::vector<SubscriptionSeries>> m_subscriptionSeries; // [instance][group]
    std::size_t m_staDepth = 0, m_rpcsPerS = 0, m_deadlinePerS = 0, m_recoveryState = 0,
                m_suppressed = 0, m_suppressedPerS = 0, m_orphanedSeries = 0;
    std::int64_t m_lastRpcs = 0, m_lastDeadline = 0, m_lastSuppressed = 0;
};

// Runs the named variants (empty = all) one after another. Unknown names: an empty report
// and *error lists the scenario's variants. Progress covers all variants together.
// `cancelled` is asked between steps: true ends the run there (*error says "cancelled").
ScenarioReport runScenario(const Scenario& scenario, const QStringList& variantNames,
                           std::optional<quint64> seedOverride, const ProgressFn& progress = {},
                           QString* error = nullptr, QList<SeriesSet>* series = nullptr,
                           const std::function<bool()>& cancelled = {});
// The same, live (report.live): each variant takes duration_s of wall time, on an embedded
// mock gateway of its own or on live.gateway. *error also names a gateway that cannot be used.
ScenarioReport runScenarioLive(const Scenario& scenario, const QStringList& variantNames,
                               std::optional<quint64> seedOverride, const LiveOptions& live,
                               QString* error = nullptr, QList<SeriesSet>* series = nullptr);

// "" when every name is a variant of the scenario, else the message naming the unknown
// ones and listing the valid ones.
QString checkVariantNames(const Scenario& scenario, const QStringList& variantNames);

} // namespace stormwatch
