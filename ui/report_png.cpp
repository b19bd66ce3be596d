#include "ui/report_png.h"

#include "ui/plot_panel.h"

#include <QDir>
#include <QPointF>
#include <QSet>
#include <QVector>

#include <optional>

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
        if (s.subject() != QLatin1String("gateway")) {
            auto it = subjectIndex.find(s.subject());
            if (it == subjectIndex.end())
                it = subjectIndex.insert(s.subject(), int(subjectIndex.size()));
            u.instance = *it;
            u.label = s.subject();
            u.label.replace(QLatin1Char('/'), QStringLiteral(" × "));
        }
        u.points.reserve(qsizetype(s.points().size()));
        for (const SeriesPoint& p : s.points())
            u.points.append(QPointF(p.tS, p.value));
        updates.append(std::move(u));
    }
    store.appendSeries(updates);
    store.advanceTo(set.endS); // the last values hold to the run's end: the plots span it
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
