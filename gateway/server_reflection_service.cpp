#include "server_reflection_service.h"

#include "proto/grpc_bytes.h"
#include "wire/server_reflection.h"

#include <google/protobuf/descriptor.pb.h>
#include <set>

namespace stormwatch::gateway {

namespace gp = google::protobuf;
namespace refl = wire::reflection;

namespace {

class RefusedReactor final : public grpc::ServerGenericBidiReactor {
public:
    explicit RefusedReactor(grpc::Status status) { Finish(std::move(status)); }
    void OnDone() override { delete this; }
};

// One reflection stream: each request read is answered, in order, until the client ends
// its side.
class ReflectionReactor final : public grpc::ServerGenericBidiReactor {
public:
    explicit ReflectionReactor(const ServerReflectionService& service) : m_service(service)
    {
        StartRead(&m_in);
    }

    void OnReadDone(bool ok) override
    {
        if (!ok) {
            Finish(grpc::Status::OK);
            return;
        }
        m_out = toByteBuffer(m_service.answer(bytesOf(m_in)));
        m_in.Clear();
        StartWrite(&m_out);
    }
    void OnWriteDone(bool ok) override
    {
        if (!ok) {
            Finish(grpc::Status(grpc::StatusCode::CANCELLED, "reflection reply not written"));
            return;
        }
        StartRead(&m_in);
    }
    void OnDone() override { delete this; }

private:
    const ServerReflectionService& m_service;
    grpc::ByteBuffer m_in;
    grpc::ByteBuffer m_out;
};

// `file` and everything it imports, each once, the file itself first.
void withDependencies(const gp::FileDescriptor* file, std::set<std::string>& seen,
                      std::vector<std::string>& out)
{
    if (!file || !seen.insert(file->name()).second)
        return;
    gp::FileDescriptorProto proto;
    file->CopyTo(&proto);
    out.push_back(proto.SerializeAsString());
    for (int i = 0; i < file->dependency_count(); ++i)
        withDependencies(file->dependency(i), seen, out);
}

} // namespace

void ServerReflectionService::addService(const gp::ServiceDescriptor* service)
{
    if (service)
        m_services.push_back(service);
}

std::string ServerReflectionService::answer(const std::string& bytes) const
{
    refl::Request request;
    std::string error;
    if (!refl::decodeRequest(bytes, request, error))
        return refl::encodeError(request, int(grpc::StatusCode::INVALID_ARGUMENT), error);
    using Kind = refl::Request::Kind;
    if (request.kind == Kind::ListServices) {
        std::vector<std::string> names;
        for (const auto* service : m_services)
            names.push_back(service->full_name());
        return refl::encodeServices(request, names);
    }
    if (request.kind == Kind::Other)
        return refl::encodeError(
            request, int(grpc::StatusCode::UNIMPLEMENTED),
            "this gateway answers list_services, file_by_filename and file_containing_symbol");
    const gp::FileDescriptor* file = nullptr;
    std::set<const gp::DescriptorPool*> pools;
    for (const auto* service : m_services)
        pools.insert(service->file()->pool());
    for (const auto* pool : pools) {
        file = request.kind == Kind::FileByFilename
                   ? pool->FindFileByName(request.argument)
                   : pool->FindFileContainingSymbol(request.argument);
        if (file)
            break;
    }
    if (!file)
        return refl::encodeError(
            request, int(grpc::StatusCode::NOT_FOUND),
            (request.kind == Kind::FileByFilename ? "no file " : "no symbol ") + request.argument);
    std::set<std::string> seen;
    std::vector<std::string> files;
    withDependencies(file, seen, files);
    return refl::encodeFiles(request, files);
}

grpc::ServerGenericBidiReactor* ServerReflectionService::reactorFor(const std::string& method) const
{
    return refl::isReflectionPath(method) ? new ReflectionReactor(*this) : nullptr;
}

grpc::ServerGenericBidiReactor* refuseCall(grpc::Status status)
{
    return new RefusedReactor(std::move(status));
}

} // namespace stormwatch::gateway
