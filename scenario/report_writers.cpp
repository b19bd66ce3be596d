#include "scenario/report_writers.h"

#include <QDir>
#include <QJsonDocument>
#include <QSaveFile>
#include <QStringList>

namespace stormwatch {

namespace {

QString csvField(const QString& s) {
    if (!s.contains(QLatin1Char(',')) && !s.contains(QLatin1Char('"')) && !s.contains(QLatin1Char('\n')) &&
        !s.contains(QLatin1Char('\r')))
        return s;
    QString quoted = s;
    quoted.replace(QLatin1String("\""), QLatin1String("\"\""));
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

QString number(double d) { return QString::number(d, 'f', QLocale::FloatingPointShortest); }

// Metric columns in order; the names are the report-JSON keys.
const QStringList kMetricColumns = {
    "subscribe_requests", "max_outstanding",   "gateway_rpcs",        "gateway_rpcs_by_kind",
    "deadline_exceeded",  "bad_tag_seconds",   "time_to_all_good_s", "max_sta_queue_depth",
    "suppressed_calls",   "wall_ms",
};

QString csvValue(const QJsonValue& v) {
    if (v.isNull() || v.isUndefined()) return {};
    if (v.isDouble()) return number(v.toDouble());
    if (v.isObject()) {  // gateway_rpcs_by_kind
        QStringList parts;
        const QJsonObject o = v.toObject();
        for (auto it = o.begin(); it != o.end(); ++it) parts << it.key() + QLatin1Char('=') + csvValue(it.value());
        return parts.join(QLatin1Char(';'));
    }
    return v.toVariant().toString();
}

bool writeFile(const QString& dir, const QString& name, const QByteArray& bytes, QString* error) {
    // QSaveFile: a failed write never leaves a half-written report behind.
    QSaveFile file(QDir(dir).filePath(name));
    if (file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size() && file.commit()) return true;
    if (error) *error = QStringLiteral("cannot write %1: %2").arg(file.fileName(), file.errorString());
    return false;
}

}  // namespace

QByteArray reportToCsv(const ScenarioReport& report) {
    QStringList lines;
    lines << (QStringList{"scenario", "variant", "levers"} + kMetricColumns).join(QLatin1Char(','));
    for (const VariantMetrics& v : report.variants) {
        const QJsonObject o = variantToJson(v);
        QStringList fields{csvField(report.scenario), csvField(v.name),
                           csvField(QString::fromUtf8(QJsonDocument(v.levers).toJson(QJsonDocument::Compact)))};
        for (const QString& column : kMetricColumns) fields << csvField(csvValue(o.value(column)));
        lines << fields.join(QLatin1Char(','));
    }
    return (lines.join(QLatin1Char('\n')) + QLatin1Char('\n')).toUtf8();
}

bool writeReportDir(const ScenarioReport& report, const QString& dir, QString* error) {
    auto fail = [error](const QString& why) {
        if (error) *error = why;
        return false;
    };
    if (!QDir().mkpath(dir)) return fail(QStringLiteral("cannot create report directory %1").arg(dir));
    const QList<std::pair<QString, QByteArray>> files = {
        {QStringLiteral("report.json"), reportToJsonBytes(report, true)},
        {QStringLiteral("report.csv"), reportToCsv(report)},
        {QStringLiteral("report.md"), reportToMarkdown(report)},
    };
    for (const auto& [name, bytes] : files)
        if (!writeFile(dir, name, bytes, error)) return false;
    return true;
}

bool writeReportMarkdown(const ScenarioReport& report, const QString& dir, const QMap<QString, QString>& plots,
                         QString* error) {
    return writeFile(dir, QStringLiteral("report.md"), reportToMarkdown(report, plots), error);
}

}  // namespace stormwatch
