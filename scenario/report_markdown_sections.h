#pragma once
// Internal to the Markdown report (report_markdown*.cpp): the number formats both files
// use, and the sections written for a reader who has not read the scenario's seeds.

#include "scenario/report.h"

#include <QJsonValue>
#include <QMap>
#include <QString>

namespace stormwatch::markdown {

QString count(qint64 n);  // 12,345
QString secs(double s);   // 12.3
// Off = absent, false, 0, null, empty object or {"enabled": false}.
bool isOn(const QJsonValue& v);

// "## In short": which variant came out best and by how much, against the baseline.
QString inShortSection(const ScenarioReport& r);
// "## The levers": in plain words, what each lever that differs between the variants does,
// and which variants have it on.
QString leversSection(const ScenarioReport& r);
// "## How to read the plots" and "## Plots" (an image per variant in `plots`, variant name →
// file name relative to report.md); empty when there are none.
QString plotsSections(const ScenarioReport& r, const QMap<QString, QString>& plots);

}  // namespace stormwatch::markdown
