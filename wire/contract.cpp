#include "contract.h"

#include "mxaccess_gateway.pb.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <google/protobuf/compiler/importer.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/descriptor_database.h>
#include <map>
#include <sstream>

namespace stormwatch::wire {

namespace gp = google::protobuf;

namespace {

constexpr const char* kWellKnownPrefix = "google/protobuf/";
constexpr std::size_t kMaxErrorsShown = 8;

// The well-known types (google/protobuf/duration.proto, ...) as compiled into protobuf, for a
// contract that imports them without shipping them. Nothing else of the generated pool is
// visible: a site's file named like ours must not be shadowed by our compiled contract.
class WellKnownTypes final : public gp::DescriptorDatabase {
public:
    bool FindFileByName(const std::string& filename, gp::FileDescriptorProto* output) override
    {
        if (filename.rfind(kWellKnownPrefix, 0) != 0)
            return false;
        return m_generated.FindFileByName(filename, output);
    }
    bool FindFileContainingSymbol(const std::string&, gp::FileDescriptorProto*) override
    {
        return false;
    }
    bool FindFileContainingExtension(const std::string&, int, gp::FileDescriptorProto*) override
    {
        return false;
    }

private:
    gp::DescriptorPoolDatabase m_generated{*gp::DescriptorPool::generated_pool()};
};

// Errors of building a pool, "file:line:column: message" (a .proto) or "file: element: message".
class CollectErrors final : public gp::compiler::MultiFileErrorCollector,
                            public gp::DescriptorPool::ErrorCollector {
public:
    void AddError(const std::string& filename, int line, int column,
                  const std::string& message) override
    {
        if (line < 0)
            add(filename + ": " + message);
        else
            add(filename + ":" + std::to_string(line + 1) + ":" + std::to_string(column + 1) +
                ": " + message);
    }
    void AddError(const std::string& filename, const std::string& element, const gp::Message*,
                  ErrorLocation, const std::string& message) override
    {
        add(filename + ": " + (element.empty() ? "" : element + ": ") + message);
    }
    std::string text() const
    {
        std::string out;
        for (std::size_t i = 0; i < m_errors.size() && i < kMaxErrorsShown; ++i)
            out += (i ? "; " : "") + m_errors[i];
        if (m_errors.size() > kMaxErrorsShown)
            out += "; and " + std::to_string(m_errors.size() - kMaxErrorsShown) + " more";
        return out;
    }
    bool empty() const { return m_errors.empty(); }

private:
    void add(std::string line) { m_errors.push_back(std::move(line)); }
    std::vector<std::string> m_errors;
};

bool readWhole(const std::string& path, std::string& bytes, std::string& error)
{
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
        error = "contract file '" + path + "' does not exist";
        return false;
    }
    if (!std::filesystem::is_regular_file(path, ec)) {
        error = "contract file '" + path + "' is not a regular file";
        return false;
    }
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    if (in)
        text << in.rdbuf();
    if (!in || in.bad()) {
        error = "contract file '" + path + "' cannot be read";
        return false;
    }
    bytes = text.str();
    return true;
}

bool isDescriptorSetName(const std::string& path)
{
    const std::string ext = std::filesystem::path(path).extension().string();
    return ext == ".protoset" || ext == ".pb" || ext == ".desc" || ext == ".bin";
}

} // namespace

struct GatewayContract::Owned {
    WellKnownTypes wellKnown;
    CollectErrors errors;
    // A .proto: read from disk through the importer's database.
    std::unique_ptr<gp::compiler::DiskSourceTree> tree;
    std::unique_ptr<gp::compiler::SourceTreeDescriptorDatabase> sourceDb;
    // A descriptor set: its files, then the well-known ones.
    std::unique_ptr<gp::SimpleDescriptorDatabase> setDb;
    std::unique_ptr<gp::MergedDescriptorDatabase> mergedDb;
    std::unique_ptr<gp::DescriptorPool> pool;
};

GatewayContract::~GatewayContract() = default;

std::shared_ptr<const GatewayContract> GatewayContract::compiled()
{
    static const std::shared_ptr<const GatewayContract> contract = [] {
        std::shared_ptr<GatewayContract> c(new GatewayContract);
        c->m_pool = gp::DescriptorPool::generated_pool();
        c->m_files.push_back(mxgateway::v1::MxEvent::descriptor()->file());
        c->m_origin = "compiled-in (proto/mxaccess_gateway.proto)";
        c->m_compiled = true;
        return c;
    }();
    return contract;
}

