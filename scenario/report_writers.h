#pragma once

// A ScenarioReport as files: CSV for spreadsheets, Markdown for people, JSON (report.h)
// for tools. Plots (PNG) are added to the same directory by the UI layer.

#include "scenario/report.h"

#include <QByteArray>
#include <QMap>
#include <QString>

namespace stormwatch {

// Header + one row per variant. Columns: scenario, variant, levers (compact JSON), then
// the metrics of metricTable() (metric_table.h) under their report-JSON names, in its
// order; gateway_rpcs_by_kind as "kind=n;kind=n"; an empty cell is no value (a
// time_to_all_good_s that never came, an unknown max_sta_queue_depth). Fields quoted per
// RFC 4180 when needed.
QByteArray reportToCsv(const ScenarioReport& report);

// The command line's table: a line naming the run, then metrics as rows (metricTable()
// order, each gateway_rpcs_by_kind kind indented under it) and variants as columns, then
// per variant its skipped timeline actions and its notes ("variant: text").
QString reportToText(const ScenarioReport& report);

// For a reader who has not read the scenario: the outcome in short (which variant did best,
// by how much), the levers that differ in plain words, the metrics table, per variant a
// plain-words account of what changed against the first variant and why — every sentence
// derived from the numbers and the lever differences — and, when `plots` names images
// (variant name → file name next to report.md), how to read them and the images.
QByteArray reportToMarkdown(const ScenarioReport& report, const QMap<QString, QString>& plots = {});

// Writes report.json, report.csv and report.md into `dir` (created if needed).
bool writeReportDir(const ScenarioReport& report, const QString& dir, QString* error);
// (Re)writes report.md alone, linking the plots written next to it (the UI layer draws them
// after writeReportDir).
bool writeReportMarkdown(const ScenarioReport& report, const QString& dir,
                         const QMap<QString, QString>& plots, QString* error);

} // namespace stormwatch
