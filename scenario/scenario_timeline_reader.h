#pragma once

// The timeline part of scenario files (scenario_parser.cpp reads the rest). Internal to
// scenario/, like json_schema_reader.h.

#include "scenario/json_schema_reader.h"
#include "scenario/scenario.h"
#include "scenario/variant_validation.h"

#include <QJsonArray>
#include <QList>
#include <QStringList>
#include <optional>

namespace stormwatch::scenario_timeline {

// Parameters of each action besides at_s and action: the keys its entry may have, and what
// scenarioToJson writes of it.
QStringList actionParams(TimelineAction a);

// The gateways a timeline event may name: the scenario's named ones, or nullopt when its
// connections had errors (a name cannot be judged then).
struct KnownGateways {
    std::optional<json_schema::KnownNames> names;
    bool any = false; // false: one unnamed gateway, so no name is valid
};

// $.timeline, sorted by at_s. `knownInstances` is nullopt when the instances had errors.
void readTimeline(json_schema::Errors& errors, const QJsonArray& a, std::optional<double> durationS,
                  const std::optional<json_schema::KnownNames>& knownInstances,
                  const KnownGateways& gateways, QList<TimelineEvent>* out);

// A lever set (a preset's name or an object of levers) at `path`, as variants and
// set_levers give one.
inline void checkLevers(json_schema::Errors& errors, const QJsonValue& levers, const QString& path)
{
    QString why;
    if (!validateVariant(levers, &why))
        errors.add(path, why);
}

} // namespace stormwatch::scenario_timeline
