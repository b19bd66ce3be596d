#pragma once
// The one codec between the client's (and the mock model's) own messages and a gateway's
// wire, for any contract that checks against its profile. In memory both sides speak
// stormwatch's compiled messages (mxgateway::v1) and the native event batch; on the wire,
// numbers and types come from the contract's descriptors, looked up by the profile's names
// once, when the codec is made:
//   - requests and replies go through protobuf reflection (a command is not the hot path);
//   - events are read and written straight from and to the wire by field number (the hot
//     path: one decode per data change).
// A codec is made only from a contract that checks (usable or usable with limits): a
// contract that does not check has no codec, so nothing can be sent to its gateway.
// Nothing that writes can be encoded: the command encoder knows only the profile's roles.
//
// Immutable once made; any thread may use it.

#include "contract_check.h"
#include "mxaccess_gateway.pb.h"
#include "proto/mx_event_batch.h"

#include <cstdint>
#include <google/protobuf/io/zero_copy_stream.h>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace stormwatch::wire {

// What an event carried beside its changes.
struct EventMeta {
    std::optional<std::uint64_t> sequence; // worker_sequence, when the contract has it
    bool replayGap = false;                // a resume asked for events no longer held
};

class WireCodec {
public:
    // Null, with `error` naming why, when the check's verdict is Unusable.
    static std::shared_ptr<const WireCodec> create(const ContractCheck& check, std::string& error);
    // The compiled-in contract under the stormwatch profile (always usable).
    static std::shared_ptr<const WireCodec> compiled();

    ~WireCodec();
    WireCodec(const WireCodec&) = delete;
    WireCodec& operator=(const WireCodec&) = delete;

    const ContractCheck& check() const { return m_check; }
    // gRPC method paths: "/mxaccess_gateway.v1.MxAccessGateway/Invoke".
    const std::string& openPath() const;
    const std::string& closePath() const;
    const std::string& invokePath() const;
    const std::string& eventsPath() const;
    // What the contract lets the client do.
    bool canSendCommandTimeout() const; // Lever 3
    bool hasSupervisoryFlag() const;    // Lever 2 as proposed
    bool hasEventSequence() const;      // lost events can be counted
    bool canResumeEvents() const;       // a stream can restart after a sequence
    bool
    canSend(std::string_view payload) const; // the contract has this command ("subscribe_alarms")

    // ---- client side: encode requests, decode replies. False with `error` set when a
    // request asks for something the contract cannot carry (a payload it lacks, a
    // supervisory flag it has no field for, anything that writes), or a reply does not parse.
    bool encodeOpenRequest(const mxgateway::v1::OpenSessionRequest& in, std::string& out,
                           std::string& error) const;
    bool decodeOpenReply(const std::string& bytes, mxgateway::v1::OpenSessionReply& out,
                         std::string& error) const;
    bool encodeCloseRequest(const mxgateway::v1::CloseSessionRequest& in, std::string& out,
                            std::string& error) const;
    bool encodeInvokeRequest(const mxgateway::v1::MxCommandRequest& in, std::string& out,
                             std::string& error) const;
    // success is the contract's: a success flag, or protocol status OK; otherwise
    // error_message names the status code, its message and the HRESULT when given.
    bool decodeInvokeReply(const std::string& bytes, mxgateway::v1::MxCommandReply& out,
                           std::string& error) const;
    // resumeAfter 0: a fresh stream; else the events after that sequence (only when
    // canResumeEvents()).
    bool encodeStreamRequest(const mxgateway::v1::StreamEventsRequest& in,
                             std::uint64_t resumeAfter, std::string& out, std::string& error) const;
    // One wire MxEvent into the native batch (overwritten; vectors keep their capacity).
    // Timestamps are clamped as the batch's contract says.
    bool decodeEvent(const std::string& bytes, MxEventBatch& out, EventMeta& meta) const;
    // The same from a stream of the message's bytes (a gRPC buffer's slices, uncopied).
    bool decodeEvent(google::protobuf::io::ZeroCopyInputStream& bytes, MxEventBatch& out,
                     EventMeta& meta) const;

    // ---- gateway side (the mock): the mirror image.
    bool decodeOpenRequest(const std::string& bytes, mxgateway::v1::OpenSessionRequest& out,
                           std::string& error) const;
    bool encodeOpenReply(const mxgateway::v1::OpenSessionReply& in, std::string& out,
                         std::string& error) const;
    bool decodeCloseRequest(const std::string& bytes, mxgateway::v1::CloseSessionRequest& out,
                            std::string& error) const;
    bool decodeInvokeRequest(const std::string& bytes, mxgateway::v1::MxCommandRequest& out,
                             std::string& error) const;
    bool encodeInvokeReply(const mxgateway::v1::MxCommandReply& in, std::string& out,
                           std::string& error) const;
    bool decodeStreamRequest(const std::string& bytes, mxgateway::v1::StreamEventsRequest& out,
                             std::uint64_t& resumeAfter, std::string& error) const;
    // A batch as the contract's events: one message holding the whole batch where the
    // contract batches (stormwatch), else one message per change, each with the next
    // sequence (starting after `sequence`, which is advanced; a batch the gateway numbered,
    // firstSequence != 0, keeps its numbers). A notice where the contract has none is not
    // sent (false).
    bool encodeEvents(const MxEventBatch& in, std::uint64_t& sequence,
                      std::vector<std::string>& out) const;

    struct Resolved; // the roles' fields, numbers and types

private:
    explicit WireCodec(ContractCheck check);

    ContractCheck m_check;
    std::unique_ptr<Resolved> m_r;
};

} // namespace stormwatch::wire
