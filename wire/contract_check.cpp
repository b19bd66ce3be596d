#include "contract_check.h"

#include <algorithm>
#include <map>
#include <sstream>

namespace stormwatch::wire {

namespace gp = google::protobuf;
using Status = ElementCheck::Status;

namespace {

constexpr std::size_t kMaxCandidates = 24;

std::string fullName(const std::string& package, const char* type)
{
    if (type[0] == '.')
        return type + 1;
    return package.empty() ? std::string(type) : package + "." + type;
}

// A type's name as a person reads it in this contract: inside the package without it.
std::string shortName(const std::string& package, const std::string& full)
{
    if (!package.empty() && full.rfind(package + ".", 0) == 0)
        return full.substr(package.size() + 1);
    return full;
}

std::string typeOf(const gp::FieldDescriptor& f, const std::string& package)
{
    std::string out = f.is_repeated() ? "repeated " : "";
    if (f.type() == gp::FieldDescriptor::TYPE_MESSAGE ||
        f.type() == gp::FieldDescriptor::TYPE_GROUP)
        return out + "message " + shortName(package, f.message_type()->full_name());
    if (f.type() == gp::FieldDescriptor::TYPE_ENUM)
        return out + "enum " + shortName(package, f.enum_type()->full_name());
    return out + gp::FieldDescriptor::TypeName(f.type());
}

bool scalarMatches(Shape shape, gp::FieldDescriptor::Type t)
{
    using T = gp::FieldDescriptor;
    switch (shape) {
    case Shape::String:
        return t == T::TYPE_STRING;
    case Shape::Int32:
        return t == T::TYPE_INT32 || t == T::TYPE_SINT32 || t == T::TYPE_SFIXED32;
    case Shape::Int64:
        return t == T::TYPE_INT64 || t == T::TYPE_SINT64 || t == T::TYPE_SFIXED64;
    case Shape::Sequence:
        return t == T::TYPE_UINT64 || t == T::TYPE_FIXED64 || t == T::TYPE_INT64 ||
               t == T::TYPE_SINT64 || t == T::TYPE_SFIXED64 || t == T::TYPE_UINT32 ||
               t == T::TYPE_FIXED32;
    case Shape::Bool:
        return t == T::TYPE_BOOL;
    case Shape::Double:
        return t == T::TYPE_DOUBLE;
    case Shape::Float:
        return t == T::TYPE_FLOAT;
    case Shape::Bytes:
        return t == T::TYPE_BYTES;
    default:
        return false;
    }
}

std::string expectedOf(const ProfileElement& e, const std::string& package)
{
    std::string out = e.repeated ? "repeated " : "";
    if (e.shape == Shape::Message)
        return out + "message " + shortName(package, fullName(package, e.type));
    if (e.shape == Shape::Enum)
        return out + "enum " + shortName(package, fullName(package, e.type));
    return out + shapeName(e.shape);
}

std::vector<std::string> fieldsOf(const gp::Descriptor& m, const std::string& package)
{
    std::vector<std::string> out;
    for (int i = 0; i < m.field_count() && out.size() < kMaxCandidates; ++i)
        out.push_back(m.field(i)->name() + " = " + std::to_string(m.field(i)->number()) + " (" +
                      typeOf(*m.field(i), package) + ")");
    return out;
}

std::vector<std::string> valuesOf(const gp::EnumDescriptor& e)
{
    std::vector<std::string> out;
    for (int i = 0; i < e.value_count() && out.size() < kMaxCandidates; ++i)
        out.push_back(e.value(i)->name() + " = " + std::to_string(e.value(i)->number()));
    return out;
}

std::vector<std::string> typesOf(const GatewayContract& contract, const std::string& package,
                                 bool enums)
{
    std::vector<std::string> out;
    for (const auto* file : contract.files()) {
        if (file->package() != package)
            continue;
        const int n = enums ? file->enum_type_count() : file->message_type_count();
        for (int i = 0; i < n && out.size() < kMaxCandidates; ++i)
            out.push_back(enums ? file->enum_type(i)->name() : file->message_type(i)->name());
    }
    return out;
}

void checkElement(const GatewayContract& contract, const std::string& package, ElementCheck& check)
{
    const ProfileElement& e = *check.element;
    if (e.shape == Shape::EnumValue) {
        const gp::EnumDescriptor* type = contract.enumType(package, e.message);
        if (!type) {
            check.problem = "enum " + std::string(e.message) + " is not in the contract";
            check.candidates = typesOf(contract, package, true);
            return;
        }
        check.enumValue = type->FindValueByName(e.field);
        if (!check.enumValue) {
            check.problem = std::string(e.message) + " has no value " + e.field;
            check.candidates = valuesOf(*type);
            return;
        }
        check.status = Status::Found;
        check.number = check.enumValue->number();
        check.foundType = "enum value";
        return;
    }
    const gp::Descriptor* message = contract.message(package, e.message);
    if (!message) {
        check.problem = "message " + std::string(e.message) + " is not in the contract";
        check.candidates = typesOf(contract, package, false);
        return;
    }
    const gp::FieldDescriptor* f = message->FindFieldByName(e.field);
    if (!f) {
        check.problem = std::string(e.message) + " has no field " + e.field;
        check.candidates = fieldsOf(*message, package);
        return;
    }
    check.number = f->number();
    check.foundType = typeOf(*f, package);
    bool ok = f->is_repeated() == e.repeated;
    if (ok) {
        if (e.shape == Shape::Message)
            ok = f->type() == gp::FieldDescriptor::TYPE_MESSAGE &&
                 f->message_type()->full_name() == fullName(package, e.type);
        else if (e.shape == Shape::Enum)
            ok = f->type() == gp::FieldDescriptor::TYPE_ENUM &&
                 f->enum_type()->full_name() == fullName(package, e.type);
        else
            ok = scalarMatches(e.shape, f->type());
    }
    if (!ok) {
        check.status = Status::WrongType;
        check.problem = std::string(e.message) + "." + e.field + " is " + check.foundType +
                        ", not " + expectedOf(e, package);
        return;
    }
    check.status = Status::Found;
    check.field = f;
}

std::string join(const std::vector<std::string>& items, const char* sep)
{
    std::string out;
    for (const auto& item : items)
        out += (out.empty() ? "" : sep) + item;
    return out;
}

const char* verdictText(Verdict v)
{
    switch (v) {
    case Verdict::Usable:
        return "usable";
    case Verdict::Limited:
        return "usable with limits";
    case Verdict::Unusable:
        return "not usable";
    }
    return "?";
}

} // namespace

ContractCheck checkContract(std::shared_ptr<const GatewayContract> contract,
                            const ContractProfile& profile)
{
    ContractCheck out;
    out.contract = contract;
    out.profile = &profile;
    const auto packages = contract->packages();
    out.package = profile.package;
    const gp::ServiceDescriptor* service =
        contract->pool().FindServiceByName(fullName(out.package, profile.service));
    if (!service) {
        // The service under another package name: the names inside still count, and the
        // methods' paths follow the contract's own package.
        for (const auto* s : contract->services())
            if (s->name() == profile.service) {
                service = s;
                out.package = s->file()->package();
                break;
            }
    }
    if (!service) {
        std::vector<std::string> names;
        for (const auto* s : contract->services())
            names.push_back(s->full_name());
        out.problem = "the contract has no service " + std::string(profile.service) +
                      (names.empty() ? std::string(" (it has no service at all)")
                                     : " (services there: " + join(names, ", ") + ")");
    }

    for (const auto& rpc : profile.rpcs) {
        RpcCheck r;
        r.rpc = &rpc;
        if (service) {
            r.method = service->FindMethodByName(rpc.method);
            r.path = "/" + service->full_name() + "/" + rpc.method;
            if (!r.method) {
                r.problem = service->full_name() + " has no rpc " + rpc.method;
            } else if (r.method->input_type()->full_name() != fullName(out.package, rpc.input) ||
                       r.method->output_type()->full_name() != fullName(out.package, rpc.output)) {
                r.problem = std::string(rpc.method) + " takes " +
                            shortName(out.package, r.method->input_type()->full_name()) +
                            " and returns " +
                            shortName(out.package, r.method->output_type()->full_name()) +
                            ", not " + rpc.input + " → " + rpc.output;
            } else if (r.method->server_streaming() != rpc.serverStreaming ||
                       r.method->client_streaming()) {
                r.problem = std::string(rpc.method) +
                            (rpc.serverStreaming ? " is not a server stream" : " is not unary");
            } else {
                r.found = true;
            }
        } else {
            r.problem = "no service";
        }
        out.rpcs.push_back(std::move(r));
    }

    std::map<std::string, Status> statusOf;
    for (const auto& e : profile.elements) {
        ElementCheck c;
        c.element = &e;
        if (e.parent && statusOf[e.parent] != Status::Found)
            c.status = Status::NotNeeded;
        else
            checkElement(*contract, out.package, c);
        statusOf[e.role] = c.status;
        if (!e.required() && (c.status == Status::Missing || c.status == Status::WrongType) &&
            std::find(out.limits.begin(), out.limits.end(), e.withoutIt) == out.limits.end())
            out.limits.push_back(e.withoutIt);
        out.elements.push_back(std::move(c));
    }

    if (const gp::Descriptor* command = contract->message(out.package, "MxCommand"))
        for (const char* write : profile.writePayloads)
            if (command->FindFieldByName(write))
                out.writesPresent.push_back(std::string("MxCommand.") + write);
    return out;
}

Verdict ContractCheck::verdict() const
{
    if (!problem.empty())
        return Verdict::Unusable;
    for (const auto& r : rpcs)
        if (!r.found)
            return Verdict::Unusable;
    for (const auto& e : elements)
        if (e.element->required() && (e.status == Status::Missing || e.status == Status::WrongType))
            return Verdict::Unusable;
    return limits.empty() ? Verdict::Usable : Verdict::Limited;
}

const ElementCheck* ContractCheck::element(const std::string& role) const
{
    for (const auto& e : elements)
        if (role == e.element->role)
            return &e;
    return nullptr;
}

const gp::FieldDescriptor* ContractCheck::field(const std::string& role) const
{
    const ElementCheck* e = element(role);
    return e && e->status == Status::Found ? e->field : nullptr;
}

std::vector<std::string> ContractCheck::failures() const
{
    std::vector<std::string> out;
    if (!problem.empty())
        out.push_back(problem);
    for (const auto& r : rpcs)
        if (!r.found && problem.empty())
            out.push_back(r.problem);
    for (const auto& e : elements) {
        if (!e.element->required() || e.status == Status::Found || e.status == Status::NotNeeded)
            continue;
        std::string line = e.problem;
        if (!e.candidates.empty())
            line += " (there: " + join(e.candidates, ", ") + ")";
        out.push_back(line);
    }
    return out;
}

std::string ContractCheck::summary() const
{
    std::string head = "contract " + contract->origin() + " (profile " + profile->name + ") " +
                       verdictText(verdict());
    switch (verdict()) {
    case Verdict::Usable:
        return head;
    case Verdict::Limited:
        return head + ": " + join(limits, "; ");
    case Verdict::Unusable:
        return head + ": " + join(failures(), "; ");
    }
    return head;
}

std::string ContractCheck::report() const
{
    std::ostringstream out;
    out << "contract: " << contract->origin() << "\n";
    out << "profile:  " << profile->name << " (" << profile->description << ")\n";
    if (!problem.empty())
        out << "problem:  " << problem << "\n";
    else
        out << "service:  " << package << "." << profile->service << "\n";
    out << "rpcs:\n";
    for (const auto& r : rpcs)
        out << "  " << (r.found ? "found    " : "MISSING  ") << r.rpc->method << "  "
            << (r.found ? r.path : r.problem) << "\n";
    out << "elements:\n";
    for (const auto& c : elements) {
        const ProfileElement& e = *c.element;
        const std::string name = std::string(e.message) + "." + e.field;
        switch (c.status) {
        case Status::Found:
            out << "  found    " << e.role << "  " << name << " = " << c.number << " ("
                << c.foundType << ")\n";
            break;
        case Status::NotNeeded:
            out << "  -        " << e.role << "  " << name << " (not needed: " << e.parent
                << " is absent)\n";
            break;
        case Status::Missing:
        case Status::WrongType:
            out << "  "
                << (c.status == Status::Missing ? (e.required() ? "MISSING  " : "missing  ")
                                                : (e.required() ? "WRONG    " : "wrong    "))
                << e.role << "  " << c.problem << "\n";
            if (!c.candidates.empty())
                out << "           there: " << join(c.candidates, ", ") << "\n";
            if (!e.required())
                out << "           so: " << e.withoutIt << "\n";
            break;
        }
    }
    if (!limits.empty()) {
        out << "limits:\n";
        for (const auto& l : limits)
            out << "  - " << l << "\n";
    }
    if (!writesPresent.empty())
        out << "writes:   the contract has " << join(writesPresent, ", ")
            << "; stormwatch never sends them\n";
    out << "verdict:  " << verdictText(verdict()) << " (exit " << exitCode() << ")\n";
    return out.str();
}

const ContractProfile* profileFor(const GatewayContract& contract)
{
    const auto packages = contract.packages();
    for (const auto& p : contractProfiles())
        if (std::find(packages.begin(), packages.end(), p.package) != packages.end())
            return &p;
    const ContractProfile* best = &contractProfiles().front();
    std::size_t fewest = SIZE_MAX;
    std::shared_ptr<const GatewayContract> borrowed(&contract, [](const GatewayContract*) {});
    for (const auto& p : contractProfiles()) {
        const std::size_t n = checkContract(borrowed, p).failures().size();
        if (n < fewest) {
            fewest = n;
            best = &p;
        }
    }
    return best;
}

} // namespace stormwatch::wire
