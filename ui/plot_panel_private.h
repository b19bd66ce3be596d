#pragma once
// Shared by the PlotPanel's source files only.

#include "ui/plot_data.h"
#include "ui/plot_panel.h"

#include <qcustomplot.h>

namespace stormwatch {

struct PlotPanel::SubscriptionGraphs {
    QCPGraph* outstanding = nullptr;
    QCPGraph* interval = nullptr;
    plot::ViewFeed outstandingFeed;
    plot::ViewFeed intervalFeed;
};

// One gateway's subscriptions drawn as aggregate lines (PlotPanel::aggregated()).
struct PlotPanel::AggregateGraphs {
    plot::SubscriptionAggregate aggregate;
    QList<SubscriptionKey> keys; // what `aggregate` was computed over
    QString name;                // the gateway as the legend and the crosshair name it
    std::array<QCPGraph*, plot::SubscriptionAggregate::kLineCount> graphs{};
    std::array<plot::ViewFeed, plot::SubscriptionAggregate::kLineCount> feeds;
};

struct PlotPanel::GatewayGraph {
    GatewayMetric metric = GatewayMetric::StaQueueDepth;
    int band = 0; // > 0: a band where the recovery state equals this code
    QCPGraph* graph = nullptr;
    plot::ViewFeed feed;
    QVector<QPointF> bandSeries;
    qsizetype bandSourceSize = -1;
    QPointF bandSourceLast;
};

namespace plot {

inline const QColor kGoodColour(46, 160, 67);
inline const QColor kUncertainColour(230, 160, 0);
inline const QColor kBadColour(214, 39, 40);
inline const QColor kStaleColour(128, 100, 170); // a Good value gone quiet: apart from both

// An opaque light shade of colour (what colour at 45 % alpha looks like over white).
inline QColor tint(const QColor& colour)
{
    const auto mix = [](int c) { return 255 - (255 - c) * 45 / 100; };
    return QColor(mix(colour.red()), mix(colour.green()), mix(colour.blue()));
}

inline void styleStep(QCPGraph* g, const QColor& colour, const QString& name)
{
    g->setLineStyle(QCPGraph::lsStepLeft);
    QPen pen(colour, 0); // cosmetic: the raster engine's fastest lines
    pen.setCosmetic(true);
    g->setPen(pen);
    g->setName(name);
    g->setAdaptiveSampling(true);
}

// A legend beside its plot, outside the data area: in the plot layout's second column, on
// the plot's row (every plot's data area keeps the same width, so the time axes line up).
inline QCPLegend* sideLegend(QCPAxisRect* rect)
{
    auto* legend = new QCPLegend;
    QCPLayoutGrid* grid = rect->parentPlot()->plotLayout();
    int row = 0, column = 0;
    for (int i = 0; i < grid->elementCount(); ++i)
        if (grid->elementAt(i) == rect)
            grid->indexToRowCol(i, row, column);
    grid->addElement(row, column + 1, legend);
    grid->setColumnStretchFactor(column + 1, 0.001);
    legend->setLayer(QStringLiteral("legend"));
    legend->setSelectableParts(QCPLegend::spNone);
    legend->setBorderPen(Qt::NoPen);
    legend->setBrush(Qt::NoBrush);
    legend->setRowSpacing(0);
    legend->setMargins(QMargins(4, 0, 6, 0)); // room on the right: text is never cut at the edge
    legend->setIconSize(18, 10);              // a narrow column leaves the data area the width
    QFont font = legend->font();
    font.setPointSizeF(font.pointSizeF() * 0.85);
    legend->setFont(font);
    return legend;
}

} // namespace plot
} // namespace stormwatch
