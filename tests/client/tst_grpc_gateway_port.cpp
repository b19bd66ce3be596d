// GrpcGatewayPort against a scripted in-test gRPC gateway on 127.0.0.1 (ephemeral port):
// round trips, owner-thread callbacks, status pass-through, event stream order and end,
// cancellation, destruction with calls in flight, bearer token, validation, TLS.
#include "client/gateway_connection.h"
#include "client/grpc_gateway_port.h"
#include "client/qt_scheduler.h"
#include "mxaccess_gateway.grpc.pb.h"
#include "test_paths.h"
#include "wire/wire_codec.h"

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>
#include <algorithm>
#include <atomic>
#include <grpcpp/grpcpp.h>
#include <limits>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

using namespace stormwatch;
using namespace mxgateway::v1;
using namespace std::chrono_literals;

namespace {

constexpr int kWaitMs = 5000;
const char* const kToken = "s3cret-token-123";
// A peer's text that would forge a second log line and colour the terminal.
const char* const kForgedText = "x\nstormwatch.client: forged line\x1b[31mRED";

// ---- the scripted gateway -----------------------------------------------------------------
// Invoke by correlation id prefix: "hold…" waits until released, "deadline…" fails with
// DEADLINE_EXCEEDED, "unavailable…" with UNAVAILABLE, anything else succeeds.
// StreamEvents by session id "ok:N" / "fail:N" / "forged:N" / "hold:N": N events
// (item_handle 0..N-1), then OK, UNAVAILABLE, UNAVAILABLE with kForgedText, or stay open
// until the client cancels (also any other session id).
class FakeGateway final : public MxAccessGateway::CallbackService {
public:
    std::string expectedAuthorization; // empty: no check
    // Set before use: OpenSession fails UNAVAILABLE with this text (a hostile gateway's).
    std::string openError;
    // Set before use: echoed as default_command_timeout whatever was asked.
    std::optional<google::protobuf::Duration> echoedTimeout;

    grpc::ServerUnaryReactor* OpenSession(grpc::CallbackServerContext* context,
                                          const OpenSessionRequest* request,
                                          OpenSessionReply* reply) override
    {
        auto* reactor = context->DefaultReactor();
        if (!authorized(context)) {
            reactor->Finish(unauthenticated());
            return reactor;
        }
        if (!openError.empty()) {
            reactor->Finish(grpc::Status(grpc::StatusCode::UNAVAILABLE, openError));
            return reactor;
        }
        reply->set_session_id("session-" + request->client_name());
        for (const char* capability : {"unary-open-session", "unary-invoke", "server-stream-events",
                                       "bulk-subscribe-supervisory"})
            reply->add_capabilities(capability);
        if (echoedTimeout)
            *reply->mutable_default_command_timeout() = *echoedTimeout;
        else if (request->has_command_timeout())
            *reply->mutable_default_command_timeout() = request->command_timeout();
        else
            reply->mutable_default_command_timeout()->set_seconds(30);
        reply->set_gateway_protocol_version(3);
        reactor->Finish(grpc::Status::OK);
        return reactor;
    }

    grpc::ServerUnaryReactor* CloseSession(grpc::CallbackServerContext* context,
                                           const CloseSessionRequest* request,
                                           CloseSessionReply*) override
    {
        auto* reactor = context->DefaultReactor();
        if (!authorized(context)) {
            reactor->Finish(unauthenticated());
            return reactor;
        }
        {
            std::lock_guard lock(m_mutex);
            m_closed.push_back(request->session_id());
        }
        reactor->Finish(grpc::Status::OK);
        return reactor;
    }

    grpc::ServerUnaryReactor* Invoke(grpc::CallbackServerContext* context,
                                     const MxCommandRequest* request,
                                     MxCommandReply* reply) override
    {
        auto* reactor = context->DefaultReactor();
        const std::string& id = request->client_correlation_id();
        if (!authorized(context)) {
            reactor->Finish(unauthenticated());
        } else if (id.rfind("hold", 0) == 0) {
            reply->set_client_correlation_id(id);
            reply->set_success(true);
            std::lock_guard lock(m_mutex);
            m_held.push_back(reactor);
        } else if (id.rfind("deadline", 0) == 0) {
            reactor->Finish(grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED,
                                         "command not run within the session command timeout"));
        } else if (id.rfind("unavailable", 0) == 0) {
            reactor->Finish(grpc::Status(grpc::StatusCode::UNAVAILABLE, "gateway restarting"));
        } else {
            reply->set_client_correlation_id(id);
            reply->set_success(true);
            if (request->command().has_register_())
                reply->mutable_register_()->set_server_handle(7);
            reactor->Finish(grpc::Status::OK);
        }
        return reactor;
    }

    grpc::ServerWriteReactor<MxEvent>* StreamEvents(grpc::CallbackServerContext* context,
                                                    const StreamEventsRequest* request) override;

    int heldInvokes() const
    {
        std::lock_guard lock(m_mutex);
        return int(m_held.size());
    }
    void releaseHeld()
    {
        std::vector<grpc::ServerUnaryReactor*> held;
        {
            std::lock_guard lock(m_mutex);
            held.swap(m_held);
        }
        for (auto* reactor : held)
            reactor->Finish(grpc::Status::OK);
    }
    std::vector<std::string> authorizations() const
    {
        std::lock_guard lock(m_mutex);
        return m_authorizations;
    }
    std::vector<std::string> closed() const
    {
        std::lock_guard lock(m_mutex);
        return m_closed;
    }

    std::atomic<int> streamsStarted{0};
    std::atomic<int> streamsCancelled{0};
    std::atomic<int> streamsDone{0};

private:
    bool authorized(grpc::CallbackServerContext* context)
    {
        const auto& metadata = context->client_metadata();
        auto it = metadata.find("authorization");
        const std::string seen = it == metadata.end()
                                     ? std::string()
                                     : std::string(it->second.data(), it->second.size());
        std::lock_guard lock(m_mutex);
        m_authorizations.push_back(seen);
        return expectedAuthorization.empty() || seen == expectedAuthorization;
    }
    static grpc::Status unauthenticated()
    {
        return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "missing or wrong bearer token");
    }

    mutable std::mutex m_mutex;
    std::vector<grpc::ServerUnaryReactor*> m_held;
    std::vector<std::string> m_authorizations;
    std::vector<std::string> m_closed;
};

class EventWriter final : public grpc::ServerWriteReactor<MxEvent> {
public:
    enum class Ending { Ok, Unavailable, Forged, Hold, Kinds };

    EventWriter(FakeGateway& gateway, int count, Ending ending)
        : m_gateway(gateway), m_count(ending == Ending::Kinds ? 2 : count), m_ending(ending)
    {
        ++m_gateway.streamsStarted;
        std::lock_guard lock(m_mutex);
        next();
    }

