#pragma once
// The mock MXAccess gateway as a model on a Scheduler: sessions, one STA running commands
// FIFO at a modelled cost, per-session command deadlines, advised items emitting data, and
// injectable faults. Single-threaded and never blocking; the same object serves the
// in-process port (virtual time) and the gRPC server (wall time, its own thread).
//
// Callback contract:
// - Every callback runs on the scheduler, never from inside the call that registered it.
// - invoke(): `done` is called exactly once. A command the STA does not finish within the
//   session's command timeout (counted from the Invoke's arrival) is answered
//   DEADLINE_EXCEEDED at the deadline, and the STA still runs it later. A dropped reply
//   (fault) is answered DEADLINE_EXCEEDED at the deadline too, as a real gRPC deadline
//   would be. A restart, kill or shutdown answers pending invokes UNAVAILABLE; closing a
//   session answers its invokes still queued on the STA CANCELLED (closeDropsQueuedCommands).
//   Only destroying the model drops callbacks unanswered.
// - streamEvents(): onEnd is called at most once, never after cancelStream(). The event
//   passed to onEvent is reused by the next batch: copy it to keep it (or stream with
//   streamEventsShared(), whose receiver may keep the shared batch as it is).

#include "gateway_types.h"
#include "mock_control.pb.h"
#include "mxaccess_gateway.pb.h"
#include "session.h"
#include "sta.h"

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace stormwatch::gateway {

// How far a stream's reader has got: its transport counts the events (changes) the reader
// has taken, the model those it delivered; the difference is the subscriber's event queue,
// bounded by GatewayConfig::eventQueueCapacity (any thread may count).
struct EventReader {
    std::atomic<std::uint64_t> taken{0};
};
struct EventStreamOptions {
    // != 0: the events after that sequence still held (replayCapacity) come first, as one
    // batch; those no longer held are skipped, and the client sees the gap.
    std::uint64_t resumeAfter = 0;
    std::shared_ptr<EventReader> reader; // null: a reader that is never behind
};

class GatewayModel {
public:
    using StreamId = std::uint64_t;
    using WatchId = std::uint64_t;
    using OpenDone = std::function<void(CallStatus, mxgateway::v1::OpenSessionReply)>;
    using CloseDone = std::function<void(CallStatus)>;
    using InvokeDone = StaJob::Done;
    using SharedCommand = std::shared_ptr<const mxgateway::v1::MxCommand>;
    // Events in their native form (proto/mx_event_batch.h); the gRPC service encodes them to
    // the wire MxEvent, the in-process port hands them to the client as they are.
    using EventFn = std::function<void(const MxEventBatch&)>;
    // The batch itself, shared: a receiver that delivers later (the in-process port, after its
    // network latency) keeps it instead of copying it. It is not changed while held.
    using SharedEventFn = std::function<void(const std::shared_ptr<const MxEventBatch>&)>;
    using EndFn = std::function<void(CallStatus)>;
    using StatsFn = std::function<void(const mxgateway::mock::v1::GatewayStats&)>;

    GatewayModel(Scheduler& scheduler, GatewayConfig config = {});
    ~GatewayModel();
    GatewayModel(const GatewayModel&) = delete;
    GatewayModel& operator=(const GatewayModel&) = delete;

    Scheduler& scheduler() const { return m_scheduler; }
    // The gRPC streams' backlog counters (stream_reactor.h), reported in stats().
    const std::shared_ptr<StreamBacklogCounters>& streamBacklog() const { return m_streamBacklog; }

    // --- the gateway contract ---
    void openSession(const mxgateway::v1::OpenSessionRequest& request, OpenDone done);
    void closeSession(const mxgateway::v1::CloseSessionRequest& request, CloseDone done);
    void invoke(const mxgateway::v1::MxCommandRequest& request, InvokeDone done);
    // The same, taking the command over instead of copying it (a 244-tag AddItemBulk is 244
    // strings): the in-process port's request is its own.
    void invoke(mxgateway::v1::MxCommandRequest&& request, InvokeDone done);
    // The same with the command already shared (shareCommand): nothing of it is copied.
    void invoke(const std::string& sessionId, std::string correlationId, SharedCommand command,
                InvokeDone done);
    // An immutable payload for `command`. A bulk command (add_item_bulk, subscribe_bulk) equal
    // to one still held by a queued or in-flight job gets that same payload back, not a copy:
    // a storm re-sends the same 244-tag subscribe thousands of times, and its queued jobs then
    // share one tag list (about 14 KB) instead of holding one each. The && form takes the
    // command over when no equal payload is live.
    SharedCommand shareCommand(const mxgateway::v1::MxCommand& command);
    SharedCommand shareCommand(mxgateway::v1::MxCommand&& command);
    // Distinct bulk payloads currently live (shared by every job that holds one).
    std::size_t sharedPayloads();
    using EventReader = gateway::EventReader;
    using StreamOptions = EventStreamOptions;
    StreamId streamEvents(const mxgateway::v1::StreamEventsRequest& request, EventFn onEvent,
                          EndFn onEnd, StreamOptions options = {});
    // The same stream, its events shared rather than lent.
    StreamId streamEventsShared(const mxgateway::v1::StreamEventsRequest& request,
                                SharedEventFn onEvent, EndFn onEnd, StreamOptions options = {});
    // The client went away: forget the stream; its onEnd is not called.
    void cancelStream(StreamId id);

    // --- faults (each call replaces the previous fault of its kind; duration 0 ends it) ---
    void wedge(Duration duration);
    void slow(double factor, Duration duration);
    void dropReplies(double probability, Duration duration);
    // Drops every session (streams end UNAVAILABLE, pending invokes fail UNAVAILABLE) and
    // answers everything UNAVAILABLE for `downtime`. Clears wedge, slow and drop faults.
    // Graceful: the pending invokes are answered first, then the streams end.
    void restart(Duration downtime);
    // The process SIGKILLed (and brought back after `downtime`), as the client's transport
    // sees it: every event stream breaks UNAVAILABLE first, then every invoke in flight
    // (queued, running or awaiting its deadline) fails UNAVAILABLE "connection reset:
    // gateway killed". Otherwise exactly a restart: sessions and the STA queue are gone,
    // everything is UNAVAILABLE for `downtime`, then it comes back empty.
    void kill(Duration downtime);
    // Ends every event stream with OK; sessions stay valid and may stream again.
    void endEventStreams();
    void setSourceOutage(bool active);
    void refuseSessions(Duration duration);
    // Events are numbered but neither sent nor held for `duration`, as if the gateway's queue
    // had dropped them: a numbering client counts the gap as events lost.
    void loseEvents(Duration duration);
    void setAdvertiseBulkSupervisory(bool advertise); // applies to sessions opened later
    // Nothing leaves the gateway for `duration`: no reply, no event, no session answer, no
    // command run, no value change; what it would have sent goes, in order, when it ends.
    // `transportAnswers`: the connection still answers keepalive pings (half-open, an
    // application hang behind a live transport); otherwise the process is stopped (freeze:
    // SIGSTOP, then SIGCONT) and its pings go unanswered too.
    void silence(Duration duration, bool transportAnswers);
    bool silent() const { return active(m_silence); }
    bool frozen() const { return silent() && !m_silenceAnswersPings; }
    // Told when a silence starts or ends: a transport in front of the model (the in-process
    // port) decides by it what its keepalive sees.
    using SilenceListener = std::function<void()>;
    int addSilenceListener(SilenceListener listener);
    void removeSilenceListener(int id);
    // Every connection to the gateway is reset: each event stream ends and each invoke in
    // flight fails UNAVAILABLE "connection reset by peer". The process stays: its sessions
    // stay valid and its STA still runs what it queued (those answers reach nobody).
    void resetPeer();

    // Final stop (server shutdown): like a restart that never comes back.
    void shutdown();

    // --- configuration ---
    const GatewayConfig& config() const { return m_config; }
    // Returns the validation error (and changes nothing) when `config` is invalid.
    std::string setConfig(const GatewayConfig& config);

    // Addresses this gateway does not know (a site's tags that were never configured on it):
    // AddItem fails and AddItemBulk/SubscribeBulk fail exactly these items with
    // "item not found: <address>", as the real gateway answers; the rest go through.
    // Replaces the previous set; applies to commands run from now on.
    void setUnknownTags(std::unordered_set<std::string> tags) { m_unknownTags = std::move(tags); }
    const std::unordered_set<std::string>& unknownTags() const { return m_unknownTags; }

    // --- statistics ---
    mxgateway::mock::v1::GatewayStats stats() const;
    // Calls onStats now (next scheduler turn) and then every `interval` until cancelled
    // or shutdown (onEnd UNAVAILABLE).
    WatchId watchStats(Duration interval, StatsFn onStats, EndFn onEnd);
    void cancelWatch(WatchId id);

    // --- read access for tests and reports ---
    std::size_t sessionCount() const { return m_sessions.size(); }
    const Session* session(const std::string& id) const;
    std::optional<AdviseState> adviseState(const std::string& sessionId,
                                           std::int32_t itemHandle) const;
    std::size_t staQueueDepth() const { return m_sta.depth(); }
    std::size_t maxStaQueueDepth() const { return m_sta.maxDepth(); }
    std::int64_t commandsRun(CommandKind kind) const { return m_commandsRun[index(kind)]; }
    std::int64_t commandsExpired(CommandKind kind) const { return m_commandsExpired[index(kind)]; }
    std::int64_t invokeRpcs(CommandKind kind) const { return m_invokeRpcs[index(kind)]; }
    std::int64_t invokeRpcs() const { return m_invokeTotal; }
    std::int64_t deadlineExceeded() const { return m_deadlineExceeded; }
    std::int64_t dataChangesSent() const { return m_dataChangesSent; }
    std::int64_t eventsDropped() const { return m_eventsDropped; } // by loseEvents
    std::int64_t streamsResumed() const { return m_streamsResumed; }
    // Event queue overflows (eventQueueCapacity): sessions faulted (FailFast) and subscribers
    // disconnected (DisconnectSubscriber).
    std::int64_t sessionsFaulted() const { return m_sessionsFaulted; }
    std::int64_t subscribersDisconnected() const { return m_subscribersDisconnected; }
    // Subscribe-type invokes (add_item_bulk, subscribe_bulk) accepted and not yet answered
    // (reply, DEADLINE_EXCEEDED or failure sent), per session and exact list of tag addresses.
    // For one key; the largest over all keys now; the largest ever seen since start.
    std::int64_t outstandingSubscribes(const std::string& sessionId,
                                       const std::vector<std::string>& tags) const;
    std::int64_t outstandingSubscribes() const;
    std::int64_t maxOutstandingSubscribes() const { return m_maxOutstandingSubscribes; }
    std::size_t streamCount() const { return m_streams.size(); }
    bool down() const { return m_down; }
    bool sourceOutage() const { return m_sourceOutage; }
    double slowFactor() const { return m_sta.slowFactor(); }
    bool wedged() const { return m_sta.wedged(); }
    Duration staCost(int items) const { return m_sta.cost(items); }

private:
    struct Stream {
        std::string sessionId;
        EventFn onEvent;
        EndFn onEnd;
        SharedEventFn onShared;     // instead of onEvent, when set
        bool replayPending = false; // a resume's held events go first: no live batch before them
        std::shared_ptr<EventReader> reader;
        std::uint64_t delivered = 0; // events handed to the transport (counted with a reader)
    };
    // `stream` has its event callback; the rest comes from the request, onEnd and options.
    StreamId openStream(const mxgateway::v1::StreamEventsRequest& request, Stream stream,
                        EndFn onEnd, StreamOptions options);
    void replayTo(StreamId id, std::uint64_t after);
    // Hands `batch` to the stream, then applies the backpressure policy when its reader is
    // too far behind (the stream, or its whole session, may be gone on return).
    void deliver(StreamId id, Stream& stream, const std::shared_ptr<MxEventBatch>& batch);
    void onSubscriberOverflow(StreamId id, std::uint64_t behind);
    // Events are numbered and held for a returning subscriber: made while nobody listens too.
    bool holdsEvents() const { return m_config.numberEvents && m_config.replayCapacity > 0; }
    // The session leaves the gateway: its queued commands dropped and answered `why`
    // (when dropQueued), its streams ended with `streamStatus`.
    void retireSession(const std::string& sessionId, bool dropQueued, const CallStatus& why,
                       const CallStatus& streamStatus);
    struct Watch {
        Duration interval;
        StatsFn onStats;
        EndFn onEnd;
        TimerId timer = kNoTimer;
    };
    // Invokes waiting for an answer, per command timeout: arrivals are in time order and the
    // timeout is shared, so deadlines are in order too and one timer per queue suffices
    // (no timer per command: cheap on both schedulers).
    struct DeadlineQueue {
        std::deque<StaJobPtr> jobs;
        TimerId timer = kNoTimer;
        Time armedAt{0};
    };
    struct Window { // a fault active until `until`
        Time until{0};
        TimerId timer = kNoTimer;
    };

    static std::size_t index(CommandKind k) { return static_cast<std::size_t>(k); }
    Session* findSession(const std::string& id);
    // What the gateway sends or does next: held while it is silent.
    void post(std::function<void()> task);
    void endSilence();
    // Uniform in [0, 1) from the seeded engine (53 random bits; cheaper than generate_canonical).
    double unitRandom() { return static_cast<double>(m_rng() >> 11) * 0x1.0p-53; }
    // The data source's own generator (SplitMix64, seeded from the same seed): the values
    // are not pinned anywhere, and mt19937_64 was a large share of a long replay's time.
    // Kept apart from m_rng, so the drop fault's draws no longer depend on how many values
    // were generated before them.
    static std::uint64_t splitMix64(std::uint64_t& state)
    {
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    std::uint64_t nextValueBits() { return splitMix64(m_valueState); }

    // STA side (gateway_model.cpp)
    void onDeadlines(Duration timeout);
    void armDeadlines(DeadlineQueue& queue, Duration timeout);
    void answer(const StaJobPtr& job, CallStatus status, mxgateway::v1::MxCommandReply reply);
    // Takes the job's caller callback (the job counts as answered from here on).
    InvokeDone takeDone(const StaJobPtr& job);
    void runCommand(const StaJobPtr& job);
    SharedCommand intern(const mxgateway::v1::MxCommand& command, mxgateway::v1::MxCommand* owned);
    // Answers every pending invoke `why` and ends every stream `why` (posted, in that order,
    // or streams first), and forgets every session and queued command.
    enum class EndOrder { InvokesFirst, StreamsFirst };
    void dropEverything(const CallStatus& why, EndOrder order = EndOrder::InvokesFirst);
    // restart / kill: down for `downtime` with no fault left, then back up empty.
    void goDown(Duration downtime, const CallStatus& why, EndOrder order);

    // command execution (gateway_commands.cpp)
    bool resolves(const std::string& tag, std::string& error) const;
    void execute(Session& session, const mxgateway::v1::MxCommand& command,
                 mxgateway::v1::MxCommandReply& reply);
    std::int32_t addItem(Session& session, std::int32_t serverHandle, const std::string& tag,
                         std::string& error);
    Item* findItem(Session& session, std::int32_t serverHandle, std::int32_t itemHandle,
                   std::string& error);
    void adviseItem(Session& session, std::int32_t handle, Item& item, bool supervisory);

    // data source (gateway_data.cpp)
    void armDataTick();
    void onDataTick();
    void emitBatch(Session& session, bool allAdvised);
    void flushInitialValues(const std::string& sessionId);
    void endStreams(const std::vector<StreamId>& ids, const CallStatus& status);

    // faults (gateway_faults.cpp)
    bool active(const Window& w) const { return m_scheduler.now() < w.until; }
    void setWindow(Window& w, Duration duration, std::function<void()> onEnd);
    void armStatsWatch(WatchId id);

    Scheduler& m_scheduler;
    GatewayConfig m_config;
    std::mt19937_64 m_rng;      // faults (drop_replies)
    std::uint64_t m_valueState; // data values (nextValueBits)
    Sta m_sta;

    std::map<std::string, std::shared_ptr<Session>>
        m_sessions; // shared: a callback may close one mid-batch
    std::uint64_t m_nextSession = 1;
    std::unordered_map<StreamId, Stream> m_streams;
    StreamId m_nextStream = 1;
    std::map<Duration, DeadlineQueue> m_deadlines;
    std::map<WatchId, Watch> m_watches;
    WatchId m_nextWatch = 1;

    // faults
    bool m_down = false; // restarting (or shut down): everything is UNAVAILABLE
    bool m_shutdown = false;
    TimerId m_downTimer = kNoTimer;
    Time m_upSince{0};
    Window m_wedge, m_slow, m_drop, m_refuse, m_lose, m_silence;
    bool m_silenceAnswersPings = false;
    std::vector<std::function<void()>> m_heldWhileSilent;
    std::map<int, SilenceListener> m_silenceListeners;
    int m_nextSilenceListener = 1;
    double m_dropProbability = 0;
    bool m_sourceOutage = false;

    // data
    TimerId m_tickTimer = kNoTimer;
    Time m_nextTick{0};

    // stats
    std::array<std::int64_t, kCommandKindCount> m_invokeRpcs{};
    std::array<std::int64_t, kCommandKindCount> m_commandsRun{};
    std::array<std::int64_t, kCommandKindCount> m_commandsExpired{};
    std::int64_t m_invokeTotal = 0;
    std::int64_t m_deadlineExceeded = 0;
    std::int64_t m_dataChangesSent = 0;
    std::int64_t m_eventsDropped = 0;
    std::int64_t m_streamsResumed = 0;
    std::int64_t m_sessionsFaulted = 0;
    std::int64_t m_subscribersDisconnected = 0;
    std::unordered_map<std::uint64_t, std::int64_t>
        m_outstandingSubscribes; // by subscribeKey; no zeros
    std::int64_t m_maxOutstandingSubscribes = 0;

    // bulk payloads shared by the jobs that carry them (shareCommand), by a hash of every
    // field (kind, server handle, supervisory, tags); expired entries swept when the map doubles
    std::unordered_map<std::uint64_t, std::weak_ptr<const mxgateway::v1::MxCommand>> m_payloads;
    std::size_t m_payloadsSweepAt = 64;

    std::shared_ptr<StreamBacklogCounters> m_streamBacklog =
        std::make_shared<StreamBacklogCounters>();
    std::unordered_set<std::string> m_unknownTags;
};

} // namespace stormwatch::gateway
