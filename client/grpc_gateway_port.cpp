#include "grpc_gateway_port.h"

#include "log_text.h"

#include "mxaccess_gateway.grpc.pb.h"

#include <QLoggingCategory>
#include <QRegularExpression>
#include <algorithm>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <limits>
#include <grpcpp/grpcpp.h>
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

template <class Request, class Reply> struct UnaryCall final : GrpcGatewayPort::Call {
    Request request;
    Reply reply;
};

} // namespace

struct GrpcGatewayPort::Shared : std::enable_shared_from_this<Shared> {
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<MxAccessGateway::Stub> stub;
    GrpcGatewayPort* port = nullptr; // owner thread only; null once the port is gone

    mutable std::mutex mutex;
    std::condition_variable idle;
    Scheduler* scheduler = nullptr; // null once the port is gone: late completions drop
    std::unordered_map<std::uint64_t, std::shared_ptr<Call>> calls; // started, not released
    std::uint64_t nextKey = 1;

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
    void postEvent(StreamId id, std::shared_ptr<const MxEventBatch> event)
    {
        post([self = shared_from_this(), id, event] {
            if (self->port)
                self->port->deliverEvent(id, *event);
        });
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

// StreamEvents: each event read is handed to the owner in order, then the end.
class StreamCall final : public GrpcGatewayPort::Call, public grpc::ClientReadReactor<MxEvent> {
public:
    StreamCall(std::shared_ptr<GrpcGatewayPort::Shared> shared, GatewayPort::StreamId id)
        : m_shared(std::move(shared)), m_id(id)
    {
    }

    StreamEventsRequest request;
    std::uint64_t key = 0;

    void start()
    {
        m_shared->stub->async()->StreamEvents(&context, &request, this);
        StartRead(&m_event);
        StartCall();
    }

    void OnReadDone(bool ok) override
    {
        if (!ok)
            return; // OnDone follows with the status
        auto event = std::make_shared<MxEventBatch>();
        decodeEvent(m_event, *event);
        m_event.Clear(); // its sub-messages stay allocated for the next read
        m_shared->postEvent(m_id, std::move(event));
        StartRead(&m_event);
    }

    void OnDone(const grpc::Status& status) override
    {
        auto shared = m_shared; // `this` may be released below
        shared->postEnd(m_id, status);
        shared->release(key);
    }

private:
    std::shared_ptr<GrpcGatewayPort::Shared> m_shared;
    GatewayPort::StreamId m_id;
    MxEvent m_event;
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

    if (!m_setupError.empty()) {
        qCWarning(lcGrpcPort, "gateway port %s unusable: %s", describe().c_str(),
                  m_setupError.c_str());
        return;
    }

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
    m_shared->stub = MxAccessGateway::NewStub(m_shared->channel);
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
    return {};
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
        return {"the gateway denied these credentials (" + said + ")", true};
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
    return m_options.address + (m_options.tls ? " (TLS)" : "");
}

void GrpcGatewayPort::prepare(grpc::ClientContext& context, Duration deadline) const
{
    if (!m_authorization.empty())
        context.AddMetadata("authorization", m_authorization);
    if (deadline.count() > 0)
        context.set_deadline(std::chrono::system_clock::now() + deadline);
}

void GrpcGatewayPort::failLater(Complete complete)
{
    RpcStatus status{grpc::StatusCode::FAILED_PRECONDITION, m_setupError};
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

namespace {

// Reply type of a unary call, handed to the typed completion.
template <class Request, class Reply> Reply takeReply(GrpcGatewayPort::Call& call)
{
    if (auto* typed = dynamic_cast<UnaryCall<Request, Reply>*>(&call))
        return std::move(typed->reply);
    return Reply{}; // the call never went out (setup error)
}

} // namespace

// One unary call: registered for cancellation before it starts, its typed completion kept
// on the owner's side; the gRPC completion only posts the result.
template <class Request, class Reply, class Issue>
void GrpcGatewayPort::startUnary(const Request& request, Duration deadline,
                                 std::function<void(RpcStatus, Reply)> done, Issue issue)
{
    Complete complete = [done = std::move(done)](const RpcStatus& status, Call& call) {
        done(status, takeReply<Request, Reply>(call));
    };
    if (!m_setupError.empty()) {
        failLater(std::move(complete));
        return;
    }
    auto call = std::make_shared<UnaryCall<Request, Reply>>();
    call->request = request;
    prepare(call->context, deadline);
    const std::uint64_t key = m_shared->add(call);
    m_pending.emplace(key, std::move(complete));
    issue(m_shared->stub->async(), &call->context, &call->request, &call->reply,
          [shared = m_shared, call, key](grpc::Status status) {
              shared->postCompletion(key, status, call);
              shared->release(key);
          });
}

void GrpcGatewayPort::openSession(const OpenSessionRequest& request, OpenDone done)
{
    startUnary<OpenSessionRequest, OpenSessionReply>(
        request, m_options.connectTimeout, std::move(done),
        [](auto* stub, auto* context, auto* req, auto* reply, auto fn) {
            stub->OpenSession(context, req, reply, std::move(fn));
        });
}

void GrpcGatewayPort::closeSession(const CloseSessionRequest& request, CloseDone done)
{
    startUnary<CloseSessionRequest, CloseSessionReply>(
        request, m_options.connectTimeout,
        [done = std::move(done)](RpcStatus status, CloseSessionReply) { done(std::move(status)); },
        [](auto* stub, auto* context, auto* req, auto* reply, auto fn) {
            stub->CloseSession(context, req, reply, std::move(fn));
        });
}

void GrpcGatewayPort::invoke(const MxCommandRequest& request, InvokeDone done)
{
    startUnary<MxCommandRequest, MxCommandReply>(
        request, m_options.invokeDeadline, std::move(done),
        [](auto* stub, auto* context, auto* req, auto* reply, auto fn) {
            stub->Invoke(context, req, reply, std::move(fn));
        });
}

GatewayPort::StreamId GrpcGatewayPort::streamEvents(const StreamEventsRequest& request,
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
    auto call = std::make_shared<StreamCall>(m_shared, id);
    call->request = request;
    prepare(call->context, Duration{0});
    call->key = m_shared->add(call);
    handlers->key = call->key;
    call->start();
    return id;
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
