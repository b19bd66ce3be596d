#pragma once
// What a finished comparison shows, computed on the worker thread that ran the replay and
// handed to the UI thread whole and immutable: the table's cells (texts, tooltips, the best
// of each row) and the overlaid plot lines, already reduced to what a plot can draw. The UI
// thread only copies them into its widgets, a slice per event-loop turn (compare_view.cpp):
// computing and filling it all at once on the UI thread stalled the console for up to
// 210 ms beside a live run.

#include "scenario/report.h"
#include "scenario/series.h"

#include <QList>
#include <QPointF>
#include <QString>
#include <QStringList>
#include <QVector>
#include <array>

namespace stormwatch {

struct CompareCell {
    QString text;
    bool best = false; // the best value of a ranked row where the variants differ
};

// A row of the table: a metric of scenario/metric_table.h, or one Invoke kind of its
// gateway_rpcs_by_kind (indented, never ranked).
struct CompareRow {
    QString name; // the vertical header's text
    QString key;  // the metric's key, or the kind: what CompareView::rowOf finds
    QString tooltip;
    QVector<CompareCell> cells; // one per variant, in the report's order
};

struct CompareLine {
    QVector<double> x, y; // a step series, sorted by x
};

struct CompareResults {
    static constexpr int kPlots = 3;
    // Plot lines keep at most a few points per column of this many: enough for the view and
    // the 1000 px exports, and a ten-hour run draws as fast as a half-hour one.
    static constexpr int kPlotColumns = 2000;

    ScenarioReport report;
    QList<SeriesSet> series;
    QVector<CompareRow> rows;
    // lines[plot][variant]: outstanding (max over subscriptions), tags not Good (sum over
    // subscriptions), gateway Invoke RPCs/s.
    std::array<QVector<CompareLine>, kPlots> lines;
};

// Builds the rows and lines of a finished comparison (any thread; no widgets involved).
CompareResults compareResults(ScenarioReport report, QList<SeriesSet> series);

// The overlaid plot lines of one variant, as plotted (step series held to SeriesSet::endS).
QVector<QPointF> maxOverSubscriptions(const SeriesSet& series, const QString& metric);
QVector<QPointF> sumOverSubscriptions(const SeriesSet& series, const QStringList& metrics);

// A step series reduced for a plot of `columns` columns over [x0, x1]: a column holding
// more than four points keeps its first, lowest, highest and last (in time order), which
// draws the same step line at that resolution. Fewer points are kept as they are.
CompareLine decimateSteps(const QVector<QPointF>& points, double x0, double x1, int columns);

} // namespace stormwatch
