// MockGatewayServer over a real loopback channel, using only the generated stubs (plus a
// generic stub for the health and reflection services, whose protos Debian does not ship).
#include "gateway/grpc_services.h"
#include "gateway/mock_gateway_server.h"
#include "gateway/stream_reactor.h"
#include "mock_control.grpc.pb.h"
#include "mxaccess_gateway.grpc.pb.h"

#include <QElapsedTimer>
#include <QTest>
#include <future>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

using namespace stormwatch;
using namespace stormwatch::gateway;
using namespace mxgateway::v1;
namespace mock = mxgateway::mock::v1;
using namespace std::chrono_literals;

namespace {

std::chrono::system_clock::time_point in(std::chrono::milliseconds d)
{
    return std::chrono::system_clock::now() + d;
}

struct Client {
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<MxAccessGateway::Stub> gateway;
    std::unique_ptr<mock::MockGatewayControl::Stub> control;

    explicit Client(int port)
        : channel(grpc::CreateChannel("127.0.0.1:" + std::to_string(port),
                                      grpc::InsecureChannelCredentials())),
          gateway(MxAccessGateway::NewStub(channel)),
          control(mock::MockGatewayControl::NewStub(channel))
    {
    }

    grpc::Status open(OpenSessionReply& reply,
                      std::optional<std::chrono::milliseconds> timeout = std::nullopt)
    {
        grpc::ClientContext ctx;
        ctx.set_deadline(in(5s));
        OpenSessionRequest req;
        req.set_client_name("tst_grpc_server");
        if (timeout) {
            req.mutable_command_timeout()->set_seconds(timeout->count() / 1000);
            req.mutable_command_timeout()->set_nanos(static_cast<int>(timeout->count() % 1000) *
                                                     1'000'000);
        }
        return gateway->OpenSession(&ctx, req, &reply);
    }

    grpc::Status invoke(const std::string& session, const MxCommand& command, MxCommandReply& reply,
                        std::chrono::milliseconds clientDeadline = 5s)
    {
        grpc::ClientContext ctx;
        ctx.set_deadline(in(clientDeadline));
        MxCommandRequest req;
        req.set_session_id(session);
        req.set_client_correlation_id("c1");
        *req.mutable_command() = command;
        return gateway->Invoke(&ctx, req, &reply);
    }

    int registerClient(const std::string& session)
    {
        MxCommand c;
        c.mutable_register_()->set_client_name("t");
        MxCommandReply r;
        return invoke(session, c, r).ok() ? r.register_().server_handle() : 0;
    }

    grpc::Status fault(const mock::FaultRequest& req)
    {
        grpc::ClientContext ctx;
        ctx.set_deadline(in(5s));
        mock::FaultReply reply;
        return control->InjectFault(&ctx, req, &reply);
    }
};

MxCommand subscribeBulk(int serverHandle, int tags, bool supervisory)
{
    MxCommand c;
    auto* s = c.mutable_subscribe_bulk();
    s->set_server_handle(serverHandle);
    for (int i = 0; i < tags; ++i)
        s->add_tag_addresses("Z28061.Attr" + std::to_string(i));
    s->set_supervisory(supervisory);
    return c;
}

std::string bytes(const grpc::ByteBuffer& buffer)
{
    std::vector<grpc::Slice> slices;
    std::string out;
    if (buffer.Dump(&slices).ok())
        for (const auto& s : slices)
            out.append(reinterpret_cast<const char*>(s.begin()), s.size());
    return out;
}

grpc::ByteBuffer buffer(const std::string& data)
{
    grpc::Slice slice(data.data(), data.size());
    return grpc::ByteBuffer(&slice, 1);
}

// Waits for `tag` on `cq` (within the deadline); false on timeout or a failed operation.
bool await(grpc::CompletionQueue& cq, void* tag)
{
    void* got = nullptr;
    bool ok = false;
    const auto status = cq.AsyncNext(&got, &ok, in(5s));
    return status == grpc::CompletionQueue::GOT_EVENT && got == tag && ok;
}

} // namespace

