#include "gateway_types.h"

#include "mxaccess_gateway.pb.h"

#include <cmath>
#include <sstream>

namespace stormwatch::gateway {

namespace {
std::string rule(std::string_view field, double value, std::string_view text)
{
    std::ostringstream out;
    out << field << " = " << value << ": " << text;
    return out.str();
}
} // namespace

std::string validateConfig(const GatewayConfig& c)
{
    if (!std::isfinite(c.commandMs) || c.commandMs < 0)
        return rule("command_ms", c.commandMs, "must be a finite number >= 0");
    if (!std::isfinite(c.perItemMs) || c.perItemMs < 0)
        return rule("per_item_ms", c.perItemMs, "must be a finite number >= 0");
    if (c.defaultCommandTimeout <= Duration::zero())
        return rule("default_command_timeout_s",
                    std::chrono::duration<double>(c.defaultCommandTimeout).count(), "must be > 0");
    if (!std::isfinite(c.dataHz) || c.dataHz < 0 || c.dataHz > 1000)
        return rule("data_hz", c.dataHz, "must be between 0 and 1000");
    return {};
}

CommandKind commandKind(const mxgateway::v1::MxCommand& command)
{
    using K = mxgateway::v1::MxCommand;
    switch (command.kind_case()) {
    case K::kRegister: return CommandKind::Register;
    case K::kAddItem: return CommandKind::AddItem;
    case K::kAddItemBulk: return CommandKind::AddItemBulk;
    case K::kAdvise: return CommandKind::Advise;
    case K::kRemoveItem: return CommandKind::RemoveItem;
    case K::kUnAdvise: return CommandKind::UnAdvise;
    case K::kWrite: return CommandKind::Write;
    case K::kAdviseSupervisory: return CommandKind::AdviseSupervisory;
    case K::kAdviseItemBulk: return CommandKind::AdviseItemBulk;
    case K::kSubscribeBulk: return CommandKind::SubscribeBulk;
    case K::kSubscribeAlarms: return CommandKind::SubscribeAlarms;
    case K::KIND_NOT_SET: break;
    }
    return CommandKind::None;
}

std::string_view commandKindName(CommandKind kind)
{
    static constexpr std::array<std::string_view, kCommandKindCount> names = {
        "register", "add_item", "add_item_bulk",      "advise",         "remove_item",     "un_advise",
        "write",    "advise_supervisory", "advise_item_bulk", "subscribe_bulk", "subscribe_alarms",
    };
    const auto i = static_cast<std::size_t>(kind);
    return i < names.size() ? names[i] : std::string_view("none");
}

int commandItemCount(const mxgateway::v1::MxCommand& command)
{
    switch (commandKind(command)) {
    case CommandKind::Register: return 0;
    case CommandKind::AddItemBulk: return command.add_item_bulk().tag_addresses_size();
    case CommandKind::AdviseItemBulk: return command.advise_item_bulk().item_handles_size();
    case CommandKind::SubscribeBulk: return command.subscribe_bulk().tag_addresses_size();
    case CommandKind::None: return 0;
    default: return 1;
    }
}

} // namespace stormwatch::gateway
