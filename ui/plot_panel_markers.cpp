// PlotPanel: the theme's colours and the time markers (faults, redeploys, lever changes).
#include "ui/plot_panel.h"
#include "ui/plot_panel_private.h"
#include "ui/plot_theme.h"

#include <QFontMetrics>
#include <algorithm>

namespace stormwatch {

void PlotPanel::setTheme(Theme theme)
{
    m_theme = theme;
    applyThemeColours();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void PlotPanel::applyThemeColours()
{
    const PlotColours c = plotColours(m_theme);
    applyPlotTheme(m_plot, m_theme);
    m_guardLine->setPen(QPen(c.neutral, 1, Qt::DashLine));
    m_guardLabel->setColor(c.neutral);
    for (const auto& gg : m_gatewayGraphs)
        if (gg->metric == GatewayMetric::StaQueueDepth) {
            QPen pen = gg->graph->pen();
            pen.setColor(c.neutral);
            gg->graph->setPen(pen);
        }
    for (auto it = m_subGraphs.cbegin(); it != m_subGraphs.cend(); ++it)
        for (QCPGraph* g : {(*it)->outstanding, (*it)->interval}) {
            QPen pen = g->pen();
            pen.setColor(colourFor(it.key(), m_theme));
            g->setPen(pen);
        }
    for (QCPItemStraightLine* line : m_crosshairLines)
        line->setPen(QPen(c.crosshairLine, 1, Qt::DotLine));
    m_crosshairText->setBrush(c.crosshairBox);
    m_crosshairText->setPen(QPen(c.crosshairBorder));
    m_crosshairText->setColor(c.text);
    for (const MarkerItems& items : m_markerItems) {
        for (QCPItemStraightLine* line : items.lines)
            line->setPen(QPen(c.marker, 1, Qt::DashLine));
        items.label->setColor(c.text);
        items.label->setBrush(c.markerLabelBox);
    }
    // Hidden entries stay greyed in the new colours.
    applyVisibility();
    const auto greyHidden = [&](QCPAbstractPlottable* p) {
        for (QCPLayoutElement* e : m_plot->plotLayout()->elements(true))
            if (auto* legend = qobject_cast<QCPLegend*>(e))
                if (QCPAbstractLegendItem* item = legend->itemWithPlottable(p))
                    item->setTextColor(p->visible() ? c.text : c.hiddenText);
    };
    for (QCPGraph* g : m_quality) {
        greyHidden(g);
        // The stack's fill: the level's colour over the background at 45 % (light shades
        // glare on the dark background).
        const QColor base = g->pen().color(), bg = c.background;
        const auto mix = [](int a, int b) { return b + (a - b) * 45 / 100; };
        g->setBrush(QColor(mix(base.red(), bg.red()), mix(base.green(), bg.green()),
                           mix(base.blue(), bg.blue())));
    }
    for (const auto& gg : m_gatewayGraphs)
        greyHidden(gg->graph);
}

// As many value ticks as the plot's height gives room for: at 1024×700 a plot is ~80 px
// high and five labels ran into each other.
void PlotPanel::fitValueTicks()
{
    for (const AxisTitle& t : m_axisTitles) {
        const int room = t.axis->axisRect()->outerRect().height();
        const QFontMetrics metrics(t.axis->labelFont());
        const QString title = room <= 0 || metrics.horizontalAdvance(t.full) <= room ? t.full
                              : metrics.horizontalAdvance(t.brief) <= room           ? t.brief
                                                                                     : QString();
        if (t.axis->label() != title)
            t.axis->setLabel(title);
    }
    for (QCPAxisRect* r : m_rects)
        for (QCPAxis* axis : {r->axis(QCPAxis::atLeft), r->axis(QCPAxis::atRight)}) {
            const int line = QFontMetrics(axis->tickLabelFont()).height();
            const int room = r->height() > 0 ? r->height() / (line * 2) : 5;
            axis->ticker()->setTickCount(std::clamp(room, 2, 5));
        }
    // The time axis (one ticker for all plots): a label's width and as much again between
    // labels, so a narrow plot (an A/B side) does not run its times into each other.
    QCPAxis* time = bottomPlot()->axis(QCPAxis::atBottom);
    const QString widest =
        time->range().upper >= 3600 ? QStringLiteral("00:00:00") : QStringLiteral("00:00");
    const int label = QFontMetrics(time->tickLabelFont()).horizontalAdvance(widest);
    const int width = bottomPlot()->width();
    m_ticker->setTickCount(width > 0 ? std::clamp(width / (label * 2), 2, 5) : 5);
}

void PlotPanel::addMarkers(const QVector<Marker>& markers)
{
    const PlotColours c = plotColours(m_theme);
    for (const Marker& m : markers) {
        m_markers.push_back(m);
        MarkerItems items;
        for (QCPAxisRect* r : m_rects) {
            auto* line = new QCPItemStraightLine(m_plot);
            line->setClipAxisRect(r);
            for (QCPItemPosition* p : {line->point1, line->point2}) {
                p->setAxisRect(r);
                p->setAxes(r->axis(QCPAxis::atBottom), r->axis(QCPAxis::atLeft));
                p->setTypeY(QCPItemPosition::ptAxisRectRatio);
            }
            line->point1->setCoords(m.tS, 0);
            line->point2->setCoords(m.tS, 1);
            line->setPen(QPen(c.marker, 1, Qt::DashLine));
            line->setVisible(r->visible()); // a hidden plot's lines would draw at its last place
            items.lines << line;
        }
        QCPAxisRect* top = topPlot();
        items.label = new QCPItemText(m_plot);
        items.label->setClipAxisRect(top);
        items.label->position->setAxisRect(top);
        items.label->position->setAxes(top->axis(QCPAxis::atBottom), top->axis(QCPAxis::atLeft));
        // At its time, a row below the top of the first plot: relative to the plot, so a
        // re-layout (an export's size, its title row) keeps it in place.
        items.label->position->setTypeX(QCPItemPosition::ptPlotCoords);
        items.label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        items.label->position->setCoords(m.tS, 0);
        items.label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        items.label->setText(m.label);
        items.label->setColor(c.text);
        items.label->setBrush(c.markerLabelBox);
        items.label->setPadding(QMargins(3, 1, 3, 1));
        QFont font = items.label->font();
        font.setPointSizeF(font.pointSizeF() * 0.85);
        items.label->setFont(font);
        m_markerItems << items;
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void PlotPanel::clearMarkers()
{
    for (const MarkerItems& items : m_markerItems) {
        for (QCPItemStraightLine* line : items.lines)
            m_plot->removeItem(line);
        m_plot->removeItem(items.label);
    }
    m_markerItems.clear();
    m_markers.clear();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

QList<QCPItemText*> PlotPanel::markerLabels() const
{
    QList<QCPItemText*> labels;
    for (const MarkerItems& items : m_markerItems)
        labels << items.label;
    return labels;
}

// Labels in time order, each on the first row where it does not overlap the label before
// it on that row: close markers ("wedge" then "lever1 on" 5 s later) stay readable. A short
// plot has room for few rows; once they are full, the row whose label ends first gives way:
// that label is shortened to end where the new one begins (hidden when not even a letter
// fits), so no label covers another or runs below the plot.
void PlotPanel::layoutMarkers()
{
    if (m_markerItems.isEmpty())
        return;
    QCPAxisRect* top = topPlot();
    QCPAxis* x = top->axis(QCPAxis::atBottom);
    std::vector<int> order(std::size_t(m_markerItems.size()));
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = int(i);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return m_markers[a].tS < m_markers[b].tS; });
    struct Row {
        double end = 0; // pixel where its last label ends
        int label = -1; // that label
        double left = 0;
    };
    std::vector<Row> rows;
    const auto shorten = [&](int i, double room) {
        QCPItemText* label = m_markerItems[i].label;
        const QFontMetrics fm(label->font());
        const QMargins pad = label->padding();
        const int textRoom = int(room) - pad.left() - pad.right() - 4;
        const QString text = fm.elidedText(m_markers[i].label, Qt::ElideRight, textRoom);
        const bool fits = textRoom >= fm.horizontalAdvance(QStringLiteral("W…"));
        label->setText(fits ? text : m_markers[i].label);
        label->setVisible(fits);
    };
    for (int i : order) {
        QCPItemText* label = m_markerItems[i].label;
        label->setText(m_markers[i].label);
        label->setVisible(true);
        const QFontMetrics fm(label->font());
        const QMargins pad = label->padding();
        const double width = fm.horizontalAdvance(label->text()) + pad.left() + pad.right() + 4;
        const double height = fm.height() + pad.top() + pad.bottom();
        const std::size_t maxRows = std::size_t(std::max(1.0, (top->height() - 1) / height));
        const double left = x->coordToPixel(m_markers[i].tS);
        std::size_t row = 0;
        while (row < rows.size() && rows[row].end > left)
            ++row;
        if (row == rows.size()) {
            if (rows.size() < maxRows) {
                rows.push_back({});
            } else {
                row = std::size_t(
                    std::min_element(rows.begin(), rows.end(),
                                     [](const Row& a, const Row& b) { return a.end < b.end; }) -
                    rows.begin());
                shorten(rows[row].label, left - rows[row].left);
            }
        }
        rows[row] = Row{left + width, i, left};
        label->position->setCoords(m_markers[i].tS,
                                   (1 + double(row) * height) / std::max(1, top->height()));
    }
}

} // namespace stormwatch

namespace stormwatch {

void PlotPanel::setPresentation(bool on)
{
    if (on == m_presentation)
        return;
    m_presentation = on;
    m_toolBar->setVisible(!on);
    const double factor = on ? 1.5 : 1 / 1.5;
    const auto scaled = [factor](QFont font) {
        font.setPointSizeF(font.pointSizeF() * factor);
        return font;
    };
    for (QCPAxisRect* r : m_rects)
        for (QCPAxis* axis : r->axes()) {
            axis->setTickLabelFont(scaled(axis->tickLabelFont()));
            axis->setLabelFont(scaled(axis->labelFont()));
        }
    // The side legends grow less: their column is taken from the plots' width.
    const double sideFactor = on ? 1.25 : 1 / 1.25;
    for (QCPLayoutElement* e : m_plot->plotLayout()->elements(true))
        if (auto* legend = qobject_cast<QCPLegend*>(e)) {
            const double f = legend == m_subLegend ? factor : sideFactor;
            const auto grow = [f](QFont font) {
                font.setPointSizeF(font.pointSizeF() * f);
                return font;
            };
            legend->setFont(grow(legend->font()));
            for (int i = 0; i < legend->itemCount(); ++i)
                if (QCPAbstractLegendItem* item = legend->item(i))
                    item->setFont(grow(item->font()));
        }
    m_guardLabel->setFont(scaled(m_guardLabel->font()));
    for (const MarkerItems& items : m_markerItems)
        items.label->setFont(scaled(items.label->font()));
    m_crosshairText->setFont(scaled(m_crosshairText->font()));
    // Lines: 2 px to be seen from the back of the room; cosmetic 0 (fastest) otherwise.
    const auto widen = [on](QCPGraph* g) {
        if (g->pen().style() == Qt::NoPen)
            return;
        QPen pen = g->pen();
        pen.setWidthF(on ? 2 : 0);
        g->setPen(pen);
    };
    for (auto it = m_subGraphs.cbegin(); it != m_subGraphs.cend(); ++it) {
        widen((*it)->outstanding);
        widen((*it)->interval);
    }
    for (QCPGraph* g : m_quality)
        widen(g);
    for (const auto& gg : m_gatewayGraphs)
        widen(gg->graph);
    m_legendColumns = -1;
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace stormwatch
