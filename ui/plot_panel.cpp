// PlotPanel: building the plots, the subscriptions' graphs, selection and the legends.
// View state (follow, zoom, crosshair, throttled refresh) is in plot_panel_view.cpp, the
// exports in plot_panel_export.cpp, the toolbar in plot_panel_toolbar.cpp, which plots are
// drawn in plot_panel_plots.cpp.
#include "ui/plot_panel.h"

#include "ui/plot_data.h"
#include "ui/plot_panel_private.h"
#include "ui/plot_theme.h"

#include <QAbstractItemView>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace stormwatch {

using plot::kBadColour;
using plot::kGoodColour;
using plot::kStaleColour;
using plot::kUncertainColour;

PlotPanel::PlotPanel(const SeriesStore* store, QWidget* parent)
    : QWidget(parent), m_store(store),
      m_qualityFeeds(plot::kQualityBandCount, plot::ViewFeed(plot::ViewFeed::Reduce::Mean)),
      m_qualityStack(std::make_unique<plot::QualityStack>())
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    buildToolBar(layout);
    m_plot = new QCustomPlot(this);
    layout->addWidget(m_plot, 1);
    buildPlots();
    m_theme = currentTheme();
    applyThemeColours();

    m_throttle.setSingleShot(true);
    m_throttle.setObjectName(QStringLiteral("plot replot throttle")); // named in bench_ui_stall
    m_throttle.setInterval(1000 / kMaxReplotsPerSecond);
    connect(&m_throttle, &QTimer::timeout, this, &PlotPanel::tick);
    connect(m_plot, &QCustomPlot::afterReplot, this, [this] {
        ++m_replots;
        emit replotted();
    });
    connect(m_plot, &QCustomPlot::legendClick, this,
            [this](QCPLegend* legend, QCPAbstractLegendItem* item, QMouseEvent*) {
                onLegendClick(legend, item);
            });
    connect(m_plot, &QCustomPlot::mouseMove, this, &PlotPanel::onMouseMove);
    connect(m_plot, &QCustomPlot::plottableClick, this,
            [this](QCPAbstractPlottable* plottable, int, QMouseEvent*) {
                for (const auto& [gateway, ag] : m_aggregates)
                    if (std::find(ag->graphs.cbegin(), ag->graphs.cend(), plottable) !=
                        ag->graphs.cend()) {
                        isolateWorstOf(gateway);
                        return;
                    }
            });
    connect(m_plot, &QCustomPlot::beforeReplot, this, &PlotPanel::fitSideLegends);
    connect(m_plot, &QCustomPlot::beforeReplot, this, &PlotPanel::fitSubscriptionLegend);
    // Marker rows are placed on the final layout (their plot may just have changed size).
    connect(m_plot, &QCustomPlot::afterLayout, this, &PlotPanel::layoutMarkers);
    connect(m_plot, &QCustomPlot::beforeReplot, this, &PlotPanel::fitValueTicks);
    connect(store, &SeriesStore::subscriptionsChanged, this, &PlotPanel::onSubscriptionsChanged);
    connect(store, &SeriesStore::appended, this, &PlotPanel::onAppended);
    onSubscriptionsChanged();
}

PlotPanel::~PlotPanel() = default;

