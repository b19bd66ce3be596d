#include "ui/compare_view.h"

#include "scenario/metric_table.h"
#include "scenario/report_writers.h"
#include "scenario/run_host.h"
#include "scenario/scenario_runner.h"
#include "ui/plain_progress_bar.h"
#include "ui/plot_theme.h"
#include "ui/report_png.h"

#include <QDir>
#include <QElapsedTimer>
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
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <qcustomplot.h>
#include <utility>

namespace stormwatch {

namespace {

const QList<QColor>& variantColours()
{
    static const QList<QColor> colours{QColor(0xd6, 0x27, 0x28), QColor(0x1f, 0x77, 0xb4),
                                       QColor(0x2c, 0xa0, 0x2c), QColor(0xff, 0x7f, 0x0e),
                                       QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b)};
    return colours;
}

} // namespace

struct CompareView::Run {
    std::atomic<bool> cancel{false};
    std::atomic<int> permille{0};                  // the replay's progress, read by the UI's timer
    std::shared_ptr<const CompareResults> results; // written by the worker, read once it ended
    QString error;
};

CompareView::CompareView(Scenario scenario, QWidget* parent)
    : QDialog(parent), m_scenario(std::move(scenario))
{
    setWindowTitle(QStringLiteral("Compare variants — %1").arg(m_scenario.name));
    resize(1100, 800);
    auto* layout = new QVBoxLayout(this);
    m_description = new QLabel(m_scenario.description, this);
    m_description->setWordWrap(true);
    layout->addWidget(m_description);
    auto* progressRow = new QHBoxLayout;
    m_status = new QLabel(QStringLiteral("ready"), this);
    m_progress = new PlainProgressBar(this); // Fusion's cost ms a paint (plain_progress_bar.h)
    m_progress->setRange(0, 1000);
    m_progressPoll.setInterval(100);
    m_progressPoll.setObjectName(QStringLiteral("compare progress poll"));
    connect(&m_progressPoll, &QTimer::timeout, this, [this] {
        if (m_run)
            showProgress(m_run->permille);
    });
    progressRow->addWidget(m_status, 1);
    progressRow->addWidget(m_progress, 2);
    layout->addLayout(progressRow);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    m_table = new QTableWidget(this);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    // Fixed rows of one text line: sizing them to their contents measured every cell's text
    // again on each change, on the UI thread.
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 8);
    // The columns share the width until the user sizes one; then the widths are theirs, kept
    // across Compare again (a stretched header could not be sized at all).
    QHeaderView* columns = m_table->horizontalHeader();
    columns->setSectionResizeMode(QHeaderView::Interactive);
    columns->setStretchLastSection(true);
    connect(columns, &QHeaderView::sectionResized, this, [this](int logical, int, int) {
        // The stretched last column follows the table's width; the others move only by hand.
        if (!m_sharingColumns && logical < m_table->columnCount() - 1)
            m_userColumnWidths = true;
    });
    m_table->viewport()->installEventFilter(this);
    splitter->addWidget(m_table);
    auto* plots = new QWidget(this);
    auto* plotLayout = new QVBoxLayout(plots);
    plotLayout->setContentsMargins(0, 0, 0, 0);
    for (const QString& title :
         {QStringLiteral("outstanding (max over subscriptions)"), QStringLiteral("tags not Good"),
          QStringLiteral("gateway Invoke RPCs/s")}) {
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
        // Painted with the window's next paint, not inside the replot (as in PlotPanel).
        plot->setPlottingHint(QCP::phImmediateRefresh, false);
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
    if (m_thread.running() || m_done || m_fill.active())
        return;
    beginRun();
}

void CompareView::rerun(Scenario scenario)
{
    m_scenario = std::move(scenario);
    setWindowTitle(QStringLiteral("Compare variants — %1").arg(m_scenario.name));
    m_description->setText(m_scenario.description);
    m_done = false;
    m_export->setEnabled(false);
    // An unfinished filling is abandoned; what is already shown stays until replaced.
    m_fill.cancel();
    m_table->setUpdatesEnabled(true);
    if (m_thread.running()) {
        // Not joined here: the replay stops at its next step and onDone starts this one.
        m_run->cancel = true;
        m_rerunPending = true;
        m_status->setText(QStringLiteral("stopping the last run…"));
        return;
    }
    beginRun();
}

