#include "ui/compare_view.h"

#include "scenario/metric_table.h"
#include "scenario/report_writers.h"
#include "scenario/run_host.h"
#include "scenario/scenario_runner.h"
#include "ui/plot_theme.h"
#include "ui/report_png.h"

#include <QDir>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QThread>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>

namespace stormwatch {

namespace {


const QList<QColor>& variantColours()
{
    static const QList<QColor> colours{QColor(0xd6, 0x27, 0x28), QColor(0x1f, 0x77, 0xb4),
                                       QColor(0x2c, 0xa0, 0x2c), QColor(0xff, 0x7f, 0x0e),
                                       QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b)};
    return colours;
}

// A row of the table: a metric of scenario/metric_table.h, or one Invoke kind of its
// gateway_rpcs_by_kind (an indented row per kind, ranked like the metric).
struct MetricRow {
    QString name;
    const MetricDescriptor* metric;
    QString kind; // ByKind: the kind of this row
    std::optional<double> value(const VariantMetrics& v) const
    {
        if (metric->shape == MetricShape::ByKind)
            return rpcKindCount(v, kind);
        return metric->value(v);
    }
    QString text(const VariantMetrics& v) const { return metric->text(value(v)); }
};

QList<MetricRow> metricRows(const ScenarioReport& report)
{
    QList<MetricRow> rows;
    const QStringList kinds = rpcKinds(report);
    for (const MetricDescriptor& m : metricTable()) {
        if (m.shape == MetricShape::ByKind) {
            for (const QString& k : kinds)
                rows << MetricRow{"  " + k, &m, k};
            continue;
        }
        rows << MetricRow{m.labelString(), &m, {}};
    }
    return rows;
}

// Is a better than b for a metric that gets better this way?
bool betterThan(Better better, double a, double b)
{
    return better == Better::Higher ? a > b : a < b;
}

bool isSubscription(const Series& s)
{
    return s.subject() != QLatin1String("gateway");
}

} // namespace

struct CompareView::Run {
    std::atomic<bool> cancel{false};
    ScenarioReport report;
    QList<SeriesSet> series;
    QString error;
};

CompareView::CompareView(Scenario scenario, QWidget* parent) : QDialog(parent), m_scenario(std::move(scenario))
{
    setWindowTitle(QStringLiteral("Compare variants — %1").arg(m_scenario.name));
    resize(1100, 800);
    auto* layout = new QVBoxLayout(this);
    auto* description = new QLabel(m_scenario.description, this);
    description->setWordWrap(true);
    layout->addWidget(description);
    auto* progressRow = new QHBoxLayout;
    m_status = new QLabel(QStringLiteral("ready"), this);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    progressRow->addWidget(m_status, 1);
    progressRow->addWidget(m_progress, 2);
    layout->addLayout(progressRow);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    m_table = new QTableWidget(this);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    splitter->addWidget(m_table);
    auto* plots = new QWidget(this);
    auto* plotLayout = new QVBoxLayout(plots);
    plotLayout->setContentsMargins(0, 0, 0, 0);
    for (const QString& title : {QStringLiteral("outstanding (max over subscriptions)"),
                                 QStringLiteral("tags not Good"), QStringLiteral("gateway Invoke RPCs/s")}) {
        auto* plot = new QCustomPlot(plots);
        plot->setMinimumHeight(110);
        plot->plotLayout()->insertRow(0);
        plot->plotLayout()->addElement(0, 0, new QCPTextElement(plot, title));
        m_plotTitles << title;
        plot->xAxis->setLabel(QStringLiteral("virtual time (s)"));
        plot->legend->setVisible(true);
        // Beside the data, not over it (it hid the last ~300 s of every variant).
        plot->axisRect()->insetLayout()->take(plot->legend);
        plot->plotLayout()->addElement(1, 1, plot->legend);
        plot->plotLayout()->setColumnStretchFactor(1, 0.001);
        plot->legend->setBorderPen(Qt::NoPen);
        plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
        applyPlotTheme(plot, currentTheme());
        plotLayout->addWidget(plot);
        m_plots << plot;
    }
    splitter->addWidget(plots);
    splitter->setStretchFactor(1, 2);
    // The table keeps about a third even in a 700 px high window (it read 5 rows there).
    splitter->setSizes({300, 500});
    layout->addWidget(splitter, 1);

    auto* buttons = new QHBoxLayout;
    m_export = new QPushButton(QStringLiteral("Export report…"), this);
    m_export->setEnabled(false);
    auto* close = new QPushButton(QStringLiteral("Close"), this);
    buttons->addStretch(1);
    buttons->addWidget(m_export);
    buttons->addWidget(close);
    layout->addLayout(buttons);
    connect(m_export, &QPushButton::clicked, this, &CompareView::exportInteractively);
    connect(close, &QPushButton::clicked, this, &QDialog::close);
}