    void OnWriteDone(bool ok) override
    {
        std::lock_guard lock(m_mutex);
        m_writing = false;
        if (!ok)
            finish(grpc::Status::CANCELLED);
        else
            next();
    }
    void OnCancel() override
    {
        ++m_gateway.streamsCancelled;
        std::lock_guard lock(m_mutex);
        if (!m_writing) // a pending write fails and finishes instead
            finish(grpc::Status::CANCELLED);
    }
    void OnDone() override
    {
        ++m_gateway.streamsDone;
        delete this;
    }

private:
    void next()
    {
        if (m_ending == Ending::Kinds && m_sent < m_count) {
            writeEveryKind();
        } else if (m_sent < m_count) {
            m_event.Clear();
            auto* change = m_event.mutable_data_changes()->add_changes();
            change->set_item_handle(m_sent++);
            change->set_quality(192);
            change->mutable_value()->set_double_value(m_sent * 1.5);
            m_writing = true;
            StartWrite(&m_event);
        } else if (m_ending == Ending::Ok || m_ending == Ending::Kinds) {
            finish(grpc::Status::OK);
        } else if (m_ending == Ending::Unavailable) {
            finish(grpc::Status(grpc::StatusCode::UNAVAILABLE, "event source restarting"));
        } else if (m_ending == Ending::Forged) {
            finish(grpc::Status(grpc::StatusCode::UNAVAILABLE, kForgedText));
        } // Hold: finished by OnCancel
    }
    // "kinds": one data event with a change of every MxValue kind, then a notice.
    void writeEveryKind()
    {
        m_event.Clear();
        if (m_sent++ == 0) {
            auto add = [&](int handle, int quality, std::int64_t seconds, int nanos) {
                auto* c = m_event.mutable_data_changes()->add_changes();
                c->set_server_handle(7);
                c->set_item_handle(handle);
                c->set_quality(quality);
                c->mutable_source_timestamp()->set_seconds(seconds);
                c->mutable_source_timestamp()->set_nanos(nanos);
                return c->mutable_value();
            };
            add(1, 192, 1'700'000'000, 250'000'000)->set_double_value(-2.5);
            add(2, 64, 1'700'000'000, 250'000'000)->set_int_value((std::int64_t(1) << 53) + 1);
            add(3, 0, 1'700'000'001, 999'999)->set_string_value("open \u00e9 valve");
            add(4, 192, -5, 0)->set_bool_value(true);
            add(5, 192, std::numeric_limits<std::int64_t>::max(), 0); // no value, absurd seconds
            add(6, 192, 1'700'000'002, 0)->set_string_value("second");
        } else {
            m_event.mutable_notice()->set_kind("backlog-overflow");
            m_event.mutable_notice()->set_message("3 coalesced");
        }
        m_writing = true;
        StartWrite(&m_event);
    }
    void finish(const grpc::Status& status)
    {
        if (m_finished)
            return;
        m_finished = true;
        Finish(status);
    }

    FakeGateway& m_gateway;
    std::mutex m_mutex;
    MxEvent m_event;
    int m_count;
    int m_sent = 0;
    Ending m_ending;
    bool m_writing = false;
    bool m_finished = false;
};

grpc::ServerWriteReactor<MxEvent>* FakeGateway::StreamEvents(grpc::CallbackServerContext* context,
                                                             const StreamEventsRequest* request)
{
    if (!authorized(context)) {
        auto* reactor = new EventWriter(*this, 0, EventWriter::Ending::Unavailable);
        return reactor;
    }
    const std::string& script = request->session_id();
    const auto colon = script.find(':');
    const std::string mode = script.substr(0, colon);
    const int count = colon == std::string::npos ? 0 : std::atoi(script.c_str() + colon + 1);
    // Any other session id (a real session's) gets a quiet stream that stays open.
    const auto ending = mode == "ok"       ? EventWriter::Ending::Ok
                        : mode == "fail"   ? EventWriter::Ending::Unavailable
                        : mode == "forged" ? EventWriter::Ending::Forged
                        : mode == "kinds"  ? EventWriter::Ending::Kinds
                                           : EventWriter::Ending::Hold;
    return new EventWriter(*this, count, ending);
}

class TestServer {
public:
    explicit TestServer(
        std::shared_ptr<grpc::ServerCredentials> credentials = grpc::InsecureServerCredentials())
    {
        grpc::ServerBuilder builder;
        builder.AddListeningPort("127.0.0.1:0", credentials, &m_port);
        builder.RegisterService(&gateway);
        m_server = builder.BuildAndStart();
    }
    ~TestServer() { stop(); }
    void stop()
    {
        if (!m_server)
            return;
        gateway.releaseHeld();
        m_server->Shutdown(std::chrono::system_clock::now() + 2s);
        m_server.reset();
    }
    bool running() const { return m_server && m_port > 0; }
    int port() const { return m_port; }
    std::string address() const { return "127.0.0.1:" + std::to_string(m_port); }

    FakeGateway gateway;

private:
    std::unique_ptr<grpc::Server> m_server;
    int m_port = 0;
};

GrpcPortOptions optionsFor(const std::string& address)
{
    GrpcPortOptions options;
    options.address = address;
    return options;
}

MxCommandRequest command(const std::string& correlationId)
{
    MxCommandRequest request;
    request.set_session_id("s");
    request.set_client_correlation_id(correlationId);
    request.mutable_command()->mutable_register_()->set_client_name("test");
    return request;
}

StreamEventsRequest streamScript(const std::string& script)
{
    StreamEventsRequest request;
    request.set_session_id(script);
    return request;
}

bool writeFile(const QString& path, const QByteArray& data)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(data) == data.size();
}

// A self-signed EC certificate (its own CA) for the subject alternative names `san`, made
// with the openssl CLI; {cert, key} PEM paths in `dir`, or empty strings when it failed.
std::pair<QString, QString> makeCertificate(const QTemporaryDir& dir, const QString& name,
                                            const QString& san)
{
    const QString openssl = QStandardPaths::findExecutable(QStringLiteral("openssl"));
    const QString cert = dir.filePath(name + "-cert.pem");
    const QString key = dir.filePath(name + "-key.pem");
    QProcess make;
    make.start(openssl,
               {"req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                "-nodes", "-days", "1", "-subj", "/CN=" + name, "-addext", "subjectAltName=" + san,
                "-keyout", key, "-out", cert});
    if (openssl.isEmpty() || !make.waitForFinished(10000) || make.exitCode() != 0)
        return {};
    return {cert, key};
}

std::string readText(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll().toStdString() : std::string();
}

std::shared_ptr<grpc::ServerCredentials> serverTls(const QString& cert, const QString& key)
{
    grpc::SslServerCredentialsOptions tls;
    tls.pem_key_cert_pairs.push_back({readText(key), readText(cert)});
    return grpc::SslServerCredentials(tls);
}

// Everything logged while alive (all stormwatch categories enabled).
QStringList g_logged;
std::mutex g_logMutex;
void captureMessage(QtMsgType, const QMessageLogContext&, const QString& message)
{
    std::lock_guard lock(g_logMutex);
    g_logged << message;
}

} // namespace

class TestGrpcGatewayPort : public QObject {
    Q_OBJECT

