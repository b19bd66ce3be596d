#pragma once

// A ScenarioReport as files: CSV for spreadsheets, Markdown for people, JSON (report.h)
// for tools. Plots (PNG) are added to the same directory by the UI layer.

#include "scenario/report.h"

#include <QByteArray>
#include <QString>

namespace stormwatch {

// Header + one row per variant. Columns: scenario, variant, levers (compact JSON), then
// the metrics under their report-JSON names; gateway_rpcs_by_kind as "kind=n;kind=n";
// an empty time_to_all_good_s means never. Fields quoted per RFC 4180 when needed.
QByteArray reportToCsv(const ScenarioReport& report);

// Metrics table + per variant a plain-words account of what changed against the first
// variant and why — every sentence is derived from the numbers and the lever differences.
QByteArray reportToMarkdown(const ScenarioReport& report);

// Writes report.json, report.csv and report.md into `dir` (created if needed).
bool writeReportDir(const ScenarioReport& report, const QString& dir, QString* error);

}  // namespace stormwatch
