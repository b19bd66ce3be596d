#include "grpc_gateway_port.h"

#include "log_text.h"

#include "proto/grpc_bytes.h"

#include "wire/contract.h"
#include "wire/wire_codec.h"

#include <QLoggingCategory>
#include <QRegularExpression>
#include <algorithm>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <fstream>
#include <limits>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/support/proto_buffer_reader.h>
#include <mutex>
#include <regex>
#include <sstream>
#include <vector>

Q_LOGGING_CATEGORY(lcGrpcPort, "stormwatch.client.grpc")

namespace stormwatch {

using namespace mxgateway::v1;

namespace {

// Large enough for a 10k-tag bulk reply with long tag addresses and error texts.
constexpr int kMaxReceiveMessageBytes = 64 * 1024 * 1024;
// How long destruction waits for gRPC to release cancelled calls.
constexpr auto kShutdownWait = std::chrono::seconds(5);

RpcStatus toRpcStatus(const grpc::Status& status)
{
    return RpcStatus{status.error_code(), status.error_message()};
}

// Reads a whole file; an error sentence naming `what` and `path` (never the contents).
std::optional<std::string> readFile(const std::string& what, const std::string& path,
                                    std::string& error)
{
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
        error = what + " '" + path + "' does not exist";
        return std::nullopt;
    }
    if (!std::filesystem::is_regular_file(path, ec)) {
        error = what + " '" + path + "' is not a regular file";
        return std::nullopt;
    }
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    if (in)
        text << in.rdbuf();
    if (!in || in.bad()) {
        error = what + " '" + path + "' cannot be read";
        return std::nullopt;
    }
    return text.str();
}

std::optional<std::string> readPem(const std::string& what, const std::string& path,
                                   std::string& error)
{
    auto text = readFile(what, path, error);
    if (text && text->find("-----BEGIN ") == std::string::npos) {
        error = what + " '" + path + "' is not a PEM file";
        return std::nullopt;
    }
    return text;
}

// The token with surrounding whitespace trimmed; it must fit in an HTTP/2 header value.
std::optional<std::string> readToken(const std::string& path, std::string& error)
{
    auto text = readFile("token file", path, error);
    if (!text)
        return std::nullopt;
    const auto first = text->find_first_not_of(" \t\r\n");
    if (first == std::string::npos) {
        error = "token file '" + path + "' is empty";
        return std::nullopt;
    }
    const auto last = text->find_last_not_of(" \t\r\n");
    std::string token = text->substr(first, last - first + 1);
    for (unsigned char c : token) {
        if (c < 0x20 || c > 0x7e) {
            error = "token file '" + path + "' holds characters not allowed in a header";
            return std::nullopt;
        }
    }
    return token;
}

bool looksLikeHostPort(const std::string& address)
{
    static const std::regex pattern(R"(^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):([0-9]{1,5})$)");
    std::smatch match;
    if (!std::regex_match(address, match, pattern))
        return false;
    const int port = std::stoi(match[2].str());
    return port >= 1 && port <= 65535;
}

} // namespace

// ---------------------------------------------------------------------------------------

struct GrpcGatewayPort::Call {
    virtual ~Call() = default;
    grpc::ClientContext context;
};

namespace {

// A unary call in the contract's wire bytes; the codec makes and reads them.
struct UnaryCall final : GrpcGatewayPort::Call {
    grpc::ByteBuffer request;
    grpc::ByteBuffer reply;
};

// The reply bytes of a call that went out; empty for one that never did.
std::string replyOf(GrpcGatewayPort::Call& call)
{
    if (auto* unary = dynamic_cast<UnaryCall*>(&call))
        return bytesOf(unary->reply);
    return {};
}

} // namespace

struct GrpcGatewayPort::Shared : std::enable_shared_from_this<Shared> {
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<grpc::GenericStub> stub;
    std::shared_ptr<const wire::WireCodec> codec;
    GrpcGatewayPort* port = nullptr; // owner thread only; null once the port is gone

