// PlotPanel over a SeriesStore, offscreen: data reaching the graphs through the throttle,
// selection and legend, follow-live / zoom / reset, crosshair values, exports.
#include "models/support_series_updates.h"
#include "ui/plot_data.h"
#include "ui/plot_panel.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QMenu>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QToolBar>
#include <QToolButton>
#include <QtTest>
#include <qcustomplot.h>

using namespace stormwatch;
using stormwatch::testsupport::GatewayStep;
using stormwatch::testsupport::sample;
using stormwatch::testsupport::SubscriptionStep;

namespace {

const SubscriptionKey k0{0, false};
const SubscriptionKey k1{1, false};

// Two subscriptions over [0, seconds]: k0 flips outstanding 0/1 every second, k1 stays at 0
// with a 10 s interval; 10 tags each, k0 has 2 bad from t=5.
void feed(SeriesStore& store, int from, int to)
{
    for (int t = from; t <= to; ++t) {
        testsupport::feed(store, {sample(t, 0, t % 2, 5000, t >= 5 ? 8 : 10, t >= 5 ? 2 : 0),
                                  sample(t, 1, 0, 10000, 10, 0)});
        testsupport::feed(store, GatewayStep{.t = double(t),
                                             .staQueueDepth = double(t % 4),
                                             .invokeRps = 3,
                                             .recoveryState = (t >= 6 && t < 8) ? 1 : 0});
    }
}

QCPRange xRangeOf(PlotPanel& panel, PlotPanel::Plot p)
{
    return panel.axisRect(p)->axis(QCPAxis::atBottom)->range();
}

void wheel(PlotPanel& panel, PlotPanel::Plot p, int angle)
{
    QCustomPlot* plot = panel.customPlot();
    const QPointF at = panel.axisRect(p)->rect().center();
    QWheelEvent event(at, plot->mapToGlobal(at), QPoint(), QPoint(0, angle), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(plot, &event);
}

} // namespace

class TestPlotPanel : public QObject {
    Q_OBJECT
private slots:
    void samplesReachTheGraphsAfterAThrottleTick()
    {
        SeriesStore store;
        PlotPanel panel(&store);
        panel.resize(1200, 900);
        panel.show();
        QSignalSpy replotted(&panel, &PlotPanel::replotted);
        feed(store, 0, 10);
        QVERIFY(replotted.wait(2000));
        QCPGraph* out = panel.subscriptionGraph(k0, SubMetric::Outstanding);
        QVERIFY(out);
        // a point per change (11) — the last one already at the latest time
        QTRY_COMPARE(out->data()->size(), 11);
        QCOMPARE(out->data()->at(10)->value, 0.0);
        // k1 never changes: its one point, held to the latest time
        QCPGraph* interval1 = panel.subscriptionGraph(k1, SubMetric::IntervalS);
        QCOMPARE(interval1->data()->size(), 2);
        QCOMPARE(interval1->data()->at(1)->key, 10.0);
        QCOMPARE(interval1->data()->at(1)->value, 10.0);
        // stacked quality, summed over both: good 18, good+uncertain 18, all 20 at t=5..
        QCPGraph* bad = panel.qualityGraph(SubMetric::Bad);
        QCPGraph* good = panel.qualityGraph(SubMetric::Good);
        QCOMPARE(good->data()->findBegin(7, true)->value, 18.0);
        QCOMPARE(bad->data()->findBegin(7, true)->value, 20.0);
        QCOMPARE(good->data()->findBegin(2, true)->value, 20.0);
        // gateway: rate (3/s) and the recovering band over [6, 8)
        QCPGraph* invokes = panel.gatewayGraph(GatewayMetric::InvokeRps);
        QCOMPARE(invokes->data()->findBegin(4, true)->value, 3.0);
        QCPGraph* band = panel.gatewayGraph(GatewayMetric::RecoveryState);
        QCOMPARE(band->data()->findBegin(6.5, true)->value, 1.0);
        QCOMPARE(band->data()->findBegin(8.5, true)->value, 0.0);

        // more data: only appended, still in step with the store
        feed(store, 11, 20);
        QTRY_COMPARE(out->data()->size(), 21);
        QCOMPARE(interval1->data()->at(1)->key, 20.0);
    }

    // Good tags gone stale are their own band, between good and uncertain: the Good series
    // counts them (the gateway says Good), the good band does not; the crosshair names them.
    void staleGoodTagsHaveTheirOwnBand()
    {
        SeriesStore store;
        PlotPanel panel(&store);
        for (int t = 0; t <= 10; ++t) {
            SubscriptionStep s = sample(t, 0, 0, 5000, 10, 0);
            s.stale = t >= 5 ? 4 : 0;
            testsupport::feed(store, {s});
        }
        panel.refreshNow();
        QCOMPARE(panel.qualityGraph(SubMetric::Good)->data()->findBegin(7, true)->value, 6.0);
        QCOMPARE(panel.qualityGraph(SubMetric::Stale)->data()->findBegin(7, true)->value, 10.0);
        QCOMPARE(panel.qualityGraph(SubMetric::Uncertain)->data()->findBegin(7, true)->value, 10.0);
        QCOMPARE(panel.qualityGraph(SubMetric::Bad)->data()->findBegin(7, true)->value, 10.0);
        QCOMPARE(panel.qualityGraph(SubMetric::Good)->data()->findBegin(2, true)->value, 10.0);
        QVERIFY2(
            panel.crosshairText(7).contains(QStringLiteral("good 6, stale 4, uncertain 0, bad 0")),
            qPrintable(panel.crosshairText(7)));
        // No stale tag, no word about it.
        QVERIFY2(!panel.crosshairText(2).contains(QStringLiteral("stale")),
                 qPrintable(panel.crosshairText(2)));
    }