void PlotPanel::buildPlots()
{
    // Speed over beauty: a quarter million points at 20 Hz.
    m_plot->setNotAntialiasedElements(QCP::aeAll);
    m_plot->setNoAntialiasingOnDrag(true);
    m_plot->setPlottingHint(QCP::phFastPolylines, true);
    // A queued replot asks for a paint instead of painting at once: QCustomPlot's default
    // (repaint) painted every dirty widget of the window inside the replot, one UI event of
    // 20-35 ms beside a busy tag table. rpImmediateRefresh still paints at once.
    m_plot->setPlottingHint(QCP::phImmediateRefresh, false);
    m_plot->setAutoAddPlottableToLegend(false);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->setMouseTracking(true);
    m_plot->installEventFilter(this);

    QCPLayoutGrid* grid = m_plot->plotLayout();
    grid->clear();
    grid->setRowSpacing(4);
    // The grid rounds each of its five rows' heights on its own, so together they can reach
    // up to 3 px past the widget; the margin keeps the last row's labels and legend inside.
    grid->setMargins(QMargins(0, 0, 0, 3));
    m_subLegend = new QCPLegend;
    grid->addElement(0, 0, m_subLegend);
    m_subLegend->setLayer(QStringLiteral("legend"));
    m_subLegend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    m_subLegend->setWrap(6);
    m_subLegend->setBorderPen(Qt::NoPen);
    m_subLegend->setSelectableParts(QCPLegend::spNone);
    grid->setRowStretchFactor(0, 0.001);

    auto* margins = new QCPMarginGroup(m_plot);
    m_ticker = QSharedPointer<QCPAxisTickerTime>::create();
    m_ticker->setTimeFormat(QStringLiteral("%m:%s"));
    const std::array<QString, 4> titles{tr("outstanding"), tr("retry interval (s)"), tr("tags"),
                                        tr("STA queue")};
    // What a strip too short for its title shows instead (the A/B view's two panels, a small
    // window): a title never runs into the plot above it.
    const std::array<QString, 4> briefTitles{tr("outst."), tr("retry s"), tr("tags"), tr("STA")};
    for (std::size_t i = 0; i < m_rects.size(); ++i) {
        auto* r = new QCPAxisRect(m_plot);
        grid->addElement(int(i) + 1, 0, r);
        grid->setRowStretchFactor(int(i) + 1, 1);
        r->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
        QCPAxis* x = r->axis(QCPAxis::atBottom);
        r->setRangeDrag(Qt::Horizontal);
        r->setRangeZoom(Qt::Horizontal);
        r->setRangeDragAxes(x, nullptr);
        r->setRangeZoomAxes(x, nullptr);
        x->setTicker(m_ticker);
        r->axis(QCPAxis::atLeft)->setLabel(titles[i]);
        m_axisTitles.push_back({r->axis(QCPAxis::atLeft), titles[i], briefTitles[i]});
        connect(x, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
                [this, x] { onXRangeChanged(x); });
        m_rects[i] = r;
    }

    // The guard's limit: above 1 outstanding only with the guard off.
    QCPAxisRect* out = axisRect(Plot::Outstanding);
    auto* guard = m_guardLine = new QCPItemStraightLine(m_plot);
    guard->setClipAxisRect(out);
    for (QCPItemPosition* p : {guard->point1, guard->point2}) {
        p->setAxisRect(out);
        p->setAxes(out->axis(QCPAxis::atBottom), out->axis(QCPAxis::atLeft));
    }
    guard->point1->setCoords(0, 1);
    guard->point2->setCoords(1, 1);
    guard->setPen(QPen(QColor(90, 90, 90), 1, Qt::DashLine));
    auto* guardLabel = m_guardLabel = new QCPItemText(m_plot);
    guardLabel->setClipAxisRect(out);
    guardLabel->position->setAxisRect(out);
    guardLabel->position->setAxes(out->axis(QCPAxis::atBottom), out->axis(QCPAxis::atLeft));
    guardLabel->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
    guardLabel->position->setTypeY(QCPItemPosition::ptPlotCoords);
    guardLabel->position->setCoords(0.995, 1);
    guardLabel->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
    guardLabel->setText(tr("guard limit"));
    guardLabel->setColor(QColor(90, 90, 90));

    // Tag quality, stacked. The levels are ordered (good <= good+uncertain <= all), so each
    // level filled opaque down to zero, drawn top level first, paints the stack — at a
    // third of the cost of channel fills between the levels.
    QCPAxisRect* q = axisRect(Plot::Quality);
    auto* qualityLegend = m_sideLegends[std::size_t(Plot::Quality)] = plot::sideLegend(q);
    const std::array<std::pair<QString, QColor>, plot::kQualityBandCount> levels{
        std::pair{tr("good"), kGoodColour}, std::pair{tr("stale"), kStaleColour},
        std::pair{tr("uncertain"), kUncertainColour}, std::pair{tr("bad"), kBadColour}};
    for (int i = int(levels.size()) - 1; i >= 0; --i) {
        QCPGraph* g = m_plot->addGraph(q->axis(QCPAxis::atBottom), q->axis(QCPAxis::atLeft));
        plot::styleStep(g, levels[std::size_t(i)].second, levels[std::size_t(i)].first);
        g->setBrush(plot::tint(levels[std::size_t(i)].second));
        m_quality[std::size_t(i)] = g;
    }
    for (QCPGraph* g : m_quality)
        g->addToLegend(qualityLegend);

    // Gateway load; the recovery bands first so the lines draw over them.
    QCPAxisRect* gw = axisRect(Plot::Gateway);
    QCPAxis* rates = gw->axis(QCPAxis::atRight);
    rates->setVisible(true);
    rates->setLabel(tr("per second"));
    m_axisTitles.push_back({rates, rates->label(), tr("/s")});
    QCPAxis* bandAxis = gw->addAxis(QCPAxis::atRight);
    bandAxis->setVisible(false);
    bandAxis->setRange(0, 1);
    auto* gatewayLegend = m_sideLegends[std::size_t(Plot::Gateway)] = plot::sideLegend(gw);
    const auto addGateway = [&](GatewayMetric metric, int band, QCPAxis* y, QColor colour,
                                const QString& name) {
        auto gg = std::make_unique<GatewayGraph>();
        gg->metric = metric;
        gg->band = band;
        if (band > 0)
            gg->feed = plot::ViewFeed(plot::ViewFeed::Reduce::Mean);
        gg->graph = m_plot->addGraph(gw->axis(QCPAxis::atBottom), y);
        plot::styleStep(gg->graph, colour, name);
        if (band > 0) {
            gg->graph->setPen(Qt::NoPen);
            gg->graph->setBrush(colour);
        }
        gg->graph->addToLegend(gatewayLegend);
        m_gatewayGraphs.push_back(std::move(gg));
    };
    addGateway(GatewayMetric::RecoveryState, 1, bandAxis, QColor(255, 170, 0, 60),
               tr("recovering"));
    addGateway(GatewayMetric::RecoveryState, 2, bandAxis, QColor(220, 0, 0, 45),
               tr("recovery closed"));
    addGateway(GatewayMetric::StaQueueDepth, 0, gw->axis(QCPAxis::atLeft), QColor(40, 40, 40),
               tr("STA queue"));
    addGateway(GatewayMetric::InvokeRps, 0, rates, QColor(31, 119, 180), tr("Invoke/s"));
    addGateway(GatewayMetric::DeadlineExceededPerS, 0, rates, kBadColour,
               tr("expired/s")); // DEADLINE_EXCEEDED; short: the side column stays narrow
    addGateway(GatewayMetric::SuppressedPerS, 0, rates, QColor(148, 103, 189), tr("suppressed/s"));

    // The crosshair lives on its own buffered layer: moving it repaints only that layer.
    m_plot->addLayer(QStringLiteral("crosshair"), m_plot->layer(QStringLiteral("legend")),
                     QCustomPlot::limAbove);
    m_plot->layer(QStringLiteral("crosshair"))->setMode(QCPLayer::lmBuffered);
    for (QCPAxisRect* r : m_rects) {
        auto* line = new QCPItemStraightLine(m_plot);
        line->setLayer(QStringLiteral("crosshair"));
        line->setClipAxisRect(r);
        for (QCPItemPosition* p : {line->point1, line->point2}) {
            p->setAxisRect(r);
            p->setAxes(r->axis(QCPAxis::atBottom), r->axis(QCPAxis::atLeft));
        }
        line->setPen(QPen(QColor(0, 0, 0, 140), 1, Qt::DotLine));
        line->setVisible(false);
        m_crosshairLines.push_back(line);
    }
    m_crosshairText = new QCPItemText(m_plot);
    m_crosshairText->setLayer(QStringLiteral("crosshair"));
    m_crosshairText->setClipToAxisRect(false);
    m_crosshairText->position->setType(QCPItemPosition::ptAbsolute);
    m_crosshairText->setTextAlignment(Qt::AlignLeft);
    m_crosshairText->setBrush(QColor(255, 255, 255, 230));
    m_crosshairText->setPen(QPen(QColor(120, 120, 120)));
    m_crosshairText->setPadding(QMargins(5, 3, 5, 3));
    m_crosshairText->setVisible(false);
    layoutPlots();
}

