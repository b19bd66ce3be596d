#include "scenario/scenario.h"

#include "client/lever_set.h"

#include <algorithm>

namespace stormwatch {

namespace {
const QList<TimelineActionInfo> kActions = {
    {TimelineAction::Wedge, "wedge", "wedge", "Wedge STA",
     "The STA stops running commands for the duration", kParamDuration, true, true, true, 60},
    {TimelineAction::Slow, "slow", "slow", "Slow STA",
     "Every command costs factor × its normal cost for the duration", kParamFactor | kParamDuration,
     true, true, true, 120},
    {TimelineAction::DropReplies, "drop_replies", "drop", "Drop replies",
     "Each reply is lost with the probability for the duration", kParamProbability | kParamDuration,
     true, true, true, 60},
    {TimelineAction::RestartGateway, "restart_gateway", "restart", "Restart gateway",
     "The gateway is down for the downtime; every session is lost", kParamDowntime, true, true,
     true, 5},
    {TimelineAction::EndEventStreams, "end_event_streams", "end_event_streams", "End event streams",
     "Every event stream ends gracefully; the sessions stay", 0, true, true, true, 0},
    {TimelineAction::SourceOutage, "source_outage", "outage", "Source outage",
     "Tags report Bad quality for the duration", kParamDuration, true, true, true, 30},
    {TimelineAction::RefuseSessions, "refuse_sessions", "refuse", "Refuse sessions",
     "OpenSession is refused for the duration", kParamDuration, true, true, true, 30},
    {TimelineAction::Redeploy, "redeploy", "redeploy", "Redeploy",
     "The instance is torn down and deployed again: its tags are subscribed again", kParamInstance,
     true, false, false, 0},
    {TimelineAction::SetLevers, "set_levers", "levers", "Set levers",
     "Every instance's levers switch at run time", kParamLevers, false, false, false, 0},
    {TimelineAction::SetCapability, "set_capability", "bulk-supervisory",
     "Advertise bulk-subscribe-supervisory",
     "The gateway starts or stops advertising bulk-subscribe-supervisory to sessions opened later",
     kParamCapability, false, true, false, 0},
    {TimelineAction::KillGateway, "kill_gateway", "kill", "Kill gateway",
     "The gateway process is killed: streams break, calls in flight are reset; it is down for the "
     "downtime",
     kParamDowntime, true, true, false, 0},
    {TimelineAction::LoseEvents, "lose_events", "lose events", "Lose events",
     "Events are numbered but never sent for the duration: a gap in worker_sequence",
     kParamDuration, true, true, true, 10},
    {TimelineAction::StallReader, "stall_reader", "stall reader", "Stall reader",
     "This client stops reading its event streams for the duration: the gateway's event queue for "
     "it grows "
     "(past its bound the gateway faults the session or disconnects the stream)",
     kParamDuration, true, true, true, 10},
    {TimelineAction::Freeze, "freeze", "freeze", "Freeze gateway",
     "The gateway process stops for the duration (SIGSTOP), then continues (SIGCONT): nothing is "
     "answered or "
     "sent, keepalive pings included, so the client's transport gives up on it",
     kParamDuration, true, true, true, 30},
    {TimelineAction::HalfOpen, "half_open", "half-open", "Half-open",
     "The connection stays up and keepalive pings are answered, but no reply and no event comes "
     "for the "
     "duration: only the client's own liveness rule can tell",
     kParamDuration, true, true, true, 30},
    {TimelineAction::ResetPeer, "reset_peer", "reset", "Reset connection",
     "Every connection to the gateway is reset: event streams and calls in flight fail. The "
     "process, its "
     "sessions and the commands its STA has queued stay",
     0, true, true, true, 0},
};

QString shortSeconds(double s)
{
    return QString::number(s, 'g', 6) + QStringLiteral(" s");
}
} // namespace

const QList<TimelineActionInfo>& timelineActions()
{
    return kActions;
}

const TimelineActionInfo& timelineActionInfo(TimelineAction action)
{
    return kActions[static_cast<int>(action)];
}

QStringList timelineActionNames()
{
    QStringList names;
    for (const TimelineActionInfo& a : kActions)
        names << QString::fromLatin1(a.name);
    return names;
}

QString timelineActionName(TimelineAction action)
{
    return QString::fromLatin1(timelineActionInfo(action).name);
}

std::optional<TimelineAction> timelineActionFromName(const QString& name)
{
    for (const TimelineActionInfo& a : kActions)
        if (name == QLatin1String(a.name))
            return a.action;
    return std::nullopt;
}

bool TimelineEvent::isFault() const
{
    return timelineActionInfo(action).fault;
}

bool TimelineEvent::atGateway() const
{
    return timelineActionInfo(action).atGateway;
}

double TimelineEvent::endS(double scenarioDurationS) const
{
    const unsigned params = timelineActionInfo(action).params;
    double end = atS;
    if (params & kParamDuration)
        end = atS + durationS;
    if (params & kParamDowntime)
        end = atS + downtimeS;
    return std::min(end, scenarioDurationS);
}

QString TimelineEvent::describe(bool brief) const
{
    const TimelineActionInfo& a = timelineActionInfo(action);
    QString text = QString::fromUtf8(brief ? a.marker : a.name);
    if (a.params & kParamFactor)
        text += QStringLiteral(" ×%1").arg(factor);
    if (a.params & kParamProbability)
        text += brief ? QStringLiteral(" %1 %").arg(probability * 100)
                      : QStringLiteral(" p=%1").arg(probability);
    if (a.params & kParamDuration)
        text += brief ? QStringLiteral(" ") + shortSeconds(durationS)
                      : QStringLiteral(" for %1 s").arg(durationS);
    if (a.params & kParamDowntime)
        text += brief ? QStringLiteral(" (down %1)").arg(shortSeconds(downtimeS))
                      : QStringLiteral(", down %1 s").arg(downtimeS);
    if (a.params & kParamInstance)
        text += QStringLiteral(" ") + instance;
    if (a.params & kParamCapability)
        text += (brief ? QStringLiteral(" ") : QStringLiteral(" bulk-subscribe-supervisory ")) +
                (advertiseBulkSupervisory ? QStringLiteral("on") : QStringLiteral("off"));
    return text;
}

std::optional<double> Scenario::lastFaultEndS() const
{
    std::optional<double> last;
    for (const TimelineEvent& e : timeline) {
        if (!e.isFault())
            continue;
        const double end = e.endS(durationS);
        if (!last || end > *last)
            last = end;
    }
    return last;
}

QStringList Scenario::gatewayNames() const
{
    QStringList names;
    for (const ScenarioConnection& c : connections)
        if (!c.gateway.isEmpty() && !names.contains(c.gateway))
            names << c.gateway;
    return names;
}

QStringList defaultVariantNames()
{
    return leverPresetNames();
}

} // namespace stormwatch
