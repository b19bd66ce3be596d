// Every suite holds gRPC's library for as long as its application object lives, and shuts it
// down on the main thread when that goes (proto/grpc_lifetime.h says why): a suite whose last
// gRPC object went on a gRPC thread would otherwise race its own exit.
#include "proto/grpc_lifetime.h"

#include <QCoreApplication>

namespace {

stormwatch::GrpcLifetime* g_grpc = nullptr;

void holdGrpc()
{
    g_grpc = new stormwatch::GrpcLifetime;
    qAddPostRoutine([] {
        delete g_grpc;
        g_grpc = nullptr;
    });
}

} // namespace

Q_COREAPP_STARTUP_FUNCTION(holdGrpc)
