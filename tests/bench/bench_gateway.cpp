// Mock gateway figures: modelled STA commands per wall second on the VirtualScheduler
// (target >= 1,000,000), the data path of a long virtual replay, and the unary Invoke round
// trip over loopback at zero modelled cost (target p50 < 200 us).
#include "client/virtual_scheduler.h"
#include "gateway/gateway_model.h"
#include "gateway/mock_gateway_server.h"
#include "mxaccess_gateway.grpc.pb.h"

#include <QCoreApplication>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <grpcpp/grpcpp.h>
#include <vector>

using namespace stormwatch;
using namespace stormwatch::gateway;
using namespace mxgateway::v1;
using Clock = std::chrono::steady_clock;

namespace {

double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string openAndRegister(GatewayModel& model, VirtualScheduler& sched, int& serverHandle)
{
    std::string session;
    model.openSession({}, [&](CallStatus, OpenSessionReply r) { session = r.session_id(); });
    sched.runAll();
    MxCommandRequest req;
    req.set_session_id(session);
    req.mutable_command()->mutable_register_();
    model.invoke(
        req, [&](CallStatus, MxCommandReply r) { serverHandle = r.register_().server_handle(); });
    sched.runAll();
    return session;
}

// Keeps `window` commands in flight (like the client's fan-out) until `total` have run.
void staThroughput(std::int64_t total, int window, bool queueAllAtOnce)
{
    VirtualScheduler sched;
    GatewayConfig config;
    config.dataHz = 0;
    GatewayModel model(sched, config);
    int sh = 0;
    const auto session = openAndRegister(model, sched, sh);

    MxCommandRequest subscribe;
    subscribe.set_session_id(session);
    auto* bulk = subscribe.mutable_command()->mutable_subscribe_bulk();
    bulk->set_server_handle(sh);
    bulk->add_tag_addresses("Bench.Tag");
    bulk->set_supervisory(true);
    model.invoke(subscribe, [](CallStatus, MxCommandReply) {});
    sched.runAll();

    MxCommandRequest advise;
    advise.set_session_id(session);
    advise.mutable_command()->mutable_advise_supervisory()->set_server_handle(sh);
    advise.mutable_command()->mutable_advise_supervisory()->set_item_handle(1);

    std::int64_t sent = 0;
    std::int64_t ok = 0;
    std::function<void(CallStatus, MxCommandReply)> onDone;
    onDone = [&](CallStatus st, MxCommandReply) {
        ok += st.ok();
        if (!queueAllAtOnce && sent < total) {
            ++sent;
            model.invoke(advise, onDone);
        }
    };
    const auto start = Clock::now();
    const std::int64_t first = queueAllAtOnce ? total : window;
    for (; sent < first; ++sent)
        model.invoke(advise, onDone);
    sched.runAll(std::numeric_limits<std::size_t>::max());
    const double wall = secondsSince(start);
    const auto run = model.commandsRun(CommandKind::AdviseSupervisory);
    std::printf("  %-34s %9lld commands in %6.3f s wall = %10.0f commands/s (answered ok %lld, "
                "virtual %.0f s)\n",
                queueAllAtOnce ? "queued all at once (deep queue):" : "pipelined, window 16:",
                static_cast<long long>(run), wall, static_cast<double>(run) / wall,
                static_cast<long long>(ok), std::chrono::duration<double>(sched.now()).count());
}

void replayDataPath()
{
    VirtualScheduler sched;
    GatewayConfig config;
    config.dataHz = 1;
    GatewayModel model(sched, config);
    std::size_t changes = 0;
    for (int s = 0; s < 2; ++s) {
        int sh = 0;
        const auto session = openAndRegister(model, sched, sh);
        StreamEventsRequest sreq;
        sreq.set_session_id(session);
        model.streamEvents(
            sreq, [&](const MxEventBatch& e) { changes += e.changes.size(); }, [](CallStatus) {});
        MxCommandRequest req;
        req.set_session_id(session);
        auto* bulk = req.mutable_command()->mutable_subscribe_bulk();
        bulk->set_server_handle(sh);
        for (int i = 0; i < 244; ++i)
            bulk->add_tag_addresses("Z2806" + std::to_string(s) + ".Attr" + std::to_string(i));
        bulk->set_supervisory(true);
        model.invoke(req, [](CallStatus, MxCommandReply) {});
        sched.runFor(std::chrono::milliseconds(500));
    }
    changes = 0;
    const auto start = Clock::now();
    sched.runFor(std::chrono::minutes(30));
    std::printf("  30 min virtual replay, 2 x 244 tags at 1 Hz: %zu data changes in %.3f s wall\n",
                changes, secondsSince(start));
}

void invokeRoundTrip(int samples)
{
    GatewayConfig config;
    config.commandMs = 0;
    config.perItemMs = 0;
    config.dataHz = 0;
    MockGatewayServer server(config);
    if (!server.start("127.0.0.1:0")) {
        std::printf("  cannot start server: %s\n", server.lastError().c_str());
        return;
    }
    auto stub = MxAccessGateway::NewStub(grpc::CreateChannel(
        "127.0.0.1:" + std::to_string(server.port()), grpc::InsecureChannelCredentials()));
    OpenSessionReply session;
    {
        grpc::ClientContext ctx;
        stub->OpenSession(&ctx, {}, &session);
    }
    MxCommandRequest req;
    req.set_session_id(session.session_id());
    req.mutable_command()->mutable_register_();
    std::vector<double> us;
    us.reserve(static_cast<std::size_t>(samples));
    int failures = 0;
    for (int i = 0; i < samples + 500; ++i) {
        grpc::ClientContext ctx;
        ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
        MxCommandReply reply;
        const auto start = Clock::now();
        const auto st = stub->Invoke(&ctx, req, &reply);
        const double elapsed =
            std::chrono::duration<double, std::micro>(Clock::now() - start).count();
        failures += !st.ok();
        if (i >= 500) // warm-up first
            us.push_back(elapsed);
    }
    std::sort(us.begin(), us.end());
    auto pct = [&](double p) {
        return us[std::min(us.size() - 1, static_cast<std::size_t>(p * us.size()))];
    };
    std::printf(
        "  unary Invoke over loopback, zero cost, %d samples: p50 %.0f us, p90 %.0f us, p99 %.0f us"
        " (failures %d)\n",
        samples, pct(0.50), pct(0.90), pct(0.99), failures);
    server.stop();
}

// The same call against a callback service that answers inline on the gRPC thread: what
// this machine's loopback gRPC costs before the mock's two thread hops are added.
void invokeBaseline(int samples)
{
    struct Inline final : MxAccessGateway::CallbackService {
        grpc::ServerUnaryReactor* Invoke(grpc::CallbackServerContext* ctx, const MxCommandRequest*,
                                         MxCommandReply* reply) override
        {
            reply->set_success(true);
            auto* reactor = ctx->DefaultReactor();
            reactor->Finish(grpc::Status::OK);
            return reactor;
        }
    } service;
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(&service);
    auto server = builder.BuildAndStart();
    auto stub = MxAccessGateway::NewStub(grpc::CreateChannel("127.0.0.1:" + std::to_string(port),
                                                             grpc::InsecureChannelCredentials()));
    MxCommandRequest req;
    req.mutable_command()->mutable_register_();
    std::vector<double> us;
    for (int i = 0; i < samples + 500; ++i) {
        grpc::ClientContext ctx;
        MxCommandReply reply;
        const auto start = Clock::now();
        stub->Invoke(&ctx, req, &reply);
        if (i >= 500)
            us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    }
    std::sort(us.begin(), us.end());
    auto pct = [&](double p) {
        return us[std::min(us.size() - 1, static_cast<std::size_t>(p * us.size()))];
    };
    std::printf("  baseline: inline-answering callback service:       p50 %.0f us, p90 %.0f us, "
                "p99 %.0f us\n",
                pct(0.50), pct(0.90), pct(0.99));
    server->Shutdown(std::chrono::system_clock::now());
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    // Optional argument: one section only (sta, data, grpc), e.g. for profiling.
    const std::string only = argc > 1 ? argv[1] : "";
    std::printf("bench_gateway\n");
    if (only.empty() || only == "sta") {
        std::printf("STA model on the VirtualScheduler (target >= 1,000,000 commands/s):\n");
        staThroughput(2'000'000, 16, false);
        staThroughput(500'000, 0, true);
    }
    if (only.empty() || only == "data") {
        std::printf("Data path:\n");
        replayDataPath();
    }
    if (only.empty() || only == "grpc") {
        std::printf("gRPC (target p50 < 200 us):\n");
        invokeRoundTrip(5000);
        invokeBaseline(5000);
    }
    return 0;
}
