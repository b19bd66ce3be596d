// PlotPanel: a gateway's subscriptions drawn as aggregate lines once there are too many to
// draw one line each, and a click on one isolating that gateway's worst subscriptions.
#include "ui/plot_data.h"
#include "ui/plot_panel.h"
#include "ui/plot_panel_private.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace stormwatch {

// A gateway's aggregate lines, as many as the drawn subscriptions have gateways; the legend
// names them (solid: the sum and the median interval, dashed: the most).
void PlotPanel::syncAggregates(const QList<SubscriptionKey>& drawn)
{
    std::map<QString, QList<SubscriptionKey>> byGateway;
    if (m_aggregated)
        for (const SubscriptionKey& k : drawn)
            byGateway[gatewayOf(k)].push_back(k);
    for (auto it = m_aggregates.begin(); it != m_aggregates.end();) {
        if (byGateway.count(it->first)) {
            ++it;
            continue;
        }
        for (QCPGraph* g : it->second->graphs)
            m_plot->removeGraph(g);
        it = m_aggregates.erase(it);
    }
    int index = 0;
    for (const auto& [gateway, keys] : byGateway) {
        auto& ag = m_aggregates[gateway];
        if (!ag) {
            ag = std::make_unique<AggregateGraphs>();
            for (int l = 0; l < plot::SubscriptionAggregate::kLineCount; ++l) {
                const bool outstanding = l <= plot::SubscriptionAggregate::OutstandingMax;
                QCPAxisRect* r = axisRect(outstanding ? Plot::Outstanding : Plot::Interval);
                ag->graphs[std::size_t(l)] =
                    m_plot->addGraph(r->axis(QCPAxis::atBottom), r->axis(QCPAxis::atLeft));
            }
        }
        if (ag->keys != keys) {
            ag->keys = keys;
            ag->aggregate.reset();
            for (auto& feed : ag->feeds)
                feed.invalidate();
        }
        ag->name = gateway.isEmpty() ? tr("all") : gateway;
        const QString& name = ag->name;
        const QColor colour = colourFor(SubscriptionKey{index++, false}, m_theme);
        for (int l = 0; l < plot::SubscriptionAggregate::kLineCount; ++l) {
            const bool most = l == plot::SubscriptionAggregate::OutstandingMax ||
                              l == plot::SubscriptionAggregate::IntervalMax;
            QCPGraph* g = ag->graphs[std::size_t(l)];
            plot::styleStep(g, colour,
                            most ? tr("%1: most").arg(name) : tr("%1: sum · median").arg(name));
            QPen pen = g->pen();
            pen.setWidthF(most ? 1 : 2);
            pen.setStyle(most ? Qt::DashLine : Qt::SolidLine);
            g->setPen(pen);
        }
        if (2 * byGateway.size() <= std::size_t(kMaxLegendEntries))
            for (int l : {plot::SubscriptionAggregate::OutstandingSum,
                          plot::SubscriptionAggregate::OutstandingMax})
                ag->graphs[std::size_t(l)]->addToLegend(m_subLegend);
    }
}

QCPGraph* PlotPanel::aggregateGraph(const QString& gateway, int line) const
{
    const auto it = m_aggregates.find(gateway);
    return it == m_aggregates.end() || line < 0 || line >= plot::SubscriptionAggregate::kLineCount
               ? nullptr
               : it->second->graphs[std::size_t(line)];
}

void PlotPanel::setAggregateAbove(int subscriptions)
{
    subscriptions = std::max(1, subscriptions);
    if (subscriptions == m_aggregateAbove)
        return;
    m_aggregateAbove = subscriptions;
    m_fullSync = true;
    applyVisibility();
    emit aggregateAboveChanged(subscriptions);
}

// The subscriptions of `gateway` most in trouble now: most outstanding, then most tags not
// Good, then the longest retry interval; the plots then draw only them.
void PlotPanel::isolateWorstOf(const QString& gateway)
{
    const double t = m_store->latestTime();
    QList<SubscriptionKey> keys;
    for (const SubscriptionKey& k : visibleSubscriptions())
        if (gatewayOf(k) == gateway)
            keys << k;
    const auto rank = [this, t](SubscriptionKey k) {
        const auto at = [&](SubMetric m) {
            const double v = m_store->valueAt(k, m, t);
            return std::isnan(v) ? 0.0 : v;
        };
        return std::make_tuple(at(SubMetric::Outstanding),
                               at(SubMetric::Uncertain) + at(SubMetric::Bad),
                               at(SubMetric::IntervalS));
    };
    std::stable_sort(keys.begin(), keys.end(),
                     [&](SubscriptionKey a, SubscriptionKey b) { return rank(a) > rank(b); });
    const QList<SubscriptionKey> worst = keys.mid(0, kWorstOnClick);
    QSet<SubscriptionKey> hidden;
    for (const SubscriptionKey& k : m_store->subscriptions())
        if (!worst.contains(k))
            hidden.insert(k);
    setHiddenSubscriptions(hidden);
}

} // namespace stormwatch
