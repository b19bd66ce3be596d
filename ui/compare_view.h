#pragma once
// Runs every variant of a scenario in virtual time on a worker thread (progress shown,
// cancelled by closing), then shows the DESIGN.md metrics side by side — rows = metrics,
// columns = variants, the best value of a row highlighted — and the variants' runs
// overlaid (outstanding, tags not Good, gateway Invoke RPCs/s; one colour per variant).
// The report (report.json/.csv/.md + the plots as PNG) is exported to a chosen folder.

#include "scenario/report.h"
#include "scenario/scenario.h"
#include "scenario/series.h"

#include "client/thread_host.h"

#include <QDialog>
#include <QList>
#include <QPointF>
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
    bool running() const { return m_thread.running(); }
    bool done() const { return m_done; }
    const ScenarioReport& report() const { return m_report; }
    QTableWidget* table() const { return m_table; }
    // Row of a metric in the table (-1 when absent), e.g. "subscribe_requests".
    int rowOf(const QString& metric) const;
    // Writes report.json, report.csv, <variant>.png (report_png.h), compare-<plot>.png and
    // report.md, whose Plots section embeds every image, into dir.
    bool exportTo(const QString& dir, QString* error);

    // The overlaid plot lines of one variant, as plotted (step series).
    static QVector<QPointF> maxOverSubscriptions(const SeriesSet& series, const QString& metric);
    static QVector<QPointF> sumOverSubscriptions(const SeriesSet& series, const QStringList& metrics);

signals:
    void finished(); // the table and plots are filled (or the run failed: see the status)

private:
    struct Run; // shared with the worker thread
    void onDone();
    void fillTable();
    void fillPlots();
    void exportInteractively();

    Scenario m_scenario;
    ScenarioReport m_report;
    QList<SeriesSet> m_series;
    std::shared_ptr<Run> m_run;
    ThreadHost m_thread{QStringLiteral("stormwatch-compare")};
    bool m_done = false;

    QLabel* m_status = nullptr;
    QProgressBar* m_progress = nullptr;
    QTableWidget* m_table = nullptr;
    QList<QCustomPlot*> m_plots;
    QStringList m_plotTitles;
    QPushButton* m_export = nullptr;
};

} // namespace stormwatch
