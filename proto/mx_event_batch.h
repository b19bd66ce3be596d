#pragma once
// The event stream's batch in memory: what GatewayPort hands the client and what the mock
// model writes each tick. The wire MxEvent (mxaccess_gateway.proto) is unchanged; only the
// gRPC edges convert: the mock's service encodes this to MxEvent, GrpcGatewayPort decodes
// MxEvent into this on its reader thread, and the in-process port passes the model's batch
// straight through.
//
// Why not MxEvent itself: a protobuf DataChange with its MxValue and Timestamp is
// ~128 bytes spread over three messages; a 10,000-change tick was ~1.3 MB written whole
// before the client read it, more than this machine's 1 MB L2. A change here is 32 bytes,
// flat, in one vector reused tick to tick.
//
// Why in proto/: it is the contract's in-memory twin, and both gateway/ and client/ link
// stormwatch_proto while neither may include the other (docs/ARCHITECTURE.md, "Layers").
// Plain C++ only: no protobuf here.

#include <cstdint>
#include <string>
#include <vector>

namespace stormwatch {

// MxValue's oneof, by case.
enum class MxValueKind : std::uint8_t { None, Double, Int, String, Bool };

// One DataChange. The value is one of: `number` (Double), `integer` (Int, and Bool as 0/1),
// `text` (String: an index into MxEventBatch::texts).
struct MxChange {
    std::int32_t serverHandle = 0;
    std::int32_t itemHandle = 0;
    std::int32_t quality = 0;
    MxValueKind kind = MxValueKind::None;
    union {
        double number = 0;
        std::int64_t integer;
        std::uint64_t text;
    };
    // Microseconds since 1970; the decoder clamps a peer's absurd seconds and nanos so this cannot
    // overflow.
    std::int64_t sourceTimestampUs = 0;

    // The value as the client reads it: a number for every kind but String (0 there).
    double numeric() const
    {
        switch (kind) {
        case MxValueKind::Double:
            return number;
        case MxValueKind::Int:
            return static_cast<double>(integer);
        case MxValueKind::Bool:
            return integer ? 1 : 0;
        default:
            return 0;
        }
    }
};
static_assert(sizeof(MxChange) == 32, "a change is meant to stay 32 bytes (half a cache line)");

// One MxEvent: a batch of data changes or a notice (or, from a peer, neither).
struct MxEventBatch {
    enum class Kind : std::uint8_t { Empty, DataChanges, Notice };
    Kind kind = Kind::Empty;
    std::vector<MxChange> changes;
    std::vector<std::string> texts; // the String values' texts, by MxChange::text
    std::string noticeKind;
    std::string noticeMessage;
    // The worker_sequence of the batch's last event where the contract numbers events
    // (contiguous per session: a gap is events lost), and of its first: a batch of several
    // numbered events covers firstSequence..sequence. 0 = none.
    std::uint64_t sequence = 0;
    std::uint64_t firstSequence = 0;

    const std::string& textOf(const MxChange& change) const { return texts[change.text]; }
    // Emptied for reuse; vectors keep their capacity.
    void clear()
    {
        kind = Kind::Empty;
        changes.clear();
        texts.clear();
        noticeKind.clear();
        noticeMessage.clear();
        sequence = 0;
        firstSequence = 0;
    }
};

} // namespace stormwatch