CompareView::~CompareView()
{
    if (m_thread.running()) {
        m_run->cancel = true;
        m_thread.join(); // its done callback is dropped: the window is going
    }
}

void CompareView::start()
{
    if (m_thread.running() || m_done)
        return;
    m_run = std::make_shared<Run>();
    m_status->setText(QStringLiteral("running %1 variants in virtual time…").arg(m_scenario.variants.size()));
    QPointer<CompareView> self(this);
    auto progress = [self](double fraction) {
        QMetaObject::invokeMethod(
            self.data(),
            [self, fraction] {
                if (self)
                    self->m_progress->setValue(int(fraction * 1000));
            },
            Qt::QueuedConnection);
    };
    // The same loop as the headless report; closing the window cancels between steps.
    m_thread.run([run = m_run, scenario = m_scenario, progress] {
        run->report = runScenario(scenario, {}, std::nullopt, progress, &run->error, &run->series,
                                  [run] { return run->cancel.load(); });
    }, [this] { onDone(); });
}

void CompareView::onDone()
{
    m_done = true;
    if (!m_run->error.isEmpty()) {
        m_status->setText(QStringLiteral("cannot run: %1").arg(m_run->error));
        emit finished();
        return;
    }
    m_report = std::move(m_run->report);
    m_series = std::move(m_run->series);
    m_progress->setValue(1000);
    m_status->setText(QStringLiteral("%1: %2 variants, %3 virtual s each, seed %4")
                          .arg(m_report.scenario)
                          .arg(m_report.variants.size())
                          .arg(m_report.durationS)
                          .arg(m_report.seed));
    fillTable();
    fillPlots();
    m_export->setEnabled(true);
    emit finished();
}

void CompareView::fillTable()
{
    const QList<MetricRow> rows = metricRows(m_report);
    m_table->clear();
    m_table->setRowCount(int(rows.size()));
    m_table->setColumnCount(int(m_report.variants.size()));
    QStringList headers;
    for (const VariantMetrics& v : m_report.variants)
        headers << v.name;
    m_table->setHorizontalHeaderLabels(headers);
    QStringList rowNames;
    for (const MetricRow& r : rows)
        rowNames << r.name;
    m_table->setVerticalHeaderLabels(rowNames);
    for (int r = 0; r < rows.size(); ++r) {
        const MetricDescriptor& metric = *rows[r].metric;
        // A kind's count is not better for being lower: levers-off sends no subscribe_bulk
        // because it sends a storm of the other kinds. Only the total is ranked.
        const bool ranked = metric.better != Better::Unranked && rows[r].kind.isEmpty();
        m_table->verticalHeaderItem(r)->setData(Qt::UserRole, rows[r].kind.isEmpty() ? metric.keyString()
                                                                                     : rows[r].kind);
        const QString tooltip = rows[r].kind.isEmpty()
                                    ? metric.tooltip()
                                    : QStringLiteral("%1 calls of kind %2. %3").arg(metric.labelString(), rows[r].kind, metric.tooltip());
        m_table->verticalHeaderItem(r)->setToolTip(tooltip);
        std::optional<double> best;
        bool allEqual = true;
        for (const VariantMetrics& v : m_report.variants) {
            const auto value = rows[r].value(v);
            if (value && best && *value != *best)
                allEqual = false;
            if (value && (!best || betterThan(metric.better, *value, *best)))
                best = value;
            if (!value)
                allEqual = false;
        }
        for (int c = 0; c < m_report.variants.size(); ++c) {
            const VariantMetrics& v = m_report.variants[c];
            auto* item = new QTableWidgetItem(rows[r].text(v));
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            item->setToolTip(tooltip);
            const auto value = rows[r].value(v);
            // The best of a row is marked only where the variants differ.
            if (ranked && !allEqual && value && best && *value == *best) {
                QFont bold = item->font();
                bold.setBold(true);
                item->setFont(bold);
                item->setBackground(currentTheme() == Theme::Dark ? QColor(0x2e, 0x5a, 0x34)
                                                                  : QColor(0xc8, 0xe6, 0xc9));
                item->setData(Qt::UserRole, true);
            }
            m_table->setItem(r, c, item);
        }
    }
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
}

