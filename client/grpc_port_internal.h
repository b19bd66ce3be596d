#pragma once
// Inside the live port, shared by its files only (grpc_gateway_port.cpp: the calls;
// grpc_port_options.cpp: what the options mean; grpc_port_contract.cpp: the contract read
// by server reflection; grpc_contract_discovery.cpp: that reading). Nothing outside client/
// includes it.

#include "grpc_gateway_port.h"
#include "wire/wire_codec.h"

#include <QLoggingCategory>
#include <algorithm>
#include <cctype>
#include <condition_variable>
#include <deque>
#include <functional>
#include <grpcpp/client_context.h>
#include <grpcpp/generic/generic_stub.h>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

Q_DECLARE_LOGGING_CATEGORY(lcGrpcPort)

namespace stormwatch {

// Tells the port's shared state when a call object is gone, and with it its ClientContext,
// which holds a reference to the channel. The port releases the channel itself once every
// call is gone, so that its last reference is never dropped on a gRPC callback thread: there
// the channel's teardown would join gRPC's callback threads from one of them (an error gRPC
// ignores, then frees the completion queue that thread still polls).
class CallLife {
public:
    CallLife() = default;
    CallLife(const CallLife&) = delete;
    CallLife& operator=(const CallLife&) = delete;
    ~CallLife();
    void track(std::shared_ptr<GrpcGatewayPort::Shared> shared) { m_shared = std::move(shared); }

private:
    std::shared_ptr<GrpcGatewayPort::Shared> m_shared;
};

// One gRPC call as the port's registry holds it (cancelled and waited for when the port goes).
struct GrpcGatewayPort::Call {
    virtual ~Call() = default;
    CallLife life; // declared first, so it ends after the context
    grpc::ClientContext context;
};

// gRPC fails the calls of a transport that timed out waiting for the gateway (an unacknowledged
// keepalive ping: "keepalive watchdog timeout"; a connection attempt: "timed out before
// receiving SETTINGS frame", also inside a channel's "last error") UNAVAILABLE, like those of a
// refused or reset one; only the message tells them apart.
inline RpcStatus toRpcStatus(const grpc::Status& status)
{
    RpcStatus rpc{status.error_code(), status.error_message()};
    if (rpc.code == grpc::StatusCode::UNAVAILABLE) {
        std::string lower = rpc.message;
        std::transform(lower.begin(), lower.end(), lower.begin(),
                       [](unsigned char ch) { return char(std::tolower(ch)); });
        rpc.transportTimedOut = lower.find("keepalive") != std::string::npos ||
                                lower.find("timed out") != std::string::npos ||
                                lower.find("deadline exceeded") != std::string::npos;
    }
    return rpc;
}

// The options' files, read for a check or for the channel; an error sentence names the file
// and never its contents.
std::optional<std::string> readPem(const std::string& what, const std::string& path,
                                   std::string& error);
// The token with surrounding whitespace trimmed; it must fit in an HTTP/2 header value.
std::optional<std::string> readToken(const std::string& path, std::string& error);
bool looksLikeHostPort(const std::string& address);

struct GrpcGatewayPort::Shared : std::enable_shared_from_this<Shared> {
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<grpc::GenericStub> stub;
    std::shared_ptr<const wire::WireCodec> codec;
    GrpcGatewayPort* port = nullptr; // owner thread only; null once the port is gone

    mutable std::mutex mutex;
    std::condition_variable idle;
    Scheduler* scheduler = nullptr; // null once the port is gone: late completions drop
    std::unordered_map<std::uint64_t, std::shared_ptr<Call>> calls; // started, not released
    std::size_t callsAlive = 0; // started and not yet destroyed (released or not)
    std::uint64_t nextKey = 1;
    // The reader is stalled (stallReader): streams stop reading, and gRPC's flow control
    // holds the gateway's writes back. Each stream parks its next read here until the end.
    bool readerStalled = false;
    std::vector<std::function<void()>> parkedReads;
    bool closing = false; // the port is going: a stalled stream's read is dropped, not parked

    // A stream's next read: now, or parked while the reader is stalled (false). A parked
    // read holds its call, which the closing port waits for; its call is cancelled anyway.
    bool readNowOrPark(std::function<void()> read)
    {
        std::lock_guard lock(mutex);
        if (!readerStalled)
            return true;
        if (!closing)
            parkedReads.push_back(std::move(read));
        return false;
    }
    void endStall()
    {
        std::vector<std::function<void()>> reads;
        {
            std::lock_guard lock(mutex);
            readerStalled = false;
            reads.swap(parkedReads);
        }
        for (auto& read : reads)
            read();
    }

