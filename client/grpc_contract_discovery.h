#pragma once
// Reads a gateway's contract from its gRPC server reflection: the services it lists, then,
// for each whose name is a gateway service of a known contract family, the file that
// declares it with every file that file imports. One bidi call, one request at a time.
// The result comes on a gRPC thread; the port hands it to its owner.

#include "gateway_port.h"
#include "grpc_port_internal.h"

#include <functional>
#include <grpcpp/generic/generic_stub.h>
#include <memory>
#include <string>
#include <vector>

namespace stormwatch {

struct DiscoveredContract {
    enum class Outcome {
        Read,         // `files` hold the gateway service's files
        NoGateway,    // reflection answered, but lists no gateway service (`services`)
        NoReflection, // the gateway does not serve reflection (UNIMPLEMENTED)
        Failed,       // down, refused, timed out, or a reply that does not read: `status`
    };
    Outcome outcome = Outcome::Failed;
    std::vector<std::string> services; // every service listed
    std::vector<std::string> files;    // serialized FileDescriptorProtos
    RpcStatus status;
};

class ContractDiscovery : public GrpcGatewayPort::Call {
public:
    using Done = std::function<void(DiscoveredContract)>;
    // On `path` (one of wire::reflection::kPaths). `done` runs once, on a gRPC thread, when
    // gRPC is done with the call. The context must be prepared (credentials, deadline)
    // before start().
    static std::shared_ptr<ContractDiscovery> create(std::string path, Done done);
    virtual void start(grpc::GenericStub& stub) = 0;

protected:
    ContractDiscovery() = default;
};

} // namespace stormwatch