    void selectionHidesOtherSubscriptions()
    {
        SeriesStore store;
        PlotPanel panel(&store);
        feed(store, 0, 10);
        panel.refreshNow();
        QCOMPARE(panel.subscriptionLegend()->itemCount(), 2);
        panel.setSelectedSubscriptions({k1});
        panel.refreshNow();
        QVERIFY(!panel.subscriptionGraph(k0, SubMetric::Outstanding)->visible());
        QVERIFY(!panel.subscriptionGraph(k0, SubMetric::IntervalS)->visible());
        QVERIFY(panel.subscriptionGraph(k1, SubMetric::Outstanding)->visible());
        QCOMPARE(panel.subscriptionLegend()->itemCount(), 1);
        QCOMPARE(panel.visibleSubscriptions(), QList<SubscriptionKey>{k1});
        // quality now sums k1 alone: 10 good, no bad
        QCOMPARE(panel.qualityGraph(SubMetric::Bad)->data()->findBegin(7, true)->value, 10.0);
        QVERIFY(!panel.crosshairText(7).contains(QStringLiteral("Z28061")));
        panel.setSelectedSubscriptions({}); // back to all
        QVERIFY(panel.subscriptionGraph(k0, SubMetric::Outstanding)->visible());
        QCOMPARE(panel.subscriptionLegend()->itemCount(), 2);
    }

    void legendClickTogglesASubscription()
    {
        SeriesStore store;
        PlotPanel panel(&store);
        panel.resize(1200, 900);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        feed(store, 0, 10);
        panel.refreshNow();
        QCPAbstractLegendItem* item = panel.subscriptionLegend()->item(0);
        QVERIFY(item);
        const QPoint at = item->outerRect().center();
        QTest::mouseClick(panel.customPlot(), Qt::LeftButton, Qt::NoModifier, at);
        QVERIFY(panel.isSubscriptionHidden(k0));
        QVERIFY(!panel.subscriptionGraph(k0, SubMetric::Outstanding)->visible());
        QVERIFY(!panel.subscriptionGraph(k0, SubMetric::IntervalS)->visible());
        QCOMPARE(panel.subscriptionLegend()->itemCount(), 2); // still listed, greyed
        panel.refreshNow();
        QTest::mouseClick(panel.customPlot(), Qt::LeftButton, Qt::NoModifier,
                          panel.subscriptionLegend()->item(0)->outerRect().center());
        QVERIFY(!panel.isSubscriptionHidden(k0));
        QVERIFY(panel.subscriptionGraph(k0, SubMetric::Outstanding)->visible());

        // a gateway legend entry toggles its own graph
        QCPGraph* invokes = panel.gatewayGraph(GatewayMetric::InvokeRps);
        QCPPlottableLegendItem* gwItem = nullptr;
        for (QCPLegend* l : panel.customPlot()->findChildren<QCPLegend*>())
            if (l != panel.subscriptionLegend() && l->itemWithPlottable(invokes))
                gwItem = l->itemWithPlottable(invokes);
        QVERIFY(gwItem);
        QTest::mouseClick(panel.customPlot(), Qt::LeftButton, Qt::NoModifier,
                          gwItem->outerRect().center());
        QVERIFY(!invokes->visible());
        QVERIFY(!panel.crosshairText(5).contains(QStringLiteral("Invoke")));
    }

    void followLiveWindowMovesWithNewData()
    {
        SeriesStore store;
        PlotPanel panel(&store);
        panel.resize(1200, 900);
        panel.show(); // a panel nobody sees does not replot (hiddenOrMinimizedPlots…)
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QVERIFY(panel.followLive());
        QCOMPARE(panel.windowSeconds(), 300.0);
        panel.setWindowSeconds(60);
        feed(store, 0, 10);
        panel.refreshNow();
        // less data than the window: the first window, filling up
        QCOMPARE(xRangeOf(panel, PlotPanel::Plot::Gateway), QCPRange(0, 60));
        feed(store, 11, 100);
        QTRY_COMPARE(xRangeOf(panel, PlotPanel::Plot::Outstanding), QCPRange(40, 100));
        feed(store, 101, 200);
        QTRY_COMPARE(xRangeOf(panel, PlotPanel::Plot::Quality), QCPRange(140, 200));
    }

    void manualZoomPausesFollowAndResetResumes()
    {
        SeriesStore store;
        PlotPanel panel(&store);
        panel.resize(1200, 900);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.setWindowSeconds(60);
        feed(store, 0, 100);
        panel.refreshNow();
        QSignalSpy followChanged(&panel, &PlotPanel::followLiveChanged);
        wheel(panel, PlotPanel::Plot::Interval, 120); // zoom in, as the mouse wheel does
        QVERIFY(!panel.followLive());
        QCOMPARE(followChanged.count(), 1);
        const QCPRange zoomed = xRangeOf(panel, PlotPanel::Plot::Interval);
        QVERIFY(zoomed.size() < 60);
        feed(store, 101, 150);
        panel.refreshNow();
        QCOMPARE(xRangeOf(panel, PlotPanel::Plot::Interval), zoomed); // paused: stays
        panel.resetZoom();
        QVERIFY(panel.followLive());
        QTRY_COMPARE(xRangeOf(panel, PlotPanel::Plot::Interval), QCPRange(90, 150));
    }

    void allTimeAxesStayInStep()
    {
        SeriesStore store;
        PlotPanel panel(&store);
        panel.resize(1200, 900);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        feed(store, 0, 100);
        panel.refreshNow();
        panel.axisRect(PlotPanel::Plot::Quality)->axis(QCPAxis::atBottom)->setRange(10, 20);
        for (auto p : {PlotPanel::Plot::Outstanding, PlotPanel::Plot::Interval,
                       PlotPanel::Plot::Quality, PlotPanel::Plot::Gateway})
            QCOMPARE(xRangeOf(panel, p), QCPRange(10, 20));
        QVERIFY(!panel.followLive());
        wheel(panel, PlotPanel::Plot::Gateway, -240); // zoom out over another plot
        const QCPRange r = xRangeOf(panel, PlotPanel::Plot::Gateway);
        QVERIFY(r.size() > 10);
        for (auto p :
             {PlotPanel::Plot::Outstanding, PlotPanel::Plot::Interval, PlotPanel::Plot::Quality})
            QCOMPARE(xRangeOf(panel, p), r);
    }

