#pragma once
// Runs every variant of a scenario in virtual time on a worker thread (progress shown,
// cancelled by closing), then shows the report metrics side by side — rows = metrics,
// columns = variants, the best value of a row highlighted — and the variants' runs
// overlaid (outstanding, tags not Good, gateway Invoke RPCs/s; one colour per variant).
// The report (report.json/.csv/.md + the plots as PNG) is exported to a chosen folder.
// The results are computed on the worker that ran the replay (compare_view_results.h) and
// copied into the widgets a slice per event-loop turn, so a live run beside it stays fluid.
// Compare again (rerun) runs in the same window: its place, size, splitter and the user's
// column widths stay; the last results stay shown until the new ones replace them.

#include "client/thread_host.h"
#include "scenario/report.h"
#include "scenario/scenario.h"
#include "scenario/series.h"
#include "ui/compare_view_results.h"
#include "ui/sliced_fill.h"

#include <QDialog>
#include <QList>
#include <QPointF>
#include <QTimer>
#include <QVector>
#include <atomic>
#include <memory>

class QCustomPlot;
class QLabel;
class QProgressBar;
class QPushButton;
class QTableWidget;
class QThread;

namespace stormwatch {

class CompareView : public QDialog {
    Q_OBJECT
public:
    explicit CompareView(Scenario scenario, QWidget* parent = nullptr);
    ~CompareView() override; // cancels and joins the run

    void start();
    // Runs `scenario` (the same one again, or another) in this window: a run in progress is
    // cancelled first, without waiting for it here. The column widths are kept while the
    // variants are the same.
    void rerun(Scenario scenario);
    const Scenario& scenario() const { return m_scenario; }
    bool running() const { return m_thread.running(); }
    // The run is over and its results are in the table and plots (or it failed: the status).
    bool done() const { return m_done; }
    const ScenarioReport& report() const;
    QTableWidget* table() const { return m_table; }
    // Row of a metric in the table (-1 when absent), e.g. "subscribe_requests".
    int rowOf(const QString& metric) const;
    // Writes report.json, report.csv, <variant>.png (report_png.h), compare-<plot>.png and
    // report.md, whose Plots section embeds every image, into dir.
    bool exportTo(const QString& dir, QString* error);

    // The overlaid plot lines of one variant, as plotted (step series).
    static QVector<QPointF> maxOverSubscriptions(const SeriesSet& series, const QString& metric)
    {
        return stormwatch::maxOverSubscriptions(series, metric);
    }
    static QVector<QPointF> sumOverSubscriptions(const SeriesSet& series,
                                                 const QStringList& metrics)
    {
        return stormwatch::sumOverSubscriptions(series, metrics);
    }

signals:
    void finished(); // the table and plots are filled (or the run failed: see the status)

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    struct Run; // shared with the worker thread
    void beginRun();
    void onDone();
    // The columns share the table's width equally (until the user sizes one of them).
    void shareColumns();
    // One slice of the filling per call (false: none left): the table's header, its rows
    // kRowsPerSlice at a time, then each plot; then filled(): finished().
    bool fillSlice(int stage);
    void filled();
    void fillTableHeader();
    void fillTableRows(int from, int to);
    void fillPlot(int plot);
    void exportInteractively();
    void showProgress(int permille);

    static constexpr int kRowsPerSlice = 8;

    Scenario m_scenario;
    std::shared_ptr<const CompareResults> m_results; // set once the run is over
    std::shared_ptr<Run> m_run;
    ThreadHost m_thread{QStringLiteral("stormwatch-compare")};
    bool m_done = false;
    bool m_rerunPending = false; // a rerun asked while the last run was still going
    SlicedFill m_fill{this};
    bool m_userColumnWidths = false; // the user sized a column: the widths are theirs
    bool m_sharingColumns = false;   // sizing the columns ourselves

    QLabel* m_description = nullptr;
    QLabel* m_status = nullptr;
    QProgressBar* m_progress = nullptr;
    QTimer m_progressPoll; // shows the running replay's progress
    QTableWidget* m_table = nullptr;
    QList<QCustomPlot*> m_plots;
    QStringList m_plotTitles;
    QPushButton* m_export = nullptr;
};

} // namespace stormwatch
