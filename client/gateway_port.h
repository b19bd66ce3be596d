#pragma once
// The only way the client reaches a gateway. Two implementations serve the same
// connection logic: GrpcGatewayPort (live, a real or mock gateway over gRPC) and the
// in-process port (scenario/, the mock model on the same VirtualScheduler).
//
// Contract: every callback runs on the owning scheduler's thread, never from inside the
// call that registered it; invoke/open/close callbacks are called exactly once (unless
// the port is destroyed first); a stream's onEnd at most once, never after cancelStream.

#include "mxaccess_gateway.pb.h"
#include "proto/mx_event_batch.h"
#include "scheduler.h"

#include <cstdint>
#include <functional>
#include <grpcpp/support/status_code_enum.h>
#include <string>

namespace stormwatch {

struct RpcStatus {
    grpc::StatusCode code = grpc::StatusCode::OK;
    std::string message;
    bool suppressed = false; // refused by the recovery gate, never sent
    // The transport gave up waiting for the gateway: a keepalive ping went unacknowledged, or a
    // connection attempt timed out before the gateway's first frame (a frozen process or link;
    // nobody refused or reset it).
    bool transportTimedOut = false;

    bool ok() const { return code == grpc::StatusCode::OK; }
    // Worth a retry later: the gateway is slow, busy, restarting or unreachable.
    bool transient() const
    {
        return code == grpc::StatusCode::DEADLINE_EXCEEDED ||
               code == grpc::StatusCode::UNAVAILABLE || code == grpc::StatusCode::CANCELLED ||
               code == grpc::StatusCode::RESOURCE_EXHAUSTED;
    }
    // Nothing answered: a deadline passed or a keepalive ping went unacknowledged. That proves
    // the gateway neither alive nor gone (a frozen process, a dead link); a refusal, a reset
    // or any answer of the gateway's proves it there or gone.
    bool unanswered() const
    {
        return code == grpc::StatusCode::DEADLINE_EXCEEDED || transportTimedOut;
    }
    std::string toString() const;
};

const char* statusCodeName(grpc::StatusCode code);

class GatewayPort {
public:
    using StreamId = std::uint64_t;
    using OpenDone = std::function<void(RpcStatus, mxgateway::v1::OpenSessionReply)>;
    using CloseDone = std::function<void(RpcStatus)>;
    using InvokeDone = std::function<void(RpcStatus, mxgateway::v1::MxCommandReply)>;
    // An event in its native form (proto/mx_event_batch.h): a port that reads the wire
    // MxEvent decodes it first. Valid only during the call.
    using EventFn = std::function<void(const MxEventBatch&)>;
    using EndFn = std::function<void(RpcStatus)>;

    virtual ~GatewayPort() = default;

    virtual void openSession(const mxgateway::v1::OpenSessionRequest& request, OpenDone done) = 0;
    virtual void closeSession(const mxgateway::v1::CloseSessionRequest& request,
                              CloseDone done) = 0;
    virtual void invoke(const mxgateway::v1::MxCommandRequest& request, InvokeDone done) = 0;
    virtual StreamId streamEvents(const mxgateway::v1::StreamEventsRequest& request,
                                  EventFn onEvent, EndFn onEnd) = 0;
    virtual void cancelStream(StreamId id) = 0;
    // Why nothing at all may be sent through this port (a gateway contract that does not
    // check, a key file that cannot be read); empty when it can be used.
    virtual const std::string& setupError() const
    {
        static const std::string none;
        return none;
    }
    // Whether the contract has a SubscribeAlarms command (the published one has none).
    virtual bool canSubscribeAlarms() const { return true; }
    // Whether a stream can start after a sequence (the contract has the field and the
    // gateway keeps its events for it). Only then is resumeEvents called.
    virtual bool canResumeEvents() const { return false; }
    // The session's events after `afterSequence` (those still held, then the new ones).
    virtual StreamId resumeEvents(const mxgateway::v1::StreamEventsRequest& request,
                                  std::uint64_t afterSequence, EventFn onEvent, EndFn onEnd)
    {
        (void)afterSequence; // never called where canResumeEvents() is false
        return streamEvents(request, std::move(onEvent), std::move(onEnd));
    }
    // The client stops reading its event streams for `duration` (a stalled reader: the
    // gateway's event queue for it grows). A port that cannot stall its reader ignores it.
    virtual void stallReader(Duration duration) { (void)duration; }
    // Where the port goes, for the status bar and the event log ("127.0.0.1:50051", "in-process").
    virtual std::string describe() const = 0;
};

} // namespace stormwatch
