#pragma once
// The live GatewayPort: a real (or mock) MXAccess gateway over gRPC, on the callback API.
// Completions arrive on gRPC threads; they only hand the result over to the owning
// scheduler (Scheduler::post), so user callbacks are stored, run and destroyed on the
// owner's thread only (the run host's worker). All calls of a port share one channel. The
// bearer token is sent as metadata and never appears in a log line, an error or describe().
//
// Threading: construct, call and destroy on the owner's thread. Destroying the port
// cancels every call in flight and waits (bounded) until gRPC is done with each of them,
// then releases the channel on the owner's thread; results already posted to the scheduler
// are dropped once the port is gone.

#include "gateway_port.h"
#include "grpc_port_options.h"
#include "scheduler.h"

#include <QString>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace grpc {
class Channel;
class ClientContext;
} // namespace grpc

namespace stormwatch {

namespace wire {
class GatewayContract;
class WireCodec;
} // namespace wire
struct DiscoveredContract;

// Why a call to the gateway failed, in one line a person can act on (peer text escaped).
struct GatewayFailure {
    std::string text;
    // A TLS failure (untrusted certificate, wrong host name, failed handshake) or refused
    // credentials: the options must change, waiting and retrying cannot help.
    bool setup = false;
};

class GrpcGatewayPort final : public GatewayPort {
public:
    GrpcGatewayPort(Scheduler& owner, GrpcPortOptions options);
    ~GrpcGatewayPort() override;
    GrpcGatewayPort(const GrpcGatewayPort&) = delete;
    GrpcGatewayPort& operator=(const GrpcGatewayPort&) = delete;

    // Empty when the options can be used; otherwise one sentence naming the bad address,
    // duration or the file that is missing or unreadable (never a file's contents), or the
    // elements a gateway contract lacks.
    static QString validate(const GrpcPortOptions& options);
    // The same but for the contract (address, TLS and key files): a console shows a contract
    // that does not check on the connection it refuses instead of refusing to start.
    static QString validateTransport(const GrpcPortOptions& options);
    // The codec of the options' contract (the compiled-in one when none is given); null,
    // with `error` naming why, when the contract cannot be read or does not check: then no
    // call of the port leaves this process.
    static std::shared_ptr<const wire::WireCodec> codecFor(const GrpcPortOptions& options,
                                                           std::string& error);
    // The same for a contract already read (a file's, or one a gateway described by server
    // reflection): checked against its family's profile, and the options' token against it.
    static std::shared_ptr<const wire::WireCodec>
    codecFor(std::shared_ptr<const wire::GatewayContract> contract, const GrpcPortOptions& options,
             std::string& error);

    // Names what `status` (a call on a port with these options) means: the gateway's
    // certificate not trusted by --tls-ca (or the system roots), issued for another host
    // name, no TLS at the other end, a token refused or missing; else status.toString().
    // The file names come from the options; the token never appears.
    static GatewayFailure explainFailure(const RpcStatus& status, const GrpcPortOptions& options);

    void openSession(const mxgateway::v1::OpenSessionRequest& request, OpenDone done) override;
    void closeSession(const mxgateway::v1::CloseSessionRequest& request, CloseDone done) override;
    void invoke(const mxgateway::v1::MxCommandRequest& request, InvokeDone done) override;
    StreamId streamEvents(const mxgateway::v1::StreamEventsRequest& request, EventFn onEvent,
                          EndFn onEnd) override;
    void cancelStream(StreamId id) override;
    bool canResumeEvents() const override;
    bool canSubscribeAlarms() const override;
    void stallReader(Duration duration) override;
    StreamId resumeEvents(const mxgateway::v1::StreamEventsRequest& request,
                          std::uint64_t afterSequence, EventFn onEvent, EndFn onEnd) override;
    std::string describe() const override;

    // Why the port could not be set up (a TLS or token file unreadable at construction, or
    // a contract that does not check, given or read from the gateway); empty when fine.
    // While set, every call fails with FAILED_PRECONDITION and this text.
    const std::string& setupError() const override { return m_setupError; }
    // gRPC calls started and not yet released by gRPC (streams included). Any thread.
    std::size_t callsInFlight() const;
    // The channel all calls share, to watch its lifetime: it ends with the port.
    std::weak_ptr<grpc::Channel> channel() const;

    // Where the contract in use came from: the options (a file or a profile), the gateway's
    // server reflection, stormwatch's own because the gateway serves no reflection (or lists
    // no gateway service there), or not known yet (no OpenSession has been answered).
    enum class ContractSource { Options, Reflection, OwnWithoutReflection, NotYetKnown };
    ContractSource contractSource() const;
    // The codec in use; null until the contract is known (or when it cannot be used).
    std::shared_ptr<const wire::WireCodec> codec() const;

    struct Shared; // state shared with gRPC threads
    struct Call;   // one gRPC call: its ClientContext, request and reply

private:
    using Complete = std::function<void(const RpcStatus&, const std::string& reply)>;
    struct StreamHandlers {
        EventFn onEvent;
        EndFn onEnd;
        std::uint64_t key = 0; // the stream's call, for TryCancel
    };

    // No contract given: the first call asks the gateway's server reflection for it and
    // waits (with every call made meanwhile) until it answers. True when `send` was held:
    // it runs once the contract is known, or `fail` runs with why it could not be read.
    bool holdForContract(std::function<void()> send, std::function<void(const RpcStatus&)> fail);
    void discoverContract();
    void contractDiscovered(DiscoveredContract result);
    void prepare(grpc::ClientContext& context, Duration deadline) const;
    void startUnary(const std::string& path, const std::string& request,
                    const std::string& encodeError, Duration deadline, Complete complete);
    void failLater(RpcStatus status, Complete complete);
    // Owner-thread halves of a completion (posted by gRPC threads).
    void completeCall(std::uint64_t key, const RpcStatus& status, const std::string& reply);
    void deliverEvent(StreamId id, const MxEventBatch& event);
    void deliverEnd(StreamId id, const RpcStatus& status);
    void startStream(StreamId id, const mxgateway::v1::StreamEventsRequest& request,
                     std::uint64_t afterSequence);

    Scheduler& m_owner;
    GrpcPortOptions m_options;
    std::string m_setupError;
    std::string m_authorization; // "Bearer <token>"; empty when no token
    std::shared_ptr<Shared> m_shared;
    std::unordered_map<std::uint64_t, Complete> m_pending; // unary call key → completion
    std::unordered_map<StreamId, std::shared_ptr<StreamHandlers>> m_streams;
    StreamId m_nextStream = 1;
    std::uint64_t m_stallGeneration = 0; // the stall whose end ends it

    bool m_discover = false; // no contract given: read it by server reflection
    bool m_discovering = false;
    std::size_t m_reflectionPath = 0; // into wire::reflection::kPaths
    struct HeldCall {
        std::function<void()> send;
        std::function<void(const RpcStatus&)> fail;
    };
    std::vector<HeldCall> m_held;
    // Why stormwatch's own contract is in use though none was given (no server reflection):
    // said with a failure that another contract would explain.
    std::string m_ownContractNote;
    std::string m_contractOrigin; // ", contract … from server reflection" for describe()
};

} // namespace stormwatch