    // Lets every task already posted to the owner run (posts are FIFO).
    void drainOwner(QtScheduler& owner)
    {
        bool drained = false;
        owner.post([&] { drained = true; });
        QTRY_VERIFY_WITH_TIMEOUT(drained, kWaitMs);
    }

private slots:
    void openInvokeCloseRoundTripOnTheOwnerThread()
    {
        TestServer server;
        QVERIFY(server.running());
        QtScheduler owner;
        GrpcGatewayPort port(owner, optionsFor(server.address()));
        QVERIFY(port.setupError().empty());
        QThread* const testThread = QThread::currentThread();

        OpenSessionRequest open;
        open.set_client_name("stormwatch/gw1");
        open.mutable_command_timeout()->set_seconds(12);
        bool returned = false, opened = false, calledInline = false;
        OpenSessionReply openReply;
        port.openSession(open, [&](RpcStatus status, OpenSessionReply reply) {
            calledInline = !returned;
            QCOMPARE(QThread::currentThread(), testThread);
            QVERIFY2(status.ok(), status.toString().c_str());
            openReply = std::move(reply);
            opened = true;
        });
        returned = true;
        QTRY_VERIFY_WITH_TIMEOUT(opened, kWaitMs);
        QVERIFY(!calledInline);
        QCOMPARE(openReply.session_id(), std::string("session-stormwatch/gw1"));
        QCOMPARE(openReply.capabilities_size(), 4);
        QCOMPARE(openReply.capabilities(3), std::string("bulk-subscribe-supervisory"));
        QCOMPARE(openReply.default_command_timeout().seconds(), std::int64_t(12));
        QCOMPARE(openReply.gateway_protocol_version(), 3);

        bool invoked = false;
        MxCommandReply invokeReply;
        returned = false;
        port.invoke(command("gw1-1"), [&](RpcStatus status, MxCommandReply reply) {
            calledInline = !returned;
            QCOMPARE(QThread::currentThread(), testThread);
            QVERIFY2(status.ok(), status.toString().c_str());
            invokeReply = std::move(reply);
            invoked = true;
        });
        returned = true;
        QTRY_VERIFY_WITH_TIMEOUT(invoked, kWaitMs);
        QVERIFY(!calledInline);
        QCOMPARE(invokeReply.client_correlation_id(), std::string("gw1-1"));
        QVERIFY(invokeReply.success());
        QCOMPARE(invokeReply.register_().server_handle(), 7);

        CloseSessionRequest close;
        close.set_session_id(openReply.session_id());
        bool closed = false;
        port.closeSession(close, [&](RpcStatus status) {
            QCOMPARE(QThread::currentThread(), testThread);
            QVERIFY(status.ok());
            closed = true;
        });
        QTRY_VERIFY_WITH_TIMEOUT(closed, kWaitMs);
        QCOMPARE(server.gateway.closed(), std::vector<std::string>{"session-stormwatch/gw1"});
        QTRY_COMPARE_WITH_TIMEOUT(port.callsInFlight(), std::size_t(0), kWaitMs);
        QCOMPARE(port.describe(), server.address());
    }

    void errorStatusesPassThroughWithCodeAndMessage()
    {
        TestServer server;
        QtScheduler owner;
        GrpcGatewayPort port(owner, optionsFor(server.address()));
        std::optional<RpcStatus> deadline, unavailable;
        port.invoke(command("deadline-1"), [&](RpcStatus s, MxCommandReply) { deadline = s; });
        port.invoke(command("unavailable-1"),
                    [&](RpcStatus s, MxCommandReply) { unavailable = s; });
        QTRY_VERIFY_WITH_TIMEOUT(deadline && unavailable, kWaitMs);
        QCOMPARE(deadline->code, grpc::StatusCode::DEADLINE_EXCEEDED);
        QCOMPARE(deadline->message,
                 std::string("command not run within the session command timeout"));
        QVERIFY(deadline->transient());
        QCOMPARE(unavailable->code, grpc::StatusCode::UNAVAILABLE);
        QCOMPARE(unavailable->message, std::string("gateway restarting"));
    }

    void invokeDeadlineEndsASlowCallOnTheClient()
    {
        TestServer server;
        QtScheduler owner;
        auto options = optionsFor(server.address());
        options.invokeDeadline = 150ms;
        GrpcGatewayPort port(owner, options);
        std::optional<RpcStatus> slow;
        QElapsedTimer clock;
        clock.start();
        port.invoke(command("hold-1"), [&](RpcStatus s, MxCommandReply) { slow = s; });
        QTRY_VERIFY_WITH_TIMEOUT(slow.has_value(), kWaitMs);
        QCOMPARE(slow->code, grpc::StatusCode::DEADLINE_EXCEEDED);
        QVERIFY(clock.elapsed() >= 140);
        QCOMPARE(server.gateway.heldInvokes(), 1); // the gateway never answered
    }

