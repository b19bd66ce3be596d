#pragma once
// Internal to the Markdown report (report_markdown*.cpp): the number formats both files
// use, and the sections written for a reader who has not read the scenario's seeds.

#include "scenario/report.h"

#include <QJsonValue>
#include <QMap>
#include <QString>

namespace stormwatch::markdown {

QString count(qint64 n); // 12,345
QString secs(double s);  // 12.3
// Off = absent, false, 0, null, empty object or {"enabled": false}.
bool isOn(const QJsonValue& v);

// What time_to_all_good_s counts from, after "s after": "the last fault" or "the start of
// the run" (VariantMetrics::timeToAllGoodFrom).
QString allGoodFrom(const VariantMetrics& v);
// True when time_to_all_good_s counts from the start only because the gateway applied none
// of the scenario's faults (they were skipped).
bool measuredFromStartForSkippedFaults(const VariantMetrics& v);
// For a variant with orphaned_tag_seconds > 0: that it left tags orphaned, and the lever that
// cures it (resubscribe_guard, drop_superseded), with the variant that shows it; empty when
// it orphaned none.
QString orphanFinding(const ScenarioReport& r, const VariantMetrics& v);
// What a lever that cures orphaned tags does, in plain words ("the re-subscribe guard
// (`resubscribe_guard`): after a reconnect ..."); empty for any other key.
QString orphanCure(const QString& leverKey);

// "## In short": which variant came out best and by how much, against the baseline.
QString inShortSection(const ScenarioReport& r);
// "## The levers": in plain words, what each lever that differs between the variants does,
// and which variants have it on.
QString leversSection(const ScenarioReport& r);
// "## How to read the plots" and "## Plots" (an image per variant in `plots`, variant name →
// file name relative to report.md); empty when there are none.
QString plotsSections(const ScenarioReport& r, const QMap<QString, QString>& plots);

} // namespace stormwatch::markdown
