#include "ui/plot_theme.h"

#include <qcustomplot.h>

namespace stormwatch {

PlotColours plotColours(Theme theme)
{
    PlotColours c;
    if (theme == Theme::Dark) {
        // The palette's Base and Text (ui/theme.cpp), so the plots sit in the window's dark.
        c.background = QColor(0x1e, 0x1f, 0x22);
        c.text = QColor(0xdf, 0xe1, 0xe5);
        c.axis = QColor(0x9a, 0x9e, 0xa6);
        c.grid = QColor(0x3a, 0x3d, 0x42);
        c.hiddenText = QColor(0x6a, 0x6d, 0x72);
        c.neutral = QColor(0xc8, 0xcb, 0xd0);
        c.crosshairLine = QColor(255, 255, 255, 150);
        c.crosshairBox = QColor(0x2b, 0x2d, 0x31, 235);
        c.crosshairBorder = QColor(0x7a, 0x7d, 0x82);
        c.marker = QColor(0xb0, 0xb4, 0xbc);
        c.markerLabelBox = QColor(0x2b, 0x2d, 0x31, 220);
        return c;
    }
    c.background = Qt::white;
    c.text = Qt::black;
    c.axis = Qt::black;
    c.grid = QColor(200, 200, 200);
    c.hiddenText = Qt::gray;
    c.neutral = QColor(40, 40, 40);
    c.crosshairLine = QColor(0, 0, 0, 140);
    c.crosshairBox = QColor(255, 255, 255, 230);
    c.crosshairBorder = QColor(120, 120, 120);
    c.marker = QColor(90, 90, 90);
    c.markerLabelBox = QColor(255, 255, 255, 220);
    return c;
}

namespace {

void styleAxis(QCPAxis* axis, const PlotColours& c)
{
    const QPen line(c.axis, 0);
    axis->setBasePen(line);
    axis->setTickPen(line);
    axis->setSubTickPen(line);
    axis->setTickLabelColor(c.text);
    axis->setLabelColor(c.text);
    QPen grid(c.grid, 0, Qt::DotLine);
    axis->grid()->setPen(grid);
    axis->grid()->setZeroLinePen(Qt::NoPen);
}

} // namespace

void applyPlotTheme(QCustomPlot* plot, Theme theme)
{
    const PlotColours c = plotColours(theme);
    plot->setBackground(c.background);
    for (QCPAxisRect* rect : plot->axisRects()) {
        rect->setBackground(Qt::NoBrush);
        for (QCPAxis* axis : rect->axes())
            styleAxis(axis, c);
    }
    // Legends and titles anywhere in the layout (side legends, the subscription legend).
    const QList<QCPLayoutElement*> elements = plot->plotLayout()->elements(true);
    for (QCPLayoutElement* e : elements) {
        if (auto* legend = qobject_cast<QCPLegend*>(e)) {
            legend->setBrush(Qt::NoBrush);
            legend->setTextColor(c.text);
            for (int i = 0; i < legend->itemCount(); ++i)
                if (QCPAbstractLegendItem* item = legend->item(i))
                    item->setTextColor(c.text);
        } else if (auto* title = qobject_cast<QCPTextElement*>(e)) {
            title->setTextColor(c.text);
        }
    }
    if (plot->legend) {
        plot->legend->setBrush(Qt::NoBrush);
        plot->legend->setTextColor(c.text);
    }
}

} // namespace stormwatch
