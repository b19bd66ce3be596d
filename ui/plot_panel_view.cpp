// PlotPanel: the throttled refresh, follow-live, the shared time axis and the crosshair.
#include "ui/plot_panel.h"
#include "ui/plot_panel_private.h"

#include <QAction>
#include <QComboBox>
#include <QEvent>
#include <QFontMetrics>
#include <QSpinBox>
#include <QStringList>
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace stormwatch {

namespace {

QString number(double v)
{
    if (std::isnan(v))
        return QStringLiteral("–");
    if (v == std::floor(v) && std::abs(v) < 1e12)
        return QString::number(qint64(v));
    return QString::number(v, 'f', std::abs(v) < 10 ? 2 : 1);
}

QString recoveryName(double code)
{
    if (std::isnan(code))
        return QStringLiteral("–");
    switch (int(code)) {
    case 1:
        return QStringLiteral("recovering");
    case 2:
        return QStringLiteral("closed");
    default:
        return QStringLiteral("normal");
    }
}

// The largest value any visible graph on `axis` shows inside `keys`.
double visibleMax(QCPAxisRect* rect, QCPAxis* axis, const QCPRange& keys)
{
    double max = 0;
    for (QCPGraph* g : rect->graphs()) {
        if (!g->visible() || g->valueAxis() != axis)
            continue;
        bool found = false;
        const QCPRange r = g->getValueRange(found, QCP::sdBoth, keys);
        if (found)
            max = std::max(max, r.upper);
        // A step holds from the last point before the range into it.
        const auto data = g->data();
        auto it = data->findBegin(keys.lower, true);
        if (it != data->constEnd() && !std::isnan(it->value))
            max = std::max(max, it->value);
    }
    return max;
}

// A retry interval of 0 before the guard armed its first retry is "not known yet", not a
// value: drawn, it is a vertical line up from 0 at the start of the run.
void dropUnarmedStart(QCPGraph* g, const QVector<QPointF>& s)
{
    if (s.isEmpty() || s.front().y() != 0)
        return;
    qsizetype i = 0;
    while (i < s.size() && s[i].y() == 0)
        ++i;
    g->data()->removeBefore(i < s.size() ? s[i].x() : std::numeric_limits<double>::infinity());
}

} // namespace

void PlotPanel::onAppended()
{
    m_dirty = true;
    if (!m_throttle.isActive())
        m_throttle.start();
}

bool PlotPanel::seen() const
{
    return isVisible() && !window()->isMinimized();
}

void PlotPanel::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (window() != m_watchedWindow) {
        if (m_watchedWindow)
            m_watchedWindow->removeEventFilter(this);
        m_watchedWindow = window();
        m_watchedWindow->installEventFilter(this);
    }
    if (m_dirty && !m_throttle.isActive())
        m_throttle.start(); // once laid out: the reduction follows the plots' widths
}

