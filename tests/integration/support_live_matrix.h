#pragma once
// What the live fault-matrix suites share (header only): a timeline action, a scenario parsed
// from its JSON (errors printed), and the live options that reach one mxgw-mock process.

#include "integration/support_mock_process.h"
#include "scenario/scenario_parser.h"
#include "scenario/scenario_runner.h"

#include <QDebug>
#include <QJsonDocument>
#include <QJsonObject>

namespace testsupport {

inline QJsonObject action(double atS, const char* name, QJsonObject params = {})
{
    params.insert("at_s", atS);
    params.insert("action", name);
    return params;
}

inline stormwatch::Scenario parse(const QJsonObject& o)
{
    QList<stormwatch::ScenarioError> errors;
    auto s = stormwatch::parseScenario(QJsonDocument(o).toJson(), QStringLiteral("matrix.json"),
                                       &errors);
    for (const auto& e : errors)
        qWarning() << e.toString();
    return s.value_or(stormwatch::Scenario{});
}

inline stormwatch::LiveOptions liveOptions(const MockProcess& mock)
{
    stormwatch::LiveOptions live;
    live.gateway = stormwatch::GrpcPortOptions{};
    live.gateway->address = mock.address();
    return live;
}

} // namespace testsupport
