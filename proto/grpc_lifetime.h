#pragma once
// gRPC's library held by a process from the start of its main() to the end, and released
// there, on the main thread. gRPC shuts its library down when the last object using it
// goes; when that last one goes on one of gRPC's own threads (a call gRPC releases after
// the port that made it is gone), the shutdown runs on a detached thread, which then races
// the process's exit and its static destructors (ASan: a double free on a gRPC thread at
// exit). Held here, the count reaches 0 only in ~GrpcLifetime, which shuts down before
// returning.

#include <grpc/grpc.h>

namespace stormwatch {

class GrpcLifetime {
public:
    GrpcLifetime() { grpc_init(); }
    ~GrpcLifetime() { grpc_shutdown_blocking(); }
    GrpcLifetime(const GrpcLifetime&) = delete;
    GrpcLifetime& operator=(const GrpcLifetime&) = delete;
};

} // namespace stormwatch
