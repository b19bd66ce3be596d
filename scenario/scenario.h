#pragma once

// A scenario: the gateway model, the instances deployed against it, a timeline of
// faults and run-time changes, and the lever variants to compare. Parsed and validated
// by scenario_parser.h; this header is plain data.

#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>
#include <QStringList>
#include <optional>

namespace stormwatch {

// A numeric field's range, as the schema states it in an error
// ("$.timeline[0].duration_s: must be <= 86400 s (got 1e+308)").
struct NumberRange {
    double min = 0;
    double max = 0;
    bool minExclusive = false; // "> min" rather than ">= min"
    const char* unit = "";     // "s", "ms", "Hz"; empty for a plain number
};

// Every range a scenario file is held to, checked once when it is read
// (docs/scenario-format.md lists each field with its range; keep the two in step). They
// keep every value representable where the run computes with it — as microseconds in an
// int64, as an int32 on the wire — and, with the run budget, a run's memory bounded.
namespace scenario_limits {
inline constexpr double kMaxRunS = 86400; // a day: the longest run, fault or timeout
inline constexpr NumberRange kDurationS{0, kMaxRunS, true, "s"};  // duration_s, timeline duration_s
inline constexpr NumberRange kDowntimeS{0, kMaxRunS, false, "s"}; // restart/kill downtime_s
inline constexpr NumberRange kAtS{0, kMaxRunS, false, "s"}; // at_s, start_at_s (and <= duration_s)
inline constexpr NumberRange kDefaultCommandTimeoutS{0, kMaxRunS, true, "s"};
// The STA's cost of one command, (command_ms + per_item_ms × items) × factor, stays below
// 10^12 µs with 10,000 items: even the run budget's worth of queued commands fits an int64.
inline constexpr NumberRange kCommandMs{0, 10000, false, "ms"};
inline constexpr NumberRange kPerItemMs{0, 100, false, "ms"};
inline constexpr NumberRange kDataHz{0, 100, false, "Hz"};
inline constexpr double kMinNonZeroDataHz = 0.001; // 0 = no data changes; else a period <= 1000 s
inline constexpr NumberRange kNetworkLatencyMs{0, 10000, false, "ms"};
inline constexpr NumberRange kSlowFactor{1, 1000, false, ""};
inline constexpr NumberRange kProbability{0, 1, false, ""};
inline constexpr NumberRange kTags{1, 10000, false, ""};
inline constexpr NumberRange kWriteUserId{0, 2147483647, false, ""}; // int32 user_id on the wire
// Integers travel as JSON numbers (doubles): above 2^53 - 1 they are no longer exact.
inline constexpr double kMaxSafeInteger = 9007199254740991.0;
inline constexpr NumberRange kSeed{0, kMaxSafeInteger, false, ""};
// expected_update_s (0: the tag sends on change only, never stale) and stale_factor: a Good
// tag is stale once expected_update_s × stale_factor passed without an update.
inline constexpr NumberRange kExpectedUpdateS{0, kMaxRunS, false, "s"};
inline constexpr NumberRange kStaleFactor{1, 1000, false, ""};
inline constexpr double kDefaultStaleFactor = 5;

inline constexpr qsizetype kMaxNameLength = 128; // scenario, connection, instance, variant names
// tag_prefix: room for the default, "<name>.Attr", of the longest name.
inline constexpr qsizetype kMaxTagPrefixLength = kMaxNameLength + 5;
inline constexpr qsizetype kMaxDescriptionLength = 10000;
inline constexpr qsizetype kMaxConnections = 1000;
inline constexpr qsizetype kMaxInstances = 50000;
inline constexpr qsizetype kMaxTimelineEvents = 100000;
inline constexpr qsizetype kMaxVariants = 32;
inline constexpr qsizetype kMaxFileBytes = 64 * 1024 * 1024;
// The run budget: the tag subscribes a run could send with the levers off (every retry
// tick re-sends an instance's tags, and a wedged gateway queues them all), summed over
// instances and redeploys; see docs/scenario-format.md.
inline constexpr qint64 kMaxRunTagSubscribes = 5'000'000;
} // namespace scenario_limits

// The mock gateway's cost model and capability for the run (mock_control.proto's
// configuration). Defaults match the real gateway's defaults where one exists.
struct GatewaySpec {
    bool advertiseBulkSupervisory = true; // false = an "old gateway" (Lever 2 falls back)
    double defaultCommandTimeoutS = 30;   // MxGateway:Sessions:DefaultCommandTimeoutSeconds
    double commandMs = 2;                 // STA cost per command ...
    double perItemMs = 0.5;               // ... plus this per item
    double dataHz = 1;                    // data changes per advised item per second
    double networkLatencyMs = 1;          // one way, in-process port
    // The contract family the gateway speaks ("contract_family"): the published one's event
    // policy (numbered events, replay, one subscriber, an event queue of 10,000 with FailFast,
    // no supervisory flag) applies to the modelled gateway.
    QString contractFamily = QStringLiteral("stormwatch");
    bool operator==(const GatewaySpec&) const = default;
};

// What the incident analysis leaves open about the bridge, as named settings with defaults
// ("client_model" in the file): what a redeploy sends to remove an instance's items, and whether
// those teardown calls pass the recovery gate (and count as its failures).
struct ScenarioClientModel {
    QString redeployTeardown = QStringLiteral("per_item_remove"); // or "none"
    bool teardownGated = true;
    // HTTP/2 keepalive toward every gateway of the run, in both modes: a ping after this
    // long without a frame, the transport dead when it is not acknowledged in time. Unset:
    // the transport's defaults (GrpcPortOptions; live, --keepalive-s may set them).
    std::optional<double> keepaliveS, keepaliveTimeoutS;
    bool operator==(const ScenarioClientModel&) const = default;
};

struct ScenarioConnection {
    QString name;
    qint64 writeUserId = 0; // 0 = supervisory advise (how the incident site ran)
    // The gateway it reaches, by name (a site's gateway; "gateway" in the file). Empty: the
    // scenario's one gateway. Either every connection names one or none does. (An
    // initializer: {name, user} stays a complete aggregate init.)
    QString gateway = {};
    bool operator==(const ScenarioConnection&) const = default;
};

struct ScenarioInstance {
    QString name;
    QString connection;
    int tags = 0;
    QString tagPrefix; // tag i is "<tagPrefix><i>"; defaults to "<name>.Attr"
    // Real tag addresses (a site's, or "tag_addresses" in the file): when set, tag i is
    // tagAddresses[i - 1] and `tags` is their count.
    QStringList tagAddresses;
    bool alarms = false;
    double startAtS = 0; // deploy time
    // Per tag, how often its value is expected to change, in seconds (0: on change only, never
    // stale); empty: no tag has an expectation. A site's come from each tag's kind.
    QList<double> expectedUpdateS;
    bool operator==(const ScenarioInstance&) const = default;
};

enum class TimelineAction {
    Wedge,
    Slow,
    DropReplies,
    RestartGateway,
    EndEventStreams,
    SourceOutage,
    RefuseSessions,
    Redeploy,
    SetLevers,
    SetCapability,
    KillGateway,
    LoseEvents,
    StallReader,
    Freeze,
    HalfOpen,
    ResetPeer,
};

// The parameters a timeline action takes, each a key of its file entry.
enum ActionParam : unsigned {
    kParamDuration = 1u << 0,    // duration_s
    kParamFactor = 1u << 1,      // factor
    kParamProbability = 1u << 2, // probability
    kParamDowntime = 1u << 3,    // downtime_s
    kParamInstance = 1u << 4,    // instance
    kParamLevers = 1u << 5,      // levers
    kParamCapability = 1u << 6,  // advertise_bulk_supervisory
};

// Every timeline action once. What names, reads, writes, labels, ends or offers an action
// iterates this table; what an action does is the model's and the mock's.
struct TimelineActionInfo {
    TimelineAction action;
    const char* name;        // file spelling: "drop_replies"
    const char* marker;      // a plot marker's word: "drop"
    const char* title;       // the console's button: "Drop replies"
    const char* description; // what it does, in plain words
    unsigned params;         // ActionParam bits
    bool fault;              // disturbs the system: its end is what time_to_all_good_s counts from
    bool atGateway;          // happens at a gateway, so may name one of a site's
    bool inConsole;          // the console's Gateway dock has a button for it
    double consoleDefault;   // that button's default duration or downtime
};
// In enum order.
const QList<TimelineActionInfo>& timelineActions();
const TimelineActionInfo& timelineActionInfo(TimelineAction action);

// File spelling of each action ("wedge", "drop_replies", ...), in enum order.
QStringList timelineActionNames();
QString timelineActionName(TimelineAction action);
std::optional<TimelineAction> timelineActionFromName(const QString& name);

struct TimelineEvent {
    double atS = 0;
    TimelineAction action = TimelineAction::Wedge;
    // Parameters; only those of `action` are meaningful (and serialized).
    double durationS = 0;   // wedge, slow, drop_replies, source_outage, refuse_sessions
    double factor = 1;      // slow
    double probability = 0; // drop_replies
    double downtimeS = 5;   // restart_gateway, kill_gateway
    QString instance;       // redeploy
    QJsonValue levers;      // set_levers: preset name or inline lever object
    bool advertiseBulkSupervisory = true; // set_capability
    // The gateway a gateway-side action (a fault, set_capability) hits, by name; empty:
    // every gateway of the run (a scenario without named gateways has one).
    QString gateway;

