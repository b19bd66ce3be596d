#include "mock_control.h"

#include <cmath>
#include <sstream>

namespace stormwatch::gateway {

using namespace mxgateway::mock::v1;
using grpc::StatusCode;

Duration secondsToDuration(double seconds)
{
    return Duration(std::llround(seconds * 1e6));
}

MockConfig toProto(const GatewayConfig& c)
{
    MockConfig p;
    p.set_advertise_bulk_supervisory(c.advertiseBulkSupervisory);
    p.set_command_ms(c.commandMs);
    p.set_per_item_ms(c.perItemMs);
    p.set_default_command_timeout_s(std::chrono::duration<double>(c.defaultCommandTimeout).count());
    p.set_data_hz(c.dataHz);
    p.set_close_drops_queued_commands(c.closeDropsQueuedCommands);
    return p;
}

GatewayConfig applied(GatewayConfig c, const SetConfigRequest& r)
{
    if (r.has_advertise_bulk_supervisory())
        c.advertiseBulkSupervisory = r.advertise_bulk_supervisory();
    if (r.has_command_ms())
        c.commandMs = r.command_ms();
    if (r.has_per_item_ms())
        c.perItemMs = r.per_item_ms();
    if (r.has_default_command_timeout_s()) {
        const double s = r.default_command_timeout_s();
        // Non-finite or absurd values become 0 so validation rejects them by name.
        c.defaultCommandTimeout =
            std::isfinite(s) && s < 1e9 ? secondsToDuration(s) : Duration::zero();
    }
    if (r.has_data_hz())
        c.dataHz = r.data_hz();
    if (r.has_close_drops_queued_commands())
        c.closeDropsQueuedCommands = r.close_drops_queued_commands();
    return c;
}

namespace {
bool validDuration(double s)
{
    return std::isfinite(s) && s >= 0 && s < 1e9;
}

CallStatus invalid(std::string_view field, double value, std::string_view rule)
{
    std::ostringstream out;
    out << field << " = " << value << ": " << rule;
    return CallStatus::error(StatusCode::INVALID_ARGUMENT, out.str());
}

std::string fmt(double v)
{
    std::ostringstream out;
    out << v;
    return out.str();
}
} // namespace

CallStatus refuseFreeze(double, std::string&)
{
    return CallStatus::error(
        StatusCode::FAILED_PRECONDITION,
        "freeze stops the gateway's process: only a gateway running as its own process "
        "(mxgw-mock) can be frozen; this one runs inside another program");
}

CallStatus injectFault(GatewayModel& model, const FaultRequest& r, std::string& description,
                       const FreezeProcessFn& freezeProcess)
{
    switch (r.kind_case()) {
    case FaultRequest::kWedge:
        if (!validDuration(r.wedge().duration_s()))
            return invalid("wedge.duration_s", r.wedge().duration_s(), "must be >= 0 s");
        model.wedge(secondsToDuration(r.wedge().duration_s()));
        description = "STA wedged for " + fmt(r.wedge().duration_s()) + " s";
        return {};
    case FaultRequest::kSlow:
        if (!std::isfinite(r.slow().factor()) || r.slow().factor() <= 0)
            return invalid("slow.factor", r.slow().factor(), "must be > 0");
        if (!validDuration(r.slow().duration_s()))
            return invalid("slow.duration_s", r.slow().duration_s(), "must be >= 0 s");
        model.slow(r.slow().factor(), secondsToDuration(r.slow().duration_s()));
        description =
            "STA slowed x" + fmt(r.slow().factor()) + " for " + fmt(r.slow().duration_s()) + " s";
        return {};
    case FaultRequest::kDropReplies:
        if (!(r.drop_replies().probability() >= 0 && r.drop_replies().probability() <= 1))
            return invalid("drop_replies.probability", r.drop_replies().probability(),
                           "must be between 0 and 1");
        if (!validDuration(r.drop_replies().duration_s()))
            return invalid("drop_replies.duration_s", r.drop_replies().duration_s(),
                           "must be >= 0 s");
        model.dropReplies(r.drop_replies().probability(),
                          secondsToDuration(r.drop_replies().duration_s()));
        description = "replies dropped with p=" + fmt(r.drop_replies().probability()) + " for " +
                      fmt(r.drop_replies().duration_s()) + " s";
        return {};
    case FaultRequest::kRestart:
        if (!validDuration(r.restart().downtime_s()))
            return invalid("restart.downtime_s", r.restart().downtime_s(), "must be >= 0 s");
        model.restart(secondsToDuration(r.restart().downtime_s()));
        description = "gateway restarted, down for " + fmt(r.restart().downtime_s()) + " s";
        return {};
    case FaultRequest::kKill:
        if (!validDuration(r.kill().downtime_s()))
            return invalid("kill.downtime_s", r.kill().downtime_s(), "must be >= 0 s");
        model.kill(secondsToDuration(r.kill().downtime_s()));
        description = "gateway killed, down for " + fmt(r.kill().downtime_s()) + " s";
        return {};
    case FaultRequest::kEndEventStreams:
        description = "ended " + std::to_string(model.streamCount()) + " event streams";
        model.endEventStreams();
        return {};
    case FaultRequest::kSourceOutage:
        model.setSourceOutage(r.source_outage().active());
        description = std::string("source outage ") + (r.source_outage().active() ? "on" : "off");
        return {};
    case FaultRequest::kRefuseSessions:
        if (!validDuration(r.refuse_sessions().duration_s()))
            return invalid("refuse_sessions.duration_s", r.refuse_sessions().duration_s(),
                           "must be >= 0 s");
        model.refuseSessions(secondsToDuration(r.refuse_sessions().duration_s()));
        description = "sessions refused for " + fmt(r.refuse_sessions().duration_s()) + " s";
        return {};
    case FaultRequest::kLoseEvents:
        if (!validDuration(r.lose_events().duration_s()))
            return invalid("lose_events.duration_s", r.lose_events().duration_s(),
                           "must be >= 0 s");
        model.loseEvents(secondsToDuration(r.lose_events().duration_s()));
        description = "events lost for " + fmt(r.lose_events().duration_s()) + " s" +
                      (model.config().numberEvents
                           ? ""
                           : " (this gateway does not number its events: no gap is seen)");
        return {};
    case FaultRequest::kFreeze:
        if (!validDuration(r.freeze().duration_s()))
            return invalid("freeze.duration_s", r.freeze().duration_s(), "must be >= 0 s");
        if (freezeProcess)
            return freezeProcess(r.freeze().duration_s(), description);
        model.silence(secondsToDuration(r.freeze().duration_s()), false);
        description = "gateway frozen for " + fmt(r.freeze().duration_s()) + " s";
        return {};
    case FaultRequest::kHalfOpen:
        if (!validDuration(r.half_open().duration_s()))
            return invalid("half_open.duration_s", r.half_open().duration_s(), "must be >= 0 s");
        model.silence(secondsToDuration(r.half_open().duration_s()), true);
        description = "connection half-open (nothing answered or sent) for " +
                      fmt(r.half_open().duration_s()) + " s";
        return {};
    case FaultRequest::kResetPeer:
        description =
            "reset every connection (" + std::to_string(model.streamCount()) + " event streams)";
        model.resetPeer();
        return {};
    case FaultRequest::KIND_NOT_SET:
        break;
    }
    return CallStatus::error(StatusCode::INVALID_ARGUMENT, "fault request names no fault");
}

} // namespace stormwatch::gateway
