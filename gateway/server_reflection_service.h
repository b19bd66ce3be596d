#pragma once
// The mock's gRPC server reflection (v1alpha and v1): it describes the services it serves
// from their own descriptors, compiled in or read from a contract file at run time. gRPC's
// reflection plugin knows only the compiled-in pool, and switching it on switches it on for
// every server the process builds afterwards, so a mock serving a run-time contract could
// never describe it.

#include <google/protobuf/descriptor.h>
#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/support/server_callback.h>
#include <memory>
#include <string>
#include <vector>

namespace stormwatch::gateway {

class ServerReflectionService {
public:
    // A service the server serves; its descriptor's pool must outlive this.
    void addService(const google::protobuf::ServiceDescriptor* service);
    // The reply to one reflection request (its bytes): the services' names, or the file
    // that holds a symbol or has a name, with every file it imports; an error reply for
    // anything else.
    std::string answer(const std::string& request) const;
    // A reactor for a call on a reflection path; null for any other method.
    grpc::ServerGenericBidiReactor* reactorFor(const std::string& method) const;

private:
    std::vector<const google::protobuf::ServiceDescriptor*> m_services;
};

// A call answered at once with `status` (a method not served, a key refused).
grpc::ServerGenericBidiReactor* refuseCall(grpc::Status status);

} // namespace stormwatch::gateway
