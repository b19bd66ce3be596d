#include "grpc_gateway_port.h"

#include "grpc_port_internal.h"
#include "log_text.h"
#include "proto/grpc_bytes.h"
#include "wire/contract.h"
#include "wire/contract_check.h"
#include "wire/wire_codec.h"

#include <QLoggingCategory>
#include <algorithm>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/support/proto_buffer_reader.h>
#include <limits>
#include <mutex>
#include <vector>

Q_LOGGING_CATEGORY(lcGrpcPort, "stormwatch.client.grpc")

namespace stormwatch {

using namespace mxgateway::v1;

namespace {

// Large enough for a 10k-tag bulk reply with long tag addresses and error texts.
constexpr int kMaxReceiveMessageBytes = 64 * 1024 * 1024;
// How long destruction waits for gRPC to release cancelled calls.
constexpr auto kShutdownWait = std::chrono::seconds(5);
// Never expected: calls wait for the contract (holdForContract); a guard, not a path.
constexpr const char* kNoContractYet = "not sent: the gateway's contract is not known";

} // namespace

// ---------------------------------------------------------------------------------------

namespace {

// A unary call in the contract's wire bytes; the codec makes and reads them.
struct UnaryCall final : GrpcGatewayPort::Call {
    grpc::ByteBuffer request;
    grpc::ByteBuffer reply;
};

} // namespace

namespace {

// StreamEvents: each event read is decoded by the contract's codec on this reader thread
// and handed to the owner in order, then the end. A server stream over the generic stub is
// a bidi call whose one request is also its last write.
class StreamCall final : public GrpcGatewayPort::Call,
                         public grpc::ClientBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
public:
    StreamCall(std::shared_ptr<GrpcGatewayPort::Shared> shared, GatewayPort::StreamId id)
        : m_shared(std::move(shared)), m_id(id)
    {
    }

    grpc::ByteBuffer request;
    std::uint64_t key = 0;

    void start()
    {
        m_shared->stub->PrepareBidiStreamingCall(&context, m_shared->codec->eventsPath(),
                                                 grpc::StubOptions(), this);
        StartWriteLast(&request, grpc::WriteOptions());
        StartRead(&m_event);
        StartCall();
    }

    void OnReadDone(bool ok) override
    {
        if (!ok)
            return; // OnDone follows with the status
        wire::EventMeta meta;
        grpc::ProtoBufferReader reader(&m_event);
        const bool decoded = m_shared->codec->decodeEvent(reader, m_decoded, meta);
        m_event.Clear();
        if (!decoded) {
            // A peer's bytes that do not read under the contract end the stream, named.
            m_malformed = true;
            context.TryCancel();
            return;
        }
        m_shared->postEvent(m_id, m_pending, std::move(m_decoded));
        m_decoded = MxEventBatch{};
        if (m_shared->readNowOrPark([self = self.lock()] { self->readAgain(); }))
            StartRead(&m_event);
    }

    void OnDone(const grpc::Status& status) override
    {
        {
            std::lock_guard lock(m_readMutex);
            m_done = true;
        }
        auto shared = m_shared; // `this` may be released below
        if (m_malformed)
            shared->postEnd(
                m_id, grpc::Status(grpc::StatusCode::INTERNAL,
                                   "an event from the gateway does not read under its contract"));
        else
            shared->postEnd(m_id, status);
        shared->release(key);
    }

    std::weak_ptr<StreamCall> self;

private:
    // A parked read, once the stall is over (owner thread); never after the call is done.
    void readAgain()
    {
        std::lock_guard lock(m_readMutex);
        if (!m_done)
            StartRead(&m_event);
    }

    std::shared_ptr<GrpcGatewayPort::Shared> m_shared;
    GatewayPort::StreamId m_id;
    std::recursive_mutex m_readMutex; // a reaction may run inline in StartRead
    bool m_done = false;
    grpc::ByteBuffer m_event;
    MxEventBatch m_decoded;
    std::shared_ptr<GrpcGatewayPort::Shared::PendingEvents> m_pending =
        std::make_shared<GrpcGatewayPort::Shared::PendingEvents>();
    bool m_malformed = false;
};

} // namespace

