#include "scenario/report_writers.h"

#include "scenario/metric_table.h"

#include <QDir>
#include <QJsonDocument>
#include <QSaveFile>
#include <QStringList>
#include <algorithm>
#include <cmath>

namespace stormwatch {

namespace {

QString csvField(const QString& s)
{
    if (!s.contains(QLatin1Char(',')) && !s.contains(QLatin1Char('"')) &&
        !s.contains(QLatin1Char('\n')) && !s.contains(QLatin1Char('\r')))
        return s;
    QString quoted = s;
    quoted.replace(QLatin1String("\""), QLatin1String("\"\""));
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

QString number(double d)
{
    return QString::number(d, 'f', QLocale::FloatingPointShortest);
}

// A metric's CSV cell: empty for no value; a ByKind metric as "kind=n;kind=n".
QString csvValue(const MetricDescriptor& m, const VariantMetrics& v)
{
    if (m.shape == MetricShape::ByKind) {
        QStringList parts;
        for (auto it = v.gatewayRpcsByKind.begin(); it != v.gatewayRpcsByKind.end(); ++it)
            parts << it.key() + QLatin1Char('=') + number(double(it.value()));
        return parts.join(QLatin1Char(';'));
    }
    const std::optional<double> value = m.value(v);
    return value ? number(*value) : QString();
}

QString formatSeconds(double s)
{
    return QString::number(s, 'f', s == std::floor(s) ? 0 : 3);
}

bool writeFile(const QString& dir, const QString& name, const QByteArray& bytes, QString* error)
{
    // QSaveFile: a failed write never leaves a half-written report behind.
    QSaveFile file(QDir(dir).filePath(name));
    if (file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size() && file.commit())
        return true;
    if (error)
        *error = QStringLiteral("cannot write %1: %2").arg(file.fileName(), file.errorString());
    return false;
}

} // namespace

QByteArray reportToCsv(const ScenarioReport& report)
{
    QStringList lines;
    QStringList header{"scenario", "variant", "levers"};
    for (const MetricDescriptor& m : metricTable())
        header << m.keyString();
    lines << header.join(QLatin1Char(','));
    for (const VariantMetrics& v : report.variants) {
        QStringList fields{
            csvField(report.scenario), csvField(v.name),
            csvField(QString::fromUtf8(QJsonDocument(v.levers).toJson(QJsonDocument::Compact)))};
        for (const MetricDescriptor& m : metricTable())
            fields << csvField(csvValue(m, v));
        lines << fields.join(QLatin1Char(','));
    }
    return (lines.join(QLatin1Char('\n')) + QLatin1Char('\n')).toUtf8();
}

QString reportToText(const ScenarioReport& report)
{
    QString text =
        QStringLiteral("scenario %1 — %2, %3 s, seed %4\n\n")
            .arg(report.scenario, report.live ? QStringLiteral("live") : QStringLiteral("virtual"),
                 formatSeconds(report.durationS))
            .arg(report.seed);
    QList<QStringList> rows;
    QStringList header{"metric"};
    for (const VariantMetrics& v : report.variants)
        header << v.name;
    rows << header;
    const QStringList kinds = rpcKinds(report);
    for (const MetricDescriptor& m : metricTable()) {
        QStringList row{m.keyString()};
        for (const VariantMetrics& v : report.variants)
            row << m.text(v);
        rows << row;
        if (m.shape == MetricShape::ByKind)
            for (const QString& k : kinds) {
                QStringList kindRow{QStringLiteral("  ") + k};
                for (const VariantMetrics& v : report.variants)
                    kindRow << m.text(rpcKindCount(v, k));
                rows << kindRow;
            }
    }
    if (report.live) {
        QStringList row{"gateway_metrics_source"};
        for (const VariantMetrics& v : report.variants)
            row << v.gatewayMetricsSource;
        rows << row;
    }
    QList<int> widths(header.size(), 0);
    for (const QStringList& r : rows)
        for (int c = 0; c < r.size(); ++c)
            widths[c] = std::max(widths[c], int(r[c].size()));
    for (const QStringList& r : rows) {
        QString line = r[0].leftJustified(widths[0]);
        for (int c = 1; c < r.size(); ++c)
            line += QStringLiteral("  ") + r[c].rightJustified(widths[c]);
        // A row with no values (gateway_rpcs_by_kind, heading its kinds) ends at its name.
        while (line.endsWith(QLatin1Char(' ')))
            line.chop(1);
        text += line + QLatin1Char('\n');
    }
    for (const VariantMetrics& v : report.variants)
        for (const QString& skipped : v.skippedActions)
            text += v.name + QStringLiteral(": ") + skipped + QLatin1Char('\n');
    for (const VariantMetrics& v : report.variants)
        for (const QString& note : v.notes)
            text += v.name + QStringLiteral(": ") + note + QLatin1Char('\n');
    return text;
}

bool writeReportDir(const ScenarioReport& report, const QString& dir, QString* error)
{
    auto fail = [error](const QString& why) {
        if (error)
            *error = why;
        return false;
    };
    if (!QDir().mkpath(dir))
        return fail(QStringLiteral("cannot create report directory %1").arg(dir));
    const QList<std::pair<QString, QByteArray>> files = {
        {QStringLiteral("report.json"), reportToJsonBytes(report, true)},
        {QStringLiteral("report.csv"), reportToCsv(report)},
        {QStringLiteral("report.md"), reportToMarkdown(report)},
    };
    for (const auto& [name, bytes] : files)
        if (!writeFile(dir, name, bytes, error))
            return false;
    return true;
}

bool writeReportMarkdown(const ScenarioReport& report, const QString& dir,
                         const QMap<QString, QString>& plots, QString* error)
{
    return writeFile(dir, QStringLiteral("report.md"), reportToMarkdown(report, plots), error);
}

} // namespace stormwatch
