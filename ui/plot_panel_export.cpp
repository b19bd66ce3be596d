// PlotPanel: PNG and CSV exports, and the headless rendering of a finished variant.
#include "ui/plot_data.h"
#include "ui/plot_panel.h"
#include "ui/plot_panel_private.h"
#include "ui/plot_theme.h"

#include <QApplication>
#include <QFileInfo>
#include <QSaveFile>
#include <QTimeZone>
#include <cmath>

namespace stormwatch {

namespace {

// A CSV value rounded to 3 decimals, trailing zeros dropped: 55.000999999999976 → 55.001.
QString rounded(const QString& field)
{
    bool ok = false;
    const double v = field.toDouble(&ok);
    if (!ok)
        return field;
    QString text = QString::number(v, 'f', 3);
    if (text.contains(QLatin1Char('.'))) {
        while (text.endsWith(QLatin1Char('0')))
            text.chop(1);
        if (text.endsWith(QLatin1Char('.')))
            text.chop(1);
    }
    return text == QLatin1String("-0") ? QStringLiteral("0") : text;
}

} // namespace

QString PlotPanel::rangeText(Range range) const
{
    double lower = xLower(), upper = xUpper();
    if (range == Range::WholeRun && !std::isnan(m_store->earliestTime())) {
        lower = m_store->earliestTime() <= 1 ? 0.0 : m_store->earliestTime();
        upper = m_store->latestTime();
    }
    return tr("%1–%2 (%3)")
        .arg(plot::formatElapsed(lower), plot::formatElapsed(upper),
             range == Range::WholeRun ? tr("whole run") : tr("visible range"));
}

bool PlotPanel::exportPng(const QString& path, QString* error, QSize size)
{
    ExportOptions options;
    options.size = size;
    return exportPng(path, error, options);
}

bool PlotPanel::exportPng(const QString& path, QString* error, const ExportOptions& options)
{
    QSize size = options.size;
    if (!size.isValid() || size.isEmpty())
        size = m_plot->size();
    // A slide-sized image is read from across a room: presenter fonts and lines for it.
    const bool slide = size.width() >= 1600 && !m_presentation;
    if (slide)
        setPresentation(true);
    const double lower = xLower(), upper = xUpper();
    const bool whole = options.range == Range::WholeRun && !std::isnan(m_store->earliestTime());
    // A title row above the plots for the export only (the window has its own title).
    QCPTextElement* title = nullptr;
    if (const QString text = withGateway(options.title); !text.isEmpty()) {
        QCPLayoutGrid* grid = m_plot->plotLayout();
        grid->insertRow(0);
        title = new QCPTextElement(m_plot, text + QStringLiteral("\n") + rangeText(options.range));
        QFont font = title->font();
        font.setPointSizeF(std::max(11.0, size.height() / 55.0));
        font.setBold(true);
        title->setFont(font);
        title->setTextColor(plotColours(m_theme).text);
        grid->addElement(0, 0, title);
        grid->setRowStretchFactor(0, 0.001);
    }
    // Reduce per column of the image, then back to the widget's own on the next tick.
    m_exportWidth = size.width();
    if (whole) {
        const double earliest = m_store->earliestTime() <= 1 ? 0.0 : m_store->earliestTime();
        setAllXRanges(earliest, std::max(earliest + 1, m_store->latestTime()));
    } else {
        applyFollow();
    }
    syncData();
    rescaleValueAxes();
    // savePng lays the plot out at the image's size without a replot signal: the legend's
    // columns, the value ticks and the marker labels are fitted to that size first.
    const QRect viewport = m_plot->viewport();
    m_plot->setViewport(QRect(QPoint(0, 0), size));
    for (int pass = 0; pass < 2; ++pass) {
        for (auto phase : {QCPLayoutElement::upPreparation, QCPLayoutElement::upMargins,
                           QCPLayoutElement::upLayout})
            m_plot->plotLayout()->update(phase);
        fitSubscriptionLegend();
        fitValueTicks();
        layoutMarkers();
    }
    m_plot->setViewport(viewport);
    const bool written = m_plot->savePng(path, size.width(), size.height());
    m_exportWidth = 0;
    if (title) {
        m_plot->plotLayout()->remove(title);
        m_plot->plotLayout()->simplify();
    }
    if (whole && !m_follow)
        setAllXRanges(lower, upper);
    if (slide)
        setPresentation(false);
    m_fullSync = true;
    onAppended();
    if (written)
        return true;
    if (error)
        *error = tr("Could not write the PNG image %1").arg(QFileInfo(path).absoluteFilePath());
    return false;
}

bool PlotPanel::exportCsv(const QString& path, QString* error)
{
    return exportCsv(path, error, CsvOptions{});
}

bool PlotPanel::exportCsv(const QString& path, QString* error, const CsvOptions& options)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        if (error)
            *error = tr("Could not write %1: %2").arg(path, file.errorString());
        return false;
    }
    if (options.range != Range::WholeRun)
        applyFollow(); // a hidden panel's window waits for its next replot (tick)
    double from = xLower(), to = xUpper();
    if (options.range == Range::WholeRun && !std::isnan(m_store->earliestTime())) {
        from = m_store->earliestTime();
        to = m_store->latestTime();
    }
    const QList<QByteArray> lines =
        m_store->toCsv(from, to, visibleSubscriptions(), m_gatewayFilter).split('\n');
    QStringList out;
    if (const QString title = withGateway(options.title); !title.isEmpty())
        out << QStringLiteral("# ") + title;
    out << QStringLiteral("# range: ") + rangeText(options.range) +
               QStringLiteral(", t_s %1 to %2")
                   .arg(rounded(QString::number(from)), rounded(QString::number(to)));
    if (options.runStart.isValid())
        out << QStringLiteral("# run start: ") +
                   options.runStart.toUTC().toString(Qt::ISODateWithMs);
    for (qsizetype i = 0; i < lines.size(); ++i) {
        if (lines[i].isEmpty())
            continue;
        const QString line = QString::fromUtf8(lines[i]);
        if (i == 0) { // the header: names, kept as toCsv quoted them
            const qsizetype comma = line.indexOf(QLatin1Char(','));
            out << QStringLiteral("t_s,time_utc") + (comma < 0 ? QString() : line.mid(comma));
            continue;
        }
        const QStringList fields = line.split(QLatin1Char(','));
        QStringList row;
        const double t = fields.value(0).toDouble();
        row << rounded(fields.value(0))
            << (options.runStart.isValid() ? options.runStart.toUTC()
                                                 .addMSecs(qint64(std::llround(t * 1000)))
                                                 .toString(Qt::ISODateWithMs)
                                           : QString());
        for (qsizetype f = 1; f < fields.size(); ++f)
            row << rounded(fields[f]);
        out << row.join(QLatin1Char(','));
    }
    file.write((out.join(QLatin1Char('\n')) + QLatin1Char('\n')).toUtf8());
    if (!file.commit()) {
        if (error)
            *error = tr("Could not write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

PlotPanel::ValueScale PlotPanel::wholeRunScale(const SeriesStore& store, QSize size)
{
    PlotPanel panel(&store);
    panel.resize(size);
    panel.showAll();
    panel.m_exportWidth = size.width();
    panel.syncData();
    return panel.naturalValueScale();
}

bool PlotPanel::renderVariantPng(const SeriesStore& store, const QString& path, QSize size,
                                 QString* error, const RenderOptions& options)
{
    if (!qobject_cast<QApplication*>(QCoreApplication::instance())) {
        if (error)
            *error = tr("Rendering plots needs a QApplication (QT_QPA_PLATFORM=offscreen when "
                        "headless)");
        return false;
    }
    PlotPanel panel(&store);
    panel.resize(size);
    panel.addMarkers(options.markers);
    panel.m_fixedScale = options.scale;
    panel.showAll();
    ExportOptions exportOptions;
    exportOptions.size = size;
    exportOptions.title = options.title;
    exportOptions.range = Range::WholeRun;
    return panel.exportPng(path, error, exportOptions);
}

} // namespace stormwatch
