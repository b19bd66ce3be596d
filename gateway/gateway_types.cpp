#include "gateway_types.h"

#include "mxaccess_gateway.pb.h"

#include <algorithm>
#include <cmath>
#include <google/protobuf/duration.pb.h>
#include <limits>
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
    if (c.defaultCommandTimeout <= Duration::zero() || c.defaultCommandTimeout > kMaxCommandTimeout)
        return rule("default_command_timeout_s",
                    std::chrono::duration<double>(c.defaultCommandTimeout).count(),
                    "must be > 0 and <= 86400 (the maximum command timeout)");
    if (!std::isfinite(c.dataHz) || c.dataHz < 0 || c.dataHz > 1000)
        return rule("data_hz", c.dataHz, "must be between 0 and 1000");
    if (c.replayCapacity > 0 && !c.numberEvents)
        return rule("replay_capacity", double(c.replayCapacity),
                    "needs numbered events to resume after");
    if (c.replayCapacity > 0 && c.replayRetention <= Duration::zero())
        return rule("replay_retention_s", std::chrono::duration<double>(c.replayRetention).count(),
                    "must be > 0");
    return {};
}

void applyPublishedEventPolicy(GatewayConfig& config)
{
    config.advertiseBulkSupervisory = false;
    config.numberEvents = true;
    config.replayCapacity = 1024;
    config.replayRetention = std::chrono::seconds(300);
    config.singleEventSubscriber = true;
    config.eventQueueCapacity = 10'000;
    config.backpressure = BackpressurePolicy::FailFast;
}

bool applyContractFamily(std::string_view family, GatewayConfig& config)
{
    if (family == kPublishedContractFamily) {
        applyPublishedEventPolicy(config);
        return true;
    }
    return family == "stormwatch";
}

std::string commandTimeoutFromProto(const google::protobuf::Duration& requested, Duration& timeout)
{
    // google.protobuf.Duration's own limits (duration.proto): about +-10,000 years.
    constexpr std::int64_t kMaxSeconds = 315'576'000'000;
    constexpr std::int32_t kMaxNanos = 999'999'999;
    constexpr std::int64_t kClampSeconds =
        std::chrono::duration_cast<std::chrono::seconds>(kMaxCommandTimeout).count();
    static_assert(kClampSeconds < std::numeric_limits<std::int64_t>::max() / 1'000'000);
    const std::int64_t s = requested.seconds();
    const std::int32_t n = requested.nanos();
    const auto value = [&] {
        return "command_timeout = " + std::to_string(s) + " s" +
               (n != 0 ? " " + std::to_string(n) + " ns" : "");
    };
    if (s < -kMaxSeconds || s > kMaxSeconds)
        return "command_timeout.seconds = " + std::to_string(s) +
               ": must be within +-315576000000 (google.protobuf.Duration)";
    if (n < -kMaxNanos || n > kMaxNanos)
        return "command_timeout.nanos = " + std::to_string(n) +
               ": must be within +-999999999 (google.protobuf.Duration)";
    if ((s > 0 && n < 0) || (s < 0 && n > 0))
        return value() + ": nanos must have the sign of seconds (google.protobuf.Duration)";
    if (s < 0 || (s == 0 && n <= 0))
        return value() + ": must be > 0";
    // s is in [0, 315576000000] and n in [0, 999999999] here; only below the clamp is a
    // product formed, where it is at most 86,400 * 10^6.
    if (s >= kClampSeconds) {
        timeout = kMaxCommandTimeout;
        return {};
    }
    timeout = std::min(Duration(s * 1'000'000 + (n + 999) / 1000), kMaxCommandTimeout);
    return {};
}

CommandKind commandKind(const mxgateway::v1::MxCommand& command)
{
    using K = mxgateway::v1::MxCommand;
    switch (command.kind_case()) {
    case K::kRegister:
        return CommandKind::Register;
    case K::kAddItem:
        return CommandKind::AddItem;
    case K::kAddItemBulk:
        return CommandKind::AddItemBulk;
    case K::kAdvise:
        return CommandKind::Advise;
    case K::kRemoveItem:
        return CommandKind::RemoveItem;
    case K::kUnAdvise:
        return CommandKind::UnAdvise;
    case K::kWrite:
        return CommandKind::Write;
    case K::kAdviseSupervisory:
        return CommandKind::AdviseSupervisory;
    case K::kAdviseItemBulk:
        return CommandKind::AdviseItemBulk;
    case K::kSubscribeBulk:
        return CommandKind::SubscribeBulk;
    case K::kSubscribeAlarms:
        return CommandKind::SubscribeAlarms;
    case K::KIND_NOT_SET:
        break;
    }
    return CommandKind::None;
}

std::string_view commandKindName(CommandKind kind)
{
    static constexpr std::array<std::string_view, kCommandKindCount> names = {
        "register",         "add_item", "add_item_bulk",      "advise",           "remove_item",
        "un_advise",        "write",    "advise_supervisory", "advise_item_bulk", "subscribe_bulk",
        "subscribe_alarms",
    };
    const auto i = static_cast<std::size_t>(kind);
    return i < names.size() ? names[i] : std::string_view("none");
}

int commandItemCount(const mxgateway::v1::MxCommand& command)
{
    switch (commandKind(command)) {
    case CommandKind::Register:
        return 0;
    case CommandKind::AddItemBulk:
        return command.add_item_bulk().tag_addresses_size();
    case CommandKind::AdviseItemBulk:
        return command.advise_item_bulk().item_handles_size();
    case CommandKind::SubscribeBulk:
        return command.subscribe_bulk().tag_addresses_size();
    case CommandKind::None:
        return 0;
    default:
        return 1;
    }
}

} // namespace stormwatch::gateway
