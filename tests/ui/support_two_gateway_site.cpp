#include "support_two_gateway_site.h"

#include "scenario/scenario_parser.h"
#include "scenario/site.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>

namespace testsupport {

using namespace stormwatch;

std::optional<TwoGatewaySite> twoGatewaySite(const QString& endpointA, const QString& endpointB,
                                             const QJsonArray& instances, QString* error)
{
    const QJsonObject json{
        {"name", "two-gateway-plant"},
        {"gateways", QJsonArray{QJsonObject{{"name", "A"}, {"endpoint", endpointA}},
                                QJsonObject{{"name", "B"}, {"endpoint", endpointB}}}},
        {"instances", instances}};
    QList<ScenarioError> errors;
    const auto site = parseSite(QJsonDocument(json).toJson(), QStringLiteral("site.json"), &errors);
    if (!site) {
        QStringList why;
        for (const ScenarioError& e : errors)
            why << e.toString();
        *error = why.join(QStringLiteral("; "));
        return std::nullopt;
    }
    auto ports = sitePortOptions(*site, {}, error);
    if (!ports)
        return std::nullopt;
    return TwoGatewaySite{siteScenario(*site), std::move(*ports)};
}

} // namespace testsupport