int CompareView::rowOf(const QString& metric) const
{
    for (int r = 0; r < m_table->rowCount(); ++r)
        if (m_table->verticalHeaderItem(r) && m_table->verticalHeaderItem(r)->data(Qt::UserRole).toString() == metric)
            return r;
    return -1;
}

QVector<QPointF> CompareView::maxOverSubscriptions(const SeriesSet& series, const QString& metric)
{
    std::vector<const Series*> parts;
    for (const Series& s : series.all())
        if (isSubscription(s) && s.metric() == metric)
            parts.push_back(&s);
    std::map<double, bool> times;
    for (const Series* s : parts)
        for (const SeriesPoint& p : s->points())
            times[p.tS] = true;
    QVector<QPointF> out;
    for (const auto& [t, unused] : times) {
        double v = 0;
        for (const Series* s : parts)
            v = std::max(v, s->valueAt(t, 0));
        out.push_back(QPointF(t, v));
    }
    if (!out.isEmpty() && series.endS > out.last().x())
        out.push_back(QPointF(series.endS, out.last().y()));
    return out;
}

QVector<QPointF> CompareView::sumOverSubscriptions(const SeriesSet& series, const QStringList& metrics)
{
    std::vector<const Series*> parts;
    for (const Series& s : series.all())
        if (isSubscription(s) && metrics.contains(s.metric()))
            parts.push_back(&s);
    std::map<double, bool> times;
    for (const Series* s : parts)
        for (const SeriesPoint& p : s->points())
            times[p.tS] = true;
    QVector<QPointF> out;
    for (const auto& [t, unused] : times) {
        double v = 0;
        for (const Series* s : parts)
            v += s->valueAt(t, 0);
        out.push_back(QPointF(t, v));
    }
    if (!out.isEmpty() && series.endS > out.last().x())
        out.push_back(QPointF(series.endS, out.last().y()));
    return out;
}