QColor PlotPanel::colourFor(SubscriptionKey key)
{
    // Stable per instance (not per arrival order); an alarm subscription shares its
    // instance's colour and is drawn dash-dotted.
    // Twenty distinguishable colours: up to 20 instances never share one.
    static const std::array<QColor, kDistinctColours> palette{
        QColor(31, 119, 180),  QColor(255, 127, 14), QColor(44, 160, 44),   QColor(214, 39, 40),
        QColor(148, 103, 189), QColor(140, 86, 75),  QColor(227, 119, 194), QColor(127, 127, 127),
        QColor(188, 189, 34),  QColor(23, 190, 207), QColor(0, 0, 128),     QColor(0, 128, 128),
        QColor(128, 0, 0),     QColor(230, 190, 0),  QColor(90, 40, 150),   QColor(177, 89, 40),
        QColor(250, 128, 114), QColor(120, 200, 90), QColor(110, 170, 230), QColor(190, 150, 210)};
    const int i = key.instance < 0 ? 0 : key.instance % int(palette.size());
    return palette[std::size_t(i)];
}

QColor PlotPanel::colourFor(SubscriptionKey key, Theme theme)
{
    const QColor light = colourFor(key);
    if (theme == Theme::Light)
        return light;
    // Navy, maroon and deep purple vanish on the dark background: light stand-ins that
    // stay distinct from the other seventeen.
    const int i = key.instance < 0 ? 0 : key.instance % kDistinctColours;
    switch (i) {
    case 10:
        return QColor(140, 150, 255);
    case 12:
        return QColor(170, 255, 195);
    case 14:
        return QColor(255, 255, 120);
    default:
        return light;
    }
}

