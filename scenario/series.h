#pragma once

// Time series a run records for plots and reports (the metric names the plots and reports share).
// Every series is a step series: a point's value holds until the next point, the last one until
// SeriesSet::endS. Points are recorded on change: a point at the same instant as the last
// one replaces it, and a value equal to the last one is not stored.
//
// Memory is bounded: a series that reaches its cap is thinned to half by keeping, per pair
// of neighbours, the later point (the state the step settled on), and from then on a point
// closer than the thinned spacing to the last stored one replaces it. Each series also
// keeps its true maximum, so a peak lost to thinning is still reported.
//
// A windowed series (SeriesLimits::window) keeps only its last windowS seconds instead: an
// open-ended run (the console's live run) has no end for a report to span, its plots keep
// their own retention and a recorder writes every point to disk, so the run's own copy need
// not grow with it. Points before the window go (the one in force at its start is
// kept), and a window holding `cap` points drops its older half; nothing is thinned, so the
// points a consumer reads as they come keep their times. A consumer must read more often
// than the window (and than cap / 2 new points): the run host reads every step.

#include "client/engine_samples.h" // SeriesSubject: a subject's plot label and kind

#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>
#include <cstddef>
#include <utility>
#include <vector>

namespace stormwatch {

struct SeriesPoint {
    double tS = 0;
    double value = 0;
    bool operator==(const SeriesPoint&) const = default;
};

// How much of a run a series keeps in memory.
struct SeriesLimits {
    static constexpr std::size_t kDefaultCap = 200'000;
    // Windowed: a series rarely holds this many points within its window (live, points come
    // on change); the cap only stops a burst.
    static constexpr std::size_t kDefaultWindowCap = 20'000;

    std::size_t cap = kDefaultCap; // points per series
    double windowS = 0;            // > 0: only the last windowS seconds (see above)

    SeriesLimits(std::size_t capPerSeries = kDefaultCap) : cap(capPerSeries) {} // the whole run
    static SeriesLimits window(double seconds, std::size_t capPerSeries = kDefaultWindowCap)
    {
        SeriesLimits l(capPerSeries);
        l.windowS = seconds;
        return l;
    }
};

class Series {
public:
    // subject: "<instance>/<connection>" for a subscription, "gateway" for the run's gateway
    // sum, "gateway:NAME" for one gateway's own; SeriesSubject::of says which, and its label.
    // metric: its name ("outstanding", "sta_queue_depth", ...).
    Series(QString subject, QString metric, SeriesLimits limits);

    void add(double tS, double value);

    const QString& subject() const { return m_subject; }
    const QString& metric() const { return m_metric; }
    const std::vector<SeriesPoint>& points() const { return m_points; }
    // The largest value ever added (also one thinned away); 0 when empty.
    double maxValue() const { return m_max; }
    // The value in force at tS (the last point at or before it); `fallback` before the first.
    double valueAt(double tS, double fallback = 0) const;
    bool thinned() const { return m_spacing > 0; }
    // Points dropped at the front (windowed series only).
    std::size_t dropped() const { return m_dropped; }

private:
    void thin();
    void keepWindow();

    QString m_subject;
    QString m_metric;
    std::size_t m_cap;
    double m_windowS = 0;
    std::size_t m_checkWindowAt = 0; // windowed: the size at which the window is applied next
    std::size_t m_dropped = 0;
    std::vector<SeriesPoint> m_points;
    double m_max = 0;
    bool m_any = false;
    double m_spacing = 0; // minimum distance between stored points once thinned
};

class SeriesSet {
public:
    static constexpr std::size_t kDefaultCap = SeriesLimits::kDefaultCap;

    SeriesSet() = default;
    explicit SeriesSet(SeriesLimits limits) : m_limits(limits) {}
    const SeriesLimits& limits() const { return m_limits; }

    // The series (subject, metric), created empty when new. The index stays valid; use it
    // on hot paths instead of looking the series up again. A hash lookup: a run with 50,000
    // instances sets up 150,000 series, and a scan made that quadratic.
    std::size_t indexOf(const QString& subject, const QString& metric);
    Series& at(std::size_t index) { return m_series[index]; }
    const Series& at(std::size_t index) const { return m_series[index]; }
    // nullptr when absent.
    const Series* find(const QString& subject, const QString& metric) const;

    const std::vector<Series>& all() const { return m_series; }
    QStringList subjects() const; // in order of first appearance
    std::size_t size() const { return m_series.size(); }

    double endS = 0; // the run's end: the last point of every series holds until here

private:
    SeriesLimits m_limits;
    std::vector<Series> m_series;
    QHash<std::pair<QString, QString>, std::size_t> m_index; // (subject, metric) → m_series
};

} // namespace stormwatch
