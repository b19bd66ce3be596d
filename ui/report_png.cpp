#include "ui/report_png.h"

#include "client/lever_set.h"

#include <QDir>
#include <QPointF>
#include <QSet>
#include <QVector>
#include <memory>
#include <optional>
#include <vector>

namespace stormwatch {

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
    // The same path as the console's plots: the recorder's series by name, in its units.
    store.clear();
    store.setRetentionSeconds(0); // a finished run is kept whole
    QHash<QString, int> subjectIndex;
    QVector<SeriesUpdate> updates;
    for (const Series& s : set.all()) {
        SeriesUpdate u;
        u.metric = s.metric();
        // A gateway's own (a run on several) goes beside the run's sum, as the run host sends
        // it; the report's gateway plots draw the sum.
        const SeriesSubject subject = SeriesSubject::of(s.subject());
        u.label = subject.label;
        if (!subject.isGateway()) {
            auto it = subjectIndex.find(s.subject());
            if (it == subjectIndex.end())
                it = subjectIndex.insert(s.subject(), int(subjectIndex.size()));
            u.instance = *it;
        }
        u.points.reserve(qsizetype(s.points().size()));
        for (const SeriesPoint& p : s.points())
            u.points.append(QPointF(p.tS, p.value));
        updates.append(std::move(u));
    }
    store.appendSeries(updates);
    store.advanceTo(set.endS); // the last values hold to the run's end: the plots span it
}

QString variantPngTitle(const ScenarioReport& report, const VariantMetrics& variant)
{
    QString levers;
    if (const auto set = leverSetFromJson(variant.levers, nullptr)) {
        const auto preset = presetNameOf(*set);
        levers = preset ? QStringLiteral("levers: %1").arg(*preset)
                        : QStringLiteral("levers: %1").arg(describeLevers(*set));
    }
    QStringList parts{QStringLiteral("%1 — %2").arg(report.scenario, variant.name)};
    if (!levers.isEmpty())
        parts << levers;
    parts << (report.live ? QStringLiteral("live gateway")
                          : QStringLiteral("in-process mock, virtual time"));
    return parts.join(QStringLiteral(" · "));
}

bool writeVariantPngs(const ScenarioReport& report, const QList<SeriesSet>& series,
                      const QString& dir, QMap<QString, QString>* written, QString* error,
                      QSize size, const QVector<PlotPanel::Marker>& markers)
{
    if (series.size() != report.variants.size()) {
        if (error)
            *error = QStringLiteral("%1 variants but series for %2")
                         .arg(report.variants.size())
                         .arg(series.size());
        return false;
    }
    // One y-scale per plot for every variant: the largest any of them needs.
    std::vector<std::unique_ptr<SeriesStore>> stores;
    PlotPanel::ValueScale shared;
    for (const SeriesSet& set : series) {
        stores.push_back(std::make_unique<SeriesStore>());
        loadSeriesSet(set, *stores.back());
        shared = shared.max(PlotPanel::wholeRunScale(*stores.back(), size));
    }
    QSet<QString> used;
    for (qsizetype i = 0; i < series.size(); ++i) {
        const QString& variant = report.variants[i].name;
        QString file = variantPngFileName(variant);
        // Two names that differ only in unsafe characters ("a+b", "a b") get distinct files.
        for (int n = 2; used.contains(file); ++n)
            file = variantPngFileName(variant).chopped(4) + QStringLiteral("-%1.png").arg(n);
        used.insert(file);
        PlotPanel::RenderOptions options;
        options.title = variantPngTitle(report, report.variants[i]);
        options.markers = markers;
        options.scale = shared;
        QString why;
        if (!PlotPanel::renderVariantPng(*stores[std::size_t(i)], QDir(dir).filePath(file), size,
                                         &why, options)) {
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
