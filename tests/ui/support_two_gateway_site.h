#pragma once
// The console tests' site of two gateways, A and B, at endpoints the test started (real
// mxgw-mock processes or embedded mock servers): the live run's shape and its ports, as
// `stormwatch --site` builds them from a site file.
#include "scenario/scenario.h"
#include "scenario/site_live.h"

#include <QJsonArray>
#include <QString>
#include <optional>

namespace testsupport {

struct TwoGatewaySite {
    stormwatch::Scenario shape; // ConsoleController::setSite(shape, ports)
    stormwatch::SitePortOptions ports;
};

// `instances`: the site file's instances, each naming gateway "A" or "B". nullopt with
// *error saying why the site is not valid.
std::optional<TwoGatewaySite> twoGatewaySite(const QString& endpointA, const QString& endpointB,
                                             const QJsonArray& instances, QString* error);

} // namespace testsupport
