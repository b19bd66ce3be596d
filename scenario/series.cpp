#include "scenario/series.h"

#include <QSet>
#include <algorithm>

namespace stormwatch {

Series::Series(QString subject, QString metric, SeriesLimits limits)
    : m_subject(std::move(subject)), m_metric(std::move(metric)),
      m_cap(std::max<std::size_t>(limits.cap, 4)), m_windowS(std::max(0.0, limits.windowS))
{
}

void Series::add(double tS, double value)
{
    if (!m_any || value > m_max)
        m_max = value;
    m_any = true;
    if (!m_points.empty()) {
        SeriesPoint& last = m_points.back();
        if (tS <= last.tS || (m_spacing > 0 && tS - last.tS < m_spacing)) {
            // Same instant (or inside a thinned bucket): the step settles on the new value.
            last.value = value;
            if (m_points.size() >= 2 && m_points[m_points.size() - 2].value == value)
                m_points.pop_back(); // the change was undone: no step at all
            return;
        }
        if (last.value == value)
            return;
    }
    m_points.push_back({tS, value});
    if (m_windowS > 0)
        keepWindow();
    else if (m_points.size() >= m_cap)
        thin();
}

void Series::keepWindow()
{
    std::size_t drop = 0;
    if (m_points.size() >= m_cap) {
        drop = m_points.size() / 2; // a burst: the newer half stays
    } else if (m_points.size() >= m_checkWindowAt) {
        // Looked at again only once the series has doubled: amortised O(1) per point, at
        // most twice the window's points held.
        const double cutoff = m_points.back().tS - m_windowS;
        const auto firstInWindow =
            std::lower_bound(m_points.begin(), m_points.end(), cutoff,
                             [](const SeriesPoint& p, double t) { return p.tS < t; });
        // The point before the window stays: the value in force at its start.
        drop = std::size_t(std::max<std::ptrdiff_t>(0, (firstInWindow - m_points.begin()) - 1));
    } else {
        return;
    }
    m_points.erase(m_points.begin(), m_points.begin() + std::ptrdiff_t(drop));
    m_dropped += drop;
    m_checkWindowAt = std::max<std::size_t>(64, 2 * m_points.size());
}

void Series::thin()
{
    const double span = m_points.back().tS - m_points.front().tS;
    m_spacing = std::max(2 * m_spacing, 2 * span / double(m_cap));
    std::vector<SeriesPoint> kept;
    kept.reserve(m_cap / 2 + 1);
    kept.push_back(m_points.front()); // the first step is where the series starts
    for (std::size_t i = 1; i < m_points.size(); ++i) {
        const SeriesPoint& p = m_points[i];
        if (p.tS - kept.back().tS < m_spacing) {
            if (kept.size() > 1) // the first point keeps its time; later buckets settle
                kept.back().value = p.value;
            continue;
        }
        if (p.value != kept.back().value)
            kept.push_back(p);
    }
    m_points = std::move(kept);
}

double Series::valueAt(double tS, double fallback) const
{
    auto it = std::upper_bound(m_points.begin(), m_points.end(), tS,
                               [](double t, const SeriesPoint& p) { return t < p.tS; });
    if (it == m_points.begin())
        return fallback;
    return std::prev(it)->value;
}

std::size_t SeriesSet::indexOf(const QString& subject, const QString& metric)
{
    std::pair<QString, QString> key(subject, metric);
    if (const auto it = m_index.constFind(key); it != m_index.constEnd())
        return it.value();
    const std::size_t index = m_series.size();
    m_series.emplace_back(subject, metric, m_limits);
    m_index.insert(std::move(key), index);
    return index;
}

const Series* SeriesSet::find(const QString& subject, const QString& metric) const
{
    const auto it = m_index.constFind(std::pair(subject, metric));
    return it == m_index.constEnd() ? nullptr : &m_series[it.value()];
}

QStringList SeriesSet::subjects() const
{
    QStringList out;
    QSet<QString> seen;
    for (const Series& s : m_series) {
        if (!seen.contains(s.subject())) {
            seen.insert(s.subject());
            out << s.subject();
        }
    }
    return out;
}

} // namespace stormwatch
