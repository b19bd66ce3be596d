#pragma once
// A/B side by side in the main window: two variants of one scenario, run in virtual time
// on a worker thread, drawn as two plot panels left and right, each labelled with its
// variant and levers, on one time axis — a zoom or pan on one moves the other in lock-step —
// with one y-scale per plot for both and the scenario's timeline as markers. The finished
// runs reach the panels a slice per event-loop turn (each side's series, scale, view), so a
// live run beside the view stays fluid.

#include "client/thread_host.h"
#include "models/series_store.h"
#include "scenario/scenario.h"
#include "scenario/series.h"
#include "ui/plot_panel.h"
#include "ui/sliced_fill.h"
#include "ui/theme.h"

#include <QWidget>
#include <array>
#include <atomic>
#include <memory>

class QBoxLayout;
class QLabel;
class QToolButton;

namespace stormwatch {

class AbView : public QWidget {
    Q_OBJECT
public:
    explicit AbView(QWidget* parent = nullptr);
    ~AbView() override; // cancels and joins a run in progress

    // Runs variants a and b of `scenario` (cancelling a run in progress); finished() once
    // both are drawn, or with status() saying why not.
    void start(const Scenario& scenario, const QString& a, const QString& b);
    bool running() const { return m_thread.running(); }
    bool done() const { return m_done; }
    QString status() const;
    void setTheme(Theme theme);
    PlotPanel* panel(int side) const { return m_panels[std::size_t(side)]; }
    QLabel* label(int side) const { return m_labels[std::size_t(side)]; }
    // Opens the side's PlotPanel::plotsMenu().
    QToolButton* plotsButton(int side) const { return m_plotButtons[std::size_t(side)]; }

    // Side by side from this width on. Below it, A above B (the time axes keep their width)
    // while each plot keeps kMinStackedPlotHeight; where stacked plots would be shorter, side
    // by side while each side keeps kMinSideWidth (the plots keep their height).
    static constexpr int kSideBySideWidth = 1200;
    static constexpr int kMinStackedPlotHeight = 50;
    static constexpr int kMinSideWidth = 320;
    bool sideBySide() const;

signals:
    void finished();
    void closeRequested();

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    struct Run;
    void onDone();
    // One slice of showing the runs (false: none left); then filled(): finished().
    bool fillSlice(int stage);
    void filled();
    void follow(int from); // the other panel takes `from`'s time range
    void arrangeSides();

    ThreadHost m_thread{QStringLiteral("stormwatch-ab")};
    std::shared_ptr<Run> m_run;
    Scenario m_scenario;
    QStringList m_variants;
    bool m_done = false;
    bool m_syncing = false;
    SlicedFill m_fill{this};
    PlotPanel::ValueScale m_shared; // the y-scale both sides get, built while filling
    QLabel* m_status = nullptr;
    QBoxLayout* m_sides = nullptr;
    std::array<std::unique_ptr<SeriesStore>, 2> m_stores;
    std::array<PlotPanel*, 2> m_panels{};
    std::array<QLabel*, 2> m_labels{};
    std::array<QToolButton*, 2> m_plotButtons{};
};

} // namespace stormwatch