// ---------------------------------------------------------------------------------------

GrpcGatewayPort::GrpcGatewayPort(Scheduler& owner, GrpcPortOptions options)
    : m_owner(owner), m_options(std::move(options)), m_shared(std::make_shared<Shared>())
{
    m_shared->port = this;
    m_shared->scheduler = &m_owner;

    if (!m_options.tokenFile.empty()) {
        if (auto token = readToken(m_options.tokenFile, m_setupError))
            m_authorization = "Bearer " + *token;
    }
    std::shared_ptr<grpc::ChannelCredentials> credentials;
    if (m_options.tls) {
        grpc::SslCredentialsOptions ssl;
        const TlsFiles& files = *m_options.tls;
        std::string error;
        if (files.certFile.empty() != files.keyFile.empty())
            error = "TLS needs both a certificate file and a key file, or neither";
        if (!files.caFile.empty())
            ssl.pem_root_certs = readPem("TLS CA file", files.caFile, error).value_or("");
        if (!files.certFile.empty())
            ssl.pem_cert_chain =
                readPem("TLS certificate file", files.certFile, error).value_or("");
        if (!files.keyFile.empty())
            ssl.pem_private_key = readPem("TLS key file", files.keyFile, error).value_or("");
        if (m_setupError.empty())
            m_setupError = error;
        credentials = grpc::SslCredentials(ssl);
    } else {
        credentials = grpc::InsecureChannelCredentials();
    }

    m_discover = m_options.contractFile.empty() && m_options.contractProfile.empty();
    if (m_setupError.empty() && !m_discover)
        m_shared->codec = codecFor(m_options, m_setupError);
    if (!m_setupError.empty()) {
        qCWarning(lcGrpcPort, "gateway port %s unusable: %s", describe().c_str(),
                  m_setupError.c_str());
        return;
    }
    if (m_shared->codec && !m_shared->codec->check().contract->isCompiled())
        qCInfo(lcGrpcPort, "gateway port %s: %s", describe().c_str(),
               m_shared->codec->check().summary().c_str());

    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(kMaxReceiveMessageBytes);
    // Keepalive notices a dead or frozen gateway under a quiet event stream. gRPC stops after
    // two pings without data unless told otherwise: a freeze after a quiet minute would go
    // unseen. A server must allow the pings (the mock does; a default gRPC C++ server answers
    // pings more often than every 5 minutes without data with GOAWAY too_many_pings, which
    // ends the stream, to be resumed).
    const auto ms = [](Duration d) {
        return int(std::clamp<std::int64_t>(
            std::chrono::duration_cast<std::chrono::milliseconds>(d).count(), 1,
            std::numeric_limits<int>::max()));
    };
    args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, ms(m_options.keepaliveTime));
    args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, ms(m_options.keepaliveTimeout));
    args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
    // The connection layer has its own reconnect backoff; the channel must not sit in a
    // long transient-failure backoff of its own when the gateway comes back.
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 500);
    args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 500);
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 5000);
    m_shared->channel = grpc::CreateCustomChannel(m_options.address, credentials, args);
    m_shared->stub = std::make_unique<grpc::GenericStub>(m_shared->channel);
    qCInfo(lcGrpcPort, "gateway port %s%s", describe().c_str(),
           m_authorization.empty() ? "" : ", bearer token from the token file");
}

CallLife::~CallLife()
{
    if (m_shared)
        m_shared->callGone();
}