    mutable std::mutex mutex;
    std::condition_variable idle;
    Scheduler* scheduler = nullptr; // null once the port is gone: late completions drop
    std::unordered_map<std::uint64_t, std::shared_ptr<Call>> calls; // started, not released
    std::uint64_t nextKey = 1;
    // The reader is stalled (stallReader): streams stop reading, and gRPC's flow control
    // holds the gateway's writes back. Each stream parks its next read here until the end.
    bool readerStalled = false;
    std::vector<std::function<void()>> parkedReads;

    // A stream's next read: now, or parked while the reader is stalled (false).
    bool readNowOrPark(std::function<void()> read)
    {
        std::lock_guard lock(mutex);
        if (!readerStalled)
            return true;
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
        std::lock_guard lock(mutex);
        const std::uint64_t key = nextKey++;
        calls.emplace(key, std::move(call));
        return key;
    }

    // From gRPC threads: hand a result to the owner's thread.
    void post(Scheduler::Task task)
    {
        std::lock_guard lock(mutex);
        if (scheduler)
            scheduler->post(std::move(task));
    }
    void postCompletion(std::uint64_t key, const grpc::Status& status, std::shared_ptr<Call> call)
    {
        post([self = shared_from_this(), key, rpc = toRpcStatus(status), call] {
            if (self->port)
                self->port->completeCall(key, rpc, *call);
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

namespace {

// StreamEvents: each event read is decoded by the contract's codec on this reader thread
// and handed to the owner in order, then the end. A server stream over the generic stub is
// a bidi call whose one request is also its last write.
class StreamCall final : public GrpcGatewayPort::Call, public grpc::ClientBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
public:
    StreamCall(std::shared_ptr<GrpcGatewayPort::Shared> shared, GatewayPort::StreamId id)
        : m_shared(std::move(shared)), m_id(id)
    {
    }

    grpc::ByteBuffer request;
    std::uint64_t key = 0;

    void start()
    {
        m_shared->stub->PrepareBidiStreamingCall(&context, m_shared->codec->eventsPath(), grpc::StubOptions(), this);
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
            shared->postEnd(m_id, grpc::Status(grpc::StatusCode::INTERNAL,
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

    if (m_setupError.empty())
        m_shared->codec = codecFor(m_options, m_setupError);
    if (!m_setupError.empty()) {
        qCWarning(lcGrpcPort, "gateway port %s unusable: %s", describe().c_str(),
                  m_setupError.c_str());
        return;
    }
    if (!m_shared->codec->check().contract->isCompiled())
        qCInfo(lcGrpcPort, "gateway port %s: %s", describe().c_str(), m_shared->codec->check().summary().c_str());

    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(kMaxReceiveMessageBytes);
    // Keepalive notices a dead gateway under a quiet event stream; gRPC sends at most two
    // pings without data, which stays within a default server's ping policy.
    args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 30000);
    args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 10000);
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

GrpcGatewayPort::~GrpcGatewayPort()
{
    m_shared->port = nullptr; // results already posted are dropped from here on
    std::vector<std::shared_ptr<Call>> live;
    {
        std::lock_guard lock(m_shared->mutex);
        for (const auto& [key, call] : m_shared->calls)
            live.push_back(call);
    }
    for (const auto& call : live)
        call->context.TryCancel();
    live.clear();

    std::unique_lock lock(m_shared->mutex);
    const bool released =
        m_shared->idle.wait_for(lock, kShutdownWait, [this] { return m_shared->calls.empty(); });
    m_shared->scheduler = nullptr; // a call gRPC still holds can no longer reach the owner
    m_shared->parkedReads.clear();   // they hold their calls, which hold m_shared
    if (!released)
        qCWarning(lcGrpcPort, "gateway port %s: %zu calls not released by gRPC after cancel",
                  describe().c_str(), m_shared->calls.size());
}

std::size_t GrpcGatewayPort::callsInFlight() const
{
    std::lock_guard lock(m_shared->mutex);
    return m_shared->calls.size();
}

QString GrpcGatewayPort::validate(const GrpcPortOptions& options)
{
    if (!looksLikeHostPort(options.address))
        return QStringLiteral("gateway address '%1' is not host:port (e.g. 127.0.0.1:50051)")
            .arg(QString::fromStdString(options.address));
    if (options.invokeDeadline.count() < 0)
        return QStringLiteral("the Invoke deadline must not be negative");
    if (options.connectTimeout.count() < 0)
        return QStringLiteral("the connect timeout must not be negative");
    std::string error;
    if (!options.tokenFile.empty() && !readToken(options.tokenFile, error))
        return QString::fromStdString(error);
    if (options.tls) {
        const TlsFiles& files = *options.tls;
        if (files.certFile.empty() != files.keyFile.empty())
            return QString::fromStdString(
                files.certFile.empty()
                    ? "TLS key file '" + files.keyFile + "' given without a certificate file"
                    : "TLS certificate file '" + files.certFile + "' given without a key file");
        if (!files.caFile.empty() && !readPem("TLS CA file", files.caFile, error))
            return QString::fromStdString(error);
        if (!files.certFile.empty() && !readPem("TLS certificate file", files.certFile, error))
            return QString::fromStdString(error);
        if (!files.keyFile.empty() && !readPem("TLS key file", files.keyFile, error))
            return QString::fromStdString(error);
    }
    if (!options.contractFile.empty() && !codecFor(options, error))
        return QString::fromStdString(error);
    return {};
}

QString GrpcGatewayPort::validateTransport(const GrpcPortOptions& options)
{
    GrpcPortOptions transport = options;
    transport.contractFile.clear();
    transport.contractProfile.clear();
    return validate(transport);
}

std::shared_ptr<const wire::WireCodec> GrpcGatewayPort::codecFor(const GrpcPortOptions& options, std::string& error)
{
    if (options.contractFile.empty() && options.contractProfile.empty())
        return wire::WireCodec::compiled();
    std::shared_ptr<const wire::GatewayContract> contract = wire::GatewayContract::compiled();
    if (!options.contractFile.empty()) {
        contract = wire::GatewayContract::fromFile(options.contractFile, error);
        if (!contract)
            return nullptr;
    }
    const wire::ContractProfile* profile = wire::profileFor(*contract);
    if (!options.contractProfile.empty()) {
        profile = wire::findProfile(options.contractProfile);
        if (!profile) {
            error = "unknown contract profile '" + options.contractProfile + "' (profiles: " + wire::profileNames() + ")";
            return nullptr;
        }
    }
    std::string why;
    auto codec = wire::WireCodec::create(wire::checkContract(contract, *profile), why);
    if (!codec) {
        error = why + "; no command is sent to a gateway whose contract does not check (stormwatch "
                      "--check-contract FILE shows each element)";
        return nullptr;
    }
    // The published gateway's API keys have one form; another is refused before connecting
    // rather than by the gateway.
    static const std::regex apiKey(R"(^mxgw_[^_\s]+_\S+$)");
    if (std::string(profile->name) == "mxaccess-gateway-v1" && !options.tokenFile.empty()) {
        const auto token = readToken(options.tokenFile, error);
        if (!token)
            return nullptr;
        if (!std::regex_match(*token, apiKey)) {
            error = "token file '" + options.tokenFile + "' does not hold an MXAccess Gateway API key "
                    "(mxgw_<key-id>_<secret>)";
            return nullptr;
        }
    }
    return codec;
}

GatewayFailure GrpcGatewayPort::explainFailure(const RpcStatus& status, const GrpcPortOptions& options)
{
    const std::string said = escapeLogText(status.toString(), 512);
    const auto has = [&](const char* needle) {
        return QString::fromStdString(status.message).contains(QLatin1String(needle), Qt::CaseInsensitive);
    };
    switch (status.code) {
    case grpc::StatusCode::UNAUTHENTICATED:
        return {options.tokenFile.empty()
                    ? "the gateway needs credentials: give its bearer token with --token-file (" + said + ")"
                    : "the gateway refused the bearer token from --token-file '" + options.tokenFile + "' (" + said + ")",
                true};
    case grpc::StatusCode::PERMISSION_DENIED:
        return {"the gateway denied these credentials: the key needs the scopes session:open, session:close, "
                "invoke:read and events:read (" + said + ")",
                true};
    case grpc::StatusCode::UNIMPLEMENTED:
        // Up, but not serving these method paths: another contract (a real gateway asked in
        // stormwatch's own, say). Retrying cannot help; its own contract file can.
        return {"the gateway is up but does not serve " +
                    (options.contractFile.empty() ? std::string("stormwatch's own contract (package mxgateway.v1)")
                                                  : "the contract in --gateway-contract '" + options.contractFile + "'") +
                    ": give it its own contract file with --gateway-contract FILE (check it first with "
                    "--check-contract FILE) (" + said + ")",
                true};
    case grpc::StatusCode::UNAVAILABLE: break;
    default: return {said, false};
    }
    if (!options.tls)
        return {said, false};
    // gRPC names the handshake's failure in the status text ("Ssl handshake failed: ...
    // certificate verify failed", "Peer name H is not in peer certificate").
    if (has("certificate verify failed") || has("CERTIFICATE_VERIFY_FAILED")) {
        const std::string& ca = options.tls->caFile;
        return {"TLS: the gateway's certificate is not trusted: it is not signed by " +
                    (ca.empty() ? std::string("a CA the system trusts (give its CA with --tls-ca FILE)")
                                : "the CA in --tls-ca '" + ca + "'") +
                    " (" + said + ")",
                true};
    }
    static const QRegularExpression peerName(QStringLiteral("Peer name (\\S+) is not in peer certificate"));
    if (const auto m = peerName.match(QString::fromStdString(status.message)); m.hasMatch())
        return {"TLS: the gateway's certificate is not issued for '" + escapeLogText(m.captured(1).toStdString(), 256) +
                    "', the host name in --gateway (connect by a name or address the certificate lists)",
                true};
    if (has("handshake") || has("ssl"))
        return {"TLS handshake with the gateway failed (does it serve TLS? does it want a client certificate, "
                "--tls-cert and --tls-key?): " + said,
                true};
    return {said, false};
}

std::string GrpcGatewayPort::describe() const
{
    std::string contract;
    if (!m_options.contractProfile.empty() || !m_options.contractFile.empty())
        contract = m_shared->codec ? ", contract " + std::string(m_shared->codec->check().profile->name) : ", contract unusable";
    return m_options.address + (m_options.tls ? " (TLS" + contract + ")" : contract.empty() ? "" : " (" + contract.substr(2) + ")");
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
        if (!shared->port)
            return;
        Call none;
        complete(status, none);
    });
}

void GrpcGatewayPort::completeCall(std::uint64_t key, const RpcStatus& status, Call& call)
{
    auto it = m_pending.find(key);
    if (it == m_pending.end())
        return;
    Complete complete = std::move(it->second);
    m_pending.erase(it);
    complete(status, call);
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
void GrpcGatewayPort::startUnary(const std::string& path, const std::string& request, const std::string& encodeError,
                                 Duration deadline, Complete complete)
{
    if (!m_setupError.empty()) {
        failLater(RpcStatus{grpc::StatusCode::FAILED_PRECONDITION, m_setupError}, std::move(complete));
        return;
    }
    if (!encodeError.empty()) {
        failLater(RpcStatus{grpc::StatusCode::FAILED_PRECONDITION, "not sent: " + encodeError}, std::move(complete));
        return;
    }
    auto call = std::make_shared<UnaryCall>();
    call->request = toByteBuffer(request);
    prepare(call->context, deadline);
    const std::uint64_t key = m_shared->add(call);
    m_pending.emplace(key, std::move(complete));
    m_shared->stub->UnaryCall(&call->context, path, grpc::StubOptions(), &call->request, &call->reply,
                              [shared = m_shared, call, key](grpc::Status status) {
                                  shared->postCompletion(key, status, call);
                                  shared->release(key);
                              });
}

namespace {

// A reply the gateway sent that does not read under its contract.
RpcStatus unreadable(const std::string& what, const std::string& error)
{
    return RpcStatus{grpc::StatusCode::INTERNAL, "the gateway's " + what + " does not read under its contract: " + error};
}

} // namespace

void GrpcGatewayPort::openSession(const OpenSessionRequest& request, OpenDone done)
{
    std::string bytes, error;
    if (m_shared->codec)
        m_shared->codec->encodeOpenRequest(request, bytes, error);
    startUnary(m_shared->codec ? m_shared->codec->openPath() : std::string(), bytes, error, m_options.connectTimeout,
               [codec = m_shared->codec, done = std::move(done)](const RpcStatus& status, Call& call) {
                   OpenSessionReply reply;
                   if (!status.ok())
                       return done(status, reply);
                   std::string why;
                   if (!codec->decodeOpenReply(replyOf(call), reply, why))
                       return done(RpcStatus{grpc::StatusCode::UNAVAILABLE, why}, OpenSessionReply{});
                   done(status, std::move(reply));
               });
}

void GrpcGatewayPort::closeSession(const CloseSessionRequest& request, CloseDone done)
{
    std::string bytes, error;
    if (m_shared->codec)
        m_shared->codec->encodeCloseRequest(request, bytes, error);
    startUnary(m_shared->codec ? m_shared->codec->closePath() : std::string(), bytes, error, m_options.connectTimeout,
               [done = std::move(done)](const RpcStatus& status, Call&) { done(status); });
}

void GrpcGatewayPort::invoke(const MxCommandRequest& request, InvokeDone done)
{
    std::string bytes, error;
    if (m_shared->codec && !m_shared->codec->encodeInvokeRequest(request, bytes, error))
        qCWarning(lcGrpcPort, "%s: a command not sent: %s", describe().c_str(), error.c_str());
    startUnary(m_shared->codec ? m_shared->codec->invokePath() : std::string(), bytes, error,
               m_options.invokeDeadline,
               [codec = m_shared->codec, done = std::move(done)](const RpcStatus& status, Call& call) {
                   MxCommandReply reply;
                   if (!status.ok())
                       return done(status, reply);
                   std::string why;
                   if (!codec->decodeInvokeReply(replyOf(call), reply, why))
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
    return !m_shared->codec || m_shared->codec->canSend("subscribe_alarms"); // no codec: nothing is sent anyway
}

bool GrpcGatewayPort::canResumeEvents() const
{
    return m_setupError.empty() && m_shared->codec && m_shared->codec->canResumeEvents();
}

GatewayPort::StreamId GrpcGatewayPort::resumeEvents(const StreamEventsRequest& request, std::uint64_t afterSequence,
                                                    EventFn onEvent, EndFn onEnd)
{
    const StreamId id = m_nextStream++;
    auto handlers = std::make_shared<StreamHandlers>();
    handlers->onEvent = std::move(onEvent);
    handlers->onEnd = std::move(onEnd);
    m_streams.emplace(id, handlers);
    if (!m_setupError.empty()) {
        m_owner.post([shared = m_shared, id,
                      status = RpcStatus{grpc::StatusCode::FAILED_PRECONDITION, m_setupError}] {
            if (shared->port)
                shared->port->deliverEnd(id, status);
        });
        return id;
    }
    std::string bytes, error;
    if (!m_shared->codec->encodeStreamRequest(request, afterSequence, bytes, error)) {
        m_owner.post([shared = m_shared, id, status = RpcStatus{grpc::StatusCode::FAILED_PRECONDITION, error}] {
            if (shared->port)
                shared->port->deliverEnd(id, status);
        });
        return id;
    }
    auto call = std::make_shared<StreamCall>(m_shared, id);
    call->self = call;
    call->request = toByteBuffer(bytes);
    prepare(call->context, Duration{0});
    call->key = m_shared->add(call);
    handlers->key = call->key;
    call->start();
    return id;
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
