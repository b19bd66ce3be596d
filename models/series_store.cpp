#include "models/series_store.h"

#include <algorithm>
#include <cmath>

namespace stormwatch {

namespace {

const QVector<QPointF>& emptySeries()
{
    static const QVector<QPointF> empty;
    return empty;
}

bool sameValue(double a, double b)
{
    return a == b || (std::isnan(a) && std::isnan(b));
}

QString csvField(const QString& s)
{
    if (!s.contains(QLatin1Char(',')) && !s.contains(QLatin1Char('"')) &&
        !s.contains(QLatin1Char('\n')) && !s.contains(QLatin1Char('\r')) && s.trimmed() == s)
        return s;
    QString quoted = s;
    quoted.replace(QLatin1String("\""), QLatin1String("\"\""));
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

QString csvNumber(double v)
{
    return std::isnan(v) ? QString() : QString::number(v, 'g', 12);
}

} // namespace

QString metricName(SubMetric m)
{
    switch (m) {
    case SubMetric::Outstanding:
        return QStringLiteral("outstanding");
    case SubMetric::IntervalS:
        return QStringLiteral("interval_ms");
    case SubMetric::Good:
        return QStringLiteral("tags_good");
    case SubMetric::Uncertain:
        return QStringLiteral("tags_uncertain");
    case SubMetric::Bad:
        return QStringLiteral("tags_bad");
    case SubMetric::RequestsSent:
        return QStringLiteral("requests_sent");
    case SubMetric::Stale:
        return QStringLiteral("tags_stale");
    case SubMetric::Orphaned:
        return QStringLiteral("tags_orphaned");
    case SubMetric::Frozen:
        return QStringLiteral("tags_frozen");
    }
    return {};
}

QString metricName(GatewayMetric m)
{
    switch (m) {
    case GatewayMetric::StaQueueDepth:
        return QStringLiteral("sta_queue_depth");
    case GatewayMetric::InvokeRps:
        return QStringLiteral("invoke_rpcs_per_s");
    case GatewayMetric::DeadlineExceededPerS:
        return QStringLiteral("deadline_exceeded_per_s");
    case GatewayMetric::SuppressedPerS:
        return QStringLiteral("suppressed_calls_per_s");
    case GatewayMetric::RecoveryState:
        return QStringLiteral("recovery_state");
    }
    return {};
}

SeriesStore::SeriesStore(QObject* parent) : QObject(parent)
{
    qRegisterMetaType<SubscriptionKey>();
}

void SeriesStore::setRetentionSeconds(double seconds)
{
    m_retentionS = seconds;
    m_lastPruneAt = -std::numeric_limits<double>::infinity();
    pruneIfDue();
}

// A point per change: a repeated value adds nothing; a second value at the same time replaces
// the first (and disappears if it restores the value before it).
void SeriesStore::appendStep(QVector<QPointF>& series, double t, double value)
{
    if (series.isEmpty()) {
        series.push_back(QPointF(t, value));
        return;
    }
    QPointF& last = series.last();
    if (t <= last.x()) { // same timestamp (or a late sample): collapse onto the last point
        last.setY(value);
        const qsizetype n = series.size();
        if (n >= 2 && sameValue(series[n - 2].y(), value))
            series.removeLast();
        return;
    }
    if (!sameValue(last.y(), value))
        series.push_back(QPointF(t, value));
}

void SeriesStore::noteTime(double t)
{
    if (std::isnan(m_latest) || t > m_latest)
        m_latest = t;
}

void SeriesStore::appendSeries(const QVector<SeriesUpdate>& updates)
{
    static const QHash<QString, SubMetric> kSub = [] {
        QHash<QString, SubMetric> h;
        for (int m = 0; m < kSubMetricCount; ++m)
            h.insert(metricName(SubMetric(m)), SubMetric(m));
        return h;
    }();
    static const QHash<QString, GatewayMetric> kGateway = [] {
        QHash<QString, GatewayMetric> h;
        for (int m = 0; m < kGatewayMetricCount; ++m)
            h.insert(metricName(GatewayMetric(m)), GatewayMetric(m));
        return h;
    }();
    bool changed = false;
    bool any = false;
    for (const SeriesUpdate& u : updates) {
        QVector<QPointF>* series = nullptr;
        double scale = 1.0;
        if (u.instance < 0) {
            const auto g = kGateway.constFind(u.metric);
            if (g == kGateway.cend())
                continue;
            const QString gateway = gatewayOfLabel(u.label);
            series = gateway.isEmpty() ? &m_gateway[int(*g)] : &m_gatewayOf[gateway][int(*g)];
        } else {
            const auto m = kSub.constFind(u.metric);
            if (m == kSub.cend())
                continue;
            const SubscriptionKey key{u.instance, false};
            auto it = m_subs.find(key);
            if (it == m_subs.end()) {
                it = m_subs.insert(key, Subscription{});
                changed = true;
            }
            if (it->label != u.label) {
                it->label = u.label;
                changed = true;
            }
            series = &it->series[int(*m)];
            if (*m == SubMetric::IntervalS)
                scale = 1.0 / 1000.0; // recorded in ms, plotted in s
        }
        for (const QPointF& p : u.points) {
            appendStep(*series, p.x(), p.y() * scale);
            noteTime(p.x());
            any = true;
        }
    }
    pruneIfDue();
    if (changed)
        emit subscriptionsChanged();
    if (any)
        emit appended();
}

void SeriesStore::advanceTo(double t)
{
    if (!std::isnan(m_latest) && t <= m_latest)
        return;
    noteTime(t);
    emit appended();
}

void SeriesStore::clear()
{
    const bool hadSubscriptions = !m_subs.isEmpty();
    m_subs.clear();
    for (auto& s : m_gateway)
        s.clear();
    m_gatewayOf.clear();
    m_latest = std::numeric_limits<double>::quiet_NaN();
    m_lastPruneAt = -std::numeric_limits<double>::infinity();
    ++m_generation;
    if (hadSubscriptions)
        emit subscriptionsChanged();
    emit appended();
}

void SeriesStore::loadSeries(SubscriptionKey key, const QString& label, SubMetric metric,
                             QVector<QPointF> points)
{
    auto it = m_subs.find(key);
    const bool added = it == m_subs.end();
    if (added)
        it = m_subs.insert(key, Subscription{});
    const bool relabelled = it->label != label;
    it->label = label;
    if (!points.isEmpty())
        noteTime(points.last().x());
    it->series[int(metric)] = std::move(points);
    ++m_generation;
    if (added || relabelled)
        emit subscriptionsChanged();
    emit appended();
}

void SeriesStore::loadGatewaySeries(GatewayMetric metric, QVector<QPointF> points,
                                    const QString& gateway)
{
    if (!points.isEmpty())
        noteTime(points.last().x());
    (gateway.isEmpty() ? m_gateway : m_gatewayOf[gateway])[int(metric)] = std::move(points);
    ++m_generation;
    emit appended();
}

// Pruning every series on each batch would move memory 20 times a second; pruning at most
// every 1/100 of the retention (≤ 10 s) keeps the overshoot to ~1 %.
void SeriesStore::pruneIfDue()
{
    if (!(m_retentionS > 0) || std::isinf(m_retentionS) || std::isnan(m_latest))
        return;
    const double every = std::clamp(m_retentionS / 100.0, 0.05, 10.0);
    if (m_latest - m_lastPruneAt < every)
        return;
    m_lastPruneAt = m_latest;
    const double cutoff = m_latest - m_retentionS;
    for (auto& sub : m_subs)
        for (auto& s : sub.series)
            prune(s, cutoff);
    for (auto& s : m_gateway)
        prune(s, cutoff);
    for (auto& gateway : m_gatewayOf)
        for (auto& s : gateway)
            prune(s, cutoff);
}

void SeriesStore::prune(QVector<QPointF>& series, double cutoff) const
{
    // Keep the last point at or before the cut: it carries the value in force there.
    const auto firstAfter = std::upper_bound(series.cbegin(), series.cend(), cutoff,
                                             [](double t, const QPointF& p) { return t < p.x(); });
    const qsizetype drop = (firstAfter - series.cbegin()) - 1;
    if (drop > 0)
        series.remove(0, drop); // Qt 6 moves the begin pointer: no copy
}

QList<SubscriptionKey> SeriesStore::subscriptions() const
{
    QList<SubscriptionKey> keys = m_subs.keys();
    std::sort(keys.begin(), keys.end());
    return keys;
}

QString SeriesStore::label(SubscriptionKey key) const
{
    const auto it = m_subs.constFind(key);
    return it == m_subs.cend() ? QString() : it->label;
}

const QVector<QPointF>& SeriesStore::series(SubscriptionKey key, SubMetric metric) const
{
    const auto it = m_subs.constFind(key);
    return it == m_subs.cend() ? emptySeries() : it->series[int(metric)];
}

const QVector<QPointF>& SeriesStore::gatewaySeries(GatewayMetric metric,
                                                   const QString& gateway) const
{
    if (gateway.isEmpty())
        return m_gateway[int(metric)];
    const auto it = m_gatewayOf.constFind(gateway);
    return it == m_gatewayOf.cend() ? emptySeries() : (*it)[int(metric)];
}

QString SeriesStore::gatewayOfLabel(const QString& label)
{
    return SeriesSubject::gatewayOfLabel(label);
}

double SeriesStore::latestTime() const
{
    return m_latest;
}

double SeriesStore::earliestTime() const
{
    double earliest = std::numeric_limits<double>::infinity();
    for (const auto& sub : m_subs)
        for (const auto& s : sub.series)
            if (!s.isEmpty())
                earliest = std::min(earliest, s.first().x());
    for (const auto& s : m_gateway)
        if (!s.isEmpty())
            earliest = std::min(earliest, s.first().x());
    for (const auto& gateway : m_gatewayOf)
        for (const auto& s : gateway)
            if (!s.isEmpty())
                earliest = std::min(earliest, s.first().x());
    if (std::isinf(earliest))
        return std::numeric_limits<double>::quiet_NaN();
    // A carried point may be older than the retained window; the window starts at the cut.
    if (std::isfinite(m_lastPruneAt) && m_retentionS > 0 && std::isfinite(m_retentionS))
        earliest = std::max(earliest, m_lastPruneAt - m_retentionS);
    return earliest;
}

double SeriesStore::stepValueAt(const QVector<QPointF>& series, double t)
{
    const auto firstAfter = std::upper_bound(series.cbegin(), series.cend(), t,
                                             [](double x, const QPointF& p) { return x < p.x(); });
    if (firstAfter == series.cbegin())
        return std::numeric_limits<double>::quiet_NaN();
    return (firstAfter - 1)->y();
}

double SeriesStore::valueAt(SubscriptionKey key, SubMetric metric, double t) const
{
    return stepValueAt(series(key, metric), t);
}

double SeriesStore::gatewayValueAt(GatewayMetric metric, double t, const QString& gateway) const
{
    return stepValueAt(gatewaySeries(metric, gateway), t);
}

std::size_t SeriesStore::pointCount() const
{
    std::size_t n = 0;
    for (const auto& sub : m_subs)
        for (const auto& s : sub.series)
            n += std::size_t(s.size());
    for (const auto& s : m_gateway)
        n += std::size_t(s.size());
    for (const auto& gateway : m_gatewayOf)
        for (const auto& s : gateway)
            n += std::size_t(s.size());
    return n;
}

std::size_t SeriesStore::approxBytes() const
{
    std::size_t bytes = sizeof(*this);
    for (const auto& sub : m_subs) {
        bytes += sizeof(Subscription) + sizeof(SubscriptionKey) +
                 std::size_t(sub.label.capacity()) * sizeof(QChar);
        for (const auto& s : sub.series)
            bytes += std::size_t(s.capacity()) * sizeof(QPointF);
    }
    for (const auto& s : m_gateway)
        bytes += std::size_t(s.capacity()) * sizeof(QPointF);
    for (auto it = m_gatewayOf.cbegin(); it != m_gatewayOf.cend(); ++it) {
        bytes += sizeof(GatewaySeries) + std::size_t(it.key().capacity()) * sizeof(QChar);
        for (const auto& s : *it)
            bytes += std::size_t(s.capacity()) * sizeof(QPointF);
    }
    return bytes;
}

QByteArray SeriesStore::toCsv(double from, double to, const QList<SubscriptionKey>& keys,
                              const QString& gateway) const
{
    struct Column {
        QString name;
        const QVector<QPointF>* series;
        double scale;
        qsizetype next = 0; // first point after the row being written
    };
    QVector<Column> columns;
    for (const SubscriptionKey& key : keys) {
        const auto it = m_subs.constFind(key);
        if (it == m_subs.cend())
            continue;
        for (int m = 0; m < kSubMetricCount; ++m)
            columns.push_back({it->label + QLatin1Char('/') + metricName(SubMetric(m)),
                               &it->series[m], m == int(SubMetric::IntervalS) ? 1000.0 : 1.0});
    }
    const QString subject = SeriesSubject::gatewaySubject(gateway);
    for (int m = 0; m < kGatewayMetricCount; ++m)
        if (const QVector<QPointF>& s = gatewaySeries(GatewayMetric(m), gateway); !s.isEmpty())
            columns.push_back({subject + QLatin1Char('/') + metricName(GatewayMetric(m)), &s, 1.0});

    const auto byTime = [](const QPointF& p, double t) { return p.x() < t; };
    QVector<double> times;
    bool valueAtFrom = false;
    for (Column& c : columns) {
        const QVector<QPointF>& s = *c.series;
        const auto begin = std::lower_bound(s.cbegin(), s.cend(), from, byTime);
        for (auto p = begin; p != s.cend() && p->x() <= to; ++p)
            times.push_back(p->x());
        valueAtFrom = valueAtFrom || begin != s.cbegin();
        c.next = begin - s.cbegin();
    }
    if (valueAtFrom && from <= to)
        times.push_back(from);
    std::sort(times.begin(), times.end());
    times.erase(std::unique(times.begin(), times.end()), times.end());

    QString out = QStringLiteral("t_s");
    for (const Column& c : columns)
        out += QLatin1Char(',') + csvField(c.name);
    out += QLatin1Char('\n');
    for (double t : times) {
        out += QString::number(t, 'f', 3);
        for (Column& c : columns) {
            const QVector<QPointF>& s = *c.series;
            while (c.next < s.size() && s[c.next].x() <= t)
                ++c.next;
            out += QLatin1Char(',');
            if (c.next > 0)
                out += csvNumber(s[c.next - 1].y() * c.scale);
        }
        out += QLatin1Char('\n');
    }
    return out.toUtf8();
}

} // namespace stormwatch