    void timeAxisReadsMinutesThenHours()
    {
        QCOMPARE(plot::formatElapsed(75), QStringLiteral("1:15"));
        QCOMPARE(plot::formatElapsed(3725), QStringLiteral("1:02:05"));
        SeriesStore store;
        PlotPanel panel(&store);
        panel.resize(1200, 900);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        feed(store, 0, 10);
        panel.setXRange(0, 600);
        panel.refreshNow();
        QCPAxis* x = panel.axisRect(PlotPanel::Plot::Gateway)->axis(QCPAxis::atBottom);
        const QRegularExpression mmss(QStringLiteral("^\\d\\d:\\d\\d$"));
        QVERIFY2(x->tickVectorLabels().contains(QStringLiteral("05:00")),
                 qPrintable(x->tickVectorLabels().join(QLatin1Char(' '))));
        for (const QString& label : x->tickVectorLabels())
            QVERIFY2(mmss.match(label).hasMatch(), qPrintable(label));
        panel.setXRange(3000, 4200);
        panel.refreshNow();
        QVERIFY2(x->tickVectorLabels().contains(QStringLiteral("01:00:00")),
                 qPrintable(x->tickVectorLabels().join(QLatin1Char(' '))));
        const QRegularExpression hmmss(QStringLiteral("^\\d\\d:\\d\\d:\\d\\d$"));
        for (const QString& label : x->tickVectorLabels())
            QVERIFY2(hmmss.match(label).hasMatch(), qPrintable(label));
    }

    void crosshairListsEveryVisibleSeriesAtX()
    {
        SeriesStore store;
        PlotPanel panel(&store);
        feed(store, 0, 10);
        const QString text = panel.crosshairText(7.5);
        const QStringList lines = text.split(QLatin1Char('\n'));
        QCOMPARE(lines.value(0), QStringLiteral("t 0:07"));
        QCOMPARE(lines.value(1), QStringLiteral("Z28061 × gw1: outstanding 1, interval 5 s"));
        QCOMPARE(lines.value(2), QStringLiteral("Z28062 × gw1: outstanding 0, interval 10 s"));
        QCOMPARE(lines.value(3), QStringLiteral("tags: good 18, uncertain 0, bad 2"));
        QCOMPARE(lines.value(4), QStringLiteral("gateway: recovery recovering, STA queue 3, "
                                                "Invoke 3/s, DEADLINE_EXCEEDED 0/s, "
                                                "suppressed 0/s"));
        // before any data: values unknown
        QVERIFY(panel.crosshairText(-1).contains(QStringLiteral("outstanding –")));
    }

    void crosshairFollowsTheMouse()
    {
        SeriesStore store;
        PlotPanel panel(&store);
        panel.resize(1200, 900);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        feed(store, 0, 10);
        panel.setXRange(0, 10);
        panel.refreshNow();
        QCPAxisRect* r = panel.axisRect(PlotPanel::Plot::Interval);
        const QPoint at(int(r->axis(QCPAxis::atBottom)->coordToPixel(7.5)), r->rect().center().y());
        QTest::mouseMove(panel.customPlot(), at);
        QCPItemText* box = nullptr;
        for (int i = 0; i < panel.customPlot()->itemCount(); ++i)
            if (auto* t = qobject_cast<QCPItemText*>(panel.customPlot()->item(i));
                t && t->layer()->name() == QLatin1String("crosshair"))
                box = t;
        QVERIFY(box);
        QTRY_VERIFY(box->visible());
        QVERIFY(box->text().startsWith(QStringLiteral("t 0:07")));
        QVERIFY(box->text().contains(QStringLiteral("Z28062 × gw1: outstanding 0")));
    }

    // With 20 subscriptions the readout stays compact (the busiest
    // kCrosshairSubscriptions and "… and N more"), and near any edge it stays inside the plot.
    void crosshairIsCompactAndClampedInsideThePlot()
    {
        SeriesStore store;
        PlotPanel panel(&store);
        panel.resize(900, 600);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        for (int t = 0; t <= 10; ++t) {
            QVector<SubscriptionStep> samples;
            for (int i = 0; i < 20; ++i)
                samples << sample(t, i, i == 13 ? 7 : (i % 3 == 0 ? 1 : 0), 5000, 10, 0);
            testsupport::feed(store, samples);
        }
        panel.setXRange(0, 10);
        panel.refreshNow();
        const QString text = panel.crosshairText(5);
        const QStringList lines = text.split(QLatin1Char('\n'));
        QVERIFY2(lines.size() <= PlotPanel::kCrosshairSubscriptions + 4, qPrintable(text));
        QCOMPARE(lines.value(1),
                 QStringLiteral("Z28074 × gw1: outstanding 7, interval 5 s")); // busiest first
        QVERIFY2(text.contains(QStringLiteral("… and %1 more subscriptions")
                                   .arg(20 - PlotPanel::kCrosshairSubscriptions)),
                 qPrintable(text));

        QCustomPlot* plot = panel.customPlot();
        QCPItemText* box = nullptr;
        for (int i = 0; i < plot->itemCount(); ++i)
            if (auto* t = qobject_cast<QCPItemText*>(plot->item(i));
                t && t->layer()->name() == QLatin1String("crosshair"))
                box = t;
        QVERIFY(box);
        // Real mouse moves into each corner of the data area.
        const QRect top = panel.axisRect(PlotPanel::Plot::Outstanding)->rect();
        const QRect bottom = panel.axisRect(PlotPanel::Plot::Gateway)->rect();
        for (const QPoint at :
             {top.topLeft() + QPoint(2, 2), top.topRight() + QPoint(-2, 2),
              bottom.bottomLeft() + QPoint(2, -2), bottom.bottomRight() + QPoint(-2, -2),
              panel.axisRect(PlotPanel::Plot::Quality)->rect().center()}) {
            QTest::mouseMove(plot, at);
            QTRY_VERIFY(box->visible());
            plot->replot();
            const QRectF r(box->topLeft->pixelPosition(), box->bottomRight->pixelPosition());
            QVERIFY2(QRectF(plot->rect()).contains(r),
                     qPrintable(QStringLiteral("box %1,%2 %3x%4 at mouse %5,%6 in %7x%8")
                                    .arg(r.x())
                                    .arg(r.y())
                                    .arg(r.width())
                                    .arg(r.height())
                                    .arg(at.x())
                                    .arg(at.y())
                                    .arg(plot->width())
                                    .arg(plot->height())));
        }
    }