    std::uint64_t add(std::shared_ptr<Call> call)
    {
        call->life.track(shared_from_this());
        std::lock_guard lock(mutex);
        ++callsAlive;
        const std::uint64_t key = nextKey++;
        calls.emplace(key, std::move(call));
        return key;
    }
    // A started call's object is gone (CallLife); may run on any thread.
    void callGone()
    {
        std::lock_guard lock(mutex);
        if (--callsAlive == 0 && calls.empty())
            idle.notify_all();
    }
    // Every started call released by gRPC and destroyed (under the lock).
    bool allCallsGone() const { return calls.empty() && callsAlive == 0; }

    // From gRPC threads: hand a result to the owner's thread.
    void post(Scheduler::Task task)
    {
        std::lock_guard lock(mutex);
        if (scheduler)
            scheduler->post(std::move(task));
    }
    // The reply's bytes travel without the call: a call held by a task on the owner's queue
    // would keep the port's destructor waiting for it (CallLife).
    void postCompletion(std::uint64_t key, const grpc::Status& status, std::string reply)
    {
        post([self = shared_from_this(), key, rpc = toRpcStatus(status), reply = std::move(reply)] {
            if (self->port)
                self->port->completeCall(key, rpc, reply);
        });
    }
    // Events read and not yet delivered, in order. A contract that sends one message per
    // change would otherwise cost a post to the owner per change: consecutive numbered data
    // changes are merged into one batch (only where their sequences follow each other, so a
    // gap is still seen), and the owner is posted to only when the queue was empty.
    struct PendingEvents {
        std::mutex mutex;
        std::deque<MxEventBatch> queue;
    };
    void postEvent(StreamId id, const std::shared_ptr<PendingEvents>& pending, MxEventBatch&& event)
    {
        {
            std::lock_guard lock(pending->mutex);
            const bool wasEmpty = pending->queue.empty();
            if (!wasEmpty && mergeInto(pending->queue.back(), event))
                return;
            pending->queue.push_back(std::move(event));
            if (!wasEmpty)
                return;
        }
        post([self = shared_from_this(), id, pending] {
            std::deque<MxEventBatch> events;
            {
                std::lock_guard lock(pending->mutex);
                events.swap(pending->queue);
            }
            for (const auto& e : events)
                if (self->port)
                    self->port->deliverEvent(id, e);
        });
    }
    static bool mergeInto(MxEventBatch& into, const MxEventBatch& next)
    {
        using Kind = MxEventBatch::Kind;
        if (into.kind != Kind::DataChanges || next.kind != Kind::DataChanges)
            return false;
        // Only numbered events (a contract of one event per change): a batch of ours is one
        // tick already, and is delivered as the gateway sent it.
        if (into.sequence == 0 || next.firstSequence != into.sequence + 1)
            return false;
        const std::uint64_t textBase = into.texts.size();
        for (MxChange c : next.changes) {
            if (c.kind == MxValueKind::String)
                c.text += textBase;
            into.changes.push_back(c);
        }
        into.texts.insert(into.texts.end(), next.texts.begin(), next.texts.end());
        into.sequence = next.sequence;
        return true;
    }
    void postEnd(StreamId id, const grpc::Status& status)
    {
        post([self = shared_from_this(), id, rpc = toRpcStatus(status)] {
            if (self->port)
                self->port->deliverEnd(id, rpc);
        });
    }

    // gRPC is done with the call: drop it from the registry (the last reference may be
    // released here, outside the lock, even from inside the call's own reaction).
    void release(std::uint64_t key)
    {
        std::shared_ptr<Call> call;
        std::lock_guard lock(mutex);
        auto it = calls.find(key);
        if (it == calls.end())
            return;
        call = std::move(it->second); // destroyed after the lock is released
        calls.erase(it);
        if (calls.empty())
            idle.notify_all();
    }

    // TryCancel may run reactions inline on this thread, so it is called without the lock.
    void cancel(std::uint64_t key)
    {
        std::shared_ptr<Call> call;
        {
            std::lock_guard lock(mutex);
            auto it = calls.find(key);
            if (it == calls.end())
                return;
            call = it->second;
        }
        call->context.TryCancel();
    }
};

} // namespace stormwatch