    // The table's answers for this event's action.
    bool atGateway() const;
    bool isFault() const;
    // When the event's effect ends, clipped to the scenario's duration.
    double endS(double scenarioDurationS) const;
    // Its action and parameters in words. Brief, for a plot marker ("slow ×20 3 s",
    // "restart (down 5 s)"); else for the log ("slow ×20 for 3 s", "restart_gateway, down 5 s").
    QString describe(bool brief) const;
    bool operator==(const TimelineEvent&) const = default;
};

// One column of the comparison: a named lever set. `levers` is what the file said (a
// preset name string or an inline lever object); the runner resolves it to a LeverSet.
struct VariantSpec {
    QString name;
    QJsonValue levers;
    bool operator==(const VariantSpec&) const = default;
};

struct Scenario {
    QString name;
    QString description; // what to look for
    double durationS = 0;
    quint64 seed = 1;
    GatewaySpec gateway;
    ScenarioClientModel clientModel;
    QJsonObject options; // client option overrides (client/options.h), checked by the client
    QList<ScenarioConnection> connections;
    QList<ScenarioInstance> instances;
    QList<TimelineEvent> timeline; // stable-sorted by atS (file order among equal times)
    QList<VariantSpec> variants;
    // A Good tag is stale once expected_update_s × this passed without an update.
    double staleFactor = scenario_limits::kDefaultStaleFactor;
    bool operator==(const Scenario&) const = default;

    // End of the last fault on the timeline (clipped), or nullopt when there is none.
    std::optional<double> lastFaultEndS() const;
    // The named gateways its connections reach, in order of first use; empty when it has
    // one unnamed gateway (every scenario without a site).
    QStringList gatewayNames() const;
};

QStringList defaultVariantNames(); // every lever preset: levers-off, lever1, lever1+2, all

} // namespace stormwatch