    // While following live the view moves under a still mouse; the
    // readout shows the time now under the cursor, not the one it was first drawn for.
    void crosshairTimeMovesWithTheFollowWindow()
    {
        SeriesStore store;
        PlotPanel panel(&store);
        panel.resize(1000, 700);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.setWindowSeconds(10);
        feed(store, 0, 10);
        panel.refreshNow();
        QVERIFY(panel.followLive());
        QCPAxisRect* r = panel.axisRect(PlotPanel::Plot::Interval);
        const QPoint at(int(r->axis(QCPAxis::atBottom)->coordToPixel(5.5)), r->rect().center().y());
        QTest::mouseMove(panel.customPlot(), at);
        QCPItemText* box = nullptr;
        for (int i = 0; i < panel.customPlot()->itemCount(); ++i)
            if (auto* t = qobject_cast<QCPItemText*>(panel.customPlot()->item(i));
                t && t->layer()->name() == QLatin1String("crosshair"))
                box = t;
        QVERIFY(box);
        QTRY_VERIFY(box->visible());
        QVERIFY2(box->text().startsWith(QStringLiteral("t 0:05")), qPrintable(box->text()));
        feed(store, 11, 20); // the window moves 10 s on
        QTRY_VERIFY2(box->text().startsWith(QStringLiteral("t 0:15")), qPrintable(box->text()));
        QVERIFY(panel.followLive());
    }

    // The first 20 subscriptions' colours are distinct; as many subscriptions as the legend
    // names, named like a site's ("site-01 × gw1"): every legend name is drawn whole at 1600
    // and at 600 px wide, and the
    // quality and gateway legends sit beside their plots, not over the data or tick labels.
    void legendsStayOutOfTheDataWithWholeNamesAndDistinctColours()
    {
        QSet<QRgb> colours;
        for (int i = 0; i < 20; ++i)
            colours.insert(PlotPanel::colourFor(SubscriptionKey{i, false}).rgb());
        QCOMPARE(colours.size(), 20);

        SeriesStore store;
        PlotPanel panel(&store);
        for (int t = 0; t <= 10; ++t) {
            QVector<SubscriptionStep> samples;
            for (int i = 0; i < PlotPanel::kMaxLegendEntries; ++i) {
                SubscriptionStep x = sample(t, i, 1, 5000, 10, 0);
                x.label = QStringLiteral("site-%1 × gw1").arg(i + 1, 2, 10, QLatin1Char('0'));
                samples << x;
            }
            testsupport::feed(store, samples);
            testsupport::feed(store, GatewayStep{.t = double(t), .staQueueDepth = 3});
        }
        panel.show();
        for (const QSize size : {QSize(1600, 900), QSize(600, 700)}) {
            panel.resize(size);
            QVERIFY(QTest::qWaitForWindowExposed(&panel));
            panel.setXRange(0, 10);
            panel.refreshNow();
            QCustomPlot* plot = panel.customPlot();
            plot->replot(); // a second layout pass with the legend's wrap fitted
            QCPLegend* legend = panel.subscriptionLegend();
            // itemCount() counts the grid's cells: a wrapped last row may leave some empty.
            int items = 0;
            for (int i = 0; i < legend->itemCount(); ++i)
                items += legend->item(i) ? 1 : 0;
            QCOMPARE(items, PlotPanel::kMaxLegendEntries);
            for (int i = 0; i < legend->itemCount(); ++i) {
                QCPAbstractLegendItem* item = legend->item(i);
                if (!item)
                    continue;
                QVERIFY2(item->outerRect().width() >= item->minimumOuterSizeHint().width(),
                         qPrintable(
                             QStringLiteral("item %1 cut at %2 px wide").arg(i).arg(size.width())));
                QVERIFY2(
                    QRect(plot->rect()).adjusted(0, 0, 1, 1).contains(item->outerRect()),
                    qPrintable(
                        QStringLiteral("item %1 outside at %2 px wide").arg(i).arg(size.width())));
            }
            for (PlotPanel::Plot p : {PlotPanel::Plot::Quality, PlotPanel::Plot::Gateway}) {
                QCPAxisRect* rect = panel.axisRect(p);
                bool found = false;
                for (int i = 0; i < plot->plotLayout()->elementCount(); ++i)
                    if (auto* side = qobject_cast<QCPLegend*>(plot->plotLayout()->elementAt(i));
                        side && side != legend &&
                        side->rect().top() >= rect->outerRect().top() - 1 &&
                        side->rect().top() < rect->outerRect().bottom()) {
                        found = true;
                        QVERIFY2(!side->outerRect().intersects(rect->outerRect()),
                                 "a legend over the plot or its tick labels");
                        QVERIFY2(
                            QRect(plot->rect()).adjusted(0, 0, 1, 1).contains(side->outerRect()),
                            qPrintable(QStringLiteral("legend %1,%2 %3x%4 in %5x%6")
                                           .arg(side->outerRect().x())
                                           .arg(side->outerRect().y())
                                           .arg(side->outerRect().width())
                                           .arg(side->outerRect().height())
                                           .arg(plot->width())
                                           .arg(plot->height())));
                    }
                QVERIFY(found);
                QVERIFY(rect->insetLayout()->elementCount() == 0);
            }
        }
    }

