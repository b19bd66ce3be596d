#pragma once
// Feeding QCustomPlot graphs from SeriesStore step series at a cost bounded by the pixels,
// not by the hour of data: a graph only ever holds the part of its series in the visible
// time range — the points themselves while there are few, else a reduction per pixel column.

#include "models/series_store.h"

#include <QList>
#include <QPointF>
#include <QString>
#include <QVector>
#include <array>
#include <limits>

class QCPGraph;

namespace stormwatch::plot {

class ViewFeed {
public:
    // Envelope: lines — every value reached inside a pixel column is drawn (a spike of one
    // second stays visible at any zoom). Mean: stacked fills — the time-weighted mean per
    // column keeps areas true and the stacked levels in order.
    enum class Reduce { Envelope, Mean };
    explicit ViewFeed(Reduce reduce = Reduce::Envelope) : m_reduce(reduce) {}
    static constexpr int kPixelsPerColumn = 2;

    // Gives g the part of s inside [lower, upper] (plus the points either side, so steps
    // run to the edges), s's last value held until end (the latest time). More than two
    // points per column (of kPixelsPerColumn): one reduced set per column. Skipped when nothing it
    // depends on changed (unless force). Returns whether g's data changed.
    bool sync(QCPGraph* g, const QVector<QPointF>& s, double end, double lower, double upper,
              int columns, bool force);
    void invalidate() { m_size = -1; }

private:
    static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
    Reduce m_reduce;
    qsizetype m_size = -1;
    QPointF m_first{kNaN, kNaN};
    QPointF m_last{kNaN, kNaN};
    std::array<double, 4> m_view{kNaN, kNaN, kNaN, kNaN}; // end, lower, upper, columns
};

// The quality bands, bottom up; every tag is in one. Stale: Good, but its last update is
// older than its kind allows (the Good series counts it, the Good band does not).
enum class QualityBand { Good, Stale, Uncertain, Bad };
inline constexpr int kQualityBandCount = 4;
// The bands' heights from summed series values (good includes stale).
std::array<double, kQualityBandCount> qualityBands(double good, double stale, double uncertain,
                                                   double bad);

// Tag quality of a set of subscriptions, summed and stacked: level i is the top of band i
// (level 0 = fresh good, 1 = good, 2 = good + uncertain, 3 = all), a point per distinct
// change time. Kept up to date incrementally (only rows from the last one on are recomputed).
class QualityStack {
public:
    void reset();
    void update(const SeriesStore& store, const QList<SubscriptionKey>& keys);
    const QVector<QPointF>& level(int i) const { return m_levels[std::size_t(i)]; }

private:
    std::array<QVector<QPointF>, kQualityBandCount> m_levels;
};

// Many subscriptions' outstanding requests and retry intervals as four lines, a point per
// distinct change time, kept up to date incrementally as QualityStack is: the outstanding
// requests' sum and the most any one has, the longest retry interval and the median of the
// armed ones (> 0). What the plots draw for a gateway once it has too many subscriptions
// to tell apart.
class SubscriptionAggregate {
public:
    enum Line { OutstandingSum, OutstandingMax, IntervalMax, IntervalMedian };
    static constexpr int kLineCount = 4;
    void reset();
    void update(const SeriesStore& store, const QList<SubscriptionKey>& keys);
    const QVector<QPointF>& line(Line l) const { return m_lines[std::size_t(l)]; }

private:
    std::array<QVector<QPointF>, kLineCount> m_lines;
};

// 1 where the step series equals code, 0 elsewhere (the recovery-state bands).
QVector<QPointF> bandOf(const QVector<QPointF>& state, int code);

// Seconds since start as m:ss below an hour, h:mm:ss from there on.
QString formatElapsed(double seconds);

} // namespace stormwatch::plot
