#pragma once
// A few seconds of live run, for the suites that play one on a RunHost (tests/ui,
// tests/recording): one instance of `tags` tags on one connection to a quick gateway (data
// at 10 Hz). Header only, so suites of any folder above scenario/ share it:
// `#include "scenario/support_short_live.h"`.

#include "scenario/scenario_parser.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtGlobal>

namespace stormwatch::testsupport {

// The scenario file's JSON (a suite that plays it from a file writes this).
inline QJsonObject shortLiveJson(double durationS, int tags,
                                 const QString& variant = QStringLiteral("lever1+2"))
{
    return QJsonObject{
        {"name", "short-live"},
        {"description", "a short live scenario"},
        {"duration_s", durationS},
        {"seed", 5},
        {"gateway", QJsonObject{{"command_ms", 0.2}, {"per_item_ms", 0.01}, {"data_hz", 10}}},
        {"connections", QJsonArray{QJsonObject{{"name", "gw1"}, {"write_user_id", 0}}}},
        {"instances",
         QJsonArray{QJsonObject{{"name", "inst-a"}, {"connection", "gw1"}, {"tags", tags}}}},
        {"variants", QJsonArray{variant}},
    };
}

inline Scenario shortLive(double durationS, int tags,
                          const QString& variant = QStringLiteral("lever1+2"))
{
    QList<ScenarioError> errors;
    auto s = parseScenario(QJsonDocument(shortLiveJson(durationS, tags, variant)).toJson(),
                           QStringLiteral("short-live.json"), &errors);
    for (const auto& e : errors)
        qWarning() << e.toString();
    if (!s)
        qFatal("the short live test scenario does not parse");
    return *s;
}

} // namespace stormwatch::testsupport
