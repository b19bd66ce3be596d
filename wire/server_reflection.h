#pragma once
// gRPC server reflection's messages (grpc.reflection.v1alpha and .v1, the same fields), by
// field number: Debian ships the reflection service's library but not its .proto, and a
// compiled copy of those messages would clash with the one inside that library. Only what
// reading a gateway's contract needs is here: list the services, ask for the file that
// holds a symbol (with its dependencies), and the error reply. Both sides use it: the
// client reads a gateway's contract, the mock describes the contract it serves.

#include <string>
#include <vector>

namespace stormwatch::wire::reflection {

// Both versions' method paths, the older first: it is the one most servers have.
inline constexpr const char* kPaths[] = {
    "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
    "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
};
bool isReflectionPath(const std::string& method);

struct Request {
    enum class Kind { ListServices, FileByFilename, FileContainingSymbol, Other };
    Kind kind = Kind::Other;
    std::string argument; // the file or symbol name
    std::string bytes;    // as received: a reply echoes it as original_request
};

struct Response {
    enum class Kind { Services, Files, Error, Other };
    Kind kind = Kind::Other;
    std::vector<std::string> services; // full names
    std::vector<std::string> files;    // serialized FileDescriptorProtos
    int errorCode = 0;                 // a gRPC status code
    std::string errorMessage;
};

std::string encodeListServices();
std::string encodeFileContainingSymbol(const std::string& symbol);
// False (and `error` set) when the bytes are not a reflection request.
bool decodeRequest(const std::string& bytes, Request& out, std::string& error);

std::string encodeServices(const Request& original, const std::vector<std::string>& services);
std::string encodeFiles(const Request& original, const std::vector<std::string>& serializedFiles);
std::string encodeError(const Request& original, int code, const std::string& message);
// False (and `error` set) when the bytes are not a reflection response.
bool decodeResponse(const std::string& bytes, Response& out, std::string& error);

} // namespace stormwatch::wire::reflection
