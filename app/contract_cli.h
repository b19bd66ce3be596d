#pragma once
// The command line's contract check (stormwatch_main.cpp wires it):
//   stormwatch --check-contract FILE [--profile NAME]
// prints every element the client needs of the gateway contract in FILE (.proto or
// .protoset) as found (number, type), missing (with the fields there) or of the wrong type,
// and what the gateway cannot do with it. Exit 0 usable, 1 usable with limits, 2 not usable
// (also: a file that cannot be read, an unknown profile).

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <optional>

namespace stormwatch {

struct ContractCliOptions {
    QCommandLineOption checkContract{
        "check-contract",
        "Check a gateway contract file (.proto or .protoset) against what stormwatch "
        "needs and exit: 0 usable, 1 usable with limits, 2 not usable.",
        "FILE"};
    QCommandLineOption profile{
        "profile",
        "--check-contract: the contract family to check against (stormwatch, "
        "mxaccess-gateway-v1; default: by the file's package).",
        "NAME"};

    void addTo(QCommandLineParser& parser) const { parser.addOptions({checkContract, profile}); }
};

bool contractCommandRequested(int argc, char** argv);

// The exit code when the command line asks for a contract check, else nullopt.
std::optional<int> runContractCommand(const QCommandLineParser& parser,
                                      const ContractCliOptions& options);

} // namespace stormwatch