GrpcGatewayPort::~GrpcGatewayPort()
{
    m_shared->port = nullptr; // results already posted are dropped from here on
    std::vector<std::shared_ptr<Call>> live;
    std::vector<std::function<void()>> parked; // they hold their calls
    {
        std::lock_guard lock(m_shared->mutex);
        for (const auto& [key, call] : m_shared->calls)
            live.push_back(call);
        m_shared->closing = true;
        parked.swap(m_shared->parkedReads);
    }
    parked.clear();
    for (const auto& call : live)
        call->context.TryCancel();
    live.clear();

    // The channel and stub end here, on the owner's thread, once no call holds the channel.
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<grpc::GenericStub> stub;
    std::unique_lock lock(m_shared->mutex);
    const bool released =
        m_shared->idle.wait_for(lock, kShutdownWait, [this] { return m_shared->allCallsGone(); });
    m_shared->scheduler = nullptr; // a call gRPC still holds can no longer reach the owner
    if (released) {
        stub = std::move(m_shared->stub);
        channel = std::move(m_shared->channel);
    } else {
        // Left to the last call that holds them: better than tearing down under gRPC.
        qCWarning(lcGrpcPort, "gateway port %s: %zu calls not released by gRPC after cancel",
                  describe().c_str(), m_shared->calls.size());
    }
    lock.unlock();
}

std::size_t GrpcGatewayPort::callsInFlight() const
{
    std::lock_guard lock(m_shared->mutex);
    return m_shared->calls.size();
}

std::weak_ptr<grpc::Channel> GrpcGatewayPort::channel() const
{
    std::lock_guard lock(m_shared->mutex);
    return m_shared->channel;
}

std::string GrpcGatewayPort::describe() const
{
    std::string contract = m_contractOrigin;
    if (!m_options.contractProfile.empty() || !m_options.contractFile.empty())
        contract = m_shared->codec
                       ? ", contract " + std::string(m_shared->codec->check().profile->name)
                       : ", contract unusable";
    return m_options.address + (m_options.tls      ? " (TLS" + contract + ")"
                                : contract.empty() ? ""
                                                   : " (" + contract.substr(2) + ")");
}

void GrpcGatewayPort::prepare(grpc::ClientContext& context, Duration deadline) const
{
    if (!m_authorization.empty())
        context.AddMetadata("authorization", m_authorization);
    if (deadline.count() > 0)
        context.set_deadline(std::chrono::system_clock::now() + deadline);
}

void GrpcGatewayPort::failLater(RpcStatus status, Complete complete)
{
    m_owner.post([shared = m_shared, status, complete = std::move(complete)] {
        if (shared->port)
            complete(status, std::string());
    });
}

void GrpcGatewayPort::completeCall(std::uint64_t key, const RpcStatus& status,
                                   const std::string& reply)
{
    auto it = m_pending.find(key);
    if (it == m_pending.end())
        return;
    Complete complete = std::move(it->second);
    m_pending.erase(it);
    complete(status, reply);
}

void GrpcGatewayPort::deliverEvent(StreamId id, const MxEventBatch& event)
{
    auto it = m_streams.find(id);
    if (it == m_streams.end())
        return;                 // cancelled
    auto handlers = it->second; // onEvent may cancel the stream
    if (handlers->onEvent)
        handlers->onEvent(event);
}

void GrpcGatewayPort::deliverEnd(StreamId id, const RpcStatus& status)
{
    auto it = m_streams.find(id);
    if (it == m_streams.end())
        return; // cancelled: no onEnd (contract)
    auto handlers = std::move(it->second);
    m_streams.erase(it);
    if (status.ok())
        qCDebug(lcGrpcPort, "%s: event stream %llu ended", describe().c_str(),
                static_cast<unsigned long long>(id));
    else
        qCDebug(lcGrpcPort, "%s: event stream %llu ended: %s", describe().c_str(),
                static_cast<unsigned long long>(id), escapeLogText(status.toString()).c_str());
    if (handlers->onEnd)
        handlers->onEnd(status);
}

