#pragma once
// Vocabulary shared by the mock gateway model, its gRPC services and in-process callers.

#include "client/scheduler.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <grpcpp/support/status_code_enum.h>
#include <string>
#include <string_view>

namespace mxgateway::v1 {
class MxCommand;
}
namespace google::protobuf {
class Duration;
}

namespace stormwatch::gateway {

// The outcome of a model call, shaped like a gRPC status so the server can pass it on
// unchanged and an in-process port can treat it exactly as it would a real RPC's.
struct CallStatus {
    grpc::StatusCode code = grpc::StatusCode::OK;
    std::string message;

    bool ok() const { return code == grpc::StatusCode::OK; }
    static CallStatus error(grpc::StatusCode c, std::string m) { return {c, std::move(m)}; }
};

// What a gateway does with a subscriber that falls eventQueueCapacity events behind:
// FailFast faults its session (gone, its stream ended with EventQueueOverflow; the client
// needs a new session), DisconnectSubscriber ends only the stream (the session stays Ready
// and a stream may resume after the last sequence its reader saw).
enum class BackpressurePolicy { FailFast, DisconnectSubscriber };
inline constexpr std::string_view kEventQueueOverflow = "EventQueueOverflow";

// On the wire, a batch of data changes goes out as messages of at most this many. A real
// gateway sends one event per change; one message for a whole session's tick (100,000 changes
// at a large site) would make a client hold megabytes of it at once, in its transport and
// decoded, each tick.
inline constexpr std::size_t kMaxChangesPerEvent = 2048;

struct GatewayConfig {
    // Whether new sessions get the bulk-subscribe-supervisory capability (off = "old gateway").
    bool advertiseBulkSupervisory = true;
    // STA cost of one command: commandMs + perItemMs * items (× the slow factor).
    double commandMs = 2;
    double perItemMs = 0.5;
    // Used when OpenSession carries no command_timeout.
    Duration defaultCommandTimeout = std::chrono::seconds(30);
    // Data changes per second for every advised item (0 = initial values only).
    double dataHz = 1;
    std::uint64_t seed = 1;
    // Wall-clock microseconds since the Unix epoch at scheduler time 0; only used for
    // DataChange source timestamps (0 keeps virtual runs fully deterministic).
    std::int64_t timestampEpochUs = 0;
    // CloseSession drops the session's commands still queued on the STA (the one already
    // running finishes): they cost no STA time once the client has closed the session, and
    // their pending Invokes are answered CANCELLED "session closed". Off: they stay queued,
    // hold the STA when their turn comes and answer success=false "the session was closed".
    bool closeDropsQueuedCommands = true;
    // A removed item's handle is handed out again: a new item gets the lowest freed handle of
    // its session (as gateways that reuse handles do). Off: handles only count up.
    bool reuseHandles = false;
    // Events numbered per session (worker_sequence: one number per data change, as the
    // published gateway sends one change per event), so a gap is seen as events lost.
    bool numberEvents = false;
    // The last events of each session held for a stream that resumes after a sequence
    // (at most this many, none older than replayRetention); 0: a stream cannot resume.
    std::size_t replayCapacity = 0;
    Duration replayRetention = std::chrono::seconds(300);
    // A session takes one event subscriber: a second stream is refused while one is open.
    bool singleEventSubscriber = false;
    // Events a subscriber may fall behind by (delivered by the model and not yet taken by
    // its reader) before the backpressure policy applies; 0 = no bound (the stream's own
    // coalescing backlog is all there is).
    std::size_t eventQueueCapacity = 0;
    BackpressurePolicy backpressure = BackpressurePolicy::FailFast;
};

// The published gateway's event policy (its documented defaults): numbered events, a replay
// buffer of 1,024 events / 300 s, one subscriber per session, an event queue of 10,000 with
// FailFast. Bulk-subscribe-supervisory is not advertised: its contract has no supervisory flag.
void applyPublishedEventPolicy(GatewayConfig& config);

// The contract families (wire/'s profile names) whose gateway behaves unlike stormwatch's own.
inline constexpr std::string_view kPublishedContractFamily = "mxaccess-gateway-v1";
// The gateway policy of a contract family: the published family's (applyPublishedEventPolicy),
// or none for stormwatch's own. False for a family it does not know.
bool applyContractFamily(std::string_view family, GatewayConfig& config);

// The longest command timeout a session gets: 24 h. OpenSession's command_timeout above it
// (a valid google.protobuf.Duration may say 10,000 years) is clamped to it and the echo
// (default_command_timeout) says so; the configured default may not exceed it. It keeps
// every deadline (arrival + timeout) far from overflow, and no STA command is awaited for
// longer than a day. mxgw-mock --help states it.
inline constexpr Duration kMaxCommandTimeout = std::chrono::hours(24);

// Empty when valid, else "<field> = <value>: <rule>".
std::string validateConfig(const GatewayConfig& config);

// OpenSession's command_timeout, checked by google.protobuf.Duration's own rules (seconds
// within +-315,576,000,000; nanos within +-999,999,999 and of the sign of seconds), then
// > 0. Empty when valid (and `timeout` set), else "command_timeout...: <rule>" for an
// INVALID_ARGUMENT. `timeout` is clamped to kMaxCommandTimeout, in whole microseconds (a
// positive rest below one rounds up); no product is formed before the clamp.
std::string commandTimeoutFromProto(const google::protobuf::Duration& requested, Duration& timeout);

inline constexpr int kGatewayProtocolVersion = 3;
inline constexpr int kQualityGood = 192;
inline constexpr int kQualityBad = 0;
inline constexpr std::string_view kCapabilityBulkSupervisory = "bulk-subscribe-supervisory";

// The nine capabilities every session gets (bulk-subscribe-supervisory is added when advertised).
inline constexpr std::array<std::string_view, 9> kBaseCapabilities = {
    "unary-open-session",   "unary-close-session",     "unary-invoke",
    "server-stream-events", "bulk-subscribe-commands", "bulk-read-commands",
    "bulk-write-commands",  "unary-acknowledge-alarm", "server-stream-active-alarms",
};

// Shared by every stream of a server and read for GatewayStats (any thread).
struct StreamBacklogCounters {
    std::atomic<std::int64_t> queued{0};       // messages waiting now, all streams
    std::atomic<std::int64_t> maxQueued{0};    // the most waiting on one stream since start
    std::atomic<std::int64_t> heldItems{0};    // items held in coalescing buffers now, all streams
    std::atomic<std::int64_t> maxHeldItems{0}; // the most held by one stream since start
    std::atomic<std::int64_t> overflows{0};    // times a stream's queue was full
    std::atomic<std::int64_t> coalesced{0};    // updates replaced by a newer value of the same item
    std::atomic<std::int64_t> dropped{0};      // updates or notices dropped (buffer full)

