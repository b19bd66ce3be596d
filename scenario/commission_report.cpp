// The commissioning report's three forms: report.json (everything), report.csv (one row per
// tag, for a checklist or a spreadsheet) and report.md (per gateway and instance, the
// failed tags with the gateway's reason, and the verdict line).
#include "scenario/commission.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

namespace stormwatch {

namespace {

QJsonValue opt(const std::optional<double>& v)
{
    return v ? QJsonValue(*v) : QJsonValue();
}

QJsonObject countsJson(const CommissionCounts& c)
{
    return {{"tags", c.tags},
            {"good", c.good},
            {"failed", c.failed},
            {"no_value", c.noValue},
            {"first_value_p50_s", opt(c.firstValue.p50)},
            {"first_value_p95_s", opt(c.firstValue.p95)},
            {"first_value_max_s", opt(c.firstValue.max)}};
}

QString seconds(const std::optional<double>& v)
{
    return v ? QString::number(*v, 'f', 3) : QStringLiteral("—");
}

// One CSV field: quoted when it holds a comma, quote or line break (RFC 4180).
QString csvField(const QString& s)
{
    if (!s.contains(QLatin1Char(',')) && !s.contains(QLatin1Char('"')) &&
        !s.contains(QLatin1Char('\n')) && !s.contains(QLatin1Char('\r')))
        return s;
    QString q = s;
    q.replace(QLatin1String("\""), QLatin1String("\"\""));
    return QLatin1Char('"') + q + QLatin1Char('"');
}

// Text inside a Markdown table cell: '|' would end the cell, a backtick open code.
QString cell(const QString& s)
{
    QString c = s;
    c.replace(QLatin1Char('|'), QLatin1String("\\|"));
    c.replace(QLatin1Char('`'), QLatin1String("\\`"));
    return c;
}

} // namespace

QByteArray commissionJson(const CommissionReport& r)
{
    QJsonArray gateways;
    for (const CommissionGateway& g : r.gateways) {
        QJsonObject o = countsJson(g.counts);
        o.insert("name", g.name);
        o.insert("endpoint", g.endpoint);
        o.insert("state", g.state);
        o.insert("last_error", g.lastError);
        o.insert("capabilities", QJsonArray::fromStringList(g.capabilities));
        o.insert("echoed_command_timeout_s", opt(g.echoedTimeoutS));
        o.insert("advise_kind", g.adviseKind);
        o.insert("subscribe_rpcs", g.subscribeRpcs);
        o.insert("invokes", g.invokes);
        gateways.append(o);
    }
    QJsonArray instances;
    for (const CommissionInstance& i : r.instances) {
        QJsonObject o = countsJson(i.counts);
        o.insert("name", i.name);
        o.insert("gateway", i.gateway);
        instances.append(o);
    }
    QJsonArray tags;
    for (const CommissionTag& t : r.tags)
        tags.append(QJsonObject{{"gateway", t.gateway},
                                {"instance", t.instance},
                                {"tag_address", t.address},
                                {"kind", t.kind},
                                {"outcome", toString(t.outcome)},
                                {"reason", t.reason},
                                {"first_value_s", opt(t.firstValueS)},
                                {"quality", t.quality}});
    QJsonObject root = countsJson(r.counts);
    root.insert("site", r.site);
    root.insert("site_file", r.siteFile);
    root.insert("variant", r.variant);
    root.insert("timeout_s", r.timeoutS);
    root.insert("duration_s", r.durationS);
    root.insert("timed_out", r.timedOut);
    root.insert("all_good", r.allGood());
    root.insert("verdict", r.verdict());
    root.insert("gateways", gateways);
    root.insert("instances", instances);
    root.insert("tags", tags);
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

QByteArray commissionCsv(const CommissionReport& r)
{
    QString out =
        QStringLiteral("gateway,instance,tag_address,kind,outcome,reason,first_value_s,quality\n");
    for (const CommissionTag& t : r.tags)
        out += QStringList{csvField(t.gateway),
                           csvField(t.instance),
                           csvField(t.address),
                           csvField(t.kind),
                           QString::fromLatin1(toString(t.outcome)),
                           csvField(t.reason),
                           t.firstValueS ? QString::number(*t.firstValueS, 'f', 3) : QString(),
                           QString::number(t.quality)}
                   .join(QLatin1Char(',')) +
               QLatin1Char('\n');
    return out.toUtf8();
}

QByteArray commissionMarkdown(const CommissionReport& r)
{
    QString md;
    md += QStringLiteral("# Commissioning report: %1\n\n").arg(cell(r.site));
    md += QStringLiteral("**%1**\n\n").arg(cell(r.verdict()));
    // One arg() call per line: a chained arg() would substitute into text inserted before
    // (a gateway's error, a name) wherever it holds "%5".
    md += QStringLiteral("Site file `%1`, levers `%2`, timeout %3 s, ran %4 s.\n\n")
              .arg(r.siteFile, r.variant, QString::number(r.timeoutS),
                   QString::number(r.durationS, 'f', 1));
    md += QStringLiteral(
        "## Gateways\n\n| gateway | endpoint | state | tags | Good | failed | no value | first "
        "value p50 / p95 / max (s) | subscribe RPCs | advise | timeout echo (s) | capabilities |\n"
        "|---|---|---|---:|---:|---:|---:|---|---:|---|---:|---|\n");
    for (const CommissionGateway& g : r.gateways)
        md +=
            QStringLiteral(
                "| %1 | %2 | %3%4 | %5 | %6 | %7 | %8 | %9 / %10 / %11 | %12 | %13 | %14 | %15 |\n")
                .arg(cell(g.name), cell(g.endpoint), cell(g.state),
                     g.lastError.isEmpty()
                         ? QString()
                         : QStringLiteral(" (") + cell(g.lastError) + QLatin1Char(')'),
                     QString::number(g.counts.tags), QString::number(g.counts.good),
                     QString::number(g.counts.failed), QString::number(g.counts.noValue),
                     seconds(g.counts.firstValue.p50), seconds(g.counts.firstValue.p95),
                     seconds(g.counts.firstValue.max), QString::number(g.subscribeRpcs),
                     cell(g.adviseKind.isEmpty() ? QStringLiteral("—") : g.adviseKind),
                     g.echoedTimeoutS ? QString::number(*g.echoedTimeoutS) : QStringLiteral("—"),
                     cell(g.capabilities.isEmpty() ? QStringLiteral("—")
                                                   : g.capabilities.join(QStringLiteral(", "))));
    md += QStringLiteral("\n## Instances\n\n| instance | gateway | tags | Good | failed | no value "
                         "| first value p50 / p95 / max (s) |\n"
                         "|---|---|---:|---:|---:|---:|---|\n");
    for (const CommissionInstance& i : r.instances)
        md += QStringLiteral("| %1 | %2 | %3 | %4 | %5 | %6 | %7 / %8 / %9 |\n")
                  .arg(cell(i.name), cell(i.gateway), QString::number(i.counts.tags),
                       QString::number(i.counts.good), QString::number(i.counts.failed),
                       QString::number(i.counts.noValue), seconds(i.counts.firstValue.p50),
                       seconds(i.counts.firstValue.p95), seconds(i.counts.firstValue.max));
    QString failed, waiting;
    for (const CommissionTag& t : r.tags) {
        const QString row =
            QStringLiteral("| %1 | %2 | %3 | %4 |\n")
                .arg(cell(t.gateway), cell(t.instance), cell(t.address), cell(t.reason));
        if (t.outcome == TagOutcome::Failed)
            failed += row;
        else if (t.outcome == TagOutcome::NoValue)
            waiting += row;
    }
    const QString header =
        QStringLiteral("| gateway | instance | tag | reason |\n|---|---|---|---|\n");
    md += QStringLiteral("\n## Failed to add (%1)\n\n").arg(r.counts.failed) +
          (failed.isEmpty() ? QStringLiteral("None.\n") : header + failed);
    md += QStringLiteral("\n## Never received a value or not Good (%1)\n\n").arg(r.counts.noValue) +
          (waiting.isEmpty() ? QStringLiteral("None.\n") : header + waiting);
    md += QStringLiteral("\n%1\n").arg(r.verdict());
    return md.toUtf8();
}

bool writeCommissionReport(const CommissionReport& report, const QString& dir, QString* error)
{
    if (!QDir().mkpath(dir)) {
        if (error)
            *error = QStringLiteral("cannot create %1").arg(dir);
        return false;
    }
    const std::pair<const char*, QByteArray> files[] = {{"report.json", commissionJson(report)},
                                                        {"report.csv", commissionCsv(report)},
                                                        {"report.md", commissionMarkdown(report)}};
    for (const auto& [name, data] : files) {
        QSaveFile f(QDir(dir).filePath(QString::fromLatin1(name)));
        if (!f.open(QIODevice::WriteOnly) || f.write(data) != data.size() || !f.commit()) {
            if (error)
                *error = QStringLiteral("cannot write %1: %2").arg(f.fileName(), f.errorString());
            return false;
        }
    }
    return true;
}

} // namespace stormwatch
