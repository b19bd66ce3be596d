#include "scenario/scenario_timeline_reader.h"

// A scenario file's timeline: each entry's action, its parameters (what scenarioToJson
// writes back, too), the instance or gateway it names, all checked like the rest of the file.

#include <QHash>
#include <algorithm>

namespace stormwatch::scenario_timeline {

using namespace json_schema;

// source_outage takes duration_s (on at at_s, off at at_s + duration_s) like every other
// timed fault, so a fault's end — what time_to_all_good_s is measured from — is always on
// the event itself.
QStringList actionParams(TimelineAction a)
{
    const unsigned params = timelineActionInfo(a).params;
    QStringList keys;
    if (params & kParamFactor)
        keys << QStringLiteral("factor");
    if (params & kParamProbability)
        keys << QStringLiteral("probability");
    if (params & kParamDuration)
        keys << QStringLiteral("duration_s");
    if (params & kParamDowntime)
        keys << QStringLiteral("downtime_s");
    if (params & kParamInstance)
        keys << QStringLiteral("instance");
    if (params & kParamLevers)
        keys << QStringLiteral("levers");
    if (params & kParamCapability)
        keys << QStringLiteral("advertise_bulk_supervisory");
    return keys;
}

namespace {

// What the timeline reader needs per action, built once: the action by its file name, and
// the keys an entry of that action may have.
struct ActionTable {
    QHash<QString, TimelineAction> byName;
    QHash<int, QStringList> keys; // "at_s", "action" and the action's parameters
    QString validNames;
    ActionTable()
    {
        const QStringList names = timelineActionNames();
        for (qsizetype i = 0; i < names.size(); ++i) {
            const auto action = static_cast<TimelineAction>(i);
            byName.insert(names[i], action);
            TimelineEvent probe;
            probe.action = action;
            keys.insert(int(i), QStringList{"at_s", "action"} + actionParams(action) +
                                    (probe.atGateway() ? QStringList{"gateway"} : QStringList{}));
        }
        validNames = names.join(QStringLiteral(", "));
    }
};

const ActionTable& actionTable()
{
    static const ActionTable table;
    return table;
}

std::optional<TimelineEvent> readEvent(Errors& errors, const QJsonObject& o, const QString& path,
                                       std::optional<double> durationS,
                                       const std::optional<KnownNames>& known,
                                       const KnownGateways& gateways)
{
    const int before = errors.count();
    const ActionTable& table = actionTable();
    TimelineEvent e;
    std::optional<TimelineAction> action;
    {
        // Read action first: the valid keys depend on it.
        ObjectReader head(errors, o, path, {});
        if (auto s = head.string("action", Need::Required)) {
            const auto it = table.byName.constFind(*s);
            if (it != table.byName.constEnd())
                action = it.value();
            head.check("action", action.has_value(), [&] {
                return QStringLiteral("unknown action %1 (valid: %2)")
                    .arg(quoted(*s), table.validNames);
            });
        }
    }
    static const QStringList kHeadKeys = {"at_s", "action"};
    ObjectReader r(errors, o, path, action ? table.keys.value(int(*action)) : kHeadKeys);
    if (auto d = r.number("at_s", Need::Required, limits::kAtS)) {
        if (!durationS || r.atMost("at_s", *d, *durationS, QStringLiteral("duration_s")))
            e.atS = *d;
    }
    if (!action)
        return std::nullopt; // unknown keys cannot be judged without a known action
    e.action = *action;
    const unsigned params = timelineActionInfo(*action).params;
    if (params & kParamFactor)
        if (auto d = r.number("factor", Need::Required, limits::kSlowFactor))
            e.factor = *d;
    if (params & kParamProbability)
        if (auto d = r.number("probability", Need::Required, limits::kProbability))
            e.probability = *d;
    if (params & kParamDuration)
        if (auto d = r.number("duration_s", Need::Required, limits::kDurationS))
            e.durationS = *d;
    if (params & kParamDowntime)
        if (auto d = r.number("downtime_s", Need::Optional, limits::kDowntimeS))
            e.downtimeS = *d;
    if (params & kParamInstance) {
        if (auto s = r.string("instance", Need::Required)) {
            if (known)
                r.check("instance", known->contains(*s), [&] {
                    return QStringLiteral("unknown instance %1 (known: %2)")
                        .arg(quoted(*s), known->listed());
                });
            e.instance = *s;
        }
    }
    if (params & kParamLevers) {
        if (!r.has("levers"))
            errors.add(r.pathOf("levers"), QStringLiteral("required key missing"));
        else
            checkLevers(errors, r.raw("levers"), r.pathOf("levers"));
        e.levers = r.raw("levers");
    }
    if (params & kParamCapability)
        if (auto b = r.boolean("advertise_bulk_supervisory", Need::Required))
            e.advertiseBulkSupervisory = *b;
    if (e.atGateway() && r.has("gateway")) {
        if (auto g = r.name("gateway", Need::Optional)) {
            if (gateways.names)
                r.check("gateway", gateways.any && gateways.names->contains(*g), [&] {
                    return gateways.any
                               ? QStringLiteral("unknown gateway %1 (gateways: %2)")
                                     .arg(quoted(*g), gateways.names->listed())
                               : QStringLiteral(
                                     "unknown gateway %1 (the scenario has one gateway, unnamed: "
                                     "its connections name none)")
                                     .arg(quoted(*g));
                });
            e.gateway = *g;
        }
    }
    r.finish();
    if (errors.count() != before)
        return std::nullopt;
    return e;
}

} // namespace

void readTimeline(Errors& errors, const QJsonArray& a, std::optional<double> durationS,
                  const std::optional<KnownNames>& knownInstances, const KnownGateways& gateways,
                  QList<TimelineEvent>* out)
{
    const QString base = QStringLiteral("$.timeline");
    checkCount(errors, base, a.size(), limits::kMaxTimelineEvents, "entries");
    out->reserve(a.size());
    for (qsizetype i = 0; i < a.size(); ++i) {
        const QString path = indexPath(base, i);
        auto o = asObject(errors, a.at(i), path);
        if (!o)
            continue;
        if (auto e = readEvent(errors, *o, path, durationS, knownInstances, gateways))
            out->append(*e);
    }
    std::stable_sort(out->begin(), out->end(),
                     [](const TimelineEvent& x, const TimelineEvent& y) { return x.atS < y.atS; });
}

} // namespace stormwatch::scenario_timeline
