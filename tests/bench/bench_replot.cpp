// Replot cost of the PlotPanel at the load: 20 subscriptions × 3 changing series
// (outstanding, interval, good tags) × 1 h at 1 Hz, plus the gateway series — about a
// quarter million points — on a 1600×900 plot, offscreen. Target: median < 20 ms.
//   bench_replot [--png out.png] [--runs N]
#include "models/support_series_updates.h"
#include "ui/plot_panel.h"

#include <QApplication>
#include <QElapsedTimer>
#include <algorithm>
#include <cstdio>
#include <qcustomplot.h>
#include <vector>

using namespace stormwatch;

namespace {

constexpr int kSubscriptions = 20;
constexpr int kSeconds = 3600;

void fill(SeriesStore& store, int from, int to)
{
    for (int t = from; t < to; ++t) {
        QVector<testsupport::SubscriptionStep> batch;
        for (int i = 0; i < kSubscriptions; ++i) {
            testsupport::SubscriptionStep s;
            s.t = t;
            s.instance = i;                             // Z28061 × gw1, ...
            s.outstanding = (t + i) % 3;                // changes every second
            s.intervalMs = 5000.0 * (1 + (t + i) % 12); // every second
            s.good = 200 - (t * 7 + i) % 40;            // every second
            s.bad = 44;
            batch.push_back(s);
        }
        testsupport::feed(store, batch);
        testsupport::feed(store, testsupport::GatewayStep{.t = double(t),
                                                          .staQueueDepth = double((t * 11) % 37),
                                                          .invokeRps = double(20 + (t * 13) % 50),
                                                          .deadlineExceededPerS =
                                                              (t % 60) < 20 ? double(t % 5) : 0.0,
                                                          .suppressedPerS = t % 3 == 0 ? 1.0 : 0.0,
                                                          .recoveryState = (t % 600) < 90 ? 1 : 0});
    }
}

struct Figures {
    double median, p90;
};

template <typename F> Figures time(int runs, F&& f)
{
    std::vector<double> ms;
    for (int i = 0; i < runs; ++i) {
        QElapsedTimer clock;
        clock.start();
        f(i);
        ms.push_back(double(clock.nsecsElapsed()) / 1e6);
    }
    std::sort(ms.begin(), ms.end());
    return {ms[ms.size() / 2], ms[std::min(ms.size() - 1, ms.size() * 9 / 10)]};
}

} // namespace

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const QStringList args = app.arguments();
    const int pngAt = int(args.indexOf(QStringLiteral("--png")));
    const int runsAt = int(args.indexOf(QStringLiteral("--runs")));
    const int runs = runsAt > 0 ? args.value(runsAt + 1).toInt() : 30;

    SeriesStore store;
    QElapsedTimer clock;
    clock.start();
    fill(store, 0, kSeconds);
    std::printf("fill: %zu points, %.1f MB (approxBytes), %.0f ms\n", store.pointCount(),
                double(store.approxBytes()) / 1e6, double(clock.elapsed()));

    PlotPanel panel(&store);
    panel.show();
    QCustomPlot* plot = panel.customPlot();
    panel.resize(1600, 900 + panel.height() - plot->height());
    QCoreApplication::processEvents();
    panel.resize(1600, 900 + panel.height() - plot->height());
    QCoreApplication::processEvents();
    std::printf("plot: %dx%d\n", plot->width(), plot->height());

    clock.restart();
    panel.showAll();
    panel.refreshNow();
    std::printf("first sync + replot (whole hour): %.1f ms\n", double(clock.nsecsElapsed()) / 1e6);

    const Figures hour = time(runs, [&](int) { plot->replot(QCustomPlot::rpImmediateRefresh); });
    std::printf(
        "replot, whole hour visible:   median %.1f ms, p90 %.1f ms (%d runs; target < 20 ms: %s)\n",
        hour.median, hour.p90, runs, hour.median < 20 ? "met" : "MISSED");
    if (pngAt > 0) {
        QString error;
        if (!panel.exportPng(args.value(pngAt + 1), &error))
            std::printf("png: %s\n", qPrintable(error));
    }

    // Where the time goes, whole hour visible: each group of plots alone.
    {
        const auto only = [&](PlotPanel::Plot keep) {
            for (auto p : {PlotPanel::Plot::Outstanding, PlotPanel::Plot::Interval,
                           PlotPanel::Plot::Quality, PlotPanel::Plot::Gateway})
                for (QCPGraph* g : panel.axisRect(p)->graphs())
                    g->setVisible(p == keep);
            const Figures f =
                time(runs, [&](int) { plot->replot(QCustomPlot::rpImmediateRefresh); });
            std::printf("  only plot %d: median %.1f ms\n", int(keep), f.median);
        };
        for (auto p : {PlotPanel::Plot::Outstanding, PlotPanel::Plot::Interval,
                       PlotPanel::Plot::Quality, PlotPanel::Plot::Gateway})
            only(p);
        for (auto p : {PlotPanel::Plot::Outstanding, PlotPanel::Plot::Interval,
                       PlotPanel::Plot::Quality, PlotPanel::Plot::Gateway})
            for (QCPGraph* g : panel.axisRect(p)->graphs())
                g->setVisible(true);
    }

    panel.resetZoom();
    panel.refreshNow();
    const Figures window = time(runs, [&](int) { plot->replot(QCustomPlot::rpImmediateRefresh); });
    std::printf("replot, 5 min follow window:  median %.1f ms, p90 %.1f ms\n", window.median,
                window.p90);

    // A live tick: one more second of samples, then sync + follow + rescale + replot.
    int t = kSeconds;
    const Figures tick = time(runs, [&](int) {
        fill(store, t, t + 1);
        ++t;
        panel.refreshNow();
    });
    std::printf(
        "live tick (append 1 s + sync + replot, 5 min window): median %.1f ms, p90 %.1f ms\n",
        tick.median, tick.p90);
    panel.showAll();
    const Figures tickAll = time(runs, [&](int) {
        fill(store, t, t + 1);
        ++t;
        panel.refreshNow();
    });
    std::printf("live tick, whole hour visible: median %.1f ms, p90 %.1f ms\n", tickAll.median,
                tickAll.p90);
    std::printf("after ticks: %zu points, %.1f MB\n", store.pointCount(),
                double(store.approxBytes()) / 1e6);
    return 0;
}
