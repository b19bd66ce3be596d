#include "ui/report_png.h"

#include "ui/plot_panel.h"

#include <QDir>
#include <QPointF>
#include <QSet>
#include <QVector>

#include <optional>

namespace stormwatch {

namespace {

const QString kGatewaySubject = QStringLiteral("gateway");

std::optional<SubMetric> subMetricFor(const QString& name)
{
    for (SubMetric m : {SubMetric::Outstanding, SubMetric::IntervalS, SubMetric::Good,
                        SubMetric::Uncertain, SubMetric::Bad, SubMetric::RequestsSent})
        if (metricName(m) == name)
            return m;
    return std::nullopt;
}

// The gateway series the runner records under their own names (series.h); the suppressed
// calls are a running total there and a rate in the store.
std::optional<GatewayMetric> gatewayMetricFor(const QString& name)
{
    for (GatewayMetric m : {GatewayMetric::StaQueueDepth, GatewayMetric::InvokeRps,
                            GatewayMetric::DeadlineExceededPerS, GatewayMetric::RecoveryState})
        if (metricName(m) == name)
            return m;
    return std::nullopt;
}

// A step point: a point at the same instant replaces the last one.
void step(QVector<QPointF>& points, double t, double value)
{
    if (!points.isEmpty() && points.last().x() >= t)
        points.last() = QPointF(points.last().x(), value);
    else
        points.append(QPointF(t, value));
}

// The step series, held to `endS` (the last value is in force until the run's end).
QVector<QPointF> toPoints(const Series& s, double endS, double scale = 1.0)
{
    QVector<QPointF> points;
    points.reserve(qsizetype(s.points().size()) + 1);
    for (const SeriesPoint& p : s.points())
        points.append(QPointF(p.tS, p.value * scale));
    if (!points.isEmpty() && points.last().x() < endS)
        points.append(QPointF(endS, points.last().y()));
    return points;
}

// A total sampled every second (stored on change) as calls per second: each rise is spread
// over the sampling second that ends at its point (or the gap since the last point, once
// the series was thinned), and the rate is 0 in between.
QVector<QPointF> totalToRate(const Series& s, double endS)
{
    QVector<QPointF> points;
    const auto& in = s.points();
    if (in.empty())
        return points;
    points.append(QPointF(in.front().tS, 0));
    for (std::size_t i = 1; i < in.size(); ++i) {
        const double rise = in[i].value - in[i - 1].value;
        if (rise <= 0)
            continue; // a total that restarted from zero: nothing to plot for that second
        const double window = std::max(1.0, s.thinned() ? in[i].tS - in[i - 1].tS : 1.0);
        step(points, std::max(in[i - 1].tS, in[i].tS - window), rise / window);
        step(points, in[i].tS, 0);
    }
    if (points.last().x() < endS)
        points.append(QPointF(endS, 0));
    return points;
}

} // namespace

QString variantPngFileName(const QString& variant)
{
    QString name;
    for (const QChar c : variant) {
        const bool safe = (c >= QLatin1Char('a') && c <= QLatin1Char('z')) ||
                          (c >= QLatin1Char('A') && c <= QLatin1Char('Z')) ||
                          (c >= QLatin1Char('0') && c <= QLatin1Char('9')) ||
                          c == QLatin1Char('.') || c == QLatin1Char('_') || c == QLatin1Char('-');
        name += safe ? c : QLatin1Char('_');
    }
    if (name.isEmpty() || name.startsWith(QLatin1Char('.')))
        name.prepend(QStringLiteral("variant"));
    return name + QStringLiteral(".png");
}

void loadSeriesSet(const SeriesSet& set, SeriesStore& store)
{
    store.clear();
    store.setRetentionSeconds(0); // a finished run is kept whole
    QHash<QString, int> subjectIndex;
    for (const Series& s : set.all()) {
        if (s.subject() == kGatewaySubject) {
            if (s.metric() == QLatin1String("suppressed_calls"))
                store.loadGatewaySeries(GatewayMetric::SuppressedPerS, totalToRate(s, set.endS));
            else if (const auto m = gatewayMetricFor(s.metric()))
                store.loadGatewaySeries(*m, toPoints(s, set.endS));
            continue;
        }
        const auto m = subMetricFor(s.metric());
        if (!m)
            continue;
        auto it = subjectIndex.find(s.subject());
        if (it == subjectIndex.end())
            it = subjectIndex.insert(s.subject(), int(subjectIndex.size()));
        QString label = s.subject();
        label.replace(QLatin1Char('/'), QStringLiteral(" × "));
        // The runner records the retry interval in ms; the store (and its plot) in seconds.
        const double scale = *m == SubMetric::IntervalS ? 1.0 / 1000.0 : 1.0;
        store.loadSeries(SubscriptionKey{*it, false}, label, *m, toPoints(s, set.endS, scale));
    }
}

bool writeVariantPngs(const ScenarioReport& report, const QList<SeriesSet>& series,
                      const QString& dir, QMap<QString, QString>* written, QString* error,
                      QSize size)
{
    if (series.size() != report.variants.size()) {
        if (error)
            *error = QStringLiteral("%1 variants but series for %2").arg(report.variants.size()).arg(series.size());
        return false;
    }
    QSet<QString> used;
    for (qsizetype i = 0; i < series.size(); ++i) {
        const QString& variant = report.variants[i].name;
        QString file = variantPngFileName(variant);
        // Two names that differ only in unsafe characters ("a+b", "a b") get distinct files.
        for (int n = 2; used.contains(file); ++n)
            file = variantPngFileName(variant).chopped(4) + QStringLiteral("-%1.png").arg(n);
        used.insert(file);
        SeriesStore store;
        loadSeriesSet(series[i], store);
        QString why;
        if (!PlotPanel::renderVariantPng(store, QDir(dir).filePath(file), size, &why)) {
            if (error)
                *error = QStringLiteral("plot of variant %1: %2").arg(variant, why);
            return false;
        }
        if (written)
            written->insert(variant, file);
    }
    return true;
}

} // namespace stormwatch