// At most kMaxReplotsPerSecond: the timer is only started when idle.
void PlotPanel::tick()
{
    if (!seen())
        return; // m_dirty stays: shown again, the panel replots once (showEvent, eventFilter)
    m_dirty = false;
    applyFollow();
    syncData();
    rescaleValueAxes();
    if (m_crosshairOn)
        placeCrosshair(false); // the time under the cursor moves while following live
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void PlotPanel::refreshNow()
{
    m_throttle.stop();
    m_dirty = false;
    // Lay out first (as replot would) so the reduction uses the plots' current widths.
    QCPLayoutGrid* layout = m_plot->plotLayout();
    for (auto phase :
         {QCPLayoutElement::upPreparation, QCPLayoutElement::upMargins, QCPLayoutElement::upLayout})
        layout->update(phase);
    applyFollow();
    syncData();
    rescaleValueAxes();
    if (m_crosshairOn)
        placeCrosshair(false);
    m_plot->replot(QCustomPlot::rpImmediateRefresh);
}

int PlotPanel::columns(QCPAxisRect* rect) const
{
    if (m_exportWidth > 0)
        return m_exportWidth;
    // Not laid out yet (never shown): assume a wide plot rather than a coarse one.
    return rect->width() > 50 ? rect->width() : 2000;
}

// Every graph holds only its visible part (ViewFeed), so this runs on each tick and on
// each change of the time range; feeds whose inputs did not change are skipped.
void PlotPanel::syncData()
{
    const bool force = m_fullSync || m_store->generation() != m_generation;
    if (m_store->generation() != m_generation) { // the store's series were replaced
        m_qualityStack->reset();
        for (const auto& [gateway, ag] : m_aggregates)
            ag->aggregate.reset();
    }
    m_generation = m_store->generation();
    m_fullSync = false;
    const double end = m_store->latestTime();
    const QCPRange view = m_rects[0]->axis(QCPAxis::atBottom)->range();
    const int cols = columns(topPlot()); // every plot has the same range, the shown ones the width
    for (auto it = m_subGraphs.cbegin(); it != m_subGraphs.cend(); ++it) {
        SubscriptionGraphs& sg = **it;
        if (!sg.outstanding->visible())
            continue; // caught up when shown again
        sg.outstandingFeed.sync(sg.outstanding, m_store->series(it.key(), SubMetric::Outstanding),
                                end, view.lower, view.upper, cols, force);
        const QVector<QPointF>& interval = m_store->series(it.key(), SubMetric::IntervalS);
        if (sg.intervalFeed.sync(sg.interval, interval, end, view.lower, view.upper, cols, force))
            dropUnarmedStart(sg.interval, interval);
    }
    for (const auto& [gateway, ag] : m_aggregates) {
        ag->aggregate.update(*m_store, ag->keys);
        for (int l = 0; l < plot::SubscriptionAggregate::kLineCount; ++l)
            ag->feeds[std::size_t(l)].sync(ag->graphs[std::size_t(l)],
                                           ag->aggregate.line(plot::SubscriptionAggregate::Line(l)),
                                           end, view.lower, view.upper, cols, force);
    }
    m_qualityStack->update(*m_store, visibleSubscriptions());
    for (std::size_t i = 0; i < m_quality.size(); ++i)
        m_qualityFeeds[i].sync(m_quality[i], m_qualityStack->level(int(i)), end, view.lower,
                               view.upper, cols, force);
    for (const auto& gg : m_gatewayGraphs) {
        const QVector<QPointF>& source = m_store->gatewaySeries(gg->metric, m_gatewayFilter);
        if (gg->band > 0) {
            const QPointF last = source.isEmpty() ? QPointF() : source.last();
            if (force || source.size() != gg->bandSourceSize || last != gg->bandSourceLast) {
                gg->bandSeries = plot::bandOf(source, gg->band);
                gg->bandSourceSize = source.size();
                gg->bandSourceLast = last;
            }
            gg->feed.sync(gg->graph, gg->bandSeries, end, view.lower, view.upper, cols, force);
        } else {
            gg->feed.sync(gg->graph, source, end, view.lower, view.upper, cols, force);
        }
    }
}

void PlotPanel::setFollowLive(bool follow)
{
    if (m_follow == follow)
        return;
    m_follow = follow;
    {
        const QSignalBlocker block(m_followAction);
        m_followAction->setChecked(follow);
    }
    emit followLiveChanged(follow);
    if (follow)
        onAppended();
}

void PlotPanel::setWindowSeconds(double seconds)
{
    m_windowS = std::max(1.0, seconds);
    {
        const QSignalBlocker block(m_windowSpin);
        m_windowSpin->setValue(int(m_windowS));
    }
    if (m_follow)
        onAppended();
}

// Follow-live: the last window, or the first one while there is less data than that
// (a strip chart filling up, at a fixed scale).
void PlotPanel::applyFollow()
{
    if (!m_follow)
        return;
    const double latest = m_store->latestTime();
    if (std::isnan(latest))
        return;
    double lower = latest - m_windowS;
    const double earliest = m_store->earliestTime();
    if (!std::isnan(earliest) && lower < earliest)
        lower = earliest;
    setAllXRanges(lower, lower + m_windowS);
}

void PlotPanel::setAllXRanges(double lower, double upper)
{
    m_settingRange = true;
    for (QCPAxisRect* r : m_rects)
        r->axis(QCPAxis::atBottom)->setRange(lower, upper);
    m_settingRange = false;
    m_ticker->setTimeFormat(upper >= 3600 ? QStringLiteral("%h:%m:%s") : QStringLiteral("%m:%s"));
}

// Any range change we did not make is the user's (wheel, drag) or a caller's: follow-live
// pauses and every other plot takes the same range.
void PlotPanel::onXRangeChanged(QCPAxis* source)
{
    if (m_settingRange)
        return;
    setFollowLive(false);
    const QCPRange range = source->range();
    setAllXRanges(range.lower, range.upper);
    syncData();
    rescaleValueAxes();
    if (m_crosshairOn)
        placeCrosshair(false); // a wheel zoom or a drag moves the time under the cursor
    emit xRangeChanged(range.lower, range.upper);
}

void PlotPanel::setXRange(double lower, double upper)
{
    setFollowLive(false);
    setAllXRanges(lower, upper);
    onAppended();
}

double PlotPanel::xLower() const
{
    return m_rects[0]->axis(QCPAxis::atBottom)->range().lower;
}

double PlotPanel::xUpper() const
{
    return m_rects[0]->axis(QCPAxis::atBottom)->range().upper;
}

void PlotPanel::resetZoom()
{
    setFollowLive(true);
    onAppended();
}

void PlotPanel::showAll()
{
    setFollowLive(false);
    const double earliest = m_store->earliestTime(), latest = m_store->latestTime();
    if (std::isnan(earliest) || std::isnan(latest))
        return;
    setAllXRanges(earliest, latest > earliest ? latest : earliest + 1);
    onAppended();
}

void PlotPanel::fitWholeRun()
{
    showAll();
}

PlotPanel::ValueScale PlotPanel::ValueScale::max(const ValueScale& o) const
{
    return {std::max(outstanding, o.outstanding), std::max(interval, o.interval),
            std::max(quality, o.quality), std::max(gatewayLeft, o.gatewayLeft),
            std::max(gatewayRight, o.gatewayRight)};
}

PlotPanel::ValueScale PlotPanel::naturalValueScale() const
{
    const QCPRange keys = m_rects[0]->axis(QCPAxis::atBottom)->range();
    const auto scaled = [&](Plot p, QCPAxis::AxisType t) {
        return visibleMax(axisRect(p), axisRect(p)->axis(t), keys);
    };
    return {scaled(Plot::Outstanding, QCPAxis::atLeft), scaled(Plot::Interval, QCPAxis::atLeft),
            scaled(Plot::Quality, QCPAxis::atLeft), scaled(Plot::Gateway, QCPAxis::atLeft),
            scaled(Plot::Gateway, QCPAxis::atRight)};
}

void PlotPanel::setValueScale(const std::optional<ValueScale>& scale)
{
    m_fixedScale = scale;
    onAppended();
}

void PlotPanel::rescaleValueAxes()
{
    const auto axis = [this](Plot p, QCPAxis::AxisType t) { return axisRect(p)->axis(t); };
    const ValueScale s = m_fixedScale ? *m_fixedScale : naturalValueScale();
    // Outstanding keeps the guard limit (1) well inside the plot.
    axis(Plot::Outstanding, QCPAxis::atLeft)->setRange(-0.1, std::max(2.0, s.outstanding * 1.15));
    axis(Plot::Interval, QCPAxis::atLeft)->setRange(0, std::max(1.0, s.interval * 1.15));
    axis(Plot::Quality, QCPAxis::atLeft)->setRange(0, std::max(1.0, s.quality * 1.05));
    axis(Plot::Gateway, QCPAxis::atLeft)->setRange(0, std::max(1.0, s.gatewayLeft * 1.15));
    axis(Plot::Gateway, QCPAxis::atRight)->setRange(0, std::max(1.0, s.gatewayRight * 1.15));
}

QString PlotPanel::crosshairText(double x) const
{
    QStringList lines{tr("t %1").arg(plot::formatElapsed(x))};
    // Aggregated, the lines drawn are each gateway's: read those first.
    using Line = plot::SubscriptionAggregate::Line;
    for (const auto& [gateway, graphs] : m_aggregates) {
        const AggregateGraphs& ag = *graphs;
        const auto at = [&](Line l) {
            return number(SeriesStore::stepValueAt(ag.aggregate.line(l), x));
        };
        lines << tr("%1: outstanding sum %2, most %3; retry longest %4 s, median %5 s")
                     .arg(ag.name, at(Line::OutstandingSum), at(Line::OutstandingMax),
                          at(Line::IntervalMax), at(Line::IntervalMedian));
    }
    const QList<SubscriptionKey> visible = visibleSubscriptions();
    struct Row {
        SubscriptionKey key;
        double outstanding, interval;
    };
    std::vector<Row> rows;
    rows.reserve(std::size_t(visible.size()));
    for (const SubscriptionKey& k : visible)
        rows.push_back({k, m_store->valueAt(k, SubMetric::Outstanding, x),
                        m_store->valueAt(k, SubMetric::IntervalS, x)});
    const std::size_t shown = std::min<std::size_t>(rows.size(), kCrosshairSubscriptions);
    if (rows.size() > shown) {
        // The busiest first: most outstanding, then the longest retry interval (unknown last).
        const auto key = [](double v) { return std::isnan(v) ? -1.0 : v; };
        std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
            if (key(a.outstanding) != key(b.outstanding))
                return key(a.outstanding) > key(b.outstanding);
            return key(a.interval) > key(b.interval);
        });
    }
    for (std::size_t i = 0; i < shown; ++i)
        lines << tr("%1: outstanding %2, interval %3 s")
                     .arg(m_store->label(rows[i].key), number(rows[i].outstanding),
                          number(rows[i].interval));
    if (rows.size() > shown)
        lines << (rows.size() - shown == 1
                      ? tr("… and 1 more subscription")
                      : tr("… and %1 more subscriptions").arg(rows.size() - shown));
    QStringList quality;
    if (!visible.isEmpty()) {
        std::array<double, 4> sums{};
        std::array<bool, 4> any{};
        const std::array metrics{SubMetric::Good, SubMetric::Stale, SubMetric::Uncertain,
                                 SubMetric::Bad};
        for (std::size_t m = 0; m < metrics.size(); ++m)
            for (const SubscriptionKey& k : visible)
                if (const double v = m_store->valueAt(k, metrics[m], x); !std::isnan(v)) {
                    sums[m] += v;
                    any[m] = true;
                }
        const auto bands = plot::qualityBands(sums[0], sums[1], sums[2], sums[3]);
        const std::array<QString, plot::kQualityBandCount> names{tr("good"), tr("stale"),
                                                                 tr("uncertain"), tr("bad")};
        const std::array<bool, plot::kQualityBandCount> known{any[0], any[0], any[2], any[3]};
        for (std::size_t b = 0; b < bands.size(); ++b) {
            // A run without expected update periods has no stale tags: not worth a word.
            if (!m_quality[b]->visible() ||
                (b == std::size_t(plot::QualityBand::Stale) && bands[b] == 0))
                continue;
            quality << names[b] + QLatin1Char(' ') + number(known[b] ? bands[b] : NAN);
        }
    }
    if (!quality.isEmpty())
        lines << tr("tags: %1").arg(quality.join(QStringLiteral(", ")));
    QStringList gateway;
    bool recoveryShown = false;
    for (const auto& gg : m_gatewayGraphs) {
        if (!gg->graph->visible())
            continue;
        const double v = m_store->gatewayValueAt(gg->metric, x, m_gatewayFilter);
        switch (gg->metric) {
        case GatewayMetric::StaQueueDepth:
            gateway << tr("STA queue %1").arg(number(v));
            break;
        case GatewayMetric::InvokeRps:
            gateway << tr("Invoke %1/s").arg(number(v));
            break;
        case GatewayMetric::DeadlineExceededPerS:
            gateway << tr("DEADLINE_EXCEEDED %1/s").arg(number(v));
            break;
        case GatewayMetric::SuppressedPerS:
            gateway << tr("suppressed %1/s").arg(number(v));
            break;
        case GatewayMetric::RecoveryState:
            if (!recoveryShown)
                gateway << tr("recovery %1").arg(recoveryName(v));
            recoveryShown = true;
            break;
        }
    }
    if (!gateway.isEmpty())
        lines << (m_gatewayFilter.isEmpty() ? tr("gateway: %1")
                                            : tr("gateway %1: %2").arg(m_gatewayFilter))
                     .arg(gateway.join(QStringLiteral(", ")));
    return lines.join(QLatin1Char('\n'));
}