// One unary call: registered for cancellation before it starts, its completion kept on
// the owner's side (where the reply is decoded); the gRPC completion only posts the result.
// A request the codec cannot carry never leaves: it fails on the owner's thread instead.
void GrpcGatewayPort::startUnary(const std::string& path, const std::string& request,
                                 const std::string& encodeError, Duration deadline,
                                 Complete complete)
{
    if (!m_setupError.empty()) {
        failLater(RpcStatus{grpc::StatusCode::FAILED_PRECONDITION, m_setupError},
                  std::move(complete));
        return;
    }
    if (!m_shared->codec) {
        failLater(RpcStatus{grpc::StatusCode::FAILED_PRECONDITION, kNoContractYet},
                  std::move(complete));
        return;
    }
    if (!encodeError.empty()) {
        failLater(RpcStatus{grpc::StatusCode::FAILED_PRECONDITION, "not sent: " + encodeError},
                  std::move(complete));
        return;
    }
    auto call = std::make_shared<UnaryCall>();
    call->request = toByteBuffer(request);
    prepare(call->context, deadline);
    const std::uint64_t key = m_shared->add(call);
    m_pending.emplace(key, std::move(complete));
    m_shared->stub->UnaryCall(&call->context, path, grpc::StubOptions(), &call->request,
                              &call->reply, [shared = m_shared, call, key](grpc::Status status) {
                                  shared->postCompletion(key, status, bytesOf(call->reply));
                                  shared->release(key);
                              });
}

namespace {

// A reply the gateway sent that does not read under its contract.
RpcStatus unreadable(const std::string& what, const std::string& error)
{
    return RpcStatus{grpc::StatusCode::INTERNAL,
                     "the gateway's " + what + " does not read under its contract: " + error};
}

} // namespace

void GrpcGatewayPort::openSession(const OpenSessionRequest& request, OpenDone done)
{
    if (holdForContract([this, request, done]() mutable { openSession(request, std::move(done)); },
                        [done](const RpcStatus& status) { done(status, OpenSessionReply{}); }))
        return;
    std::string bytes, error;
    if (m_shared->codec)
        m_shared->codec->encodeOpenRequest(request, bytes, error);
    startUnary(
        m_shared->codec ? m_shared->codec->openPath() : std::string(), bytes, error,
        m_options.connectTimeout,
        [codec = m_shared->codec, note = m_ownContractNote,
         done = std::move(done)](const RpcStatus& status, const std::string& bytes) {
            OpenSessionReply reply;
            if (status.code == grpc::StatusCode::UNIMPLEMENTED && !note.empty()) {
                RpcStatus noted = status;
                noted.message += " (" + note + ")";
                return done(noted, reply);
            }
            if (!status.ok())
                return done(status, reply);
            std::string why;
            if (!codec->decodeOpenReply(bytes, reply, why))
                return done(RpcStatus{grpc::StatusCode::UNAVAILABLE, why}, OpenSessionReply{});
            done(status, std::move(reply));
        });
}

void GrpcGatewayPort::closeSession(const CloseSessionRequest& request, CloseDone done)
{
    if (holdForContract([this, request, done]() mutable { closeSession(request, std::move(done)); },
                        done))
        return;
    std::string bytes, error;
    if (m_shared->codec)
        m_shared->codec->encodeCloseRequest(request, bytes, error);
    startUnary(
        m_shared->codec ? m_shared->codec->closePath() : std::string(), bytes, error,
        m_options.connectTimeout,
        [done = std::move(done)](const RpcStatus& status, const std::string&) { done(status); });
}