std::shared_ptr<const GatewayContract>
GatewayContract::fromFile(const std::string& path, std::string& error,
                          const std::vector<std::string>& importDirs)
{
    std::string bytes;
    if (!readWhole(path, bytes, error))
        return nullptr;
    gp::FileDescriptorSet set;
    // By name first; a file named otherwise is a descriptor set when it parses as one.
    const bool asText = std::filesystem::path(path).extension() == ".proto";
    const bool asSet =
        !asText &&
        (isDescriptorSetName(path) ||
         (set.ParseFromString(bytes) && set.file_size() > 0 && !set.file(0).name().empty()));
    if (asSet) {
        if (!set.ParseFromString(bytes) || set.file_size() == 0) {
            error = "contract file '" + path +
                    "' is not a descriptor set (a FileDescriptorSet, as written by "
                    "protoc --include_imports --descriptor_set_out)";
            return nullptr;
        }
        std::vector<std::string> files;
        for (const auto& file : set.file())
            files.push_back(file.SerializeAsString());
        auto contract = fromFileProtos(files, path, error);
        if (!contract)
            error = "contract file '" + path + "': " + error;
        return contract;
    }

    std::shared_ptr<GatewayContract> c(new GatewayContract);
    c->m_owned = std::make_unique<Owned>();
    Owned& o = *c->m_owned;
    const std::filesystem::path file = std::filesystem::absolute(path);
    o.tree = std::make_unique<gp::compiler::DiskSourceTree>();
    o.tree->MapPath("", file.parent_path().string());
    for (const auto& dir : importDirs)
        o.tree->MapPath("", dir);
    o.sourceDb =
        std::make_unique<gp::compiler::SourceTreeDescriptorDatabase>(o.tree.get(), &o.wellKnown);
    o.sourceDb->RecordErrorsTo(&o.errors);
    o.pool = std::make_unique<gp::DescriptorPool>(o.sourceDb.get(),
                                                  o.sourceDb->GetValidationErrorCollector());
    const gp::FileDescriptor* built = o.pool->FindFileByName(file.filename().string());
    if (!built || !o.errors.empty()) {
        error = "contract file '" + path + "' does not compile: " +
                (o.errors.empty() ? std::string("unknown error") : o.errors.text());
        return nullptr;
    }
    c->m_pool = o.pool.get();
    c->m_files.push_back(built);
    c->m_origin = path;
    return c;
}

std::shared_ptr<const GatewayContract>
GatewayContract::fromFileProtos(const std::vector<std::string>& serializedFiles,
                                const std::string& origin, std::string& error)
{
    std::shared_ptr<GatewayContract> c(new GatewayContract);
    c->m_owned = std::make_unique<Owned>();
    Owned& o = *c->m_owned;
    o.setDb = std::make_unique<gp::SimpleDescriptorDatabase>();
    std::vector<std::string> names;
    for (const auto& bytes : serializedFiles) {
        gp::FileDescriptorProto file;
        if (!file.ParseFromString(bytes)) {
            error = "a file descriptor does not parse";
            return nullptr;
        }
        if (file.name().rfind(kWellKnownPrefix, 0) != 0)
            names.push_back(file.name());
        if (!o.setDb->Add(file)) {
            error =
                "file descriptor '" + file.name() + "' is given twice or conflicts with another";
            return nullptr;
        }
    }
    if (names.empty()) {
        error = "no contract file among the descriptors (only google/protobuf/ imports)";
        return nullptr;
    }
    o.mergedDb = std::make_unique<gp::MergedDescriptorDatabase>(o.setDb.get(), &o.wellKnown);
    o.pool = std::make_unique<gp::DescriptorPool>(o.mergedDb.get(), &o.errors);
    for (const auto& name : names) {
        const gp::FileDescriptor* built = o.pool->FindFileByName(name);
        if (!built) {
            error = "file descriptor '" + name + "' does not build: " +
                    (o.errors.empty() ? std::string("a dependency is missing") : o.errors.text());
            return nullptr;
        }
        c->m_files.push_back(built);
    }
    c->m_pool = o.pool.get();
    c->m_origin = origin;
    return c;
}

std::vector<std::string> GatewayContract::packages() const
{
    std::vector<std::string> out;
    for (const auto* file : m_files) {
        if (std::find(out.begin(), out.end(), file->package()) == out.end())
            out.push_back(file->package());
    }
    return out;
}

std::vector<const gp::ServiceDescriptor*> GatewayContract::services() const
{
    std::vector<const gp::ServiceDescriptor*> out;
    for (const auto* file : m_files)
        for (int i = 0; i < file->service_count(); ++i)
            out.push_back(file->service(i));
    return out;
}

const gp::Descriptor* GatewayContract::message(const std::string& package,
                                               const std::string& name) const
{
    return m_pool->FindMessageTypeByName(package.empty() ? name : package + "." + name);
}

const gp::EnumDescriptor* GatewayContract::enumType(const std::string& package,
                                                    const std::string& name) const
{
    return m_pool->FindEnumTypeByName(package.empty() ? name : package + "." + name);
}

std::vector<const gp::FileDescriptor*> GatewayContract::files() const
{
    return m_files;
}

bool sameFiles(const GatewayContract& a, const GatewayContract& b)
{
    const auto serialized = [](const GatewayContract& c) {
        std::map<std::string, std::string> out;
        for (const auto* file : c.files()) {
            gp::FileDescriptorProto proto;
            file->CopyTo(&proto);
            out.emplace(file->name(), proto.SerializeAsString());
        }
        return out;
    };
    return serialized(a) == serialized(b);
}

} // namespace stormwatch::wire