void CompareView::fillPlots()
{
    for (QCustomPlot* plot : m_plots)
        plot->clearGraphs();
    for (int v = 0; v < m_series.size() && v < m_report.variants.size(); ++v) {
        const SeriesSet& set = m_series[v];
        QVector<QPointF> rpcs;
        if (const Series* s = set.find(QStringLiteral("gateway"), QStringLiteral("invoke_rpcs_per_s")))
            for (const SeriesPoint& p : s->points())
                rpcs.push_back(QPointF(p.tS, p.value));
        const QVector<QPointF> lines[] = {
            maxOverSubscriptions(set, QStringLiteral("outstanding")),
            sumOverSubscriptions(set, {QStringLiteral("tags_bad"), QStringLiteral("tags_uncertain")}), rpcs};
        const QColor colour = variantColours()[v % variantColours().size()];
        for (int i = 0; i < m_plots.size(); ++i) {
            QCPGraph* graph = m_plots[i]->addGraph();
            graph->setName(m_report.variants[v].name);
            graph->setLineStyle(QCPGraph::lsStepLeft);
            graph->setPen(QPen(colour, 2));
            QVector<double> x, y;
            for (const QPointF& p : lines[i]) {
                x << p.x();
                y << p.y();
            }
            graph->setData(x, y, true);
        }
    }
    const QVector<RunHost::Marker> markers = RunHost::timelineMarkers(m_scenario);
    const PlotColours colours = plotColours(currentTheme());
    for (QCustomPlot* plot : m_plots) {
        plot->clearItems();
        // The scenario's faults and lever changes, as on the console's time axis; labels
        // of markers closer than ~8 % of the run step down a row.
        double lastT = -1e300;
        int row = 0;
        for (const RunHost::Marker& m : markers) {
            row = (m.tS - lastT) < m_report.durationS * 0.08 ? (row + 1) % 3 : 0;
            lastT = m.tS;
            auto* line = new QCPItemStraightLine(plot);
            line->point1->setCoords(m.tS, 0);
            line->point2->setCoords(m.tS, 1);
            line->setPen(QPen(colours.marker, 1, Qt::DashLine));
            auto* label = new QCPItemText(plot);
            label->position->setTypeX(QCPItemPosition::ptPlotCoords);
            label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
            label->position->setCoords(m.tS, 0.02 + 0.13 * row);
            label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
            label->setText(m.label);
            label->setColor(colours.text);
            label->setBrush(colours.markerLabelBox);
            label->setClipToAxisRect(true);
        }
        plot->rescaleAxes();
        plot->xAxis->setRange(0, m_report.durationS);
        // Counts and rates: from 0 (an empty series left it at -2..2); three ticks fit a
        // plot 110 px high.
        const QCPRange y = plot->yAxis->range();
        plot->yAxis->setRange(0, std::max(1.0, y.upper * 1.1));
        plot->yAxis->ticker()->setTickCount(3);
        plot->replot();
    }
}

bool CompareView::exportTo(const QString& dir, QString* error)
{
    if (!m_done || m_report.variants.isEmpty()) {
        if (error)
            *error = QStringLiteral("nothing to export yet");
        return false;
    }
    if (!writeReportDir(m_report, dir, error))
        return false;
    // The variants' own four-plot images (shared y-scales, titled, with the timeline's
    // markers), then the overlays, then report.md linking them all.
    QMap<QString, QString> plots;
    QString why;
    QVector<PlotPanel::Marker> markers;
    for (const RunHost::Marker& m : RunHost::timelineMarkers(m_scenario))
        markers.push_back(PlotPanel::Marker{m.tS, m.label});
    if (!writeVariantPngs(m_report, m_series, dir, &plots, &why, kReportPngSize, markers)) {
        if (error)
            *error = why;
        return false;
    }
    const char* names[] = {"outstanding", "tags-not-good", "invoke-rpcs"};
    for (int i = 0; i < m_plots.size(); ++i) {
        const QString name = QStringLiteral("compare-%1.png").arg(names[i]);
        const QString file = QDir(dir).filePath(name);
        if (!m_plots[i]->savePng(file, 1000, 320)) {
            if (error)
                *error = QStringLiteral("cannot write %1").arg(file);
            return false;
        }
        plots.insert(QStringLiteral("compare:%1").arg(m_plotTitles.value(i)), name);
    }
    return writeReportMarkdown(m_report, dir, plots, error);
}

void CompareView::exportInteractively()
{
    const QString dir = QFileDialog::getExistingDirectory(this, QStringLiteral("Export the report to"));
    if (dir.isEmpty())
        return;
    QString error;
    m_status->setText(exportTo(dir, &error) ? QStringLiteral("report written to %1").arg(dir)
                                            : QStringLiteral("export failed: %1").arg(error));
}

} // namespace stormwatch