void CompareView::beginRun()
{
    m_rerunPending = false;
    m_run = std::make_shared<Run>();
    showProgress(0);
    m_status->setText(
        QStringLiteral("running %1 variants in virtual time…").arg(m_scenario.variants.size()));
    // The UI reads the progress ten times a second (m_progressPoll): the replay thread, at a
    // low priority, posts nothing to the UI thread while it runs. (A post takes the UI
    // thread's event-queue lock; preempted there, a low-priority thread held the UI up.)
    auto progress = [run = m_run](double fraction) { run->permille = int(fraction * 1000); };
    m_progressPoll.start();
    // The same loop as the headless report; closing the window cancels between steps.
    m_thread.run(
        [run = m_run, scenario = m_scenario, progress] {
            QList<SeriesSet> series;
            ScenarioReport report = runScenario(scenario, {}, std::nullopt, progress, &run->error,
                                                &series, [run] { return run->cancel.load(); });
            if (run->error.isEmpty() && !run->cancel)
                run->results = std::make_shared<const CompareResults>(
                    compareResults(std::move(report), std::move(series)));
        },
        [this] { onDone(); },
        ThreadHost::Priority::Background); // yields the core to the UI and the live run
}

void CompareView::showProgress(int permille)
{
    // QProgressBar::setValue repaints at once, and a repaint paints everything else waiting
    // in the window too (a table just filled: ~10 ms in one UI event). Painted with the
    // window's next paint instead.
    if (m_progress->value() == permille)
        return;
    m_progress->setUpdatesEnabled(false);
    m_progress->setValue(permille);
    m_progress->setUpdatesEnabled(true); // schedules the paint
}

const ScenarioReport& CompareView::report() const
{
    static const ScenarioReport none;
    return m_results ? m_results->report : none;
}

void CompareView::onDone()
{
    m_progressPoll.stop();
    if (m_rerunPending) {
        beginRun();
        return;
    }
    if (!m_run->error.isEmpty() || !m_run->results) {
        m_done = true;
        m_status->setText(
            QStringLiteral("cannot run: %1")
                .arg(m_run->error.isEmpty() ? QStringLiteral("no result") : m_run->error));
        emit finished();
        return;
    }
    // The last run's results (every variant's series: ~40 ms to free on a busy machine) are
    // freed on the replay's thread, not here.
    m_thread.release(std::exchange(m_results, m_run->results));
    const ScenarioReport& report = m_results->report;
    showProgress(1000);
    m_status->setText(QStringLiteral("%1: %2 variants, %3 virtual s each, seed %4")
                          .arg(report.scenario)
                          .arg(report.variants.size())
                          .arg(report.durationS)
                          .arg(report.seed));
    m_fill.start([this](int stage) { return fillSlice(stage); }, [this] { filled(); });
}

bool CompareView::fillSlice(int stage)
{
    const int rows = int(m_results->rows.size());
    const int rowSlices = (rows + kRowsPerSlice - 1) / kRowsPerSlice;
    if (stage == 0) {
        fillTableHeader();
    } else if (stage <= rowSlices) {
        const int from = (stage - 1) * kRowsPerSlice;
        fillTableRows(from, std::min(rows, from + kRowsPerSlice));
    } else if (stage - 1 - rowSlices < m_plots.size()) {
        if (stage - 1 - rowSlices == 0)
            m_table->setUpdatesEnabled(true); // the table is whole: painted once
        fillPlot(stage - 1 - rowSlices);
    } else {
        return false;
    }
    return true;
}

void CompareView::filled()
{
    m_export->setEnabled(true);
    m_done = true;
    emit finished();
}

void CompareView::fillTableHeader()
{
    const ScenarioReport& report = m_results->report;
    m_table->setUpdatesEnabled(false);
    QStringList headers;
    for (const VariantMetrics& v : report.variants)
        headers << v.name;
    QStringList shown;
    for (int c = 0; c < m_table->columnCount(); ++c)
        shown << (m_table->horizontalHeaderItem(c) ? m_table->horizontalHeaderItem(c)->text()
                                                   : QString());
    const bool sameColumns = shown == headers;
    m_table->clear(); // the items; the columns and their widths stay
    m_table->setRowCount(int(m_results->rows.size()));
    if (!sameColumns) {
        m_sharingColumns = true;
        m_table->setColumnCount(int(headers.size()));
        m_sharingColumns = false;
        m_userColumnWidths = false; // other variants: laid out afresh
    }
    m_table->setHorizontalHeaderLabels(headers);
    QStringList rowNames;
    for (const CompareRow& r : m_results->rows)
        rowNames << r.name;
    m_table->setVerticalHeaderLabels(rowNames);
    for (int r = 0; r < m_results->rows.size(); ++r) {
        m_table->verticalHeaderItem(r)->setData(Qt::UserRole, m_results->rows[r].key);
        m_table->verticalHeaderItem(r)->setToolTip(m_results->rows[r].tooltip);
    }
    if (!m_userColumnWidths)
        shareColumns();
}

