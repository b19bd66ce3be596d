#pragma once
// A message's wire bytes in and out of a gRPC buffer: the client's generic stub and the
// mock's generic service both carry a contract's messages as bytes the codec made or reads.
// Here, beside the contract, because client/ and gateway/ both need it and neither may
// include the other.

#include <grpcpp/support/byte_buffer.h>
#include <string>
#include <vector>

namespace stormwatch {

inline grpc::ByteBuffer toByteBuffer(const std::string& bytes)
{
    grpc::Slice slice(bytes);
    return grpc::ByteBuffer(&slice, 1);
}

// Empty when the buffer cannot be read.
inline std::string bytesOf(const grpc::ByteBuffer& buffer)
{
    std::vector<grpc::Slice> slices;
    std::string out;
    if (!buffer.Dump(&slices).ok())
        return out;
    for (const auto& slice : slices)
        out.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
    return out;
}

} // namespace stormwatch