    // Many subscriptions as four lines: the outstanding requests' sum and most, the longest
    // retry interval and the median of the armed ones; kept up to date from where it was.
    void aggregateLinesSumTheMostAndTheMedian()
    {
        SeriesStore store;
        testsupport::feed(store, {sample(0, 0, 1, 5000), sample(0, 1, 3, 10000),
                                  sample(0, 2, 0, 20000), sample(0, 3, 0, 0)});
        testsupport::feed(store, {sample(5, 1, 1, 10000)});
        plot::SubscriptionAggregate a;
        a.update(store, store.subscriptions());
        using L = plot::SubscriptionAggregate::Line;
        QCOMPARE(a.line(L::OutstandingSum), (QVector<QPointF>{{0, 4}, {5, 2}}));
        QCOMPARE(a.line(L::OutstandingMax), (QVector<QPointF>{{0, 3}, {5, 1}}));
        QCOMPARE(a.line(L::IntervalMax), (QVector<QPointF>{{0, 20}, {5, 20}}));
        // The unarmed subscription (interval 0) is not in the median.
        QCOMPARE(a.line(L::IntervalMedian), (QVector<QPointF>{{0, 10}, {5, 10}}));
        testsupport::feed(store, {sample(8, 2, 4, 40000)});
        a.update(store, store.subscriptions());
        QCOMPARE(a.line(L::OutstandingSum).last(), QPointF(8, 6));
        QCOMPARE(a.line(L::OutstandingMax).last(), QPointF(8, 4));
        QCOMPARE(a.line(L::IntervalMax).last(), QPointF(8, 40));
        QCOMPARE(a.line(L::OutstandingSum).size(), 3);
        // Of two subscriptions only: sums of those two.
        plot::SubscriptionAggregate two;
        two.update(store, {{0, false}, {1, false}});
        QCOMPARE(two.line(L::OutstandingSum), (QVector<QPointF>{{0, 4}, {5, 2}}));
    }

    // A strip too short for its title (the A/B view's halves, a small window) shows a brief
    // one, or none: an axis title never runs past its own plot into the next.
    void axisTitlesFitTheirPlotsHeight()
    {
        SeriesStore store;
        feed(store, 0, 10);
        PlotPanel panel(&store);
        panel.show();
        for (const int height : {1000, 420, 300}) {
            panel.resize(900, height);
            QVERIFY(QTest::qWaitForWindowExposed(&panel));
            panel.refreshNow();
            panel.customPlot()->replot(); // the titles chosen on the last layout, laid out
            int brief = 0;
            for (int p = 0; p < 4; ++p) {
                const QCPAxisRect* rect = panel.axisRect(PlotPanel::Plot(p));
                for (QCPAxis* axis : {rect->axis(QCPAxis::atLeft), rect->axis(QCPAxis::atRight)}) {
                    if (!axis->visible())
                        continue;
                    const int width =
                        QFontMetrics(axis->labelFont()).horizontalAdvance(axis->label());
                    QVERIFY2(width <= rect->outerRect().height(),
                             qPrintable(QStringLiteral("%1 px: \"%2\" is %3 px along a %4 px plot")
                                            .arg(height)
                                            .arg(axis->label())
                                            .arg(width)
                                            .arg(rect->outerRect().height())));
                    brief += axis->label() != QStringLiteral("outstanding") &&
                                     axis->label() != QStringLiteral("retry interval (s)") &&
                                     axis->label() != QStringLiteral("tags") &&
                                     axis->label() != QStringLiteral("STA queue") &&
                                     axis->label() != QStringLiteral("per second")
                                 ? 1
                                 : 0;
                }
            }
            if (height == 1000)
                QCOMPARE(brief, 0); // room for every full title
            else if (height == 300)
                QVERIFY(brief > 0);
        }
    }

    // The time axis's labels never run into each other: a narrow plot (an A/B side beside
    // the docks) gets fewer of them, a wide one as many as before.
    void timeLabelsFitTheirPlotsWidth()
    {
        SeriesStore store;
        feed(store, 0, 1800);
        PlotPanel panel(&store);
        panel.show();
        for (const int width : {1400, 500, 340}) {
            panel.resize(width, 700);
            QVERIFY(QTest::qWaitForWindowExposed(&panel));
            panel.setXRange(0, 1800);
            panel.refreshNow();
            panel.customPlot()->replot(); // the tick count chosen on the last layout, laid out
            QCPAxis* time = panel.axisRect(PlotPanel::Plot::Gateway)->axis(QCPAxis::atBottom);
            const QVector<double> ticks = time->tickVector();
            const QVector<QString> labels = time->tickVectorLabels();
            QVERIFY2(ticks.size() >= 2, qPrintable(QString::number(width)));
            const QFontMetrics fm(time->tickLabelFont());
            for (qsizetype i = 1; i < ticks.size(); ++i) {
                const double gap = time->coordToPixel(ticks[i]) - time->coordToPixel(ticks[i - 1]);
                const int room =
                    (fm.horizontalAdvance(labels[i - 1]) + fm.horizontalAdvance(labels[i])) / 2 + 4;
                QVERIFY2(gap >= room, qPrintable(QStringLiteral("%1 px: %2 and %3 are %4 px apart")
                                                     .arg(width)
                                                     .arg(labels[i - 1], labels[i])
                                                     .arg(gap)));
            }
            if (width == 1400)
                QVERIFY(ticks.size() >= 5);
        }
    }