void GrpcGatewayPort::invoke(const MxCommandRequest& request, InvokeDone done)
{
    if (holdForContract([this, request, done]() mutable { invoke(request, std::move(done)); },
                        [done](const RpcStatus& status) { done(status, MxCommandReply{}); }))
        return;
    std::string bytes, error;
    if (m_shared->codec && !m_shared->codec->encodeInvokeRequest(request, bytes, error))
        qCWarning(lcGrpcPort, "%s: a command not sent: %s", describe().c_str(), error.c_str());
    startUnary(m_shared->codec ? m_shared->codec->invokePath() : std::string(), bytes, error,
               m_options.invokeDeadline,
               [codec = m_shared->codec, done = std::move(done)](const RpcStatus& status,
                                                                 const std::string& bytes) {
                   MxCommandReply reply;
                   if (!status.ok())
                       return done(status, reply);
                   std::string why;
                   if (!codec->decodeInvokeReply(bytes, reply, why))
                       return done(unreadable("reply", why), MxCommandReply{});
                   done(status, std::move(reply));
               });
}

GatewayPort::StreamId GrpcGatewayPort::streamEvents(const StreamEventsRequest& request,
                                                    EventFn onEvent, EndFn onEnd)
{
    return resumeEvents(request, 0, std::move(onEvent), std::move(onEnd));
}

bool GrpcGatewayPort::canSubscribeAlarms() const
{
    return !m_shared->codec ||
           m_shared->codec->canSend("subscribe_alarms"); // no codec: nothing is sent anyway
}

bool GrpcGatewayPort::canResumeEvents() const
{
    return m_setupError.empty() && m_shared->codec && m_shared->codec->canResumeEvents();
}

GatewayPort::StreamId GrpcGatewayPort::resumeEvents(const StreamEventsRequest& request,
                                                    std::uint64_t afterSequence, EventFn onEvent,
                                                    EndFn onEnd)
{
    const StreamId id = m_nextStream++;
    auto handlers = std::make_shared<StreamHandlers>();
    handlers->onEvent = std::move(onEvent);
    handlers->onEnd = std::move(onEnd);
    m_streams.emplace(id, handlers);
    const auto held = [this, id, request, afterSequence] {
        if (m_streams.count(id)) // not cancelled meanwhile
            startStream(id, request, afterSequence);
    };
    if (!holdForContract(held, [this, id](const RpcStatus& status) { deliverEnd(id, status); }))
        startStream(id, request, afterSequence);
    return id;
}

void GrpcGatewayPort::startStream(StreamId id, const StreamEventsRequest& request,
                                  std::uint64_t afterSequence)
{
    auto handlers = m_streams.at(id);
    if (!m_setupError.empty()) {
        m_owner.post([shared = m_shared, id,
                      status = RpcStatus{grpc::StatusCode::FAILED_PRECONDITION, m_setupError}] {
            if (shared->port)
                shared->port->deliverEnd(id, status);
        });
        return;
    }
    std::string bytes, error;
    if (!m_shared->codec)
        error = kNoContractYet;
    if (!error.empty() ||
        !m_shared->codec->encodeStreamRequest(request, afterSequence, bytes, error)) {
        m_owner.post([shared = m_shared, id,
                      status = RpcStatus{grpc::StatusCode::FAILED_PRECONDITION, error}] {
            if (shared->port)
                shared->port->deliverEnd(id, status);
        });
        return;
    }
    auto call = std::make_shared<StreamCall>(m_shared, id);
    call->self = call;
    call->request = toByteBuffer(bytes);
    prepare(call->context, Duration{0});
    call->key = m_shared->add(call);
    handlers->key = call->key;
    call->start();
}

void GrpcGatewayPort::stallReader(Duration duration)
{
    {
        std::lock_guard lock(m_shared->mutex);
        m_shared->readerStalled = true;
    }
    const std::uint64_t generation = ++m_stallGeneration;
    m_owner.callAfter(std::max(duration, Duration::zero()), [shared = m_shared, generation, this] {
        // A later stall that ends later replaces this one.
        if (shared->port && generation == m_stallGeneration)
            shared->endStall();
    });
}

void GrpcGatewayPort::cancelStream(StreamId id)
{
    auto it = m_streams.find(id);
    if (it == m_streams.end())
        return;
    const std::uint64_t key = it->second->key;
    m_streams.erase(it);
    if (key != 0)
        m_shared->cancel(key);
}

} // namespace stormwatch
