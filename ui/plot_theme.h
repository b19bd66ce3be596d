#pragma once
// The plots' colours for a theme: QCustomPlot paints its own background, axes, grid and
// legends, so the application palette alone leaves them white. One place for every plot
// (the console's, the compare view's, the report PNGs and the exports).

#include "ui/theme.h"

#include <QColor>

class QCustomPlot;

namespace stormwatch {

struct PlotColours {
    QColor background; // the whole plot, exports included
    QColor text;       // tick labels, axis labels, legend text, titles
    QColor axis;       // axis lines and ticks
    QColor grid;
    QColor hiddenText; // a legend entry whose series is hidden
    QColor neutral;    // lines that are "no colour": STA queue depth, guard limit
    QColor crosshairLine;
    QColor crosshairBox;
    QColor crosshairBorder;
    QColor marker; // the time markers' line and label
    QColor markerLabelBox;
};

PlotColours plotColours(Theme theme);
// Background, every axis of every axis rect, the legends and the text elements.
void applyPlotTheme(QCustomPlot* plot, Theme theme);

} // namespace stormwatch