    // The retry interval is 0 until the guard arms its first retry;
    // that is not drawn (it was a vertical line up from 0 at the start of every run).
    void retryIntervalStartsWhereTheGuardArmed()
    {
        SeriesStore store;
        PlotPanel panel(&store);
        panel.resize(1000, 700);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        testsupport::feed(store, {sample(0, 0, 0, 0, 0, 10)});
        for (int t = 1; t <= 10; ++t)
            testsupport::feed(store, {sample(t, 0, 1, t < 6 ? 5000 : 10000, 10, 0)});
        panel.setXRange(0, 10);
        panel.refreshNow();
        QCPGraph* g = panel.subscriptionGraph(k0, SubMetric::IntervalS);
        QVERIFY(g && !g->data()->isEmpty());
        QCOMPARE(g->data()->constBegin()->key, 1.0);
        for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
            QVERIFY2(it->value > 0,
                     qPrintable(QStringLiteral("%1 at %2").arg(it->value).arg(it->key)));
        // The outstanding plot still starts at 0 s.
        QCOMPARE(panel.subscriptionGraph(k0, SubMetric::Outstanding)->data()->constBegin()->key,
                 0.0);
    }

    // The toolbar (with Fit whole run) fits the plot area at the console's default size
    // without folding its exports into "»".
    // The toolbar's Plots button hides a plot: the others take its rows, and nothing of it
    // (its graphs, its crosshair line, the guard line on it) is drawn or answers the mouse at
    // the place it had.
    void thePlotsButtonHidesAPlotAndAllThatIsDrawnOnIt()
    {
        SeriesStore store;
        PlotPanel panel(&store);
        panel.resize(1200, 900);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        feed(store, 0, 10);
        panel.setXRange(0, 10);
        panel.refreshNow();
        QCPAxisRect* out = panel.axisRect(PlotPanel::Plot::Outstanding);
        const QPoint formerly = out->rect().center();
        auto* button = panel.toolBar()->findChild<QToolButton*>(QStringLiteral("plotsButton"));
        QVERIFY(button && button->isVisible());
        QSignalSpy changed(&panel, &PlotPanel::shownPlotsChanged);
        QTimer::singleShot(0, [&] {
            auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget());
            QVERIFY(menu);
            QAction* first = menu->actions().front();
            QCOMPARE(first->text(), PlotPanel::plotName(PlotPanel::Plot::Outstanding));
            QTest::mouseClick(menu, Qt::LeftButton, {}, menu->actionGeometry(first).center());
        });
        QTest::mouseClick(button, Qt::LeftButton);
        QTRY_VERIFY(!QApplication::activePopupWidget());
        QCOMPARE(changed.count(), 1);
        QVERIFY(!panel.plotShown(PlotPanel::Plot::Outstanding));
        QCOMPARE(panel.shownPlotsText(), QStringLiteral("interval,quality,gateway"));
        panel.refreshNow();
        QVERIFY(!out->visible());
        QCPAxisRect* interval = panel.axisRect(PlotPanel::Plot::Interval);
        QVERIFY(interval->rect().top() < formerly.y()); // the retry plot moved up into its rows
        // The guard line and its label go with the plot they are drawn on.
        int guardItems = 0;
        for (int i = 0; i < panel.customPlot()->itemCount(); ++i) {
            QCPAbstractItem* item = panel.customPlot()->item(i);
            if (item->clipAxisRect() == out && item->layer()->name() != QLatin1String("crosshair"))
                guardItems += item->visible();
        }
        QCOMPARE(guardItems, 0);
        // The mouse over what is now the retry plot: the crosshair is drawn there, not on the
        // hidden plot's former place.
        const QPoint at(int(interval->axis(QCPAxis::atBottom)->coordToPixel(5)),
                        interval->rect().center().y());
        QTest::mouseMove(panel.customPlot(), at);
        // Visible crosshair lines on the hidden plot (first) and on the shown ones.
        const auto crosshairLines = [&] {
            std::pair<int, int> visible{0, 0};
            for (int i = 0; i < panel.customPlot()->itemCount(); ++i)
                if (auto* line = qobject_cast<QCPItemStraightLine*>(panel.customPlot()->item(i));
                    line && line->layer()->name() == QLatin1String("crosshair") && line->visible())
                    ++(line->clipAxisRect() == out ? visible.first : visible.second);
            return visible;
        };
        QTRY_COMPARE(crosshairLines(), std::make_pair(0, 3));
        // Over the hidden plot's former place (now the retry plot's) it is still drawn on the
        // retry plot only.
        QTest::mouseMove(panel.customPlot(), formerly);
        QTRY_COMPARE(crosshairLines(), std::make_pair(0, 3));
        // Shown again, where it was, with the theme of the moment.
        panel.setTheme(Theme::Dark);
        QVERIFY(panel.setPlotShown(PlotPanel::Plot::Outstanding, true));
        panel.refreshNow();
        QVERIFY(out->visible());
        QVERIFY(out->rect().bottom() < interval->rect().top());
        QCOMPARE(out->axis(QCPAxis::atLeft)->basePen().color(),
                 interval->axis(QCPAxis::atLeft)->basePen().color());
    }

    void toolbarFitsWithoutOverflow()
    {
        SeriesStore store;
        PlotPanel panel(&store);
        panel.resize(640, 500);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        auto* bar = panel.findChild<QToolBar*>();
        QVERIFY(bar);
        auto* extension = bar->findChild<QToolButton*>(QStringLiteral("qt_toolbar_ext_button"));
        QVERIFY(!extension || !extension->isVisible());
    }

    void exportPngWritesAnImageOfTheExpectedSize()
    {
        QTemporaryDir dir;
        SeriesStore store;
        PlotPanel panel(&store);
        panel.resize(1000, 700);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        feed(store, 0, 30);
        QString error;
        const QString path = dir.filePath(QStringLiteral("plots.png"));
        QVERIFY2(panel.exportPng(path, &error, QSize(800, 600)), qPrintable(error));
        const QImage image(path);
        QCOMPARE(image.size(), QSize(800, 600));
        QVERIFY(QFileInfo(path).size() > 1000);
        // the default size is the plots' own
        const QString own = dir.filePath(QStringLiteral("own.png"));
        QVERIFY(panel.exportPng(own, &error));
        QCOMPARE(QImage(own).size(), panel.customPlot()->size());
        QVERIFY(!panel.exportPng(dir.filePath(QStringLiteral("no/such/dir/x.png")), &error));
        QVERIFY(!error.isEmpty());
    }

