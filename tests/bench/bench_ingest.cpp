// Client ingest over loopback gRPC: the real GatewayConnection on a QtScheduler, through
// GrpcGatewayPort, subscribed to many tags on the embedded mock gateway emitting at a high
// data rate. Prints tag updates delivered to the subscriber per wall second (target
// >= 250,000/s) next to what the mock emitted, and the CPU time of the whole process (client,
// gRPC and the mock) per update. With a contract file (4th argument) both sides speak it:
// the published contract sends one event per change. Not a pass/fail test.
//
//   bench_ingest [tags] [hz] [seconds] [contract.proto]
#include "client/gateway_connection.h"
#include "client/grpc_gateway_port.h"
#include "client/qt_scheduler.h"
#include "gateway/contract_service.h"
#include "gateway/mock_gateway_server.h"
#include "wire/wire_codec.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>
#include <cstdio>
#include <sys/resource.h>

using namespace stormwatch;

namespace {

double cpuSeconds()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    const int tags = argc > 1 ? std::atoi(argv[1]) : 5000;
    const double hz = argc > 2 ? std::atof(argv[2]) : 100;
    const int seconds = argc > 3 ? std::atoi(argv[3]) : 4;

    gateway::GatewayConfig config;
    config.dataHz = hz;
    config.commandMs = 0;
    config.perItemMs = 0;
    GrpcPortOptions options;
    options.contractFile = argc > 4 ? argv[4] : "";
    std::string error;
    auto codec = GrpcGatewayPort::codecFor(options, error);
    if (!codec) {
        std::fprintf(stderr, "%s\n", error.c_str());
        return 1;
    }
    if (!options.contractFile.empty()) {
        config = gateway::configForContract(*codec, config);
        // What the client can take, not where the gateway's backpressure cuts it off.
        config.eventQueueCapacity = 0;
    }
    gateway::MockGatewayServer server(config, options.contractFile.empty() ? nullptr : codec);
    if (!server.start("127.0.0.1:0")) {
        std::fprintf(stderr, "mock did not start: %s\n", server.lastError().c_str());
        return 1;
    }

    QtScheduler scheduler;
    options.address = server.address();
    GrpcGatewayPort port(scheduler, options);
    GatewayConnection connection(scheduler, port, ConnectionConfig{}, nullptr, [] { return 0.5; });

    std::vector<std::string> names;
    for (int i = 0; i < tags; ++i)
        names.push_back("Bench.Attr" + std::to_string(i + 1));
    std::int64_t updates = 0;
    const auto sub = connection.addSubscriber(
        names, [&](const std::vector<TagUpdate>& u) { updates += std::int64_t(u.size()); },
        [](bool) {});
    connection.start();
    bool subscribed = false;
    connection.subscribe(sub, [&](const SubscribeOutcome& o) { subscribed = o.success; });

    QEventLoop loop;
    QTimer guard;
    guard.setSingleShot(true);
    QObject::connect(&guard, &QTimer::timeout, &loop, &QEventLoop::quit);
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, [&] {
        if (subscribed && updates > 0)
            loop.quit();
    });
    poll.start(10);
    guard.start(20000);
    loop.exec();
    poll.stop();
    if (!subscribed) {
        std::fprintf(stderr, "subscribe did not complete\n");
        return 1;
    }

    // Warm up one second, then measure.
    QTimer::singleShot(1000, &loop, &QEventLoop::quit);
    loop.exec();
    const std::int64_t startUpdates = updates;
    const std::int64_t startSent =
        server.runOnModel([](gateway::GatewayModel& m) { return m.dataChangesSent(); });
    QElapsedTimer wall;
    wall.start();
    const double cpuStart = cpuSeconds();
    QTimer::singleShot(seconds * 1000, &loop, &QEventLoop::quit);
    loop.exec();
    const double elapsed = double(wall.nsecsElapsed()) / 1e9;
    const double cpu = cpuSeconds() - cpuStart;
    const std::int64_t sent =
        server.runOnModel([](gateway::GatewayModel& m) { return m.dataChangesSent(); }) - startSent;
    const double received = double(updates - startUpdates) / elapsed;
    std::printf("ingest: %d tags x %.0f Hz offered = %.0f/s\n", tags, hz, tags * hz);
    std::printf("ingest: mock emitted %.0f data changes/s\n", double(sent) / elapsed);
    std::printf("ingest: client delivered %.0f tag updates/s (target >= 250000) over %.1f s\n",
                received, elapsed);
    std::printf("ingest: contract %s; process CPU %.2f s, %.0f ns per update delivered\n",
                codec->check().profile->name, cpu,
                updates > startUpdates ? cpu * 1e9 / double(updates - startUpdates) : 0.0);
    connection.stop();
    server.stop();
    return 0;
}
