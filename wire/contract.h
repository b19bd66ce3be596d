#pragma once
// A gateway contract: the protobuf descriptors of one gateway's gRPC service, wherever they
// come from. The client and the mock read numbers and types from here, never from code:
//   - compiled in: stormwatch's own contract (proto/mxaccess_gateway.proto), the default;
//   - a .proto file, read at run time with libprotoc's importer (its imports are found
//     next to it, in the directories given, and in the system's protobuf include root, so
//     google/protobuf/*.proto resolve);
//   - a .protoset (a serialized FileDescriptorSet, `protoc --include_imports
//     --descriptor_set_out`), the form a gateway installation publishes;
//   - descriptors read from a running gateway's server reflection (built by the caller
//     from the FileDescriptorProtos it received: fromFileProtos).
// A contract owns its descriptor pool; the descriptors it hands out live as long as it.

#include <google/protobuf/descriptor.h>
#include <memory>
#include <string>
#include <vector>

namespace stormwatch::wire {

class GatewayContract {
public:
    // stormwatch's own contract as compiled into this binary.
    static std::shared_ptr<const GatewayContract> compiled();
    // A .proto or .protoset file (by its content: a file that parses as a
    // FileDescriptorSet is one, anything else is read as .proto text). Null and `error` set
    // (naming the file, and line:column of a .proto's first errors) when it cannot be read.
    static std::shared_ptr<const GatewayContract>
    fromFile(const std::string& path, std::string& error,
             const std::vector<std::string>& importDirs = {});
    // Descriptors received as FileDescriptorProtos (a .protoset's or server reflection's),
    // in any order; dependencies missing from `files` are taken from the well-known types.
    static std::shared_ptr<const GatewayContract>
    fromFileProtos(const std::vector<std::string>& serializedFiles, const std::string& origin,
                   std::string& error);

    ~GatewayContract();
    GatewayContract(const GatewayContract&) = delete;
    GatewayContract& operator=(const GatewayContract&) = delete;

    const google::protobuf::DescriptorPool& pool() const { return *m_pool; }
    // Where it came from, for messages: "compiled-in (proto/mxaccess_gateway.proto)", a path,
    // "server reflection of HOST:PORT".
    const std::string& origin() const { return m_origin; }
    bool isCompiled() const { return m_compiled; }
    // The packages of the contract's own files (imports of google/protobuf/ apart), in file order.
    std::vector<std::string> packages() const;
    // Every service of the contract's own files, by full name.
    std::vector<const google::protobuf::ServiceDescriptor*> services() const;
    // A message or enum of `package` by its name inside the package ("MxEvent",
    // "MxCommand.Kind"); null when absent.
    const google::protobuf::Descriptor* message(const std::string& package,
                                                const std::string& name) const;
    const google::protobuf::EnumDescriptor* enumType(const std::string& package,
                                                     const std::string& name) const;
    // The contract's own files (not the well-known imports), as FileDescriptorProtos: what a
    // server hands out by reflection and what a .protoset written from it holds.
    std::vector<const google::protobuf::FileDescriptor*> files() const;

    struct Owned; // what keeps a runtime pool alive (importer, source tree, database)

private:
    GatewayContract() = default;

    const google::protobuf::DescriptorPool* m_pool = nullptr;
    std::vector<const google::protobuf::FileDescriptor*> m_files;
    std::unique_ptr<Owned> m_owned;
    std::string m_origin;
    bool m_compiled = false;
};

// The same own files, byte for byte as FileDescriptorProtos (a gateway that describes the
// contract this binary was built from, say).
bool sameFiles(const GatewayContract& a, const GatewayContract& b);

} // namespace stormwatch::wire
