#include "ui/compare_view_results.h"

#include "scenario/metric_table.h"

#include <algorithm>
#include <functional>
#include <optional>

namespace stormwatch {

namespace {

bool isSubscription(const Series& s)
{
    // Not the run's gateway sum, nor one gateway's own ("gateway:NAME") on a site.
    return !SeriesSubject::of(s.subject()).isGateway();
}

// Is a better than b for a metric that gets better this way?
bool betterThan(Better better, double a, double b)
{
    return better == Better::Higher ? a > b : a < b;
}

// The step series combined over `parts` at every instant any of them changes: each part's
// value in force there (0 before its first point), folded by `combine`; held to endS.
QVector<QPointF> combineSteps(const std::vector<const Series*>& parts, double endS,
                              const std::function<double(double, double)>& combine)
{
    std::vector<double> times;
    for (const Series* s : parts)
        for (const SeriesPoint& p : s->points())
            times.push_back(p.tS);
    std::sort(times.begin(), times.end());
    times.erase(std::unique(times.begin(), times.end()), times.end());
    // One cursor per part, walked forward with the times: linear, not a search per instant.
    std::vector<std::size_t> next(parts.size(), 0);
    QVector<QPointF> out;
    out.reserve(qsizetype(times.size()) + 1);
    for (const double t : times) {
        double v = 0;
        for (std::size_t i = 0; i < parts.size(); ++i) {
            const auto& pts = parts[i]->points();
            while (next[i] < pts.size() && pts[next[i]].tS <= t)
                ++next[i];
            v = combine(v, next[i] == 0 ? 0.0 : pts[next[i] - 1].value);
        }
        out.push_back(QPointF(t, v));
    }
    if (!out.isEmpty() && endS > out.last().x())
        out.push_back(QPointF(endS, out.last().y()));
    return out;
}

std::vector<const Series*> subscriptionSeries(const SeriesSet& series, const QStringList& metrics)
{
    std::vector<const Series*> parts;
    for (const Series& s : series.all())
        if (isSubscription(s) && metrics.contains(s.metric()))
            parts.push_back(&s);
    return parts;
}

QVector<CompareRow> tableRows(const ScenarioReport& report)
{
    QVector<CompareRow> rows;
    struct Source {
        const MetricDescriptor* metric;
        QString kind;
    };
    QVector<Source> sources;
    const QStringList kinds = rpcKinds(report);
    for (const MetricDescriptor& m : metricTable()) {
        if (m.shape == MetricShape::ByKind) {
            for (const QString& k : kinds)
                sources << Source{&m, k};
            continue;
        }
        sources << Source{&m, {}};
    }
    for (const Source& src : sources) {
        const MetricDescriptor& metric = *src.metric;
        auto value = [&](const VariantMetrics& v) -> std::optional<double> {
            if (metric.shape == MetricShape::ByKind)
                return rpcKindCount(v, src.kind);
            return metric.value(v);
        };
        CompareRow row;
        row.name = src.kind.isEmpty() ? metric.labelString() : "  " + src.kind;
        row.key = src.kind.isEmpty() ? metric.keyString() : src.kind;
        row.tooltip = src.kind.isEmpty()
                          ? metric.tooltip()
                          : QStringLiteral("%1 calls of kind %2. %3")
                                .arg(metric.labelString(), src.kind, metric.tooltip());
        // A kind's count is not better for being lower: levers-off sends no subscribe_bulk
        // because it sends a storm of the other kinds. Only the total is ranked.
        const bool ranked = metric.better != Better::Unranked && src.kind.isEmpty();
        std::optional<double> best;
        bool allEqual = true;
        for (const VariantMetrics& v : report.variants) {
            const auto x = value(v);
            if (x && best && *x != *best)
                allEqual = false;
            if (x && (!best || betterThan(metric.better, *x, *best)))
                best = x;
            if (!x)
                allEqual = false;
        }
        for (const VariantMetrics& v : report.variants) {
            const auto x = value(v);
            // The best of a row is marked only where the variants differ.
            row.cells << CompareCell{metric.text(x),
                                     ranked && !allEqual && x && best && *x == *best};
        }
        rows << row;
    }
    return rows;
}

} // namespace

QVector<QPointF> maxOverSubscriptions(const SeriesSet& series, const QString& metric)
{
    return combineSteps(subscriptionSeries(series, {metric}), series.endS,
                        [](double a, double b) { return std::max(a, b); });
}

QVector<QPointF> sumOverSubscriptions(const SeriesSet& series, const QStringList& metrics)
{
    return combineSteps(subscriptionSeries(series, metrics), series.endS, std::plus<double>());
}

CompareLine decimateSteps(const QVector<QPointF>& points, double x0, double x1, int columns)
{
    CompareLine line;
    const qsizetype n = points.size();
    if (n <= 4 * qsizetype(columns) || !(x1 > x0) || columns < 1) {
        for (const QPointF& p : points) {
            line.x << p.x();
            line.y << p.y();
        }
        return line;
    }
    const double width = (x1 - x0) / columns;
    auto columnOf = [&](double x) {
        return std::clamp(qsizetype((x - x0) / width), qsizetype(-1), qsizetype(columns));
    };
    auto keep = [&](qsizetype i) {
        if (line.x.isEmpty() || line.x.last() != points[i].x() || line.y.last() != points[i].y()) {
            line.x << points[i].x();
            line.y << points[i].y();
        }
    };
    for (qsizetype begin = 0; begin < n;) {
        const qsizetype column = columnOf(points[begin].x());
        qsizetype end = begin + 1;
        qsizetype lo = begin, hi = begin;
        while (end < n && columnOf(points[end].x()) == column) {
            if (points[end].y() < points[lo].y())
                lo = end;
            if (points[end].y() > points[hi].y())
                hi = end;
            ++end;
        }
        if (end - begin <= 4) {
            for (qsizetype i = begin; i < end; ++i)
                keep(i);
        } else {
            keep(begin);
            keep(std::min(lo, hi));
            keep(std::max(lo, hi));
            keep(end - 1); // the value the column settles on, held into the next
        }
        begin = end;
    }
    return line;
}

CompareResults compareResults(ScenarioReport report, QList<SeriesSet> series)
{
    CompareResults r;
    r.report = std::move(report);
    r.series = std::move(series);
    r.rows = tableRows(r.report);
    const double endS = r.report.durationS;
    for (qsizetype v = 0; v < r.series.size() && v < r.report.variants.size(); ++v) {
        const SeriesSet& set = r.series[v];
        QVector<QPointF> rpcs;
        if (const Series* s =
                set.find(QStringLiteral("gateway"), QStringLiteral("invoke_rpcs_per_s")))
            for (const SeriesPoint& p : s->points())
                rpcs.push_back(QPointF(p.tS, p.value));
        const QVector<QPointF> lines[CompareResults::kPlots] = {
            maxOverSubscriptions(set, QStringLiteral("outstanding")),
            sumOverSubscriptions(set,
                                 {QStringLiteral("tags_bad"), QStringLiteral("tags_uncertain")}),
            rpcs};
        for (int i = 0; i < CompareResults::kPlots; ++i)
            r.lines[std::size_t(i)]
                << decimateSteps(lines[i], 0, endS, CompareResults::kPlotColumns);
    }
    return r;
}

} // namespace stormwatch
