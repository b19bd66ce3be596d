#pragma once
// The bridge's data-connection layer for one connection (one gateway session): session
// open with capabilities and Lever 3, the event stream, reconnect with its own backoff,
// and subscribes — Lever 2's single SubscribeBulk{supervisory} when enabled and
// advertised, else the legacy AddItemBulk + N × AdviseSupervisory fan-out with at most
// `adviseParallelism` in flight. Subscribes are held, unanswered, while not connected.
// One implementation for both ports: all I/O goes through GatewayPort on one Scheduler.

#include "command_latency.h"
#include "defaults.h"
#include "gateway_port.h"
#include "item_routes.h"
#include "recovery_gate.h"
#include "retiring_handles.h"
#include "retry_budget.h"
#include "scheduler.h"

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace stormwatch {

// What a redeploy sends to take an instance's items off the gateway. The seeds do not say
// what the bridge does, so it is a named model setting (scenario "client_model").
enum class Teardown {
    PerItemRemove, // one RemoveItem per advised tag (the default: what the DCL API offers)
    None,          // nothing: the items stay on the gateway until the session ends
};
const char* toString(Teardown teardown); // "per_item_remove", "none"
std::optional<Teardown> teardownFromString(const std::string& name);

struct ConnectionConfig {
    std::string name = "gw1";
    int writeUserId = 0; // 0 = supervisory mode
    std::string clientName = "stormwatch";
    bool bulkSupervisory = true;       // Lever 2 (used only when advertised)
    Duration sessionCommandTimeout{0}; // Lever 3: sent at OpenSession when > 0
    int adviseParallelism = defaults::kMxSupervisoryAdviseParallelism;
    bool coalesce = false; // merge identical concurrent subscribes
    // Lever resubscribe_guard: after a reconnect the subscribers' guards re-subscribe;
    // off = the connection's own one-shot transparent re-subscribe (pre-fix DCL).
    bool guardedResubscribe = false;
    // Lever drop_superseded: a held subscribe is dropped when its subscriber sends a newer
    // one while disconnected; off = every held request goes out on reconnect (pre-fix).
    bool dropSuperseded = false;
    // MxCommandTimeoutMs: an Invoke not answered by then fails DEADLINE_EXCEEDED here.
    Duration commandTimeout = std::chrono::milliseconds(defaults::kMxCommandTimeoutMs);
    Teardown teardown = Teardown::PerItemRemove;
    bool teardownGated = true; // teardown calls pass (and feed) the recovery gate
    Duration reconnectFloor = std::chrono::milliseconds(defaults::kReconnectBackoffFloorMs);
    Duration reconnectMax = std::chrono::milliseconds(defaults::kReconnectBackoffMaxMs);
};

// Refused: the port may send nothing (GatewayPort::setupError), so no session is opened.
enum class ConnectionState { Stopped, Connecting, Connected, WaitingToReconnect, Refused };
const char* toString(ConnectionState state);

enum class Severity { Debug, Info, Warning, Error };
const char* toString(Severity severity);

// OPC quality codes carried by data changes.
inline constexpr int kQualityGood = 192;
inline constexpr int kQualityUncertain = 64;
// Uncertain, Last Usable Value (OPC DA substatus): the value was good when the gateway last
// answered; it has not answered since.
inline constexpr int kQualityUncertainLastUsable = 68;
inline constexpr int kQualityBad = 0;

// One data change for one tag, kept small: at 10,000 changes an event the batch of these
// is written and read once a change, so a string value is pointed at, not copied.
struct TagUpdate {
    int index = 0; // into the subscriber's tag list
    int quality = kQualityBad;
    std::int32_t itemHandle = 0;
    double value = 0;
    std::int64_t sourceTimestampUs = 0;
    // A string value's text, valid only during the DataFn call that hands it over (it lies
    // in the event or in a kept value); null for every other kind.
    const std::string* text = nullptr;
};

struct TagResult {
    int index = 0;
    bool ok = false;
    std::int32_t itemHandle = 0;
    std::string error;
    bool definitive = false; // the gateway itself rejected the tag (not a transport failure)
};

struct SubscribeOutcome {
    bool success = false;
    bool suppressed = false; // refused by the recovery gate without reaching the gateway
    bool superseded = false; // dropped unsent from the held queue (lever drop_superseded)
    std::string error;
    std::vector<TagResult> tags; // one per tag, in the subscriber's order
};

struct ConnectionStats {
    std::map<std::string, std::int64_t> invokesByKind; // Invoke RPCs this connection sent
    std::int64_t invokes = 0;
    std::int64_t deadlineExceeded = 0;
    std::int64_t suppressedCalls = 0;
    std::int64_t sessionsOpened = 0;
    std::int64_t reconnects = 0;
    std::int64_t subscribeOperations = 0; // gateway subscribe operations actually run
    std::int64_t coalescedSubscribes = 0;
    std::int64_t supersededDropped = 0; // held subscribes dropped unsent
    std::int64_t clientDeadlines = 0;   // Invokes failed by MxCommandTimeoutMs here
    std::int64_t dataChanges = 0;
    // Events the gateway numbered and this client never received: gaps in worker_sequence
    // within one session (across the streams resumed on it).
    std::int64_t eventsLost = 0;
    // Event streams reopened after the last sequence seen, on the same session and without
    // subscribing again (only where the contract and the gateway can resume).
    std::int64_t streamResumes = 0;
    int maxAdviseInFlight = 0;
    // Round trips of the Invokes the gateway answered (a client-side deadline is not one).
    CommandLatency commandLatency;
    std::int64_t readvises = 0; // items advised again: a reused handle's first value was unknown
    int maxReadvisesInFlight = 0;
};

class GatewayConnection {
public:
    using SubscriberId = std::uint64_t;
    using DataFn = std::function<void(const std::vector<TagUpdate>&)>;
    using QualityFn = std::function<void(bool good)>;
    // The session lives but the gateway stopped answering (false), or answered again (true).
    using LivenessFn = std::function<void(bool responsive)>;
    // Tags (indices into the subscriber's list) whose item stopped being advised while the
    // session lives: they are no longer routed and must be subscribed again.
    using LostFn = std::function<void(const std::vector<int>& indices, const std::string& why)>;
    using SubscribeDone = std::function<void(const SubscribeOutcome&)>;
    using AlarmDone = std::function<void(bool success, const std::string& error)>;
    using LogFn = std::function<void(Severity, const std::string& message)>;
    // Called on every state change, and when stateText() changes within a state (a connected
    // gateway turning unresponsive and back).
    using StateFn = std::function<void(ConnectionState)>;
    using JitterFn = std::function<double()>;

    GatewayConnection(Scheduler& scheduler, GatewayPort& port, ConnectionConfig config,
                      RecoveryGate* gate, JitterFn jitter);
    ~GatewayConnection();
    GatewayConnection(const GatewayConnection&) = delete;
    GatewayConnection& operator=(const GatewayConnection&) = delete;

    void setLogger(LogFn log) { m_log = std::move(log); }
    void setStateObserver(StateFn fn) { m_stateObserver = std::move(fn); }

    void start();
    void stop();
    // Graceful end: forgets subscribers' work, sends CloseSession and calls `closed` once it
    // is answered (or at once when there is no session). The gateway frees the session's
    // items and queued commands; stop() alone closes best effort, without waiting.
    void close(std::function<void()> closed);

    // A subscriber owns a fixed tag list (an instance's tags on this connection), shared with
    // whoever else holds it (the instance, when the list is all of its tags).
    using TagList = std::shared_ptr<const std::vector<std::string>>;
    SubscriberId addSubscriber(TagList tags, DataFn onData, QualityFn onQuality,
                               LivenessFn onLiveness = {}, LostFn onLost = {});
    SubscriberId addSubscriber(std::vector<std::string> tags, DataFn onData, QualityFn onQuality,
                               LivenessFn onLiveness = {}, LostFn onLost = {})
    {
        return addSubscriber(std::make_shared<const std::vector<std::string>>(std::move(tags)),
                             std::move(onData), std::move(onQuality), std::move(onLiveness),
                             std::move(onLost));
    }
    void removeSubscriber(SubscriberId id);
    // Subscribes all of the subscriber's tags; `done` runs once when the gateway answered
    // (never while not connected: the request is held until the session is up).
    void subscribe(SubscriberId id, SubscribeDone done);
    // Removes the subscriber's items on the gateway (redeploy); fire and forget.
    void removeItems(SubscriberId id);
    void subscribeAlarms(const std::string& area, AlarmDone done);

    // Levers switch at run time; Lever 3 applies at the next session open.
    void setConfig(const ConnectionConfig& config);
    const ConnectionConfig& config() const { return m_config; }
    void setGate(RecoveryGate* gate) { m_gate = gate; }
    // The retry budget of this connection's subscriptions (lever retry_budget; their guards
    // spend it only while the lever is on).
    RetryBudget& retryBudget() { return m_retryBudget; }
    const RetryBudget& retryBudget() const { return m_retryBudget; }
    // A line about this connection, "<name>: message", to the stormwatch.client category and
    // the logger (what the engine and its observers see).
    void log(Severity severity, const std::string& message) const;

    ConnectionState state() const { return m_state; }
    // Whether the gateway's contract has a SubscribeAlarms command at all.
    bool canSubscribeAlarms() const { return m_port.canSubscribeAlarms(); }
    // What a person should be told of the state: "connected", "unresponsive" (see
    // unresponsiveSince; connected, or reconnecting to a gateway that went silent), "connecting",
    // "reconnecting" (the session was lost; the gateway answered before) or "unreachable" (the last
    // attempt to open a session failed), "stopped".
    std::string stateText() const;
    // Since when the gateway went silent: a command unanswered past MxCommandTimeoutMs with no
    // event for as long (the session is kept), or an event stream whose keepalive went
    // unacknowledged (the session is resumed or replaced). Its tags are Uncertain (last usable
    // value) until it answers or sends again, or refuses a new session. nullopt while it answers.
    std::optional<Time> unresponsiveSince() const { return m_unresponsiveSince; }
    // How long it was unresponsive in all, the current stretch included.
    Duration unresponsiveFor() const;
    // Why the last session attempt or the last session failed ("" when none did).
    const std::string& lastError() const { return m_lastError; }
    // When the next attempt to open a session is due (nullopt unless waiting to reconnect).
    std::optional<Time> nextAttemptAt() const { return m_nextAttemptAt; }
    bool connected() const { return m_state == ConnectionState::Connected; }
    const std::string& name() const { return m_config.name; }
    const std::string& sessionId() const { return m_sessionId; }
    const std::vector<std::string>& capabilities() const { return m_capabilities; }
    bool supportsSupervisoryBulk() const;
    // The advise this connection registers for the items it subscribes, as its subscribe path
    // chooses it now: "plain (SubscribeBulk)" (a write user), "supervisory (SubscribeBulk)"
    // (Lever 2 on an advertising gateway), "supervisory (AddItemBulk + AdviseSupervisory)";
    // "" before its first session.
    std::string_view adviseKind() const;
    // The gateway's resolved command timeout, echoed at OpenSession (nullopt before one).
    std::optional<Duration> echoedCommandTimeout() const { return m_echoedTimeout; }
    int protocolVersion() const { return m_protocolVersion; }
    std::size_t heldRequests() const { return m_held.size(); }
    // Something will still subscribe the subscriber's tags without anyone asking again: a
    // subscribe held or running for it, or a reconnect that re-subscribes it.
    bool subscribePending(SubscriberId id) const;
    // The tag has a live item on the gateway (its data is routed to the subscriber).
    bool routed(SubscriberId id, int index) const;
    // Values that arrived for item handles with no route yet (the initial value of an item
    // advised before the subscribe's reply came back), one per item, delivered when the
    // route appears. Kept only while a subscribe runs (that is the window), at most
    // kMaxUnroutedValues of them and kMaxUnroutedBytes in all (a gateway chooses their size);
    // dropped once no subscribe runs, and with the session.
    static constexpr std::size_t kMaxUnroutedValues = 20000;
    static constexpr std::size_t kMaxUnroutedBytes = 16u << 20;
    std::size_t unroutedValues() const { return m_unrouted.size(); }
    // Item handles whose RemoveItem this connection sent and has not seen run (see m_retiring).
    std::size_t retiringHandles() const { return m_retiring.size(); }
    // Subscribers holding a built bulk request for their next subscribe: those with a
    // subscribe running or failed, and settled ones until no subscribe runs.
    std::size_t keptRequests() const;
    // The gateway was seen handing out again an item handle this connection had removed (see
    // m_reusesHandles); learned once, kept for the connection's life.
    bool reusesHandles() const { return m_reusesHandles; }
    const ConnectionStats& stats() const { return m_stats; }
    std::string describePort() const { return m_port.describe(); }

private:
    using Tags =
        std::shared_ptr<const std::vector<std::string>>; // fixed once made: shared, not copied
    struct Subscriber {
        SubscriberId id = 0;
        Tags tags;
        std::size_t tagsHash = 0; // of the tag list: identical lists coalesce (see sameTags)
        DataFn onData;
        QualityFn onQuality;
        LivenessFn onLiveness;
        LostFn onLost;
        std::vector<std::int32_t> handles; // per tag, 0 = none
        // Its updates of the event being routed (the first batchUsed elements); empty between
        // events, its storage back in m_spareBatches.
        std::vector<TagUpdate> batch;
        std::size_t batchUsed = 0;
        // The last bulk subscribe request built for these tags, reused while its server
        // handle and kind stay the same: a storm re-sends the same tag list thousands of
        // times, and building and freeing it was a quarter of a levers-off replay. Both it and
        // the spare results go once a subscribe of it succeeded and none of its own runs or
        // is held: kept for a site's settled subscriptions, they would hold every tag name a
        // second time.
        std::unique_ptr<mxgateway::v1::MxCommandRequest> bulkRequest;
        std::vector<TagResult> spareResults; // the last op's, for the next one (startOp)
        bool lastSucceeded = false;          // its last subscribe succeeded for every tag
        bool inSettled = false;              // listed in m_settled
    };
    using Route = ItemRoutes::Route;
    // Where the change at one position of the last event went: its one subscriber (the
    // usual case), none (and then where its value is kept, once it is), or several (then
    // m_routes is asked). Cleared whenever a route, a subscriber or a kept value goes away,
    // so neither pointer dangles.
    // A value kept for an item not routed yet, with its own copy of a string value's text.
    struct KeptValue {
        TagUpdate update; // its text, if any, points at `text`
        std::string text;
    };
    // 24 bytes (the route cache is read once a change): which pointer holds follows `kind`.
    struct RouteHit {
        // Retired: an item this connection is removing (its values are dropped, unless its
        // handle may have been handed out again: see m_retiring).
        enum Kind : std::uint8_t { Unknown, None, One, Several, Retired };
        std::int32_t handle = 0;
        Kind kind = Unknown;
        int index = 0;
        union {
            Subscriber* subscriber = nullptr; // One
            KeptValue* kept;                  // None: its entry in m_unrouted, once it has one
            RetiringHandles::Entry* retired;  // Retired: its entry in m_retiring
        };
    };
    // One gateway subscribe operation; coalesced callers share it.
    struct Waiter { // a caller waiting for the op's outcome
        SubscriberId subscriber;
        SubscribeDone done;
    };
    struct SubscribeOp {
        std::vector<SubscriberId> subscribers;
        SubscriberId origin = 0; // the subscriber it was made for (its request is reused)
        Tags tags;               // its own reference: a subscriber may go away while this runs
        std::size_t tagsHash = 0;
        std::vector<Waiter> waiters;   // empty for the transparent re-subscribe
        bool aborted = false;          // the session was lost while it ran
        bool failed = false;           // the primary call failed as a whole
        bool transientFailure = false; // some tag failed for a retryable reason
        bool suppressed = false;
        std::string error;
        std::vector<TagResult> results;
        std::deque<int> toAdvise; // fan-out: indices still to advise
        int advisesInFlight = 0;
        std::uint64_t sentAfter = 0; // m_nextCorrelation when it started: its calls come later
        bool started = false;
    };
    using OpPtr = std::shared_ptr<SubscribeOp>;
    using InvokeDone = GatewayPort::InvokeDone;

    // session lifecycle (gateway_connection.cpp)
    void openSession();
    void refuse(); // the port's setup error: Refused, said once
    // Liveness: anything the gateway sends is heard; a client deadline with nothing heard for
    // as long makes the connection unresponsive.
    void heard();
    void checkLiveness();
    // How long a command may go unanswered before silence counts: the shorter of this
    // client's deadline and the session's command timeout (0: neither is set).
    Duration livenessHorizon() const;
    void watchLiveness(); // arms the one liveness watch over m_unanswered
    void becomeUnresponsive(const std::string& why); // said once, until heard() or a new session
    void endUnresponsive();
    void notifyStateText();
    void publishLiveness(bool responsive);
    void eachSubscriber(const std::function<void(Subscriber&)>& call);
    void onSessionOpened(const mxgateway::v1::OpenSessionReply& reply);
    void onRegistered(std::int32_t serverHandle);
    // Opens the session's event stream: fresh (0) or after that sequence.
    void openStream(std::uint64_t resumeAfter);
    void onStreamEnd(const RpcStatus& status);
    void dropSession();
    void connectionLost(const std::string& why); // loseSession(why, TagsBad)
    // The session is given up and a new one scheduled. TagsLastUsable: the gateway went silent
    // (unresponsive), so its tags stay Uncertain until a new session re-subscribes them or
    // an attempt is refused or reset (then they go Bad); TagsBad: the gateway or the transport
    // said the session is gone.
    enum class SessionLoss { TagsBad, TagsLastUsable };
    void loseSession(const std::string& why, SessionLoss loss);
    void scheduleReconnect();
    void setState(ConnectionState state);
    void publishQuality(bool good);
    void onEvent(const MxEventBatch& event);
    RouteHit resolveRoute(std::int32_t handle);
    // The subscriber's next batch element (it is `touched` from its first one on).
    TagUpdate& nextUpdate(SubscriberId id, Subscriber& sub, std::vector<SubscriberId>& touched);
    // Every field of `u` but its index, from the change (a text points into `event`).
    static void decode(const MxChange& change, const MxEventBatch& event, TagUpdate& u);
    void addUpdate(SubscriberId id, Subscriber& sub, int index, const MxChange& change,
                   const MxEventBatch& event, std::vector<SubscriberId>& touched);

    // gateway calls (gateway_connection.cpp)
    // Gated calls pass the recovery gate first and feed it their outcome. Session setup
    // (Register) only feeds it, or a recovering gate would turn every reconnect into an
    // open-refuse-close churn; ungated teardown does neither.
    enum class GateUse { CheckAndRecord, RecordOnly, Bypass };
    void invoke(mxgateway::v1::MxCommand command, InvokeDone done,
                GateUse gate = GateUse::CheckAndRecord);
    // The same for a request whose command is already in place (session and correlation
    // ids are set here); the port copies what it keeps, so `request` may be reused.
    void send(mxgateway::v1::MxCommandRequest& request, InvokeDone done,
              GateUse gate = GateUse::CheckAndRecord);
    // The bulk subscribe request for the op's tags: its origin subscriber's reused one when
    // that subscriber still exists, else `scratch` filled in.
    mxgateway::v1::MxCommandRequest& bulkRequest(const OpPtr& op, bool subscribeBulk,
                                                 bool supervisory,
                                                 mxgateway::v1::MxCommandRequest& scratch);
    void dropSupersededHeld(SubscriberId id);
    void ensureSubscribed(SubscriberId id); // transparent re-subscribe after reconnect

    // subscribe paths (subscribe_operation.cpp)
    // The primary call of a subscribe failed: every tag fails with its reason.
    static bool failedAsAWhole(SubscribeOp& op, const RpcStatus& status,
                               const mxgateway::v1::MxCommandReply& reply);
    OpPtr newOp(SubscriberId id) const;
    void startOp(const OpPtr& op);
    void runBulk(const OpPtr& op, bool supervisory);
    void runFanOut(const OpPtr& op);
    void pumpAdvises(const OpPtr& op);
    void finishOp(const OpPtr& op);
    void applyResult(SubscriberId id, TagResult& result, std::uint64_t sentAfter);
    void failItemsRemovedAfter(SubscribeOp& op);
    // Whether the items of a tag list with this hash were removed after `sentAfter`.
    bool removedSince(std::size_t tagsHash, std::uint64_t sentAfter) const;
    static std::size_t hashTags(const std::vector<std::string>& tags);
    static bool sameTags(const SubscribeOp& op, const Subscriber& sub);
    // Frees the kept requests and results of subscribers whose last subscribe succeeded
    // (m_settled), once no subscribe runs; a subscriber's own, once none of its own runs.
    void releaseSettled();
    bool hasOpOf(SubscriberId id) const;
    static void release(Subscriber& sub);
    std::vector<SubscriberId> m_settled;
    void keepUnrouted(const MxChange& change, const MxEventBatch& event, RouteHit& hit);
    // Hands the kept values of items that have a route now to their subscribers.
    void deliverKeptValues();
    // Hands each touched subscriber its batch (the end of onEvent and deliverKeptValues).
    void flushBatches(const std::vector<SubscriberId>& touched);
    void eraseRoute(std::int32_t handle, SubscriberId id, std::optional<int> index);
    void runHeld();

    Scheduler& m_scheduler;
    GatewayPort& m_port;
    ConnectionConfig m_config;
    RecoveryGate* m_gate;
    RetryBudget m_retryBudget;
    JitterFn m_jitter;
    LogFn m_log;
    StateFn m_stateObserver;

    ConnectionState m_state = ConnectionState::Stopped;
    std::uint64_t m_epoch = 0; // bumps on every session loss: stale completions are dropped
    std::vector<std::string> m_abandonedSessions; // given up unanswered: closed once it answers
    // Commands awaiting the gateway's answer whose session deadline comes before this client's
    // own, by correlation number (so the oldest first), with when each was sent.
    std::map<std::uint64_t, Time> m_unanswered;
    TimerId m_livenessWatch = kNoTimer;
    std::string m_sessionId;
    std::int32_t m_serverHandle = 0;
    std::uint64_t m_lastSequence = 0; // the last worker_sequence of the session; 0 = none yet
    // A resumed stream has not brought an event yet: if it ends again, the session is given
    // up (a gateway that ends every resume at once would otherwise be asked forever).
    bool m_resumedWithoutEvent = false;
    std::vector<std::string> m_capabilities;
    std::optional<Duration> m_echoedTimeout;
    int m_protocolVersion = 0;
    std::optional<GatewayPort::StreamId> m_stream;
    Duration m_reconnectInterval;
    TimerId m_reconnectTimer = kNoTimer;
    std::uint64_t m_nextCorrelation = 0;
    std::string m_lastError;
    bool m_openFailed = false; // the last OpenSession/Register attempt failed
    std::optional<Time> m_nextAttemptAt;
    Time m_lastHeard{};                      // the last reply or event from the gateway
    std::optional<Time> m_unresponsiveSince; // see unresponsiveSince()
    Duration m_unresponsiveBefore{0};        // the stretches that ended

    std::map<SubscriberId, Subscriber> m_subscribers;
    SubscriberId m_nextSubscriber = 1;
    ItemRoutes m_routes; // item handle -> the tags it feeds
    // See unroutedValues. Kept decoded (index unset), not as DataChanges: a redeploy's old
    // items stream for minutes while their removes queue on the STA, and copying each of
    // their changes into a message (freeing and allocating its parts) would dominate a
    // large replay.
    std::unordered_map<std::int32_t, KeptValue> m_unrouted;
    static std::size_t keptBytes(std::size_t textSize) { return sizeof(KeptValue) + textSize; }
    std::size_t m_unroutedBytes = 0;
    std::vector<std::int32_t> m_routedWithKeptValue; // set by applyResult, for deliverKeptValues
    // Items this connection is removing (see RetiringHandles); their kept values count in
    // m_unroutedBytes. Past the bound (a gateway that answers nothing for very long) the
    // oldest timed-out remove is forgotten first: its handle's values are then kept like any
    // unrouted item's, within the kept store's own bounds.
    static constexpr std::size_t kMaxRetiring = 5 * kMaxUnroutedValues;
    RetiringHandles m_retiring;
    // A retiring handle's kept value that left with its entry (handed out again, or its
    // remove ran): into m_unrouted, to be delivered.
    void keepReleasedValue(std::int32_t handle, const RetiringHandles::Entry& value,
                           std::string text, bool hasText);
    // The newest running subscribe's sentAfter when a retired handle could be handed out
    // again to it (only on a gateway known to reuse handles), else 0.
    std::uint64_t reuseWindow() const;
    // A gateway that hands out a removed item's handle again (learned from the first reply,
    // sent after the remove, that does: m_reusesHandles). Per handle: removed before that was
    // learned, its new item's first value may have been dropped; and a value kept for a handle
    // given to another tag may be the removed item's (stream order cannot tell). In both cases
    // the item is advised again (UnAdvise, then advise once that is answered: its first value
    // comes anew) instead of guessing. A handle given to another tag with nothing kept gets
    // its first value routed when it comes; the same tag keeps what was kept.
    bool m_reusesHandles = false;
    struct RemovedItem {
        std::size_t tagHash = 0;      // the tag it belonged to
        std::uint64_t removeSeq = 0;  // its remove's correlation number
        bool keptSinceRemove = false; // reuse was known when it was removed: nothing dropped
    };
    // Each removed handle, while a reply could hand it out again: pruned when no subscribe
    // runs to those no longer retired.
    std::unordered_map<std::int32_t, RemovedItem> m_removedTags;
    std::vector<std::int32_t> m_toReadvise; // by applyResult, queued by finishOp
    std::deque<std::int32_t> m_readviseQueue;
    int m_readvisesInFlight = 0;
    // Tag-list hash -> the last RemoveItem number sent for its items while a subscribe ran:
    // no subscriber joins an op that started before (see removedSince).
    std::unordered_map<std::size_t, std::uint64_t> m_removedTagLists;
    // `handle` is routed to `tag` now by an op sent after `sentAfter`: whether it was a removed
    // item's and what to do.
    void onHandedOut(std::int32_t handle, const std::string& tag, std::uint64_t sentAfter);
    bool hasKeptValue(std::int32_t handle) const;
    void dropKeptValue(std::int32_t handle);
    void readvise(std::int32_t handle);
    void pumpReadvises(); // from m_readviseQueue, at most adviseParallelism in flight
    // The item's advise was refused after a re-advise: its routes go, their subscribers are told.
    void loseItem(std::int32_t handle, const std::string& why);
    void pruneRemovedTags();
    std::vector<RouteHit> m_routeCache; // by position in the last event (onEvent)
    // Update batches reused event to event by whichever subscribers an event touches: kept
    // per subscriber, a site's thousand subscriptions would each hold a batch of all its tags
    // for good. At most kMaxSpareBatches are kept.
    std::vector<std::vector<TagUpdate>> m_spareBatches;
    static constexpr std::size_t kMaxSpareBatches = 64;
    static constexpr std::size_t kRouteLookahead = 64; // how far onEvent looks for a shifted entry
    std::map<SubscriberId, bool> m_everSubscribed;     // re-subscribe after reconnect
    std::deque<OpPtr> m_held;
    std::vector<OpPtr> m_running;
    std::deque<std::pair<std::string, AlarmDone>> m_heldAlarms;

    ConnectionStats m_stats;
    struct CloseAfterOpen { // close() while OpenSession was in flight
        std::uint64_t epoch = 0;
        std::function<void()> closed;
    } m_closeAfterOpen;
    std::shared_ptr<int> m_life = std::make_shared<int>(0);
};

} // namespace stormwatch
