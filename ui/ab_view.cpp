#include "ui/ab_view.h"

#include "scenario/run_host.h"
#include "scenario/scenario_runner.h"
#include "ui/plot_panel.h"
#include "ui/report_png.h"

#include <QBoxLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPointer>
#include <QPushButton>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <qcustomplot.h>

namespace stormwatch {

struct AbView::Run {
    std::atomic<bool> cancel{false};
    ScenarioReport report;
    QList<SeriesSet> series;
    QString error;
};

AbView::AbView(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("abView"));
    auto* column = new QVBoxLayout(this);
    column->setContentsMargins(0, 0, 0, 0);
    auto* header = new QHBoxLayout;
    m_status = new QLabel(tr("A/B: no run yet"));
    m_status->setObjectName(QStringLiteral("abStatus"));
    m_status->setWordWrap(true); // a long status must not hold the window wide
    auto* close = new QPushButton(tr("Back to the console's plots"));
    close->setObjectName(QStringLiteral("abClose"));
    connect(close, &QPushButton::clicked, this, &AbView::closeRequested);
    header->addWidget(m_status, 1);
    header->addWidget(close);
    column->addLayout(header);
    auto* sides = m_sides = new QBoxLayout(QBoxLayout::LeftToRight);
    for (int i = 0; i < 2; ++i) {
        m_stores[std::size_t(i)] = std::make_unique<SeriesStore>();
        auto* side = new QVBoxLayout;
        auto* label = m_labels[std::size_t(i)] = new QLabel;
        label->setObjectName(i == 0 ? QStringLiteral("abLabelA") : QStringLiteral("abLabelB"));
        QFont bold = label->font();
        bold.setBold(true);
        bold.setPointSizeF(bold.pointSizeF() * 1.2);
        label->setFont(bold);
        label->setWordWrap(true);
        auto* panel = m_panels[std::size_t(i)] = new PlotPanel(m_stores[std::size_t(i)].get());
        panel->setObjectName(i == 0 ? QStringLiteral("abPlotsA") : QStringLiteral("abPlotsB"));
        // Two finished runs: nothing to follow or keep; the header says what is shown, and
        // each side chooses its plots (at 1024 x 700 two sides of four are too short to read).
        panel->toolBar()->hide();
        auto* plots = m_plotButtons[std::size_t(i)] = new QToolButton;
        plots->setObjectName(i == 0 ? QStringLiteral("abPlotsButtonA")
                                    : QStringLiteral("abPlotsButtonB"));
        plots->setText(tr("Plots"));
        plots->setToolTip(tr("Choose which plots side %1 draws").arg(i == 0 ? "A" : "B"));
        plots->setMenu(panel->plotsMenu());
        plots->setPopupMode(QToolButton::InstantPopup);
        auto* title = new QHBoxLayout;
        title->addWidget(label, 1);
        title->addWidget(plots, 0, Qt::AlignTop);
        // The plot's own minimum (its legends' width) would hold the window wider than a
        // 1024 px screen once two are side by side.
        panel->customPlot()->setMinimumSize(120, 150);
        side->addLayout(title);
        side->addWidget(panel, 1);
        sides->addLayout(side, 1);
        connect(panel, &PlotPanel::xRangeChanged, this, [this, i] { follow(i); });
        connect(panel, &PlotPanel::shownPlotsChanged, this, &AbView::arrangeSides);
    }
    column->addLayout(sides, 1);
    // Its own minimum, not its layout's: side by side, the layout's would hold the window at
    // two sides' width, so the sides would never learn (arrangeSides) that they should go one
    // above the other. They do below two kMinSideWidth.
    setMinimumSize(kMinSideWidth, 200);
}

AbView::~AbView()
{
    if (m_thread.running()) {
        m_run->cancel = true;
        m_thread.join();
    }
}

void AbView::start(const Scenario& scenario, const QString& a, const QString& b)
{
    if (m_thread.running()) {
        m_run->cancel = true;
        m_thread.join();
    }
    m_done = false;
    m_fill.cancel();
    m_scenario = scenario;
    m_variants = {a, b};
    for (int i = 0; i < 2; ++i) {
        m_panels[std::size_t(i)]->setUpdatesEnabled(true);
        m_stores[std::size_t(i)]->clear();
        m_panels[std::size_t(i)]->clearMarkers();
        m_labels[std::size_t(i)]->setText(
            QStringLiteral("%1: %2").arg(i == 0 ? "A" : "B", m_variants[i]));
    }
    m_status->setText(tr("A/B: running %1 — %2 and %3 in virtual time…").arg(scenario.name, a, b));
    m_thread.release(std::move(m_run)); // the last run's series are freed on its thread, not here
    m_run = std::make_shared<Run>();
    m_thread.run(
        [run = m_run, scenario, variants = m_variants] {
            run->report = runScenario(scenario, variants, std::nullopt, {}, &run->error,
                                      &run->series, [run] { return run->cancel.load(); });
        },
        [this] { onDone(); },
        ThreadHost::Priority::Background); // yields the core to the UI and the live run
}

