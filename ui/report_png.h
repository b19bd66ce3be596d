#pragma once
// The report's plots: a finished variant's series (scenario/series.h) loaded into a
// SeriesStore and rendered offscreen by PlotPanel::renderVariantPng, one PNG per variant
// next to report.json / report.csv / report.md. Needs a QApplication (offscreen is enough).

#include "models/series_store.h"
#include "scenario/report.h"
#include "scenario/series.h"
#include "ui/plot_panel.h"

#include <QList>
#include <QMap>
#include <QSize>
#include <QString>

namespace stormwatch {

// Default size of a report plot: four stacked plots stay legible at this size.
inline constexpr QSize kReportPngSize{1400, 1000};

// "<variant>.png" with every character outside [A-Za-z0-9._-] as '_' ("lever1+2" →
// "lever1_2.png"): '+', spaces and slashes misbehave in file names or Markdown links.
QString variantPngFileName(const QString& variant);

// Loads a run's series into `store` (cleared first): a subscription per subject other than
// "gateway" ("Z28061/gw1" → key {index of first appearance}, label "Z28061 × gw1"),
// interval in seconds, the suppressed-call total as calls per second, and every series held
// to the run's end (SeriesSet::endS) so the plots span the whole run.
void loadSeriesSet(const SeriesSet& set, SeriesStore& store);

// "<scenario> — <variant> · <levers> · <virtual|live>": the title of a variant's PNG.
QString variantPngTitle(const ScenarioReport& report, const VariantMetrics& variant);

// Writes one PNG per variant into `dir` (which must exist): report.variants[i] is drawn from
// series[i], titled, with `markers` (the scenario's timeline) on its time axis, and every
// variant on the same y-scale per plot (the largest any variant needs), so that side by
// side the same height is the same number. *written maps variant name → file name
// (relative to dir) of the PNGs written. False with *error naming the file (or the
// mismatch) on the first failure.
bool writeVariantPngs(const ScenarioReport& report, const QList<SeriesSet>& series,
                      const QString& dir, QMap<QString, QString>* written, QString* error,
                      QSize size = kReportPngSize, const QVector<PlotPanel::Marker>& markers = {});

} // namespace stormwatch
