#include "server_reflection.h"

#include <functional>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/wire_format_lite.h>

namespace stormwatch::wire::reflection {

namespace io = google::protobuf::io;
using WFL = google::protobuf::internal::WireFormatLite;

namespace {

// Field numbers of reflection.proto (identical in v1alpha and v1).
enum RequestField { kHost = 1, kFileByFilename = 3, kFileContainingSymbol = 4, kListServices = 7 };
enum ResponseField {
    kOriginalRequest = 2,
    kFileDescriptorResponse = 4,
    kListServicesResponse = 6,
    kErrorResponse = 7
};
constexpr int kRepeatedItem =
    1; // FileDescriptorResponse.file_descriptor_proto, ListServiceResponse.service,
       // ServiceResponse.name, ErrorResponse.error_code
constexpr int kErrorMessage = 2;

void putString(std::string& out, int field, const std::string& value)
{
    io::StringOutputStream raw(&out);
    io::CodedOutputStream coded(&raw);
    coded.WriteTag(WFL::MakeTag(field, WFL::WIRETYPE_LENGTH_DELIMITED));
    coded.WriteVarint32(static_cast<std::uint32_t>(value.size()));
    coded.WriteString(value);
}

void putVarint(std::string& out, int field, std::uint64_t value)
{
    io::StringOutputStream raw(&out);
    io::CodedOutputStream coded(&raw);
    coded.WriteTag(WFL::MakeTag(field, WFL::WIRETYPE_VARINT));
    coded.WriteVarint64(value);
}

// Calls `onField(number, bytes-or-empty, varint)` for each field; false on malformed bytes.
// Length-delimited fields come as bytes, varints as the number; others are skipped.
bool eachField(
    const std::string& bytes,
    const std::function<bool(int field, const std::string* text, std::uint64_t varint)>& onField)
{
    io::CodedInputStream in(reinterpret_cast<const std::uint8_t*>(bytes.data()),
                            static_cast<int>(bytes.size()));
    while (true) {
        const std::uint32_t tag = in.ReadTag();
        if (tag == 0)
            return in.ConsumedEntireMessage();
        const int field = WFL::GetTagFieldNumber(tag);
        switch (WFL::GetTagWireType(tag)) {
        case WFL::WIRETYPE_LENGTH_DELIMITED: {
            std::uint32_t size = 0;
            std::string text;
            if (!in.ReadVarint32(&size) || !in.ReadString(&text, static_cast<int>(size)))
                return false;
            if (!onField(field, &text, 0))
                return false;
            break;
        }
        case WFL::WIRETYPE_VARINT: {
            std::uint64_t value = 0;
            if (!in.ReadVarint64(&value))
                return false;
            if (!onField(field, nullptr, value))
                return false;
            break;
        }
        default:
            if (!WFL::SkipField(&in, tag))
                return false;
        }
    }
}

} // namespace

bool isReflectionPath(const std::string& method)
{
    for (const char* path : kPaths)
        if (method == path)
            return true;
    return false;
}

std::string encodeListServices()
{
    std::string out;
    putString(out, kListServices, "");
    return out;
}

std::string encodeFileContainingSymbol(const std::string& symbol)
{
    std::string out;
    putString(out, kFileContainingSymbol, symbol);
    return out;
}

bool decodeRequest(const std::string& bytes, Request& out, std::string& error)
{
    out = Request{};
    out.bytes = bytes;
    const bool read = eachField(bytes, [&](int field, const std::string* text, std::uint64_t) {
        if (!text)
            return true;
        switch (field) {
        case kHost:
            break;
        case kFileByFilename:
            out.kind = Request::Kind::FileByFilename;
            out.argument = *text;
            break;
        case kFileContainingSymbol:
            out.kind = Request::Kind::FileContainingSymbol;
            out.argument = *text;
            break;
        case kListServices:
            out.kind = Request::Kind::ListServices;
            out.argument.clear();
            break;
        default:
            out.kind = Request::Kind::Other;
            break;
        }
        return true;
    });
    if (!read)
        error = "not a server reflection request";
    return read;
}

std::string encodeServices(const Request& original, const std::vector<std::string>& services)
{
    std::string list;
    for (const auto& name : services) {
        std::string service;
        putString(service, kRepeatedItem, name);
        putString(list, kRepeatedItem, service);
    }
    std::string out;
    putString(out, kOriginalRequest, original.bytes);
    putString(out, kListServicesResponse, list);
    return out;
}

std::string encodeFiles(const Request& original, const std::vector<std::string>& serializedFiles)
{
    std::string files;
    for (const auto& file : serializedFiles)
        putString(files, kRepeatedItem, file);
    std::string out;
    putString(out, kOriginalRequest, original.bytes);
    putString(out, kFileDescriptorResponse, files);
    return out;
}

std::string encodeError(const Request& original, int code, const std::string& message)
{
    std::string error;
    putVarint(error, kRepeatedItem, static_cast<std::uint64_t>(static_cast<std::int64_t>(code)));
    putString(error, kErrorMessage, message);
    std::string out;
    putString(out, kOriginalRequest, original.bytes);
    putString(out, kErrorResponse, error);
    return out;
}

bool decodeResponse(const std::string& bytes, Response& out, std::string& error)
{
    out = Response{};
    const auto repeatedStrings = [](const std::string& message, std::vector<std::string>& into) {
        return eachField(message, [&](int field, const std::string* text, std::uint64_t) {
            if (field == kRepeatedItem && text)
                into.push_back(*text);
            return true;
        });
    };
    const bool read = eachField(bytes, [&](int field, const std::string* text, std::uint64_t) {
        if (!text)
            return true;
        switch (field) {
        case kFileDescriptorResponse:
            out.kind = Response::Kind::Files;
            return repeatedStrings(*text, out.files);
        case kListServicesResponse: {
            out.kind = Response::Kind::Services;
            std::vector<std::string> entries;
            if (!repeatedStrings(*text, entries))
                return false;
            for (const auto& entry : entries) {
                std::vector<std::string> names;
                if (!repeatedStrings(entry, names))
                    return false;
                if (!names.empty())
                    out.services.push_back(names.back());
            }
            return true;
        }
        case kErrorResponse:
            out.kind = Response::Kind::Error;
            return eachField(*text, [&](int f, const std::string* s, std::uint64_t v) {
                if (f == kRepeatedItem && !s)
                    out.errorCode = static_cast<int>(static_cast<std::int32_t>(v));
                else if (f == kErrorMessage && s)
                    out.errorMessage = *s;
                return true;
            });
        default:
            return true;
        }
    });
    if (!read)
        error = "the server reflection reply is not a reflection message";
    return read;
}

} // namespace stormwatch::wire::reflection
