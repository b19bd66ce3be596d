// PlotPanel: which of its plots are drawn, and where the shared parts (time axis labels,
// marker labels, crosshair and marker lines) go when some are hidden.
#include "ui/plot_panel.h"

#include <QAction>
#include <QMenu>
#include <algorithm>
#include <array>
#include <qcustomplot.h>

namespace stormwatch {

QString PlotPanel::plotName(Plot plot)
{
    switch (plot) {
    case Plot::Outstanding:
        return tr("Outstanding requests");
    case Plot::Interval:
        return tr("Retry interval");
    case Plot::Quality:
        return tr("Tag quality");
    case Plot::Gateway:
        return tr("Gateway load");
    }
    return {};
}

namespace {

const std::array<QLatin1String, PlotPanel::kPlotCount> kPlotKeys{
    QLatin1String("outstanding"), QLatin1String("interval"), QLatin1String("quality"),
    QLatin1String("gateway")};

} // namespace

QString PlotPanel::shownPlotsText() const
{
    QStringList keys;
    for (std::size_t i = 0; i < m_shown.size(); ++i)
        if (m_shown[i])
            keys << kPlotKeys[i];
    return keys.join(QLatin1Char(','));
}

void PlotPanel::setShownPlotsText(const QString& text)
{
    const QStringList keys = text.split(QLatin1Char(','), Qt::SkipEmptyParts);
    std::array<bool, kPlotCount> shown{};
    for (std::size_t i = 0; i < kPlotKeys.size(); ++i)
        shown[i] = keys.contains(kPlotKeys[i]);
    if (std::none_of(shown.begin(), shown.end(), [](bool s) { return s; }))
        shown.fill(true);
    // Shown ones first, so that the last shown plot is never asked to go.
    for (std::size_t i = 0; i < shown.size(); ++i)
        if (shown[i])
            setPlotShown(Plot(i), true);
    for (std::size_t i = 0; i < shown.size(); ++i)
        if (!shown[i])
            setPlotShown(Plot(i), false);
}

void PlotPanel::buildPlotsMenu()
{
    m_plotsMenu = new QMenu(tr("Plots"), this);
    m_plotsMenu->setObjectName(QStringLiteral("plotsMenu"));
    for (int i = 0; i < kPlotCount; ++i) {
        const auto plot = Plot(i);
        QAction* action = m_plotActions[std::size_t(i)] = m_plotsMenu->addAction(plotName(plot));
        action->setCheckable(true);
        action->setChecked(plotShown(plot));
        connect(action, &QAction::toggled, this, [this, plot, action](bool shown) {
            if (!setPlotShown(plot, shown))
                action->setChecked(true); // the last one shown stays
        });
    }
}

bool PlotPanel::setPlotShown(Plot plot, bool shown)
{
    const auto i = std::size_t(plot);
    if (m_shown[i] == shown)
        return true;
    if (!shown && std::count(m_shown.begin(), m_shown.end(), true) == 1)
        return false;
    m_shown[i] = shown;
    if (m_plotActions[i]->isChecked() != shown)
        m_plotActions[i]->setChecked(shown);
    hideCrosshair();
    layoutPlots();
    applyThemeColours(); // the theme styles what is in the layout: a plot back in it takes it now
    m_fullSync = true;
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    emit shownPlotsChanged();
    return true;
}

QCPAxisRect* PlotPanel::topPlot() const
{
    for (std::size_t i = 0; i < m_rects.size(); ++i)
        if (m_shown[i])
            return m_rects[i];
    return m_rects[0];
}

QCPAxisRect* PlotPanel::bottomPlot() const
{
    for (std::size_t i = m_rects.size(); i-- > 0;)
        if (m_shown[i])
            return m_rects[i];
    return m_rects.back();
}

// Rows keep their places (row 0 is the subscriptions' legend): a hidden plot's row is left
// empty with a stretch too small to take any height. A plot out of the layout keeps its last
// geometry, and the items clipped to it (lines through it, the guard line) are not its
// children: they are hidden with it.
void PlotPanel::layoutPlots()
{
    QCPLayoutGrid* grid = m_plot->plotLayout();
    QCPAxisRect* bottom = bottomPlot();
    QCPAxisRect* top = topPlot();
    for (std::size_t i = 0; i < m_rects.size(); ++i) {
        const int row = int(i) + 1;
        const bool shown = m_shown[i];
        QCPAxisRect* rect = m_rects[i];
        const bool inLayout = grid->hasElement(row, 0) && grid->element(row, 0) == rect;
        if (shown && !inLayout)
            grid->addElement(row, 0, rect);
        else if (!shown && inLayout)
            grid->take(rect);
        rect->setVisible(shown);
        grid->setRowStretchFactor(row, shown ? 1 : 0.001);
        QCPAxis* x = rect->axis(QCPAxis::atBottom);
        x->setTickLabels(rect == bottom);
        x->setLabel(rect == bottom ? tr("time since start") : QString());
        if (i < std::size_t(m_crosshairLines.size()))
            m_crosshairLines[qsizetype(i)]->setClipAxisRect(rect); // drawn only when shown
        for (const MarkerItems& items : m_markerItems)
            items.lines[qsizetype(i)]->setVisible(shown);
    }
    if (m_guardLine) {
        m_guardLine->setVisible(plotShown(Plot::Outstanding));
        m_guardLabel->setVisible(plotShown(Plot::Outstanding));
    }
    fitSideLegends();
    for (const MarkerItems& items : m_markerItems) {
        items.label->setClipAxisRect(top);
        items.label->position->setAxisRect(top);
        items.label->position->setAxes(top->axis(QCPAxis::atBottom), top->axis(QCPAxis::atLeft));
    }
}

bool PlotPanel::sideLegendsShown() const
{
    // Not laid out yet (never shown): as wide as a window would make it.
    return m_plot->width() >= kSideLegendsFromWidth || !m_plot->isVisible();
}

void PlotPanel::fitSideLegends()
{
    QCPLayoutGrid* grid = m_plot->plotLayout();
    const bool wide = sideLegendsShown();
    bool added = false;
    for (std::size_t i = 0; i < m_rects.size(); ++i) {
        QCPLegend* legend = m_sideLegends[i];
        if (!legend)
            continue;
        const int row = int(i) + 1;
        const bool wanted = wide && m_shown[i];
        const bool inLayout = grid->hasElement(row, 1) && grid->element(row, 1) == legend;
        if (wanted && !inLayout) {
            grid->addElement(row, 1, legend);
            added = true;
        } else if (!wanted && inLayout) {
            grid->take(legend);
        }
        legend->setVisible(wanted);
    }
    if (added)
        applyThemeColours(); // the theme styles what is in the layout
}

} // namespace stormwatch