void PlotPanel::onSubscriptionsChanged()
{
    const QList<SubscriptionKey> keys = m_store->subscriptions();
    // Gone from the store (clear): drop their graphs.
    for (auto it = m_subGraphs.begin(); it != m_subGraphs.end();) {
        if (!m_store->contains(it.key())) {
            m_plot->removeGraph((*it)->outstanding);
            m_plot->removeGraph((*it)->interval);
            it = m_subGraphs.erase(it);
        } else {
            ++it;
        }
    }
    for (const SubscriptionKey& k : keys) {
        auto& sg = m_subGraphs[k];
        if (!sg) {
            sg = std::make_shared<SubscriptionGraphs>();
            QCPAxisRect* o = axisRect(Plot::Outstanding);
            QCPAxisRect* i = axisRect(Plot::Interval);
            sg->outstanding =
                m_plot->addGraph(o->axis(QCPAxis::atBottom), o->axis(QCPAxis::atLeft));
            sg->interval = m_plot->addGraph(i->axis(QCPAxis::atBottom), i->axis(QCPAxis::atLeft));
            for (QCPGraph* g : {sg->outstanding, sg->interval}) {
                plot::styleStep(g, colourFor(k, m_theme), QString());
                if (m_presentation)
                    g->setPen(QPen(g->pen().color(), 2));
                if (k.alarm) {
                    QPen pen = g->pen();
                    pen.setStyle(Qt::DashDotLine);
                    g->setPen(pen);
                }
            }
        }
        sg->outstanding->setName(m_store->label(k));
        sg->interval->setName(m_store->label(k));
    }
    applyVisibility();
}

QList<SubscriptionKey> PlotPanel::visibleSubscriptions() const
{
    QList<SubscriptionKey> visible;
    for (const SubscriptionKey& k : m_store->subscriptions())
        if ((m_selection.isEmpty() || m_selection.contains(k)) && ofChosenGateway(k) &&
            !m_hidden.contains(k))
            visible.push_back(k);
    return visible;
}

bool PlotPanel::ofChosenGateway(SubscriptionKey key) const
{
    return m_gatewayFilter.isEmpty() || gatewayOf(key) == m_gatewayFilter;
}