    static void raise(std::atomic<std::int64_t>& most, std::int64_t value)
    {
        std::int64_t seen = most.load(std::memory_order_relaxed);
        while (value > seen &&
               !most.compare_exchange_weak(seen, value, std::memory_order_relaxed)) {
        }
    }
};

// One value per MxCommand oneof member; names are the oneof field names (stats keys).
enum class CommandKind : std::uint8_t {
    Register,
    AddItem,
    AddItemBulk,
    Advise,
    RemoveItem,
    UnAdvise,
    Write,
    AdviseSupervisory,
    AdviseItemBulk,
    SubscribeBulk,
    SubscribeAlarms,
    Count,
    None = Count,
};
inline constexpr std::size_t kCommandKindCount = static_cast<std::size_t>(CommandKind::Count);

CommandKind commandKind(const mxgateway::v1::MxCommand& command);
std::string_view commandKindName(CommandKind kind);
// Tags or handles the command touches: 1 for single-item commands, 0 for register.
int commandItemCount(const mxgateway::v1::MxCommand& command);
// Subscribe-type commands (add_item_bulk, subscribe_bulk): what the outstanding-subscribe
// counter tracks.
inline bool isSubscribeKind(CommandKind kind)
{
    return kind == CommandKind::AddItemBulk || kind == CommandKind::SubscribeBulk;
}

// Key of the outstanding-subscribe counter: the session and the exact list of tag addresses
// (order matters), hashed (64-bit FNV-1a; a collision would only merge two counts).
template <class Addresses>
std::uint64_t subscribeKey(std::string_view sessionId, const Addresses& tagAddresses)
{
    std::uint64_t h = 14695981039346656037ull;
    auto mix = [&h](std::string_view text, unsigned char end) {
        for (const unsigned char c : text)
            h = (h ^ c) * 1099511628211ull;
        h = (h ^ end) * 1099511628211ull;
    };
    mix(sessionId, 0);
    for (const auto& tag : tagAddresses)
        mix(std::string_view(tag), '\n');
    return h;
}

// How an item is advised. An item may hold both advises at once.
struct AdviseState {
    bool plain = false;
    bool supervisory = false;
    bool any() const { return plain || supervisory; }
};

} // namespace stormwatch::gateway