class TestGrpcServer : public QObject {
    Q_OBJECT
private slots:
    void init();
    void cleanup();
    void capabilitiesTenAndNine();
    void commandTimeoutEchoAndDefault();
    void subscribeBulkSupervisoryRecordsSupervisoryAdvises();
    void dataChangesArriveOnTheEventStream();
    void aLargeTickArrivesInBoundedMessages();
    void deadlineExceededUnderAWedge();
    void restartEndsStreamsAndRefusesSessions();
    void healthServiceReportsServing();
    void reflectionListsTheGatewayService();
    void controlServiceConfigAndStats();
    void stopFinishesOpenStreams();
    void secondServerOnATakenPortFails();
    void stalledReaderBacklogIsBoundedAndFreed();

private:
    std::unique_ptr<MockGatewayServer> m_server;
};

void TestGrpcServer::init()
{
    GatewayConfig config;
    config.commandMs = 1;
    config.perItemMs = 0.01;
    config.dataHz = 10;
    m_server = std::make_unique<MockGatewayServer>(config);
    QVERIFY2(m_server->start("127.0.0.1:0"), m_server->lastError().c_str());
    QVERIFY(m_server->port() > 0);
}

void TestGrpcServer::cleanup()
{
    m_server.reset();
}

void TestGrpcServer::capabilitiesTenAndNine()
{
    Client client(m_server->port());
    OpenSessionReply reply;
    QVERIFY(client.open(reply).ok());
    QCOMPARE(reply.capabilities_size(), 10);
    QCOMPARE(reply.gateway_protocol_version(), kGatewayProtocolVersion);

    m_server->runOnModel([](GatewayModel& m) { m.setAdvertiseBulkSupervisory(false); });
    OpenSessionReply old;
    QVERIFY(client.open(old).ok());
    QCOMPARE(old.capabilities_size(), 9);
    for (const auto& cap : old.capabilities())
        QVERIFY(cap != "bulk-subscribe-supervisory");
}

