#pragma once

// Runs a scenario in virtual time: for one variant, the mock gateway model configured
// from the scenario's gateway block, the in-process port with its network latency, and
// the client engine with the scenario's options, connections and instances and the
// variant's levers — all on one VirtualScheduler. Connections start at t = 0, instances
// deploy at their start_at_s, timeline actions apply at their at_s, and the run covers
// the half-open interval [0, duration): "for 110 s" is every instant before 110 s.
//
// Metrics (DESIGN.md "Metrics") are gathered through the engine's observer as things
// happen — no polling — and the gateway's counters are read at the end. A few series are
// recorded for plots (series.h).

#include "client/client_engine.h"
#include "client/virtual_scheduler.h"
#include "gateway/gateway_model.h"
#include "scenario/in_process_gateway_port.h"
#include "scenario/report.h"
#include "scenario/scenario.h"
#include "scenario/series.h"

#include <QElapsedTimer>
#include <QString>
#include <QStringList>
#include <functional>
#include <memory>
#include <optional>

namespace stormwatch {

// Fraction of the work done, 0..1; called at most ~50 times per variant.
using ProgressFn = std::function<void(double fraction)>;

struct VariantRun {
    VariantMetrics metrics;
    SeriesSet series;
};

// What the engine config, gateway config and levers of a scenario variant are; errors
// name the variant and the problem (levers or options that do not parse).
EngineConfig engineConfigFor(const Scenario& scenario, const VariantSpec& variant, quint64 seed,
                             QString* error);
gateway::GatewayConfig gatewayConfigFor(const Scenario& scenario, quint64 seed);
// Tag i (1-based) of an instance: "<tagPrefix><i>".
std::vector<std::string> tagNamesFor(const ScenarioInstance& instance);

class ScenarioRunner {
public:
    // Builds the world for one variant. Check ok() (error() says what is wrong).
    ScenarioRunner(const Scenario& scenario, const VariantSpec& variant,
                   std::optional<quint64> seedOverride = std::nullopt,
                   std::size_t seriesCap = SeriesSet::kDefaultCap);
    ~ScenarioRunner();
    ScenarioRunner(const ScenarioRunner&) = delete;
    ScenarioRunner& operator=(const ScenarioRunner&) = delete;

    bool ok() const { return m_error.isEmpty(); }
    const QString& error() const { return m_error; }

    // The whole run: start(), advance to the end, finish().
    VariantRun run(const ProgressFn& progress = {});

    // Stepwise, for tests and the console: start() schedules the connections, deploys and
    // the timeline (nothing runs yet); advanceTo(s) runs every event before `s` (clipped
    // to the run's end); finish() closes the run, collects the metrics and stops the
    // engine. Each is called once, in that order (advanceTo any number of times).
    void start();
    void advanceTo(double s);
    VariantRun finish();

    double durationS() const { return m_scenario.durationS; }
    quint64 seed() const { return m_seed; }
    VirtualScheduler& scheduler() { return m_scheduler; }
    gateway::GatewayModel& model() { return *m_model; }
    ClientEngine& engine() { return *m_engine; }
    InProcessGatewayPort& port() { return *m_port; }
    // The metrics gathered so far (bad_tag_seconds up to now; time_to_all_good not set).
    double badTagSecondsSoFar() const;
    int notGoodTags() const { return m_notGood; }

private:
    class Observer;
    friend class Observer;

    void applyTimeline(const TimelineEvent& event);
    void deploy(int instance);
    void redeploy(const QString& instance);
    void resyncCounts();
    void onInstanceCounts(int instance);
    void setNotGood(int notGood);
    void sampleGateway();

    Scenario m_scenario;
    VariantSpec m_variant;
    quint64 m_seed;
    QString m_error;
    LeverSet m_levers;

    VirtualScheduler m_scheduler;
    std::unique_ptr<gateway::GatewayModel> m_model;
    std::unique_ptr<InProcessGatewayPort> m_port;
    std::unique_ptr<ClientEngine> m_engine;
    std::unique_ptr<Observer> m_observer;
    QElapsedTimer m_wall;
    bool m_started = false;
    bool m_finished = false;
    int m_sourceOutages = 0; // overlapping outages: the source is Bad while any is on

    // Metric state.
    int m_notGood = 0;                           // not-Good tags over deployed instances
    Time m_lastChange{0};                        // when m_notGood last changed
    std::int64_t m_badTagUs = 0;                 // tag·µs not Good before m_lastChange
    std::optional<Time> m_allGoodSince{Time{0}}; // since when every deployed tag is Good
    std::vector<QualityCounts> m_counts;         // per instance, as last seen (deployed only)
    qint64 m_subscribeRequests = 0;
    int m_maxOutstanding = 0;

    // Series.
    SeriesSet m_series;
    struct SubscriptionSeries {
        std::size_t outstanding, intervalMs, good, uncertain, bad, requestsSent;
        qint64 sent = 0;
    };
    std::vector<std::vector<SubscriptionSeries>> m_subscriptionSeries; // [instance][group]
    std::size_t m_staDepth = 0, m_rpcsPerS = 0, m_deadlinePerS = 0, m_recoveryState = 0,
                m_suppressed = 0;
    std::int64_t m_lastRpcs = 0, m_lastDeadline = 0;
};

// Runs the named variants (empty = all) one after another. Unknown names: an empty report
// and *error lists the scenario's variants. Progress covers all variants together.
ScenarioReport runScenario(const Scenario& scenario, const QStringList& variantNames,
                           std::optional<quint64> seedOverride, const ProgressFn& progress = {},
                           QString* error = nullptr, QList<SeriesSet>* series = nullptr);

// "" when every name is a variant of the scenario, else the message naming the unknown
// ones and listing the valid ones.
QString checkVariantNames(const Scenario& scenario, const QStringList& variantNames);

} // namespace stormwatch
