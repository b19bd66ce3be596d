// Client ingest over loopback gRPC: the real GatewayConnection on a QtScheduler, through
// GrpcGatewayPort, subscribed to many tags on the embedded mock gateway emitting at a high
// data rate. Prints tag updates delivered to the subscriber per wall second (target
// >= 250,000/s) next to what the mock emitted. Not a pass/fail test.
#include "client/gateway_connection.h"
#include "client/grpc_gateway_port.h"
#include "client/qt_scheduler.h"
#include "gateway/mock_gateway_server.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>

#include <cstdio>

using namespace stormwatch;

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
    gateway::MockGatewayServer server(config);
    if (!server.start("127.0.0.1:0")) {
        std::fprintf(stderr, "mock did not start: %s\n", server.lastError().c_str());
        return 1;
    }

    QtScheduler scheduler;
    GrpcPortOptions options;
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
    QTimer::singleShot(seconds * 1000, &loop, &QEventLoop::quit);
    loop.exec();
    const double elapsed = double(wall.nsecsElapsed()) / 1e9;
    const std::int64_t sent =
        server.runOnModel([](gateway::GatewayModel& m) { return m.dataChangesSent(); }) - startSent;
    const double received = double(updates - startUpdates) / elapsed;
    std::printf("ingest: %d tags x %.0f Hz offered = %.0f/s\n", tags, hz, tags * hz);
    std::printf("ingest: mock emitted %.0f data changes/s\n", double(sent) / elapsed);
    std::printf("ingest: client delivered %.0f tag updates/s (target >= 250000) over %.1f s\n",
                received, elapsed);
    connection.stop();
    server.stop();
    return 0;
}