void TestGrpcServer::commandTimeoutEchoAndDefault()
{
    Client client(m_server->port());
    OpenSessionReply def;
    QVERIFY(client.open(def).ok());
    QCOMPARE(def.default_command_timeout().seconds(), 30);
    OpenSessionReply sixty;
    QVERIFY(client.open(sixty, 60s).ok());
    QCOMPARE(sixty.default_command_timeout().seconds(), 60);
    OpenSessionReply bad;
    QCOMPARE(client.open(bad, 0ms).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
}

void TestGrpcServer::subscribeBulkSupervisoryRecordsSupervisoryAdvises()
{
    Client client(m_server->port());
    OpenSessionReply session;
    QVERIFY(client.open(session).ok());
    const int sh = client.registerClient(session.session_id());
    QVERIFY(sh > 0);
    MxCommandReply reply;
    QVERIFY(client.invoke(session.session_id(), subscribeBulk(sh, 244, true), reply).ok());
    QVERIFY(reply.success());
    QCOMPARE(reply.client_correlation_id(), std::string("c1"));
    QCOMPARE(reply.subscribe_bulk().results_size(), 244);
    std::vector<int> handles;
    for (const auto& r : reply.subscribe_bulk().results()) {
        QVERIFY(r.ok());
        handles.push_back(r.item_handle());
    }
    const int supervisory = m_server->runOnModel([&](GatewayModel& m) {
        int n = 0;
        for (int h : handles) {
            const auto st = m.adviseState(session.session_id(), h);
            n += st && st->supervisory && !st->plain;
        }
        return n;
    });
    QCOMPARE(supervisory, 244);
}

void TestGrpcServer::dataChangesArriveOnTheEventStream()
{
    Client client(m_server->port());
    OpenSessionReply session;
    QVERIFY(client.open(session).ok());
    const int sh = client.registerClient(session.session_id());
    grpc::ClientContext ctx;
    ctx.set_deadline(in(10s));
    StreamEventsRequest req;
    req.set_session_id(session.session_id());
    auto reader = client.gateway->StreamEvents(&ctx, req);
    MxCommandReply reply;
    QVERIFY(client.invoke(session.session_id(), subscribeBulk(sh, 20, true), reply).ok());

    // The initial values, then at least two ticks at 10 Hz.
    int changes = 0;
    int batches = 0;
    MxEvent event;
    while (batches < 3 && reader->Read(&event)) {
        ++batches;
        changes += event.data_changes().changes_size();
        for (const auto& c : event.data_changes().changes()) {
            QCOMPARE(c.quality(), kQualityGood);
            QCOMPARE(c.server_handle(), sh);
            QVERIFY(c.source_timestamp().seconds() > 1'600'000'000); // wall-clock stamps
        }
    }
    QCOMPARE(batches, 3);
    QCOMPARE(changes, 60);
    ctx.TryCancel();
    reader->Finish();
    // The server forgets the cancelled stream.
    QTRY_VERIFY_WITH_TIMEOUT(
        m_server->runOnModel([](GatewayModel& m) { return m.streamCount(); }) == 0, 5000);
}

// A tick of a large site is sent as several messages, each of at most kMaxChangesPerEvent
// changes, together every item once and in the model's order.
void TestGrpcServer::aLargeTickArrivesInBoundedMessages()
{
    const int items = int(kMaxChangesPerEvent) * 2 + 100;
    Client client(m_server->port());
    OpenSessionReply session;
    QVERIFY(client.open(session).ok());
    const int sh = client.registerClient(session.session_id());
    MxCommandReply reply;
    QVERIFY(client.invoke(session.session_id(), subscribeBulk(sh, items, true), reply, 30s).ok());
    QCOMPARE(reply.subscribe_bulk().results_size(), items);
    std::vector<int> order;
    for (const auto& r : reply.subscribe_bulk().results())
        order.push_back(r.item_handle());
    // The stream opens after the subscribe: its first values come in one model batch, and so
    // does every tick, of all items.
    grpc::ClientContext ctx;
    ctx.set_deadline(in(20s));
    StreamEventsRequest req;
    req.set_session_id(session.session_id());
    auto reader = client.gateway->StreamEvents(&ctx, req);
    std::vector<int> sizes;
    std::vector<int> handles;
    MxEvent event;
    while (handles.size() < std::size_t(items) * 2 && reader->Read(&event)) {
        sizes.push_back(event.data_changes().changes_size());
        for (const auto& c : event.data_changes().changes())
            handles.push_back(c.item_handle());
    }
    ctx.TryCancel();
    reader->Finish();
    QCOMPARE(handles.size(), std::size_t(items) * 2);
    QCOMPARE(sizes, (std::vector<int>{int(kMaxChangesPerEvent), int(kMaxChangesPerEvent), 100,
                                      int(kMaxChangesPerEvent), int(kMaxChangesPerEvent), 100}));
    std::vector<int> firstRound(handles.begin(), handles.begin() + items);
    std::vector<int> secondRound(handles.begin() + items, handles.end());
    std::vector<int> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int> got = firstRound;
    std::sort(got.begin(), got.end());
    QCOMPARE(got, sorted);             // every item once
    QCOMPARE(secondRound, firstRound); // the model's order, tick after tick
}

void TestGrpcServer::deadlineExceededUnderAWedge()
{
    Client client(m_server->port());
    OpenSessionReply session;
    QVERIFY(client.open(session, 300ms).ok());
    const int sh = client.registerClient(session.session_id());
    mock::FaultRequest wedge;
    wedge.mutable_wedge()->set_duration_s(30);
    QVERIFY(client.fault(wedge).ok());

    QElapsedTimer wall;
    wall.start();
    MxCommandReply reply;
    const auto st = client.invoke(session.session_id(), subscribeBulk(sh, 244, true), reply, 10s);
    QCOMPARE(st.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
    // The gateway's deadline (300 ms), not the client's (10 s).
    QVERIFY2(QString::fromStdString(st.error_message()).contains("command timeout"),
             st.error_message().c_str());
    QVERIFY(wall.elapsed() < 5000);
    const auto counts = m_server->runOnModel(
        [](GatewayModel& m) { return std::pair(m.deadlineExceeded(), m.staQueueDepth()); });
    QCOMPARE(counts.first, std::int64_t(1));
    QCOMPARE(counts.second, std::size_t(1)); // still queued behind the wedge
}

void TestGrpcServer::restartEndsStreamsAndRefusesSessions()
{
    Client client(m_server->port());
    OpenSessionReply session;
    QVERIFY(client.open(session).ok());
    grpc::ClientContext ctx;
    ctx.set_deadline(in(10s));
    StreamEventsRequest req;
    req.set_session_id(session.session_id());
    auto reader = client.gateway->StreamEvents(&ctx, req);
    QTRY_VERIFY_WITH_TIMEOUT(
        m_server->runOnModel([](GatewayModel& m) { return m.streamCount(); }) == 1, 5000);

    mock::FaultRequest restart;
    restart.mutable_restart()->set_downtime_s(0.5);
    QVERIFY(client.fault(restart).ok());
    MxEvent event;
    while (reader->Read(&event)) {
    }
    QCOMPARE(reader->Finish().error_code(), grpc::StatusCode::UNAVAILABLE);

    OpenSessionReply during;
    QCOMPARE(client.open(during).error_code(), grpc::StatusCode::UNAVAILABLE);
    QTRY_VERIFY_WITH_TIMEOUT(!m_server->runOnModel([](GatewayModel& m) { return m.down(); }), 5000);
    OpenSessionReply after;
    QVERIFY(client.open(after).ok());
    MxCommandReply reply;
    MxCommand reg;
    reg.mutable_register_();
    QCOMPARE(client.invoke(session.session_id(), reg, reply).error_code(),
             grpc::StatusCode::NOT_FOUND);
}

void TestGrpcServer::healthServiceReportsServing()
{
    Client client(m_server->port());
    grpc::GenericStub stub(client.channel);
    grpc::ClientContext ctx;
    ctx.set_deadline(in(5s));
    const grpc::ByteBuffer request = buffer(""); // HealthCheckRequest{service: ""}
    grpc::ByteBuffer response;
    std::promise<grpc::Status> done;
    stub.UnaryCall(&ctx, "/grpc.health.v1.Health/Check", grpc::StubOptions(), &request, &response,
                   [&](grpc::Status st) { done.set_value(st); });
    auto future = done.get_future();
    QVERIFY(future.wait_for(5s) == std::future_status::ready);
    QVERIFY(future.get().ok());
    QCOMPARE(bytes(response), std::string("\x08\x01", 2)); // status: SERVING (1)
}

void TestGrpcServer::reflectionListsTheGatewayService()
{
    Client client(m_server->port());
    grpc::GenericStub stub(client.channel);
    grpc::CompletionQueue cq;
    grpc::ClientContext ctx;
    ctx.set_deadline(in(5s));
    auto call = stub.PrepareCall(
        &ctx, "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", &cq);
    int tags[4];
    call->StartCall(&tags[0]);
    QVERIFY(await(cq, &tags[0]));
    call->Write(buffer(std::string("\x3a\x00", 2)), &tags[1]); // list_services: ""
    QVERIFY(await(cq, &tags[1]));
    grpc::ByteBuffer response;
    call->Read(&response, &tags[2]);
    QVERIFY(await(cq, &tags[2]));
    const auto text = bytes(response);
    QVERIFY2(text.find("mxgateway.v1.MxAccessGateway") != std::string::npos, text.c_str());
    QVERIFY(text.find("mxgateway.mock.v1.MockGatewayControl") != std::string::npos);
    ctx.TryCancel();
    grpc::Status status;
    call->Finish(&status, &tags[3]);
    void* got;
    bool ok;
    while (cq.AsyncNext(&got, &ok, in(5s)) == grpc::CompletionQueue::GOT_EVENT && got != &tags[3]) {
    }
    cq.Shutdown();
    while (cq.Next(&got, &ok)) {
    }
}

void TestGrpcServer::controlServiceConfigAndStats()
{
    Client client(m_server->port());
    {
        grpc::ClientContext ctx;
        ctx.set_deadline(in(5s));
        mock::SetConfigRequest req;
        req.set_command_ms(7);
        req.set_advertise_bulk_supervisory(false);
        mock::MockConfig config;
        QVERIFY(client.control->SetConfig(&ctx, req, &config).ok());
        QCOMPARE(config.command_ms(), 7.0);
        QCOMPARE(config.per_item_ms(), 0.01); // untouched
        QVERIFY(!config.advertise_bulk_supervisory());
    }
    {
        grpc::ClientContext ctx;
        ctx.set_deadline(in(5s));
        mock::SetConfigRequest req;
        req.set_data_hz(-1);
        mock::MockConfig config;
        const auto st = client.control->SetConfig(&ctx, req, &config);
        QCOMPARE(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
        QVERIFY(QString::fromStdString(st.error_message()).contains("data_hz = -1"));
    }
    {
        mock::FaultRequest bad;
        bad.mutable_drop_replies()->set_probability(2);
        QCOMPARE(client.fault(bad).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    }
    OpenSessionReply session;
    QVERIFY(client.open(session).ok());
    QCOMPARE(session.capabilities_size(), 9);

    grpc::ClientContext ctx;
    ctx.set_deadline(in(10s));
    mock::WatchStatsRequest req;
    req.set_interval_s(0.05);
    auto reader = client.control->WatchStats(&ctx, req);
    mock::GatewayStats stats;
    int seen = 0;
    while (seen < 3 && reader->Read(&stats))
        ++seen;
    QCOMPARE(seen, 3);
    QCOMPARE(stats.sessions(), 1);
    QVERIFY(!stats.advertise_bulk_supervisory());
    ctx.TryCancel();
    reader->Finish();
}

void TestGrpcServer::stopFinishesOpenStreams()
{
    Client client(m_server->port());
    OpenSessionReply session;
    QVERIFY(client.open(session).ok());
    grpc::ClientContext ctx;
    ctx.set_deadline(in(10s));
    StreamEventsRequest req;
    req.set_session_id(session.session_id());
    auto reader = client.gateway->StreamEvents(&ctx, req);
    QTRY_VERIFY_WITH_TIMEOUT(
        m_server->runOnModel([](GatewayModel& m) { return m.streamCount(); }) == 1, 5000);
    // A call stuck behind a wedge is answered too.
    m_server->runOnModel([](GatewayModel& m) { m.wedge(std::chrono::seconds(60)); });
    auto pending = std::async(std::launch::async, [&] {
        MxCommandReply reply;
        MxCommand reg;
        reg.mutable_register_();
        return client.invoke(session.session_id(), reg, reply, 10s).error_code();
    });
    QTRY_VERIFY_WITH_TIMEOUT(
        m_server->runOnModel([](GatewayModel& m) { return m.staQueueDepth(); }) == 1, 5000);

    QElapsedTimer wall;
    wall.start();
    m_server->stop();
    qInfo("stop took %lld ms", static_cast<long long>(wall.elapsed()));
    QVERIFY(wall.elapsed() < 3000);
    QVERIFY(!m_server->running());
    MxEvent event;
    while (reader->Read(&event)) {
    }
    QCOMPARE(reader->Finish().error_code(), grpc::StatusCode::UNAVAILABLE);
    QVERIFY(pending.wait_for(5s) == std::future_status::ready);
    QCOMPARE(pending.get(), grpc::StatusCode::UNAVAILABLE);
}

void TestGrpcServer::secondServerOnATakenPortFails()
{
    MockGatewayServer second;
    QVERIFY(!second.start("127.0.0.1:" + std::to_string(m_server->port())));
    QVERIFY(QString::fromStdString(second.lastError()).contains("cannot listen"));
    QVERIFY(!second.running());
    QVERIFY(second.start("127.0.0.1:0")); // and it can still start elsewhere
    QVERIFY(second.port() != m_server->port());
    second.stop();
}

// A client that opens StreamEvents and never reads, with 1,000 items
// advised at 100 Hz. The mock's backlog stays within its caps (messages waiting, one held
// value per item), the overflow is counted in GatewayStats, and it is all freed when the
// stream ends. The only waits are bounded wall waits at the gRPC boundary (flow control has
// to fill before the server's queue does).
void TestGrpcServer::stalledReaderBacklogIsBoundedAndFreed()
{
    constexpr int kTags = 1000;
    GatewayConfig config;
    config.commandMs = 1;
    config.perItemMs = 0.001;
    config.dataHz = 100;
    m_server = std::make_unique<MockGatewayServer>(config);
    QVERIFY2(m_server->start("127.0.0.1:0"), m_server->lastError().c_str());
    Client client(m_server->port());
    OpenSessionReply session;
    QVERIFY(client.open(session).ok());
    const int sh = client.registerClient(session.session_id());
    QVERIFY(sh > 0);

    // A raw stream with a small flow-control window, opened and never read.
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_HTTP2_BDP_PROBE, 0);
    args.SetInt(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, 16 * 1024);
    auto stalledChannel = grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(m_server->port()),
                                                    grpc::InsecureChannelCredentials(), args);
    auto stalledStub = MxAccessGateway::NewStub(stalledChannel);
    grpc::ClientContext ctx;
    StreamEventsRequest req;
    req.set_session_id(session.session_id());
    auto reader = stalledStub->StreamEvents(&ctx, req);
    QTRY_VERIFY_WITH_TIMEOUT(
        m_server->runOnModel([](GatewayModel& m) { return m.streamCount(); }) == 1, 5000);
    MxCommandReply reply;
    QVERIFY(client.invoke(session.session_id(), subscribeBulk(sh, kTags, true), reply).ok());

    auto stats = [this] { return m_server->runOnModel([](GatewayModel& m) { return m.stats(); }); };
    // Loopback socket buffers and HTTP/2 windows fill first; then the server's queue does.
    QTRY_VERIFY_WITH_TIMEOUT(stats().stream_updates_coalesced() > 10 * kTags, 30000);
    // Keep offering: while the server goes on coalescing, the backlog stays at its caps.
    std::int64_t coalesced = 0;
    for (int i = 0; i < 10; ++i) {
        QTRY_VERIFY_WITH_TIMEOUT(stats().stream_updates_coalesced() > coalesced, 5000);
        const auto st = stats();
        QVERIFY2(st.stream_backlog_messages() <= std::int64_t(kStreamBacklogMessages) + 2,
                 std::to_string(st.stream_backlog_messages()).c_str());
        QVERIFY(st.stream_backlog_items() <= kTags);
        QVERIFY(st.max_stream_backlog_messages() <= std::int64_t(kStreamBacklogMessages));
        QVERIFY(st.max_stream_backlog_items() <= kTags);
        QVERIFY(st.stream_overflows() >= 1);
        QCOMPARE(st.stream_updates_dropped(), 0); // 1,000 items fit the 100,000-item buffer
        QVERIFY(st.stream_updates_coalesced() >= coalesced);
        coalesced = st.stream_updates_coalesced();
    }
    const auto held = stats();
    QCOMPARE(held.max_stream_backlog_messages(), std::int64_t(kStreamBacklogMessages));
    QCOMPARE(held.max_stream_backlog_items(), std::int64_t(kTags));

    // The client goes away: its backlog goes with it.
    ctx.TryCancel();
    reader->Finish();
    QTRY_VERIFY_WITH_TIMEOUT(
        m_server->runOnModel([](GatewayModel& m) { return m.streamCount(); }) == 0, 5000);
    QTRY_VERIFY_WITH_TIMEOUT(
        stats().stream_backlog_messages() == 0 && stats().stream_backlog_items() == 0, 5000);
    QVERIFY(stats().stream_updates_coalesced() >= coalesced);
}

QTEST_GUILESS_MAIN(TestGrpcServer)
#include "tst_grpc_server.moc"