    void exportCsvWritesTheVisibleRangeOnly()
    {
        QTemporaryDir dir;
        SeriesStore store;
        PlotPanel panel(&store);
        feed(store, 0, 30);
        panel.setSelectedSubscriptions({k1});
        panel.setXRange(5, 8);
        QString error;
        const QString path = dir.filePath(QStringLiteral("visible.csv"));
        QVERIFY2(panel.exportCsv(path, &error), qPrintable(error));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QList<QByteArray> lines = f.readAll().trimmed().split('\n');
        // What the file covers comes first, on '#' lines.
        QVERIFY(lines.first().startsWith("# range: 0:05–0:08 (visible range)"));
        while (lines.first().startsWith('#'))
            lines.removeFirst();
        QVERIFY(lines.first().startsWith("t_s,time_utc,Z28062 × gw1/outstanding"));
        QVERIFY(!lines.first().contains("Z28061")); // only the visible subscription
        QCOMPARE(lines.size(), 1 + 4);              // rows at 5, 6, 7, 8
        for (qsizetype i = 1; i < lines.size(); ++i) {
            const double t = lines[i].split(',').first().toDouble();
            QVERIFY(t >= 5 && t <= 8);
        }
        QVERIFY(!panel.exportCsv(dir.filePath(QStringLiteral("no/such/dir/x.csv")), &error));
    }

    // Review finding on 7757d6f: a hidden panel does not move its follow-live window, so a
    // CSV of the visible range, exported while the plots were hidden (behind the A/B view),
    // held the window from before they were hidden. It holds the latest window, as the PNG does.
    void exportCsvWhileHiddenWritesTheLatestWindow()
    {
        QTemporaryDir dir;
        SeriesStore store;
        PlotPanel panel(&store);
        panel.resize(1200, 900);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.setWindowSeconds(60);
        panel.setSelectedSubscriptions({k1});
        feed(store, 0, 100);
        panel.refreshNow();
        QCOMPARE(xRangeOf(panel, PlotPanel::Plot::Outstanding), QCPRange(40, 100));
        panel.hide();
        feed(store, 101, 200);
        QTRY_VERIFY(!panel.replotScheduled());
        const QString path = dir.filePath(QStringLiteral("hidden.csv"));
        QString error;
        QVERIFY2(panel.exportCsv(path, &error), qPrintable(error));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QList<QByteArray> lines = f.readAll().trimmed().split('\n');
        while (!lines.isEmpty() && lines.first().startsWith('#'))
            lines.removeFirst();
        QVERIFY(lines.size() > 1);
        QCOMPARE(lines[1].split(',').first().toDouble(), 140.0); // the window 140–200
        QCOMPARE(lines.last().split(',').first().toDouble(), 200.0);
    }

    void replotIsThrottled()
    {
        SeriesStore store;
        PlotPanel panel(&store);
        panel.resize(800, 600);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QSignalSpy replotted(&panel, &PlotPanel::replotted);
        // a tight loop of batches: one tick, one replot
        for (int i = 0; i < 100; ++i)
            feed(store, i, i);
        QVERIFY(replotted.wait(2000));
        QTest::qWait(300);
        QVERIFY2(replotted.count() <= 3, qPrintable(QString::number(replotted.count())));
        // batches on every event-loop turn for 0.5 s: at most 20 replots a second
        replotted.clear();
        QElapsedTimer clock;
        clock.start();
        int t = 100;
        while (clock.elapsed() < 500) {
            feed(store, t, t);
            ++t;
            QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
        }
        QTest::qWait(120);
        const double seconds = double(clock.elapsed()) / 1000.0;
        QVERIFY(replotted.count() >= 2);
        QVERIFY2(replotted.count() <= int(seconds * PlotPanel::kMaxReplotsPerSecond) + 2,
                 qPrintable(QStringLiteral("%1 replots in %2 s, %3 batches")
                                .arg(replotted.count())
                                .arg(seconds)
                                .arg(t - 100)));
        QVERIFY(t - 100 > replotted.count()); // more batches than replots
    }

    // Behind the A/B view, in a closed dock or minimized, nobody sees a replot (a
    // hidden panel replotted 20 times a second): new samples wait, and the panel replots
    // once when it is seen again.
    void hiddenOrMinimizedPlotsReplotOnceWhenSeenAgain()
    {
        SeriesStore store;
        PlotPanel panel(&store);
        panel.resize(800, 600);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QSignalSpy replotted(&panel, &PlotPanel::replotted);
        feed(store, 0, 5);
        QVERIFY(replotted.wait(2000));
        QTRY_VERIFY(!panel.replotScheduled());
        QCPGraph* out = panel.subscriptionGraph(k0, SubMetric::Outstanding);
        QVERIFY(out);
        const int pointsShown = out->data()->size();

        for (auto away : {0, 1}) {
            if (away == 0)
                panel.hide();
            else
                panel.setWindowState(Qt::WindowMinimized);
            QVERIFY(!panel.isVisible() || panel.isMinimized());
            replotted.clear();
            const int before = out->data()->size();
            for (int batch = 0; batch < 5; ++batch) {
                const int t = 6 + away * 100 + batch * 10;
                feed(store, t, t + 9);
                QVERIFY(panel.replotScheduled()); // the throttle runs as ever...
                QTRY_VERIFY(!panel.replotScheduled());
            }
            QCOMPARE(replotted.count(), 0); // ...but its ticks replotted nothing
            QCOMPARE(out->data()->size(), before);

            if (away == 0)
                panel.show();
            else
                panel.setWindowState(Qt::WindowNoState);
            QVERIFY(QTest::qWaitForWindowExposed(&panel));
            QVERIFY(replotted.wait(2000));
            QTRY_VERIFY(!panel.replotScheduled());
            QCoreApplication::processEvents();
            QCOMPARE(replotted.count(), 1); // once, with everything that waited
            QVERIFY(out->data()->size() > before);
        }
        QVERIFY(out->data()->size() > pointsShown);
    }

