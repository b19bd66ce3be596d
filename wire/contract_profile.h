#pragma once
// A contract profile: one table per contract family naming, by message and field *name*,
// every element of a gateway contract the client needs. Numbers and types are never here:
// they come from the contract's descriptors, so a site's contract file with other numbers
// still works, and one that lacks an element is refused with the element named.
//
// Roles are the client's vocabulary ("open.command_timeout", "change.item_handle"); the
// codec resolves each role to a field of the contract. A role absent from a profile is one
// that family does not have (stormwatch's replies carry a success flag, the published
// contract's a protocol status). Every role is a read: no profile names a write payload,
// and the write kinds a contract has are listed only to say they are never sent.

#include <string>
#include <string_view>
#include <vector>

namespace stormwatch::wire {

// What a field must be. Int32 accepts int32/sint32/sfixed32, Sequence any 64-bit or 32-bit
// unsigned or signed integer.
enum class Shape : unsigned char {
    String,
    Int32,
    Int64,
    Sequence,
    Bool,
    Double,
    Float,
    Bytes,
    Message,
    Enum,
    EnumValue
};

const char* shapeName(Shape shape);

struct ProfileElement {
    const char* role;    // the client's name for it
    const char* message; // message (or, for EnumValue, enum) inside the contract's package
    const char* field;   // field name (or enum value name)
    Shape shape;
    bool repeated = false;
    const char* type = nullptr; // Message / Enum: the type's name in the package, or a full
                                // name with a leading '.' (".google.protobuf.Duration")
    // Null: required, the contract is unusable without it. Otherwise what the client cannot
    // do without it: the contract is usable with that limit.
    const char* withoutIt = nullptr;
    // The role through which this element's message is reached, when that role is optional:
    // with the parent missing, this element is not needed (and not checked).
    const char* parent = nullptr;

    bool required() const { return withoutIt == nullptr; }
};

struct ProfileRpc {
    const char* role;   // "open", "close", "invoke", "events"
    const char* method; // name in the service
    const char* input;  // request message in the package
    const char* output; // reply message in the package
    bool serverStreaming = false;
};

struct ContractProfile {
    const char* name;        // as given to --profile
    const char* description; // one line
    const char* package;     // the package this family's contracts use
    const char* service;     // the gateway service's name in it
    std::vector<ProfileRpc> rpcs;
    std::vector<ProfileElement> elements;
    // Command payloads (MxCommand fields) that write; present in a contract or not, the
    // client has no role for them and never sends one.
    std::vector<const char*> writePayloads;

    const ProfileElement* element(std::string_view role) const;
};

// Every profile, in the order --check-contract tries them.
const std::vector<ContractProfile>& contractProfiles();
// By name; null when there is none.
const ContractProfile* findProfile(std::string_view name);
// "stormwatch, mxaccess-gateway-v1"
std::string profileNames();

} // namespace stormwatch::wire
