#include "app/contract_cli.h"

#include "app/cli_streams.h"
#include "wire/contract.h"
#include "wire/contract_check.h"

#include <QByteArray>

namespace stormwatch {

using cli::err;
using cli::out;

bool contractCommandRequested(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i) {
        const QByteArray a(argv[i]);
        if (a == "--check-contract" || a.startsWith("--check-contract="))
            return true;
    }
    return false;
}

std::optional<int> runContractCommand(const QCommandLineParser& parser,
                                      const ContractCliOptions& options)
{
    constexpr int kNotUsable = static_cast<int>(wire::Verdict::Unusable);
    if (!parser.isSet(options.checkContract)) {
        if (parser.isSet(options.profile)) {
            err() << "--profile is for --check-contract\n";
            return kNotUsable;
        }
        return std::nullopt;
    }
    const wire::ContractProfile* profile = nullptr;
    if (parser.isSet(options.profile)) {
        profile = wire::findProfile(parser.value(options.profile).toStdString());
        if (!profile) {
            err() << "unknown contract profile \"" << parser.value(options.profile)
                  << "\" (profiles: " << QString::fromStdString(wire::profileNames()) << ")\n";
            return kNotUsable;
        }
    }
    std::string error;
    auto contract =
        wire::GatewayContract::fromFile(parser.value(options.checkContract).toStdString(), error);
    if (!contract) {
        err() << QString::fromStdString(error) << '\n';
        return kNotUsable;
    }
    if (!profile)
        profile = wire::profileFor(*contract);
    const wire::ContractCheck check = wire::checkContract(contract, *profile);
    out() << QString::fromStdString(check.report());
    out().flush();
    return check.exitCode();
}

} // namespace stormwatch
