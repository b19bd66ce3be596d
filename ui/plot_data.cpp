#include "ui/plot_data.h"

#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

namespace stormwatch::plot {

namespace {
bool samePoint(const QPointF& a, const QPointF& b)
{
    const auto same = [](double x, double y) { return x == y || (std::isnan(x) && std::isnan(y)); };
    return same(a.x(), b.x()) && same(a.y(), b.y());
}
} // namespace

bool ViewFeed::sync(QCPGraph* g, const QVector<QPointF>& s, double end, double lower, double upper,
                    int columns, bool force)
{
    const auto data = g->data();
    if (s.isEmpty()) {
        const bool had = !data->isEmpty();
        data->clear();
        invalidate();
        return had;
    }
    end = std::isnan(end) ? s.last().x() : std::max(end, s.last().x());
    // Reduced data is laid out on columns of kPixelsPerColumn: the raster engine's cost is
    // in the strokes and polygon edges, and one per pixel roughly doubles it for no
    // visible gain.
    columns = std::max(columns / kPixelsPerColumn, 1);
    const std::array<double, 4> view{end, lower, upper, double(columns)};
    if (!force && s.size() == m_size && samePoint(s.first(), m_first) &&
        samePoint(s.last(), m_last) && view == m_view)
        return false;
    m_size = s.size();
    m_first = s.first();
    m_last = s.last();
    m_view = view;

    const auto firstAfter = [&](double t) {
        return std::upper_bound(s.cbegin(), s.cend(), t,
                                [](double x, const QPointF& p) { return x < p.x(); }) -
               s.cbegin();
    };
    // From the point in force at `lower` to the first one after `upper`.
    const qsizetype i0 = std::max<qsizetype>(0, firstAfter(lower) - 1);
    const qsizetype i1 = std::min<qsizetype>(s.size(), firstAfter(upper) + 1);
    QVector<QCPGraphData> out;
    if (i1 - i0 <= 2 * qsizetype(columns) || !(upper > lower)) {
        g->setLineStyle(QCPGraph::lsStepLeft);
        out.reserve(i1 - i0 + 1);
        for (qsizetype i = i0; i < i1; ++i)
            out.push_back(QCPGraphData(s[i].x(), s[i].y()));
        if (i1 == s.size() && end > s.last().x())
            out.push_back(QCPGraphData(end, s.last().y()));
        data->set(out, true);
        return true;
    }

    const double width = (upper - lower) / columns;
    const double stop = std::min(upper, end);
    qsizetype j = i0; // the point in force at the column's start (if s[j].x() <= x)
    if (m_reduce == Reduce::Envelope) {
        // Per column one vertical stroke over every value reached in it, entered from the
        // end nearer the previous one: neighbouring columns share their boundary value, so
        // the strokes join up, with the least ink (dense data draws as a band).
        g->setLineStyle(QCPGraph::lsLine);
        out.reserve(2 * columns + 2);
        double last = kNaN; // the series' value at the end of the column
        double pen = kNaN;  // where the stroke ended
        for (int c = 0; c < columns; ++c) {
            const double x = lower + c * width;
            if (x > stop)
                break;
            const double next = x + width;
            double lo = s[j].x() <= x ? s[j].y() : kNaN;
            double hi = lo;
            while (j + 1 < s.size() && s[j + 1].x() < next) {
                ++j;
                const double v = s[j].y();
                if (!std::isnan(v)) {
                    lo = std::isnan(lo) ? v : std::min(lo, v);
                    hi = std::isnan(hi) ? v : std::max(hi, v);
                }
            }
            if (s[j].x() >= next)
                continue;         // before the first point
            if (std::isnan(lo)) { // unknown values: a gap
                out.push_back(QCPGraphData(x, kNaN));
                last = pen = kNaN;
                continue;
            }
            const bool downFirst = !std::isnan(pen) && std::abs(pen - hi) < std::abs(pen - lo);
            out.push_back(QCPGraphData(x, downFirst ? hi : lo));
            if (lo != hi)
                out.push_back(QCPGraphData(x, downFirst ? lo : hi));
            pen = downFirst ? lo : hi;
            last = s[j].y();
        }
        out.push_back(QCPGraphData(stop, last));
    } else {
        g->setLineStyle(QCPGraph::lsStepLeft);
        out.reserve(columns + 1);
        double last = kNaN;
        for (int c = 0; c < columns; ++c) {
            const double x = lower + c * width;
            if (x >= stop)
                break;
            const double next = std::min(x + width, stop);
            double area = 0, covered = 0;
            double from = x;
            while (from < next) {
                const bool started = s[j].x() <= from;
                const double to = !started           ? std::min(next, s[j].x())
                                  : j + 1 < s.size() ? std::min(next, s[j + 1].x())
                                                     : next;
                const double v = started ? s[j].y() : kNaN;
                if (!std::isnan(v) && to > from) {
                    area += v * (to - from);
                    covered += to - from;
                }
                from = to;
                while (j + 1 < s.size() && s[j + 1].x() <= from)
                    ++j;
            }
            if (covered > 0) {
                last = area / covered;
                out.push_back(QCPGraphData(x, last));
            }
        }
        out.push_back(QCPGraphData(stop, last));
    }
    data->set(out, true);
    return true;
}

void QualityStack::reset()
{
    for (auto& l : m_levels)
        l.clear();
}

std::array<double, kQualityBandCount> qualityBands(double good, double stale, double uncertain,
                                                   double bad)
{
    return {good - stale, stale, uncertain, bad};
}

namespace {

// The rows of `rows` from the last one's time on are dropped (a same-time collapse may have
// changed it) and the distinct change times of `metrics` of `keys` from there on returned:
// the rows to compute again.
template <std::size_t N, std::size_t M>
QVector<double> timesToRecompute(const SeriesStore& store, const QList<SubscriptionKey>& keys,
                                 const std::array<SubMetric, M>& metrics,
                                 std::array<QVector<QPointF>, N>& rows)
{
    const auto byTime = [](const QPointF& p, double t) { return p.x() < t; };
    const double from =
        rows[0].isEmpty() ? -std::numeric_limits<double>::infinity() : rows[0].last().x();
    QVector<double> times;
    if (!rows[0].isEmpty())
        times.push_back(from);
    for (const SubscriptionKey& k : keys)
        for (SubMetric m : metrics) {
            const QVector<QPointF>& s = store.series(k, m);
            for (auto it = std::lower_bound(s.cbegin(), s.cend(), from, byTime); it != s.cend();
                 ++it)
                times.push_back(it->x());
        }
    std::sort(times.begin(), times.end());
    times.erase(std::unique(times.begin(), times.end()), times.end());
    for (auto& row : rows)
        while (!row.isEmpty() && row.last().x() >= from)
            row.removeLast();
    return times;
}

// Bounded like the store: rows before its window go, but for the one in force there.
template <std::size_t N>
void pruneToStore(const SeriesStore& store, std::array<QVector<QPointF>, N>& rows)
{
    const double earliest = store.earliestTime();
    if (std::isnan(earliest))
        return;
    for (auto& row : rows) {
        const auto firstAfter =
            std::upper_bound(row.cbegin(), row.cend(), earliest,
                             [](double t, const QPointF& p) { return t < p.x(); });
        if (const qsizetype drop = (firstAfter - row.cbegin()) - 1; drop > 0)
            row.remove(0, drop);
    }
}

} // namespace

void QualityStack::update(const SeriesStore& store, const QList<SubscriptionKey>& keys)
{
    static constexpr std::array kMetrics{SubMetric::Good, SubMetric::Stale, SubMetric::Uncertain,
                                         SubMetric::Bad};
    if (keys.isEmpty()) {
        reset();
        return;
    }
    const QVector<double> times = timesToRecompute(store, keys, kMetrics, m_levels);
    for (double t : times) {
        std::array<double, kMetrics.size()> sums{};
        bool any = false;
        for (std::size_t i = 0; i < kMetrics.size(); ++i)
            for (const SubscriptionKey& k : keys)
                if (const double v = store.valueAt(k, kMetrics[i], t); !std::isnan(v)) {
                    sums[i] += v;
                    any = true;
                }
        if (any) {
            double top = 0;
            const auto bands = qualityBands(sums[0], sums[1], sums[2], sums[3]);
            for (std::size_t b = 0; b < bands.size(); ++b)
                m_levels[b].push_back(QPointF(t, top += bands[b]));
        }
    }
    pruneToStore(store, m_levels);
}

void SubscriptionAggregate::reset()
{
    for (auto& l : m_lines)
        l.clear();
}

void SubscriptionAggregate::update(const SeriesStore& store, const QList<SubscriptionKey>& keys)
{
    if (keys.isEmpty()) {
        reset();
        return;
    }
    static constexpr std::array kMetrics{SubMetric::Outstanding, SubMetric::IntervalS};
    const QVector<double> times = timesToRecompute(store, keys, kMetrics, m_lines);
    std::vector<double> armed;
    armed.reserve(std::size_t(keys.size()));
    for (double t : times) {
        double sum = 0, most = 0, longest = 0;
        bool any = false;
        armed.clear();
        for (const SubscriptionKey& k : keys) {
            if (const double v = store.valueAt(k, SubMetric::Outstanding, t); !std::isnan(v)) {
                sum += v;
                most = std::max(most, v);
                any = true;
            }
            if (const double v = store.valueAt(k, SubMetric::IntervalS, t); v > 0) {
                longest = std::max(longest, v);
                armed.push_back(v);
            }
        }
        if (!any)
            continue;
        double median = 0;
        if (!armed.empty()) {
            const auto mid = armed.begin() + std::ptrdiff_t(armed.size() / 2);
            std::nth_element(armed.begin(), mid, armed.end());
            median = *mid;
        }
        m_lines[OutstandingSum].push_back(QPointF(t, sum));
        m_lines[OutstandingMax].push_back(QPointF(t, most));
        m_lines[IntervalMax].push_back(QPointF(t, longest));
        m_lines[IntervalMedian].push_back(QPointF(t, median));
    }
    pruneToStore(store, m_lines);
}

QVector<QPointF> bandOf(const QVector<QPointF>& state, int code)
{
    QVector<QPointF> band;
    band.reserve(state.size());
    for (const QPointF& p : state)
        band.push_back(QPointF(p.x(), int(p.y()) == code ? 1.0 : 0.0));
    return band;
}

QString formatElapsed(double seconds)
{
    if (std::isnan(seconds))
        return QStringLiteral("–");
    const bool negative = seconds < 0;
    const qint64 total = qint64(std::floor(std::abs(seconds)));
    const qint64 h = total / 3600, m = (total / 60) % 60, s = total % 60;
    const QString sign = negative ? QStringLiteral("-") : QString();
    if (h > 0)
        return sign + QStringLiteral("%1:%2:%3")
                          .arg(h)
                          .arg(m, 2, 10, QLatin1Char('0'))
                          .arg(s, 2, 10, QLatin1Char('0'));
    return sign + QStringLiteral("%1:%2").arg(m).arg(s, 2, 10, QLatin1Char('0'));
}

} // namespace stormwatch::plot