    // Review finding on a75e39d: with seconds clamped to what microseconds since 1970 can
    // hold, a peer's nanos beyond a Timestamp's range (INT32_MAX) overflowed the sum. Nanos
    // are clamped to [0, 1e9) as well, at both ends of the range.
    void absurdNanosAreClampedAndDoNotOverflow()
    {
        MxEvent event;
        auto* changes = event.mutable_data_changes()->mutable_changes();
        auto add = [&](std::int64_t seconds, std::int32_t nanos) {
            DataChange* c = changes->Add();
            c->mutable_value()->set_double_value(1);
            c->mutable_source_timestamp()->set_seconds(seconds);
            c->mutable_source_timestamp()->set_nanos(nanos);
        };
        add(std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int32_t>::max());
        add(std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int32_t>::min());
        add(10, 2'000'000'000);
        MxEventBatch out;
        wire::EventMeta meta;
        QVERIFY(wire::WireCodec::compiled()->decodeEvent(event.SerializeAsString(), out, meta));
        QCOMPARE(out.changes.size(), std::size_t(3));
        constexpr std::int64_t kMaxSeconds = std::numeric_limits<std::int64_t>::max() / 1000000 - 1;
        QCOMPARE(out.changes[0].sourceTimestampUs, kMaxSeconds * 1000000 + 999'999);
        QCOMPARE(out.changes[1].sourceTimestampUs, -kMaxSeconds * 1000000);
        QCOMPARE(out.changes[2].sourceTimestampUs, std::int64_t(10'999'999));
    }

    // The port hands the connection the native batch (proto/mx_event_batch.h), decoded from
    // a real gRPC stream: every MxValue kind, quality, handle and source timestamp (absurd
    // seconds clamped), texts by index, and a notice.
    void wireEventOfEveryKindDecodesToTheNativeBatch()
    {
        TestServer server;
        QtScheduler owner;
        GrpcGatewayPort port(owner, optionsFor(server.address()));
        std::vector<MxEventBatch> events;
        std::optional<RpcStatus> end;
        port.streamEvents(
            streamScript("kinds"), [&](const MxEventBatch& event) { events.push_back(event); },
            [&](RpcStatus status) { end = status; });
        QTRY_VERIFY_WITH_TIMEOUT(end.has_value(), kWaitMs);
        QVERIFY(end->ok());
        QCOMPARE(events.size(), std::size_t(2));

        const MxEventBatch& data = events[0];
        QCOMPARE(data.kind, MxEventBatch::Kind::DataChanges);
        QCOMPARE(data.changes.size(), std::size_t(6));
        for (std::size_t i = 0; i < data.changes.size(); ++i) {
            QCOMPARE(data.changes[i].serverHandle, 7);
            QCOMPARE(data.changes[i].itemHandle, int(i + 1));
        }
        const MxChange& d = data.changes[0];
        QCOMPARE(d.kind, MxValueKind::Double);
        QCOMPARE(d.numeric(), -2.5);
        QCOMPARE(d.quality, 192);
        QCOMPARE(d.sourceTimestampUs, std::int64_t(1'700'000'000'250'000));
        const MxChange& i = data.changes[1];
        QCOMPARE(i.kind, MxValueKind::Int);
        QCOMPARE(i.integer, (std::int64_t(1) << 53) + 1); // exact, not through a double
        QCOMPARE(i.numeric(), double((std::int64_t(1) << 53) + 1));
        QCOMPARE(i.quality, 64);
        QCOMPARE(i.sourceTimestampUs, std::int64_t(1'700'000'000'250'000)); // shared stamp reused
        const MxChange& t = data.changes[2];
        QCOMPARE(t.kind, MxValueKind::String);
        QCOMPARE(data.textOf(t), std::string("open \u00e9 valve"));
        QCOMPARE(t.numeric(), 0.0); // a text has no number, as before
        QCOMPARE(t.quality, 0);
        QCOMPARE(t.sourceTimestampUs, std::int64_t(1'700'000'001'000'999)); // nanos truncated to µs
        const MxChange& b = data.changes[3];
        QCOMPARE(b.kind, MxValueKind::Bool);
        QCOMPARE(b.numeric(), 1.0);
        QCOMPARE(b.sourceTimestampUs, std::int64_t(-5'000'000));
        const MxChange& none = data.changes[4];
        QCOMPARE(none.kind, MxValueKind::None);
        QCOMPARE(none.numeric(), 0.0);
        constexpr std::int64_t kMaxSeconds = std::numeric_limits<std::int64_t>::max() / 1000000 - 1;
        QCOMPARE(none.sourceTimestampUs, kMaxSeconds * 1000000); // clamped: no overflow
        const MxChange& t2 = data.changes[5];
        QCOMPARE(t2.kind, MxValueKind::String);
        QCOMPARE(data.textOf(t2), std::string("second"));
        QCOMPARE(data.texts.size(), std::size_t(2)); // only String values have a text

        const MxEventBatch& notice = events[1];
        QCOMPARE(notice.kind, MxEventBatch::Kind::Notice);
        QCOMPARE(notice.noticeKind, std::string("backlog-overflow"));
        QCOMPARE(notice.noticeMessage, std::string("3 coalesced"));
        QVERIFY(notice.changes.empty());

        // An event with neither case set is neither data nor a notice.
        MxEventBatch empty = data;
        wire::EventMeta meta;
        QVERIFY(
            wire::WireCodec::compiled()->decodeEvent(MxEvent{}.SerializeAsString(), empty, meta));
        QCOMPARE(empty.kind, MxEventBatch::Kind::Empty);
        QVERIFY(empty.changes.empty() && empty.texts.empty());
    }

    void streamDeliversEventsInOrderThenEnd()
    {
        TestServer server;
        QtScheduler owner;
        GrpcGatewayPort port(owner, optionsFor(server.address()));
        QThread* const testThread = QThread::currentThread();

        std::vector<int> handles;
        std::vector<RpcStatus> ends;
        bool eventAfterEnd = false, offThread = false;
        port.streamEvents(
            streamScript("ok:200"),
            [&](const MxEventBatch& event) {
                offThread |= QThread::currentThread() != testThread;
                eventAfterEnd |= !ends.empty();
                handles.push_back(event.changes.at(0).itemHandle);
            },
            [&](RpcStatus status) {
                offThread |= QThread::currentThread() != testThread;
                ends.push_back(status);
            });
        QTRY_COMPARE_WITH_TIMEOUT(ends.size(), std::size_t(1), kWaitMs);
        QVERIFY(!offThread);
        QVERIFY(!eventAfterEnd);
        QVERIFY(ends[0].ok());
        QCOMPARE(handles.size(), std::size_t(200));
        for (int i = 0; i < 200; ++i)
            QCOMPARE(handles[std::size_t(i)], i);

        // A stream the gateway ends with an error: its events, then the status.
        int failedEvents = 0;
        std::optional<RpcStatus> failedEnd;
        port.streamEvents(
            streamScript("fail:5"), [&](const MxEventBatch&) { ++failedEvents; },
            [&](RpcStatus status) { failedEnd = status; });
        QTRY_VERIFY_WITH_TIMEOUT(failedEnd.has_value(), kWaitMs);
        QCOMPARE(failedEvents, 5);
        QCOMPARE(failedEnd->code, grpc::StatusCode::UNAVAILABLE);
        QCOMPARE(failedEnd->message, std::string("event source restarting"));
        drainOwner(owner);
        QCOMPARE(ends.size(), std::size_t(1)); // onEnd at most once
        QTRY_COMPARE_WITH_TIMEOUT(port.callsInFlight(), std::size_t(0), kWaitMs);
    }

    void cancelStreamEndsTheCallWithoutOnEnd()
    {
        TestServer server;
        QtScheduler owner;
        GrpcGatewayPort port(owner, optionsFor(server.address()));
        int events = 0;
        bool ended = false;
        const auto id = port.streamEvents(
            streamScript("hold:3"), [&](const MxEventBatch&) { ++events; },
            [&](RpcStatus) { ended = true; });
        QTRY_COMPARE_WITH_TIMEOUT(events, 3, kWaitMs);
        QCOMPARE(port.callsInFlight(), std::size_t(1));
        port.cancelStream(id);
        // The gateway sees the cancel and gRPC releases the reactor...
        QTRY_COMPARE_WITH_TIMEOUT(server.gateway.streamsCancelled.load(), 1, kWaitMs);
        QTRY_COMPARE_WITH_TIMEOUT(port.callsInFlight(), std::size_t(0), kWaitMs);
        drainOwner(owner); // ...and the end it posted is dropped
        QVERIFY(!ended);
        QCOMPARE(events, 3);
        port.cancelStream(id);      // twice: harmless
        port.cancelStream(id + 99); // unknown: harmless
    }

    void cancelStreamFromInsideOnEventStopsDelivery()
    {
        TestServer server;
        QtScheduler owner;
        GrpcGatewayPort port(owner, optionsFor(server.address()));
        int events = 0;
        bool ended = false;
        GatewayPort::StreamId id = 0;
        id = port.streamEvents(
            streamScript("ok:500"),
            [&](const MxEventBatch&) {
                if (++events == 2)
                    port.cancelStream(id);
            },
            [&](RpcStatus) { ended = true; });
        QTRY_COMPARE_WITH_TIMEOUT(port.callsInFlight(), std::size_t(0), kWaitMs);
        drainOwner(owner);
        QCOMPARE(events, 2); // events already posted when it was cancelled are dropped
        QVERIFY(!ended);
    }

    void destroyingThePortWithCallsInFlightIsSafe()
    {
        TestServer server;
        QtScheduler owner;
        auto port = std::make_unique<GrpcGatewayPort>(owner, optionsFor(server.address()));
        int callbacks = 0;
        port->invoke(command("hold-1"), [&](RpcStatus, MxCommandReply) { ++callbacks; });
        port->invoke(command("hold-2"), [&](RpcStatus, MxCommandReply) { ++callbacks; });
        port->streamEvents(
            streamScript("hold:0"), [&](const MxEventBatch&) { ++callbacks; },
            [&](RpcStatus) { ++callbacks; });
        QTRY_COMPARE_WITH_TIMEOUT(server.gateway.heldInvokes(), 2, kWaitMs);
        QTRY_COMPARE_WITH_TIMEOUT(server.gateway.streamsStarted.load(), 1, kWaitMs);
        QCOMPARE(port->callsInFlight(), std::size_t(3));

        const std::weak_ptr<grpc::Channel> channel = port->channel();
        QVERIFY(!channel.expired());
        QElapsedTimer clock;
        clock.start();
        port.reset(); // cancels and waits for gRPC to release all three
        QVERIFY2(clock.elapsed() < 2000, "destruction waited for the shutdown bound");
        QVERIFY2(channel.expired(), "the channel outlived its port");
        QTRY_COMPARE_WITH_TIMEOUT(server.gateway.streamsCancelled.load(), 1, kWaitMs);
        server.gateway.releaseHeld(); // late answers reach no one
        drainOwner(owner);
        QCOMPARE(callbacks, 0);
    }

    // The port releases the channel itself, on the owner's thread, once every call is gone.
    // Released last by a call on a gRPC thread, the channel's teardown would join gRPC's
    // callback threads from one of them, and free the queue that thread still polls. Calls
    // that end as the port goes (one answered meanwhile, a stream cancelled) make that race
    // likely; in every round the channel is gone when the destructor returns.
    void theChannelEndsWithThePortWhateverItsCallsAreDoing()
    {
        TestServer server;
        for (int round = 0; round < 40; ++round) {
            QtScheduler owner;
            auto port = std::make_unique<GrpcGatewayPort>(owner, optionsFor(server.address()));
            const std::weak_ptr<grpc::Channel> channel = port->channel();
            bool answered = false;
            port->invoke(command("gw1-1"), [&](RpcStatus, MxCommandReply) { answered = true; });
            QTRY_VERIFY_WITH_TIMEOUT(answered, kWaitMs); // the channel is connected
            const int streams = server.gateway.streamsStarted.load();
            port->streamEvents(
                streamScript("hold:0"), [](const MxEventBatch&) {}, [](RpcStatus) {});
            port->invoke(command("gw1-2"), [](RpcStatus, MxCommandReply) {});
            if (round % 2) // else it goes before the server may have seen it
                QTRY_VERIFY_WITH_TIMEOUT(server.gateway.streamsStarted.load() > streams, kWaitMs);
            port.reset();
            QVERIFY2(channel.expired(), qPrintable(QStringLiteral("round %1").arg(round)));
            drainOwner(owner);
        }
    }

    // A port destroyed while its reader is stalled: the parked read holds its stream's call,
    // which is dropped rather than waited for, and the channel still ends with the port.
    void destroyingThePortWhileItsReaderIsStalledIsQuick()
    {
        TestServer server;
        QtScheduler owner;
        auto port = std::make_unique<GrpcGatewayPort>(owner, optionsFor(server.address()));
        int events = 0;
        port->streamEvents(
            streamScript("hold:3"), [&](const MxEventBatch&) { ++events; }, [](RpcStatus) {});
        QTRY_VERIFY_WITH_TIMEOUT(events >= 1, kWaitMs);
        port->stallReader(std::chrono::seconds(30));
        const std::weak_ptr<grpc::Channel> channel = port->channel();
        QElapsedTimer clock;
        clock.start();
        port.reset();
        QVERIFY2(clock.elapsed() < 2000, "destruction waited for the shutdown bound");
        QVERIFY(channel.expired());
        drainOwner(owner);
    }

    void resultsPostedBeforeDestructionAreDropped()
    {
        TestServer server;
        QtScheduler owner;
        auto port = std::make_unique<GrpcGatewayPort>(owner, optionsFor(server.address()));
        bool called = false;
        port->invoke(command("gw1-1"), [&](RpcStatus, MxCommandReply) { called = true; });
        // Without running the owner's loop: wait until gRPC has posted the completion.
        QElapsedTimer clock;
        clock.start();
        while (port->callsInFlight() != 0 && clock.elapsed() < kWaitMs)
            std::this_thread::yield();
        QCOMPARE(port->callsInFlight(), std::size_t(0));
        QVERIFY(!called);
        port.reset();
        drainOwner(owner);
        QVERIFY(!called);
    }

    void noServerGivesUnavailable()
    {
        int port = 0;
        {
            TestServer closed; // bind an ephemeral port, then free it
            QVERIFY(closed.running());
            port = closed.port();
        }
        QtScheduler owner;
        GrpcGatewayPort gateway(owner, optionsFor("127.0.0.1:" + std::to_string(port)));
        std::optional<RpcStatus> open;
        gateway.openSession(OpenSessionRequest{}, [&](RpcStatus s, OpenSessionReply) { open = s; });
        QTRY_VERIFY_WITH_TIMEOUT(open.has_value(), kWaitMs);
        QCOMPARE(open->code, grpc::StatusCode::UNAVAILABLE);
        QVERIFY(open->transient());
        std::optional<RpcStatus> end;
        gateway.streamEvents(
            streamScript("ok:1"), [](const MxEventBatch&) {}, [&](RpcStatus s) { end = s; });
        QTRY_VERIFY_WITH_TIMEOUT(end.has_value(), kWaitMs);
        QCOMPARE(end->code, grpc::StatusCode::UNAVAILABLE);
    }

    void bearerTokenIsSentAndNeverShown()
    {
        QTemporaryDir dir;
        const QString tokenPath = dir.filePath("token");
        QVERIFY(writeFile(tokenPath, QByteArray(kToken) + "\n"));
        TestServer server;
        server.gateway.expectedAuthorization = std::string("Bearer ") + kToken;

        QLoggingCategory::setFilterRules(QStringLiteral("stormwatch.*=true"));
        g_logged.clear();
        const QtMessageHandler previous = qInstallMessageHandler(captureMessage);
        std::vector<std::string> produced;
        {
            QtScheduler owner;
            auto options = optionsFor(server.address());
            options.tokenFile = tokenPath.toStdString();
            QVERIFY(GrpcGatewayPort::validate(options).isEmpty());
            GrpcGatewayPort port(owner, options);
            produced.push_back(port.describe());
            produced.push_back(port.setupError());

            std::optional<RpcStatus> open, failed, end;
            port.openSession(OpenSessionRequest{},
                             [&](RpcStatus s, OpenSessionReply) { open = s; });
            port.invoke(command("unavailable-1"), [&](RpcStatus s, MxCommandReply) { failed = s; });
            port.streamEvents(
                streamScript("fail:1"), [](const MxEventBatch&) {}, [&](RpcStatus s) { end = s; });
            QTRY_VERIFY_WITH_TIMEOUT(open && failed && end, kWaitMs);
            QVERIFY2(open->ok(), open->toString().c_str());
            for (const RpcStatus* s : {&*open, &*failed, &*end})
                produced.push_back(s->toString());

            // Unusable options: messages name the file, never the token.
            auto bad = options;
            bad.tls = TlsFiles{dir.filePath("missing-ca.pem").toStdString(), {}, {}};
            produced.push_back(GrpcGatewayPort::validate(bad).toStdString());
            GrpcGatewayPort unusable(owner, bad);
            produced.push_back(unusable.setupError());
            produced.push_back(unusable.describe());
        }
        qInstallMessageHandler(previous);
        QLoggingCategory::setFilterRules(QString());

        const auto seen = server.gateway.authorizations();
        QCOMPARE(seen.size(), std::size_t(3));
        for (const auto& authorization : seen)
            QCOMPARE(authorization, std::string("Bearer ") + kToken);
        QVERIFY(!g_logged.isEmpty()); // the port did log (so the scan below means something)
        for (const QString& line : std::as_const(g_logged))
            QVERIFY2(!line.contains(QLatin1String(kToken)), qPrintable(line));
        for (const std::string& text : produced)
            QVERIFY2(text.find(kToken) == std::string::npos, text.c_str());
    }

    void wrongOrMissingTokenPassesUnauthenticatedThrough()
    {
        QTemporaryDir dir;
        const QString tokenPath = dir.filePath("token");
        QVERIFY(writeFile(tokenPath, "not-the-token"));
        TestServer server;
        server.gateway.expectedAuthorization = std::string("Bearer ") + kToken;
        QtScheduler owner;
        auto options = optionsFor(server.address());
        GrpcGatewayPort without(owner, options);
        options.tokenFile = tokenPath.toStdString();
        GrpcGatewayPort wrong(owner, options);
        std::optional<RpcStatus> a, b;
        without.openSession(OpenSessionRequest{}, [&](RpcStatus s, OpenSessionReply) { a = s; });
        wrong.openSession(OpenSessionRequest{}, [&](RpcStatus s, OpenSessionReply) { b = s; });
        QTRY_VERIFY_WITH_TIMEOUT(a && b, kWaitMs);
        QCOMPARE(a->code, grpc::StatusCode::UNAUTHENTICATED);
        QCOMPARE(b->code, grpc::StatusCode::UNAUTHENTICATED);
        QCOMPARE(b->message, std::string("missing or wrong bearer token"));
        auto seen = server.gateway.authorizations(); // the two calls race: compare as a set
        std::sort(seen.begin(), seen.end());
        QCOMPARE(seen, (std::vector<std::string>{"", "Bearer not-the-token"}));
    }

    // The published gateway's keys are mxgw_<key-id>_<secret>: another form is refused before
    // any connection, naming the file; stormwatch's own contract takes any token.
    void publishedContractKeysAreCheckedBeforeConnecting()
    {
        QTemporaryDir dir;
        const QString bad = dir.filePath("bad-key");
        const QString good = dir.filePath("good-key");
        QVERIFY(writeFile(bad, "abc\n"));
        QVERIFY(writeFile(good, "mxgw_site3_s3cr3t-Value\n"));
        GrpcPortOptions options = optionsFor("127.0.0.1:50051");
        options.contractFile =
            testpaths::contractFile(QStringLiteral("mxaccess-gateway-v1.proto")).toStdString();
        options.tokenFile = bad.toStdString();
        const QString error = GrpcGatewayPort::validate(options);
        QVERIFY2(
            error.contains("does not hold an MXAccess Gateway API key (mxgw_<key-id>_<secret>)"),
            qPrintable(error));
        QVERIFY2(error.contains("bad-key"), qPrintable(error));
        QVERIFY(!error.contains("abc")); // never the token itself
        QtScheduler owner;
        GrpcGatewayPort port(owner, options);
        QVERIFY2(port.setupError().find("MXAccess Gateway API key") != std::string::npos,
                 port.setupError().c_str());
        options.tokenFile = good.toStdString();
        QCOMPARE(GrpcGatewayPort::validate(options), QString());
        options.contractFile.clear();
        options.tokenFile = bad.toStdString();
        QCOMPARE(GrpcGatewayPort::validate(options), QString());
    }

    // A gateway that is up but speaks another contract answers UNIMPLEMENTED: said as such,
    // naming the contract that was tried and how to give the gateway's own.
    void anotherContractsGatewayIsToldApartFromADownOne()
    {
        TestServer server; // stormwatch's own contract
        QtScheduler owner;
        GrpcPortOptions options = optionsFor(server.address());
        options.contractFile =
            testpaths::contractFile(QStringLiteral("mxaccess-gateway-v1.proto")).toStdString();
        GrpcGatewayPort port(owner, options);
        std::optional<RpcStatus> open;
        port.openSession(OpenSessionRequest{}, [&](RpcStatus s, OpenSessionReply) { open = s; });
        QTRY_VERIFY_WITH_TIMEOUT(open.has_value(), kWaitMs);
        QCOMPARE(open->code, grpc::StatusCode::UNIMPLEMENTED);
        const GatewayFailure f = GrpcGatewayPort::explainFailure(*open, options);
        QVERIFY(f.setup);
        QVERIFY2(f.text.find("is up but does not serve the contract in --gateway-contract") !=
                     std::string::npos,
                 f.text.c_str());
        QVERIFY2(f.text.find("--check-contract") != std::string::npos, f.text.c_str());
        const GatewayFailure ours =
            GrpcGatewayPort::explainFailure(*open, optionsFor(server.address()));
        QVERIFY2(ours.text.find("stormwatch's own contract (package mxgateway.v1)") !=
                     std::string::npos,
                 ours.text.c_str());
    }

    void validateNamesTheBadAddressOrFile()
    {
        QTemporaryDir dir;
        const QString pem = dir.filePath("ok.pem");
        const QString notPem = dir.filePath("plain.txt");
        const QString emptyToken = dir.filePath("empty-token");
        const QString token = dir.filePath("token");
        QVERIFY(writeFile(pem, "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"));
        QVERIFY(writeFile(notPem, "hello"));
        QVERIFY(writeFile(emptyToken, " \n"));
        QVERIFY(writeFile(token, "abc\n"));
        const std::string missing = dir.filePath("nope.pem").toStdString();

        GrpcPortOptions good = optionsFor("127.0.0.1:50051");
        good.tokenFile = token.toStdString();
        good.tls = TlsFiles{pem.toStdString(), pem.toStdString(), pem.toStdString()};
        QCOMPARE(GrpcGatewayPort::validate(good), QString());
        QCOMPARE(GrpcGatewayPort::validate(optionsFor("[::1]:443")), QString());
        QCOMPARE(GrpcGatewayPort::validate(optionsFor("gateway.site-3.local:50051")), QString());

        for (const char* address :
             {"", "localhost", ":50051", "host:0", "host:65536", "a b:1", "host:port"}) {
            const QString error = GrpcGatewayPort::validate(optionsFor(address));
            QVERIFY2(error.contains(QStringLiteral("'%1' is not host:port").arg(address)),
                     qPrintable(error));
        }

        auto expectError = [](const GrpcPortOptions& options, const QString& file,
                              const QString& what) {
            const QString error = GrpcGatewayPort::validate(options);
            return error.contains(file) && error.contains(what);
        };
        auto withToken = [&](const std::string& path) {
            auto o = good;
            o.tokenFile = path;
            return o;
        };
        QVERIFY(expectError(withToken(missing), QString::fromStdString(missing), "does not exist"));
        QVERIFY(expectError(withToken(dir.path().toStdString()), dir.path(), "not a regular file"));
        QVERIFY(expectError(withToken(emptyToken.toStdString()), emptyToken, "is empty"));

        auto ca = good;
        ca.tls->caFile = missing;
        QVERIFY(expectError(ca, QString::fromStdString(missing), "TLS CA file"));
        auto cert = good;
        cert.tls->certFile = notPem.toStdString();
        QVERIFY(expectError(cert, notPem, "not a PEM file"));
        auto key = good;
        key.tls->keyFile = dir.path().toStdString();
        QVERIFY(expectError(key, dir.path(), "TLS key file"));
        auto lonely = good;
        lonely.tls->keyFile.clear();
        QVERIFY(expectError(lonely, pem, "without a key file"));

        auto negative = good;
        negative.invokeDeadline = Duration(-1);
        QVERIFY(GrpcGatewayPort::validate(negative).contains("Invoke deadline"));
    }

    void unreadableFilesAtConstructionFailEveryCall()
    {
        QtScheduler owner;
        auto options = optionsFor("127.0.0.1:1");
        options.tokenFile = "/nonexistent/stormwatch-token";
        GrpcGatewayPort port(owner, options);
        QVERIFY(port.setupError().find("/nonexistent/stormwatch-token") != std::string::npos);
        std::optional<RpcStatus> open, invoke, close, end;
        bool returned = false, inlineCall = false;
        port.openSession(OpenSessionRequest{}, [&](RpcStatus s, OpenSessionReply) {
            inlineCall |= !returned;
            open = s;
        });
        returned = true;
        port.invoke(command("x"), [&](RpcStatus s, MxCommandReply) { invoke = s; });
        port.closeSession(CloseSessionRequest{}, [&](RpcStatus s) { close = s; });
        port.streamEvents(
            streamScript("ok:1"), [](const MxEventBatch&) {}, [&](RpcStatus s) { end = s; });
        QTRY_VERIFY_WITH_TIMEOUT(open && invoke && close && end, kWaitMs);
        QVERIFY(!inlineCall);
        for (const RpcStatus* s : {&*open, &*invoke, &*close, &*end}) {
            QCOMPARE(s->code, grpc::StatusCode::FAILED_PRECONDITION);
            QCOMPARE(s->message, port.setupError());
        }
        QCOMPARE(port.callsInFlight(), std::size_t(0));
    }

    void gatewayConnectionConnectsThroughThePort()
    {
        // The port's main consumer, end to end: session, Register, event stream, close.
        TestServer server;
        QtScheduler owner;
        GrpcGatewayPort port(owner, optionsFor(server.address()));
        ConnectionConfig config;
        config.sessionCommandTimeout = 20s;
        {
            GatewayConnection connection(owner, port, config, nullptr, [] { return 0.5; });
            connection.start();
            QTRY_VERIFY_WITH_TIMEOUT(connection.connected(), kWaitMs);
            QCOMPARE(connection.sessionId(), std::string("session-stormwatch/gw1"));
            QVERIFY(connection.supportsSupervisoryBulk());
            QCOMPARE(connection.echoedCommandTimeout(), std::optional<Duration>(20s));
            QTRY_COMPARE_WITH_TIMEOUT(server.gateway.streamsStarted.load(), 1, kWaitMs);
            QCOMPARE(connection.describePort(), server.address());
            connection.stop();
        }
        QTRY_COMPARE_WITH_TIMEOUT(server.gateway.closed(),
                                  std::vector<std::string>{"session-stormwatch/gw1"}, kWaitMs);
        QTRY_COMPARE_WITH_TIMEOUT(server.gateway.streamsCancelled.load(), 1, kWaitMs);
        QTRY_COMPARE_WITH_TIMEOUT(port.callsInFlight(), std::size_t(0), kWaitMs);
    }

    // A gateway echoing a Duration outside google.protobuf.Duration's
    // range (INT64_MAX seconds) is read clamped to that range, never by an overflowing product.
    void hostileEchoedCommandTimeoutIsClampedNotWrapped()
    {
        struct Case {
            std::int64_t seconds;
            std::int32_t nanos;
            Duration read;
        };
        const Case cases[] = {
            {std::numeric_limits<std::int64_t>::max(), 999'999'999,
             Duration(315'576'000'000'999'999)},
            {std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int32_t>::min(),
             Duration(-315'576'000'000'999'999)},
            {30, 2'000'000'000, Duration(30'999'999)},
            {86'400, 0, Duration(86'400'000'000)},
        };
        for (const Case& c : cases) {
            TestServer server;
            server.gateway.echoedTimeout.emplace();
            server.gateway.echoedTimeout->set_seconds(c.seconds);
            server.gateway.echoedTimeout->set_nanos(c.nanos);
            QtScheduler owner;
            GrpcGatewayPort port(owner, optionsFor(server.address()));
            ConnectionConfig config;
            config.sessionCommandTimeout = 20s;
            GatewayConnection connection(owner, port, config, nullptr, [] { return 0.5; });
            connection.setLogger([](Severity, const std::string&) {});
            connection.start();
            QTRY_VERIFY_WITH_TIMEOUT(connection.echoedCommandTimeout().has_value(), kWaitMs);
            QCOMPARE(connection.echoedCommandTimeout()->count(), c.read.count());
            connection.stop();
        }
    }

    // A gateway's error text reaches the log and the connection's logger
    // as one line with its control characters escaped.
    void peerTextInLogLinesIsEscaped()
    {
        TestServer server;
        server.gateway.openError = kForgedText;
        QLoggingCategory::setFilterRules(QStringLiteral("stormwatch.*=true"));
        g_logged.clear();
        const QtMessageHandler previous = qInstallMessageHandler(captureMessage);
        std::vector<std::string> observed;
        {
            QtScheduler owner;
            GrpcGatewayPort port(owner, optionsFor(server.address()));
            GatewayConnection connection(owner, port, ConnectionConfig{}, nullptr,
                                         [] { return 0.5; });
            connection.setLogger(
                [&](Severity, const std::string& message) { observed.push_back(message); });
            connection.start();
            std::optional<RpcStatus> end;
            port.streamEvents(
                streamScript("forged:0"), [](const MxEventBatch&) {},
                [&](RpcStatus s) { end = s; });
            QTRY_VERIFY_WITH_TIMEOUT(end.has_value(), kWaitMs);
            QCOMPARE(end->message, std::string(kForgedText)); // the port hands the text on as it is
            QTRY_VERIFY_WITH_TIMEOUT(
                std::any_of(observed.begin(), observed.end(),
                            [](const std::string& m) { return m.find("OpenSession failed") == 0; }),
                kWaitMs);
            connection.stop();
        }
        qInstallMessageHandler(previous);
        QLoggingCategory::setFilterRules(QString());

        const QString escaped = QStringLiteral("x\\nstormwatch.client: forged line\\x1b[31mRED");
        int withPeerText = 0;
        for (const QString& line : std::as_const(g_logged)) {
            QVERIFY2(!line.contains(QLatin1Char('\n')) && !line.contains(QLatin1Char('\x1b')),
                     qPrintable(line));
            if (line.contains(QLatin1String("forged line"))) {
                ++withPeerText;
                QVERIFY2(line.contains(escaped), qPrintable(line));
            }
        }
        QVERIFY2(withPeerText >= 2,
                 qPrintable(g_logged.join(QLatin1Char('|')))); // OpenSession failed + stream end
        for (const std::string& message : observed)
            QVERIFY2(message.find('\n') == std::string::npos &&
                         message.find('\x1b') == std::string::npos,
                     message.c_str());
    }

    // Why a session does not open, in one line a person can act on —
    // the TLS failures (untrusted certificate, wrong host name, no TLS at the other end) and a
    // refused token are named; anything else is the status itself. Real handshakes.
    void failuresAreExplainedInOneLine()
    {
        QTemporaryDir dir;
        const auto [cert, key] = makeCertificate(dir, "localhost", "IP:127.0.0.1,DNS:localhost");
        const auto [otherCert, otherKey] = makeCertificate(dir, "other", "DNS:other.example");
        QVERIFY2(!cert.isEmpty() && !otherCert.isEmpty(),
                 "the openssl CLI is needed to make test certificates");
        QtScheduler owner;
        const auto openWith = [&](const GrpcPortOptions& options) {
            GrpcGatewayPort port(owner, options);
            std::optional<RpcStatus> open;
            port.openSession(OpenSessionRequest{},
                             [&](RpcStatus s, OpenSessionReply) { open = s; });
            QElapsedTimer waited;
            waited.start();
            while (!open && waited.elapsed() < kWaitMs)
                QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
            return open.value_or(RpcStatus{grpc::StatusCode::UNKNOWN, "no answer within 5 s"});
        };
        const auto expect = [](const GatewayFailure& f, bool setup,
                               std::initializer_list<const char*> words) {
            QVERIFY2(f.setup == setup, f.text.c_str());
            QVERIFY2(f.text.find('\n') == std::string::npos, f.text.c_str());
            for (const char* w : words)
                QVERIFY2(f.text.find(w) != std::string::npos, (f.text + " lacks: " + w).c_str());
        };

        TestServer tls(serverTls(cert, key));
        QVERIFY(tls.running());
        auto options = optionsFor(tls.address());

        // Untrusted: the gateway's certificate is not signed by the CA given.
        options.tls = TlsFiles{otherCert.toStdString(), {}, {}};
        RpcStatus s = openWith(options);
        QCOMPARE(s.code, grpc::StatusCode::UNAVAILABLE);
        expect(GrpcGatewayPort::explainFailure(s, options), true,
               {"TLS", "not trusted", otherCert.toUtf8().constData(), "--tls-ca"});
        auto systemRoots = options;
        systemRoots.tls = TlsFiles{};
        expect(GrpcGatewayPort::explainFailure(s, systemRoots), true,
               {"not trusted", "system", "--tls-ca"});

        // Trusted, but issued for another host name than the one dialled.
        TestServer elsewhere(serverTls(otherCert, otherKey));
        auto wrongHost = optionsFor(elsewhere.address());
        wrongHost.tls = TlsFiles{otherCert.toStdString(), {}, {}};
        s = openWith(wrongHost);
        QCOMPARE(s.code, grpc::StatusCode::UNAVAILABLE);
        expect(GrpcGatewayPort::explainFailure(s, wrongHost), true,
               {"TLS", "not issued for", "127.0.0.1"});

        // TLS to a gateway that serves plaintext.
        TestServer plain;
        auto mismatch = optionsFor(plain.address());
        mismatch.tls = TlsFiles{cert.toStdString(), {}, {}};
        s = openWith(mismatch);
        expect(GrpcGatewayPort::explainFailure(s, mismatch), true, {"TLS handshake", "failed"});

        // A refused or missing token, over working TLS.
        tls.gateway.expectedAuthorization = "Bearer right";
        const QString tokenPath = dir.filePath("token");
        QVERIFY(writeFile(tokenPath, "wrong"));
        options.tls = TlsFiles{cert.toStdString(), {}, {}};
        options.tokenFile = tokenPath.toStdString();
        s = openWith(options);
        QCOMPARE(s.code, grpc::StatusCode::UNAUTHENTICATED);
        expect(GrpcGatewayPort::explainFailure(s, options), true,
               {"refused the bearer token", "--token-file", "UNAUTHENTICATED"});
        options.tokenFile.clear();
        expect(GrpcGatewayPort::explainFailure(openWith(options), options), true,
               {"needs credentials", "--token-file", "UNAUTHENTICATED"});
        expect(GrpcGatewayPort::explainFailure({grpc::StatusCode::PERMISSION_DENIED, "not you"},
                                               options),
               true, {"PERMISSION_DENIED: not you"});

        // Anything else is the status as it is (a peer's newline escaped), not a setup problem.
        TestServer gone;
        const auto nowhere = optionsFor(gone.address());
        gone.stop();
        s = openWith(nowhere);
        QCOMPARE(s.code, grpc::StatusCode::UNAVAILABLE);
        QCOMPARE(GrpcGatewayPort::explainFailure(s, nowhere).text, s.toString());
        QVERIFY(!GrpcGatewayPort::explainFailure(s, nowhere).setup);
        expect(GrpcGatewayPort::explainFailure({grpc::StatusCode::UNAUTHENTICATED, kForgedText},
                                               options),
               true, {"x\\nstormwatch.client: forged line\\x1b[31mRED"});
    }

    void tlsOptionsBuildAnSslChannel()
    {
        // An insecure channel would reach this plaintext gateway; a channel built from the
        // TLS options never does (here not even a handshake: the CA file is a dummy PEM).
        QTemporaryDir dir;
        const QString pem = dir.filePath("ca.pem");
        QVERIFY(writeFile(pem, "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"));
        TestServer server;
        QtScheduler owner;
        auto options = optionsFor(server.address());
        options.tls = TlsFiles{pem.toStdString(), {}, {}};
        GrpcGatewayPort port(owner, options);
        QVERIFY(port.setupError().empty());
        QCOMPARE(port.describe(), server.address() + " (TLS)");
        std::optional<RpcStatus> open;
        port.openSession(OpenSessionRequest{}, [&](RpcStatus s, OpenSessionReply) { open = s; });
        QTRY_VERIFY_WITH_TIMEOUT(open.has_value(), kWaitMs);
        QCOMPARE(open->code, grpc::StatusCode::UNAVAILABLE);
        QVERIFY(server.gateway.authorizations().empty()); // nothing reached the gateway
    }

    void mutualTlsRoundTripWithASelfSignedCertificate()
    {
        const QString openssl = QStandardPaths::findExecutable(QStringLiteral("openssl"));
        QVERIFY2(!openssl.isEmpty(), "the openssl CLI is needed to make a test certificate");
        QTemporaryDir dir;
        const QString cert = dir.filePath("cert.pem");
        const QString key = dir.filePath("key.pem");
        QProcess make;
        make.start(openssl,
                   {"req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-days", "1", "-subj", "/CN=localhost", "-addext",
                    "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", key, "-out", cert});
        QVERIFY(make.waitForFinished(10000));
        QVERIFY2(make.exitCode() == 0, make.readAllStandardError().constData());
        auto read = [](const QString& path) {
            QFile file(path);
            return file.open(QIODevice::ReadOnly) ? file.readAll().toStdString() : std::string();
        };

        grpc::SslServerCredentialsOptions serverTls(
            GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
        serverTls.pem_root_certs = read(cert); // the client presents the same certificate
        serverTls.pem_key_cert_pairs.push_back({read(key), read(cert)});
        TestServer server(grpc::SslServerCredentials(serverTls));
        QVERIFY(server.running());

        QtScheduler owner;
        auto options = optionsFor(server.address());
        options.tls = TlsFiles{cert.toStdString(), cert.toStdString(), key.toStdString()};
        QCOMPARE(GrpcGatewayPort::validate(options), QString());
        GrpcGatewayPort port(owner, options);
        QCOMPARE(port.describe(), server.address() + " (TLS)");
        OpenSessionRequest request;
        request.set_client_name("tls");
        std::optional<RpcStatus> open;
        OpenSessionReply reply;
        port.openSession(request, [&](RpcStatus s, OpenSessionReply r) {
            open = s;
            reply = std::move(r);
        });
        QTRY_VERIFY_WITH_TIMEOUT(open.has_value(), kWaitMs);
        QVERIFY2(open->ok(), open->toString().c_str());
        QCOMPARE(reply.session_id(), std::string("session-tls"));

        // Without the client certificate the gateway refuses the handshake.
        auto anonymous = options;
        anonymous.tls = TlsFiles{cert.toStdString(), {}, {}};
        GrpcGatewayPort refused(owner, anonymous);
        std::optional<RpcStatus> denied;
        refused.openSession(request, [&](RpcStatus s, OpenSessionReply) { denied = s; });
        QTRY_VERIFY_WITH_TIMEOUT(denied.has_value(), kWaitMs);
        QCOMPARE(denied->code, grpc::StatusCode::UNAVAILABLE);
    }
};

QTEST_GUILESS_MAIN(TestGrpcGatewayPort)
#include "tst_grpc_gateway_port.moc"
