#pragma once

// Scenario files: JSON in, a validated Scenario out. Validation reports every error it
// finds, each naming the file, the JSON path ($.timeline[2].duration_s) and the rule,
// so an engineer can fix a file in one pass.

#include "scenario/scenario.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>
#include <optional>

namespace stormwatch {

struct ScenarioError {
    QString file;
    QString path; // "$" for the whole document, "$.gateway.data_hz", "$.timeline[1].action"
    QString rule; // "must be > 0 (got -5)", "unknown key (valid: ...)", ...
    QString toString() const; // "file: path: rule"
};

// Parses and validates; on any error returns nullopt and appends every error found.
std::optional<Scenario> parseScenario(const QByteArray& json, const QString& fileName,
                                      QList<ScenarioError>* errors);
// An unreadable file is reported as an error at path "$".
std::optional<Scenario> loadScenarioFile(const QString& path, QList<ScenarioError>* errors);

// Scenarios compiled into the binary (resources/scenarios/*.json), by base name.
QStringList bundledScenarioNames();
// A bundled scenario's name, or else a file path.
std::optional<Scenario> loadScenario(const QString& nameOrPath, QList<ScenarioError>* errors);

// The file form of a scenario with every default written out; parseScenario() of its
// serialization gives the same Scenario back.
QJsonObject scenarioToJson(const Scenario& scenario);

} // namespace stormwatch
