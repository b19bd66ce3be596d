#include "scenario/scenario.h"

#include "client/lever_set.h"

#include <algorithm>

namespace stormwatch {

namespace {
// Indexed by TimelineAction.
const char* const kActionNames[] = {
    "wedge",        "slow",           "drop_replies", "restart_gateway", "end_event_streams",
    "source_outage", "refuse_sessions", "redeploy",     "set_levers",      "set_capability",
    "kill_gateway", "lose_events", "stall_reader",
};
}  // namespace

QStringList timelineActionNames() {
    QStringList names;
    for (const char* n : kActionNames) names << QString::fromLatin1(n);
    return names;
}

QString timelineActionName(TimelineAction action) {
    return QString::fromLatin1(kActionNames[static_cast<int>(action)]);
}

std::optional<TimelineAction> timelineActionFromName(const QString& name) {
    const int i = timelineActionNames().indexOf(name);
    if (i < 0) return std::nullopt;
    return static_cast<TimelineAction>(i);
}

bool TimelineEvent::isFault() const {
    return action != TimelineAction::SetLevers && action != TimelineAction::SetCapability;
}

bool TimelineEvent::atGateway() const {
    return action != TimelineAction::Redeploy && action != TimelineAction::SetLevers;
}

double TimelineEvent::endS(double scenarioDurationS) const {
    double end = atS;
    switch (action) {
    case TimelineAction::Wedge:
    case TimelineAction::Slow:
    case TimelineAction::DropReplies:
    case TimelineAction::SourceOutage:
    case TimelineAction::RefuseSessions:
    case TimelineAction::LoseEvents:
    case TimelineAction::StallReader: end = atS + durationS; break;
    case TimelineAction::RestartGateway:
    case TimelineAction::KillGateway: end = atS + downtimeS; break;
    case TimelineAction::EndEventStreams:
    case TimelineAction::Redeploy:
    case TimelineAction::SetLevers:
    case TimelineAction::SetCapability: break;
    }
    return std::min(end, scenarioDurationS);
}

std::optional<double> Scenario::lastFaultEndS() const {
    std::optional<double> last;
    for (const TimelineEvent& e : timeline) {
        if (!e.isFault()) continue;
        const double end = e.endS(durationS);
        if (!last || end > *last) last = end;
    }
    return last;
}

QStringList Scenario::gatewayNames() const {
    QStringList names;
    for (const ScenarioConnection& c : connections)
        if (!c.gateway.isEmpty() && !names.contains(c.gateway)) names << c.gateway;
    return names;
}

QStringList defaultVariantNames() { return leverPresetNames(); }

}  // namespace stormwatch