void PlotPanel::setGateways(const QMap<QString, QList<int>>& instancesByGateway)
{
    QHash<int, QString> of;
    for (auto it = instancesByGateway.cbegin(); it != instancesByGateway.cend(); ++it)
        for (int instance : *it)
            of.insert(instance, it.key());
    const QStringList names = instancesByGateway.keys();
    if (names == m_gatewayNames && of == m_gatewayOfInstance)
        return; // the controller says it again on every refresh
    m_gatewayNames = names;
    m_gatewayOfInstance = of;
    const QString before = m_gatewayFilter;
    m_gatewayFilter = names.size() > 1 && names.contains(before) ? before : QString();
    {
        const QSignalBlocker block(m_gatewayCombo);
        m_gatewayCombo->clear();
        m_gatewayCombo->addItem(tr("All gateways"), QString());
        for (const QString& name : names)
            m_gatewayCombo->addItem(name, name);
        m_gatewayCombo->setCurrentIndex(std::max(0, m_gatewayCombo->findData(m_gatewayFilter)));
    }
    m_gatewayComboAction->setVisible(names.size() > 1);
    m_gatewayCombo->view()->setMinimumWidth(m_gatewayCombo->view()->sizeHintForColumn(0) + 24);
    m_fullSync = true; // the mapping behind the filter may have changed
    showGatewayChoice();
    applyVisibility();
    if (m_gatewayFilter != before)
        emit gatewayFilterChanged(m_gatewayFilter);
}

void PlotPanel::setGatewayFilter(const QString& gateway)
{
    const QString chosen = m_gatewayNames.contains(gateway) ? gateway : QString();
    {
        const QSignalBlocker block(m_gatewayCombo);
        m_gatewayCombo->setCurrentIndex(std::max(0, m_gatewayCombo->findData(chosen)));
    }
    if (chosen == m_gatewayFilter)
        return;
    m_gatewayFilter = chosen;
    showGatewayChoice();
    m_fullSync = true; // the gateway plot reads other series now
    applyVisibility();
    emit gatewayFilterChanged(chosen);
}

void PlotPanel::showGatewayChoice()
{
    m_gatewayCombo->setToolTip(
        tr("Plotted: %1 — one gateway's subscriptions and gateway load, or all of them")
            .arg(m_gatewayCombo->currentText()));
}

QString PlotPanel::withGateway(const QString& title) const
{
    if (m_gatewayFilter.isEmpty())
        return title;
    const QString gateway = tr("gateway %1").arg(m_gatewayFilter);
    return title.isEmpty() ? gateway : title + QStringLiteral(" — ") + gateway;
}

void PlotPanel::setSelectedSubscriptions(const QList<SubscriptionKey>& keys)
{
    m_selection = keys;
    applyVisibility();
}

void PlotPanel::setSubscriptionHidden(SubscriptionKey key, bool hidden)
{
    QSet<SubscriptionKey> next = m_hidden;
    if (hidden)
        next.insert(key);
    else
        next.remove(key);
    setHiddenSubscriptions(next);
}

void PlotPanel::setHiddenSubscriptions(const QSet<SubscriptionKey>& hidden)
{
    if (hidden == m_hidden)
        return;
    m_hidden = hidden;
    applyVisibility();
    emit hiddenSubscriptionsChanged(m_hidden);
}

// The legend lists the selected subscriptions (hidden ones greyed); the quality stack sums
// the visible ones, so it is rebuilt.
void PlotPanel::applyVisibility()
{
    m_subLegend->clearItems();
    const QList<SubscriptionKey> keys = m_store->subscriptions();
    int selectedCount = 0;
    for (const SubscriptionKey& k : keys)
        if ((m_selection.isEmpty() || m_selection.contains(k)) && ofChosenGateway(k))
            ++selectedCount;
    const QList<SubscriptionKey> drawn = visibleSubscriptions();
    m_aggregated = drawn.size() > m_aggregateAbove;
    const bool legend = selectedCount > 0 && selectedCount <= kMaxLegendEntries;
    for (const SubscriptionKey& k : keys) {
        const auto& sg = m_subGraphs.value(k);
        if (!sg)
            continue;
        const bool selected =
            (m_selection.isEmpty() || m_selection.contains(k)) && ofChosenGateway(k);
        const bool visible = selected && !m_hidden.contains(k) && !m_aggregated;
        sg->outstanding->setVisible(visible);
        sg->interval->setVisible(visible);
        if (selected && legend) {
            sg->outstanding->addToLegend(m_subLegend);
            if (QCPAbstractLegendItem* item = m_subLegend->itemWithPlottable(sg->outstanding)) {
                const PlotColours colours = plotColours(m_theme);
                item->setTextColor(visible ? colours.text : colours.hiddenText);
            }
        }
    }
    syncAggregates(drawn);
    showSubscriptionLegend(legend || m_subLegend->itemCount() > 0);
    m_legendColumns = -1; // refit
    m_qualityStack->reset();
    for (auto& feed : m_qualityFeeds)
        feed.invalidate();
    onAppended();
}