void PlotPanel::onMouseMove(QMouseEvent* event)
{
    m_crosshairPixel = event->position();
    m_crosshairOn = true;
    placeCrosshair(true);
}

void PlotPanel::placeCrosshair(bool replotLayer)
{
    const QPointF pos = m_crosshairPixel;
    QCPAxisRect* under = nullptr;
    for (std::size_t i = 0; i < m_rects.size(); ++i)
        if (m_shown[i] && m_rects[i]->rect().contains(pos.toPoint()))
            under = m_rects[i]; // a hidden plot keeps its last place: never under the mouse
    if (!under) {
        hideCrosshair();
        return;
    }
    const double x = under->axis(QCPAxis::atBottom)->pixelToCoord(pos.x());
    for (qsizetype i = 0; i < m_crosshairLines.size(); ++i) {
        QCPItemStraightLine* line = m_crosshairLines[i];
        line->point1->setCoords(x, 0);
        line->point2->setCoords(x, 1);
        line->setVisible(m_shown[std::size_t(i)]);
    }
    const QString text = crosshairText(x);
    m_crosshairText->setText(text);
    // Beside the cursor, on the side with room, and never past the plot's edges.
    const QMargins pad = m_crosshairText->padding();
    const QSize box =
        QFontMetrics(m_crosshairText->font())
            .boundingRect(QRect(0, 0, 100000, 100000), Qt::AlignLeft | Qt::AlignTop, text)
            .size() +
        QSize(pad.left() + pad.right() + 2, pad.top() + pad.bottom() + 2);
    const QRect bounds = m_plot->rect().adjusted(2, 2, -2, -2);
    constexpr int kGap = 12;
    double left = pos.x() + kGap;
    if (left + box.width() > bounds.right())
        left = pos.x() - kGap - box.width();
    double top = pos.y() + kGap;
    if (top + box.height() > bounds.bottom())
        top = pos.y() - kGap - box.height();
    left = std::max(double(bounds.left()), std::min(left, double(bounds.right() - box.width())));
    top = std::max(double(bounds.top()), std::min(top, double(bounds.bottom() - box.height())));
    m_crosshairText->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_crosshairText->position->setCoords(left, top);
    m_crosshairText->setVisible(true);
    if (replotLayer)
        m_plot->layer(QStringLiteral("crosshair"))->replot();
}

void PlotPanel::hideCrosshair()
{
    m_crosshairOn = false;
    if (!m_crosshairText->visible())
        return;
    for (QCPItemStraightLine* line : m_crosshairLines)
        line->setVisible(false);
    m_crosshairText->setVisible(false);
    m_plot->layer(QStringLiteral("crosshair"))->replot();
}

bool PlotPanel::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_watchedWindow && event->type() == QEvent::WindowStateChange && m_dirty &&
        !m_throttle.isActive() && seen())
        m_throttle.start();
    if (watched == m_plot && event->type() == QEvent::Leave)
        hideCrosshair();
    // Scrolling past the chooser does not pick a gateway; a person focuses it first.
    if (watched == m_gatewayCombo && event->type() == QEvent::Wheel &&
        !m_gatewayCombo->hasFocus()) {
        event->ignore();
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

void PlotPanel::setRetentionMinutes(int minutes)
{
    m_retentionSpin->setValue(minutes); // clamps to its range; valueChanged applies it
}

int PlotPanel::retentionMinutes() const
{
    return m_retentionSpin->value();
}

} // namespace stormwatch