void AbView::setTheme(Theme theme)
{
    for (PlotPanel* panel : m_panels)
        panel->setTheme(theme);
}

void AbView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    arrangeSides();
}

bool AbView::sideBySide() const
{
    return m_sides->direction() == QBoxLayout::LeftToRight;
}

void AbView::arrangeSides()
{
    int plots = 1;
    for (PlotPanel* panel : m_panels) {
        int shown = 0;
        for (int p = 0; p < PlotPanel::kPlotCount; ++p)
            shown += panel->plotShown(PlotPanel::Plot(p));
        plots = std::max(plots, shown);
    }
    // What a side has beside its plots' data: its title, the subscriptions' legend and the
    // time axis, and each plot's own axis margins.
    const int chrome = m_labels[0]->sizeHint().height() + 65;
    constexpr int kPerPlot = 20;
    const int sides = m_sides->geometry().isValid() ? m_sides->geometry().height() : height();
    const int stackedPlotHeight = (sides / 2 - chrome) / plots - kPerPlot;
    const bool wide = width() >= kSideBySideWidth ||
                      (stackedPlotHeight < kMinStackedPlotHeight && width() / 2 >= kMinSideWidth);
    m_sides->setDirection(wide ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom);
}

QString AbView::status() const
{
    return m_status->text();
}

void AbView::onDone()
{
    if (!m_run->error.isEmpty() || m_run->series.size() != 2 ||
        m_run->report.variants.size() != 2) {
        m_done = true;
        m_status->setText(tr("A/B: cannot run: %1").arg(m_run->error));
        emit finished();
        return;
    }
    m_shared = PlotPanel::ValueScale{};
    // The sides are shown whole once both are in: not one loaded and unscaled between slices.
    for (PlotPanel* panel : m_panels)
        panel->setUpdatesEnabled(false);
    m_fill.start([this](int stage) { return fillSlice(stage); }, [this] { filled(); });
}

// Loading both sides at once took one UI event of up to tens of ms (two runs' series into
// their stores, their scales, two whole-run replots): now each is a slice of its own.
bool AbView::fillSlice(int stage)
{
    const std::size_t side = std::size_t(stage % 2);
    if (stage < 2) {
        loadSeriesSet(m_run->series[qsizetype(side)], *m_stores[side]);
    } else if (stage < 4) {
        m_shared = m_shared.max(PlotPanel::wholeRunScale(*m_stores[side], m_panels[side]->size()));
    } else if (stage < 6) {
        QVector<PlotPanel::Marker> markers;
        for (const RunHost::Marker& m : RunHost::timelineMarkers(m_scenario))
            markers.push_back(PlotPanel::Marker{m.tS, m.label});
        // The variant's title as on its report image: variant and levers.
        m_labels[side]->setText(QStringLiteral("%1: %2").arg(
            side == 0 ? "A" : "B",
            variantPngTitle(m_run->report, m_run->report.variants[qsizetype(side)])));
        PlotPanel* panel = m_panels[side];
        panel->addMarkers(markers);
        panel->setValueScale(m_shared);
        panel->showAll();
    } else {
        return false;
    }
    return true;
}

void AbView::filled()
{
    for (PlotPanel* panel : m_panels)
        panel->setUpdatesEnabled(true);
    m_status->setText(
        tr("A/B: %1, %2 virtual s each, seed %3 — the same y-scale on both sides; zoom or pan "
           "one side and the other follows")
            .arg(m_run->report.scenario)
            .arg(m_run->report.durationS)
            .arg(m_run->report.seed));
    m_done = true;
    emit finished();
}

void AbView::follow(int from)
{
    if (m_syncing)
        return;
    m_syncing = true;
    PlotPanel* source = m_panels[std::size_t(from)];
    m_panels[std::size_t(1 - from)]->setXRange(source->xLower(), source->xUpper());
    m_syncing = false;
}

} // namespace stormwatch