// An empty legend would still cap the width of the plots' column at its own: out of the
// layout, its row gives the plots all of its space.
void PlotPanel::showSubscriptionLegend(bool shown)
{
    QCPLayoutGrid* grid = m_plot->plotLayout();
    const bool inLayout = grid->hasElement(0, 0) && grid->element(0, 0) == m_subLegend;
    if (shown && !inLayout)
        grid->addElement(0, 0, m_subLegend);
    else if (!shown && inLayout)
        grid->take(m_subLegend);
    m_subLegend->setVisible(shown);
}

// As many legend columns as the widest name allows at the plot's width: names are never
// cut, the legend wraps onto more rows instead.
void PlotPanel::fitSubscriptionLegend()
{
    const int count = m_subLegend->itemCount();
    if (count == 0)
        return;
    int widest = 1;
    for (int i = 0; i < count; ++i)
        if (QCPAbstractLegendItem* item = m_subLegend->item(i))
            widest = std::max(widest, item->minimumOuterSizeHint().width());
    const int spacing = m_subLegend->columnSpacing();
    // The legend row shares its width with the side legends' column.
    QCPLayoutGrid* grid = m_plot->plotLayout();
    int side = 0;
    if (grid->columnCount() > 1)
        for (int row = 0; row < grid->rowCount(); ++row)
            // hasElement first: element() warns on stderr for every empty cell.
            if (QCPLayoutElement* e = grid->hasElement(row, 1) ? grid->element(row, 1) : nullptr)
                side = std::max(side, e->minimumOuterSizeHint().width());
    const int available = m_plot->viewport().width() - side - grid->columnSpacing() -
                          m_subLegend->margins().left() - m_subLegend->margins().right() - 8;
    const int columns = std::clamp((available + spacing) / (widest + spacing), 1, count);
    if (columns == m_legendColumns)
        return;
    m_legendColumns = columns;
    m_subLegend->setWrap(columns);
    m_subLegend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
}

void PlotPanel::onLegendClick(QCPLegend* legend, QCPAbstractLegendItem* item)
{
    auto* pli = qobject_cast<QCPPlottableLegendItem*>(item);
    if (!pli)
        return;
    QCPAbstractPlottable* plottable = pli->plottable();
    if (legend == m_subLegend) {
        for (auto it = m_subGraphs.cbegin(); it != m_subGraphs.cend(); ++it)
            if ((*it)->outstanding == plottable) {
                setSubscriptionHidden(it.key(), !m_hidden.contains(it.key()));
                return;
            }
        return;
    }
    plottable->setVisible(!plottable->visible());
    const PlotColours colours = plotColours(m_theme);
    pli->setTextColor(plottable->visible() ? colours.text : colours.hiddenText);
    onAppended();
}

QCPGraph* PlotPanel::subscriptionGraph(SubscriptionKey key, SubMetric metric) const
{
    const auto& sg = m_subGraphs.value(key);
    if (!sg)
        return nullptr;
    if (metric == SubMetric::Outstanding)
        return sg->outstanding;
    return metric == SubMetric::IntervalS ? sg->interval : nullptr;
}

QCPGraph* PlotPanel::qualityGraph(SubMetric metric) const
{
    switch (metric) {
    case SubMetric::Good:
        return m_quality[std::size_t(plot::QualityBand::Good)];
    case SubMetric::Stale:
        return m_quality[std::size_t(plot::QualityBand::Stale)];
    case SubMetric::Uncertain:
        return m_quality[std::size_t(plot::QualityBand::Uncertain)];
    case SubMetric::Bad:
        return m_quality[std::size_t(plot::QualityBand::Bad)];
    default:
        return nullptr;
    }
}

QCPGraph* PlotPanel::gatewayGraph(GatewayMetric metric) const
{
    for (const auto& gg : m_gatewayGraphs)
        if (gg->metric == metric && gg->band <= 1)
            return gg->graph;
    return nullptr;
}

} // namespace stormwatch