void CompareView::shareColumns()
{
    const int n = m_table->columnCount();
    if (n == 0)
        return;
    m_sharingColumns = true;
    const int width = m_table->viewport()->width() / n;
    for (int c = 0; c < n - 1; ++c)
        m_table->horizontalHeader()->resizeSection(c, width);
    m_sharingColumns = false; // the last one stretches to the rest
}

bool CompareView::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_table->viewport() && event->type() == QEvent::Resize && !m_userColumnWidths)
        shareColumns();
    return QDialog::eventFilter(watched, event);
}

void CompareView::fillTableRows(int from, int to)
{
    const QColor bestBackground =
        currentTheme() == Theme::Dark ? QColor(0x2e, 0x5a, 0x34) : QColor(0xc8, 0xe6, 0xc9);
    for (int r = from; r < to; ++r) {
        const CompareRow& row = m_results->rows[r];
        for (int c = 0; c < row.cells.size(); ++c) {
            auto* item = new QTableWidgetItem(row.cells[c].text);
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            item->setToolTip(row.tooltip);
            if (row.cells[c].best) {
                QFont bold = item->font();
                bold.setBold(true);
                item->setFont(bold);
                item->setBackground(bestBackground);
                item->setData(Qt::UserRole, true);
            }
            m_table->setItem(r, c, item);
        }
    }
}

int CompareView::rowOf(const QString& metric) const
{
    for (int r = 0; r < m_table->rowCount(); ++r)
        if (m_table->verticalHeaderItem(r) &&
            m_table->verticalHeaderItem(r)->data(Qt::UserRole).toString() == metric)
            return r;
    return -1;
}

void CompareView::fillPlot(int index)
{
    const ScenarioReport& report = m_results->report;
    QCustomPlot* plot = m_plots[index];
    plot->clearGraphs();
    const QVector<CompareLine>& lines = m_results->lines[std::size_t(index)];
    for (int v = 0; v < lines.size() && v < report.variants.size(); ++v) {
        QCPGraph* graph = plot->addGraph();
        graph->setName(report.variants[v].name);
        graph->setLineStyle(QCPGraph::lsStepLeft);
        graph->setPen(QPen(variantColours()[v % variantColours().size()], 2));
        // Steps are horizontal and vertical: antialiasing changes nothing a person sees and
        // made a 2 px line several times slower to draw.
        graph->setAntialiased(false);
        graph->setData(lines[v].x, lines[v].y, true);
    }
    const PlotColours colours = plotColours(currentTheme());
    plot->clearItems();
    // The scenario's faults and lever changes, as on the console's time axis; labels of
    // markers closer than ~8 % of the run step down a row.
    double lastT = -1e300;
    int row = 0;
    for (const RunHost::Marker& m : RunHost::timelineMarkers(m_scenario)) {
        row = (m.tS - lastT) < report.durationS * 0.08 ? (row + 1) % 3 : 0;
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
    plot->xAxis->setRange(0, report.durationS);
    // Counts and rates: from 0 (an empty series left it at -2..2); three ticks fit a plot
    // 110 px high.
    const QCPRange y = plot->yAxis->range();
    plot->yAxis->setRange(0, std::max(1.0, y.upper * 1.1));
    plot->yAxis->ticker()->setTickCount(3);
    plot->replot();
}

bool CompareView::exportTo(const QString& dir, QString* error)
{
    if (!m_done || !m_results || m_results->report.variants.isEmpty()) {
        if (error)
            *error = QStringLiteral("nothing to export yet");
        return false;
    }
    const ScenarioReport& report = m_results->report;
    if (!writeReportDir(report, dir, error))
        return false;
    // The variants' own four-plot images (shared y-scales, titled, with the timeline's
    // markers), then the overlays, then report.md linking them all.
    QMap<QString, QString> plots;
    QString why;
    QVector<PlotPanel::Marker> markers;
    for (const RunHost::Marker& m : RunHost::timelineMarkers(m_scenario))
        markers.push_back(PlotPanel::Marker{m.tS, m.label});
    if (!writeVariantPngs(report, m_results->series, dir, &plots, &why, kReportPngSize, markers)) {
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
    return writeReportMarkdown(report, dir, plots, error);
}

void CompareView::exportInteractively()
{
    const QString dir =
        QFileDialog::getExistingDirectory(this, QStringLiteral("Export the report to"));
    if (dir.isEmpty())
        return;
    QString error;
    m_status->setText(exportTo(dir, &error) ? QStringLiteral("report written to %1").arg(dir)
                                            : QStringLiteral("export failed: %1").arg(error));
}

} // namespace stormwatch