    void denseRangesAreReducedPerPixelColumnKeepingExtremes()
    {
        SeriesStore store;
        PlotPanel panel(&store);
        panel.resize(1200, 900);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        for (int t = 0; t <= 3600; ++t)
            testsupport::feed(store,
                              {sample(t, 0, t == 1800 ? 7 : t % 2, 5000, 10 - t % 3, t % 3)});
        panel.setXRange(0, 3600);
        panel.refreshNow();
        QCPGraph* out = panel.subscriptionGraph(k0, SubMetric::Outstanding);
        // at most the plot's width in columns (the axis rect is narrower still)
        const int columns = panel.customPlot()->width() / plot::ViewFeed::kPixelsPerColumn;
        QVERIFY2(
            out->data()->size() <= 2 * columns + 2,
            qPrintable(
                QStringLiteral("%1 points, %2 columns").arg(out->data()->size()).arg(columns)));
        bool found = false;
        const QCPRange values = out->getValueRange(found);
        QVERIFY(found);
        QCOMPARE(values.lower, 0.0);
        QCOMPARE(values.upper, 7.0); // a one-second spike survives the reduction
        QCOMPARE(panel.axisRect(PlotPanel::Plot::Outstanding)->axis(QCPAxis::atLeft)->range().upper,
                 7.0 * 1.15);
        // stacked quality: the per-column mean of good (8..10) stays between its extremes
        QCPGraph* good = panel.qualityGraph(SubMetric::Good);
        QVERIFY(good->data()->size() <= columns + 1);
        const QCPRange goodRange = good->getValueRange(found);
        QVERIFY(goodRange.lower >= 8.0 && goodRange.upper <= 10.0);
        QVERIFY(goodRange.upper - goodRange.lower < 1.0); // means, not raw 8..10 swings
        // zoomed in, the graph holds the points themselves again
        panel.setXRange(1790, 1810);
        panel.refreshNow();
        QVERIFY(out->data()->size() <= 24);
        QCOMPARE(out->data()->findBegin(1800.5, true)->value, 7.0);
        QCOMPARE(out->data()->findBegin(1800.5, true)->key, 1800.0);
    }

    void storeClearDropsTheGraphs()
    {
        SeriesStore store;
        PlotPanel panel(&store);
        feed(store, 0, 10);
        panel.refreshNow();
        QVERIFY(panel.subscriptionGraph(k0, SubMetric::Outstanding));
        store.clear();
        panel.refreshNow();
        QVERIFY(!panel.subscriptionGraph(k0, SubMetric::Outstanding));
        QCOMPARE(panel.subscriptionLegend()->itemCount(), 0);
        QCOMPARE(panel.gatewayGraph(GatewayMetric::InvokeRps)->data()->size(), 0);
        feed(store, 0, 3);
        panel.refreshNow();
        QCOMPARE(panel.subscriptionGraph(k0, SubMetric::Outstanding)->data()->size(), 4);
    }

    void renderVariantPngWithNoWindowShown()
    {
        QTemporaryDir dir;
        SeriesStore store;
        store.setRetentionSeconds(0); // a finished run: keep everything
        store.loadSeries(k0, QStringLiteral("Z28061 × gw1"), SubMetric::Outstanding,
                         {{0, 0}, {10, 1}, {20, 3}, {30, 0}});
        store.loadSeries(k0, QStringLiteral("Z28061 × gw1"), SubMetric::Good, {{0, 10}, {25, 4}});
        store.loadGatewaySeries(GatewayMetric::InvokeRps, {{0, 2}, {15, 40}});
        const QString path = dir.filePath(QStringLiteral("variant.png"));
        QString error;
        QVERIFY2(PlotPanel::renderVariantPng(store, path, QSize(1280, 900), &error),
                 qPrintable(error));
        QCOMPARE(QImage(path).size(), QSize(1280, 900));
        for (QWidget* w : QApplication::topLevelWidgets())
            QVERIFY(!w->isVisible());
    }

    // `stormwatch --report` printed QCustomPlot's "Requested cell is empty" for every empty
    // cell of the layout each time the legend was fitted: noise on stderr that hides real
    // errors.
    void fittingTheLegendPrintsNothing()
    {
        static QStringList messages;
        messages.clear();
        const QtMessageHandler previous = qInstallMessageHandler(
            [](QtMsgType, const QMessageLogContext&, const QString& m) { messages << m; });
        QTemporaryDir dir;
        SeriesStore store;
        store.setRetentionSeconds(0);
        store.loadSeries(k0, QStringLiteral("Z28061 × gw1"), SubMetric::Outstanding,
                         {{0, 0}, {10, 1}, {20, 3}, {30, 0}});
        store.loadGatewaySeries(GatewayMetric::InvokeRps, {{0, 2}, {15, 40}});
        QString error;
        const bool rendered = PlotPanel::renderVariantPng(
            store, dir.filePath(QStringLiteral("variant.png")), QSize(1280, 900), &error);
        {
            PlotPanel panel(&store);
            panel.resize(1024, 700);
            panel.show();
            panel.refreshNow();
        }
        qInstallMessageHandler(previous);
        QVERIFY2(rendered, qPrintable(error));
        QVERIFY2(messages.filter(QStringLiteral("Requested cell is empty")).isEmpty(),
                 qPrintable(messages.join(QLatin1Char('\n'))));
    }
};

QTEST_MAIN(TestPlotPanel)
#include "tst_plot_panel.moc"
