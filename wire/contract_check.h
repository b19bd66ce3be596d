#pragma once
// The check that a contract provides what a profile names, done before the first command:
// a contract that does not check gets no command at all. Each element is found (with the
// number and type the descriptor gives it), missing (with the fields that are there, by
// name, so a person can see what the gateway calls it), or of the wrong type; what the
// optional ones' absence means is collected as the contract's limits.

#include "contract.h"
#include "contract_profile.h"

#include <google/protobuf/descriptor.h>
#include <memory>
#include <string>
#include <vector>

namespace stormwatch::wire {

enum class Verdict { Usable = 0, Limited = 1, Unusable = 2 }; // also --check-contract's exit code

struct ElementCheck {
    enum class Status { Found, Missing, WrongType, NotNeeded };
    const ProfileElement* element = nullptr;
    Status status = Status::Missing;
    int number = 0;        // the field's number, or the enum value's
    std::string foundType; // as the descriptor has it ("int32", "message SubscribeResult")
    std::string problem;   // what is wrong, in words
    std::vector<std::string>
        candidates; // the fields (or values) the message (or enum) has: "name = N (type)"
    const google::protobuf::FieldDescriptor* field = nullptr;
    const google::protobuf::EnumValueDescriptor* enumValue = nullptr;
};

struct RpcCheck {
    const ProfileRpc* rpc = nullptr;
    bool found = false;
    std::string path; // "/mxaccess_gateway.v1.MxAccessGateway/Invoke"
    std::string problem;
    const google::protobuf::MethodDescriptor* method = nullptr;
};

struct ContractCheck {
    std::shared_ptr<const GatewayContract> contract;
    const ContractProfile* profile = nullptr;
    std::string package; // where the profile's names were looked up
    std::string problem; // a contract-wide problem (no such service), empty otherwise
    std::vector<RpcCheck> rpcs;
    std::vector<ElementCheck> elements;
    std::vector<std::string> limits;        // each optional element's "without it", once each
    std::vector<std::string> writesPresent; // write payloads the contract has (never sent)

    Verdict verdict() const;
    int exitCode() const { return static_cast<int>(verdict()); }
    const ElementCheck* element(const std::string& role) const;
    // The resolved field of a role, or null (missing, or not in this family).
    const google::protobuf::FieldDescriptor* field(const std::string& role) const;
    // The required elements that are missing or of the wrong type: "MxEvent.worker_sequence"
    std::vector<std::string> failures() const;
    // One sentence for a banner or a log line: "contract X (profile P) usable", "... usable with
    // limits: a; b", "... not usable: MxEvent.value is missing (fields there: ...)".
    std::string summary() const;
    // The whole report, a line per element, as --check-contract prints it.
    std::string report() const;
};

ContractCheck checkContract(std::shared_ptr<const GatewayContract> contract,
                            const ContractProfile& profile);

// The profile a contract is meant for: the one whose package the contract declares; else
// the one that checks best. Never null (profiles are never empty).
const ContractProfile* profileFor(const GatewayContract& contract);

} // namespace stormwatch::wire
