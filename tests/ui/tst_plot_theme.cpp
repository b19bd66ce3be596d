// The dark theme reaches what QCustomPlot paints itself: plot background, axes, tick
// labels, legends, the crosshair readout and the exported images.
#include "models/support_series_updates.h"
#include "scenario/scenario_parser.h"
#include "ui/compare_view.h"
#include "ui/main_window.h"
#include "ui/plot_panel.h"
#include "ui/plot_theme.h"

#include <QApplication>
#include <QImage>
#include <QMouseEvent>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <qcustomplot.h>

using namespace stormwatch;

namespace {

void feed(SeriesStore& store, int seconds)
{
    for (int t = 0; t <= seconds; ++t) {
        testsupport::feed(store, {{.t = double(t), .outstanding = t % 3, .good = 8, .bad = 2}});
        testsupport::feed(store, testsupport::GatewayStep{.t = double(t),
                                                          .staQueueDepth = double(t % 5),
                                                          .invokeRps = 4});
    }
}

bool dark(const QColor& c)
{
    return c.lightness() < 80;
}

bool light(const QColor& c)
{
    return c.lightness() > 170;
}

// The share of an image's pixels that are dark: a white plot has almost none.
double darkShare(const QImage& image)
{
    qint64 n = 0, total = 0;
    for (int y = 0; y < image.height(); y += 3)
        for (int x = 0; x < image.width(); x += 3, ++total)
            n += dark(image.pixelColor(x, y)) ? 1 : 0;
    return double(n) / double(total);
}

} // namespace

class TestPlotTheme : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void cleanup() { applyTheme(Theme::Light); }

    void darkPaintsTheWholePlotDark()
    {
        SeriesStore store;
        feed(store, 120);
        PlotPanel panel(&store);
        panel.resize(1000, 700);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.refreshNow();
        QVERIFY2(darkShare(panel.customPlot()->toPixmap().toImage()) < 0.1,
                 "light theme starts light");

        panel.setTheme(Theme::Dark);
        panel.refreshNow();
        const QImage image = panel.customPlot()->toPixmap().toImage();
        QVERIFY2(darkShare(image) > 0.8, qPrintable(QString::number(darkShare(image))));
        // The middle of a data area: the background, not white.
        const QRect area = panel.axisRect(PlotPanel::Plot::Interval)->rect();
        QVERIFY(dark(image.pixelColor(area.left() + 3, area.top() + 3)));
        // Text and axes readable on it.
        QCPAxis* x = panel.axisRect(PlotPanel::Plot::Gateway)->axis(QCPAxis::atBottom);
        QVERIFY(light(x->tickLabelColor()));
        QVERIFY(light(x->labelColor()));
        QVERIFY(x->basePen().color().lightness() > 120);
        for (int i = 0; i < panel.subscriptionLegend()->itemCount(); ++i)
            QVERIFY(light(panel.subscriptionLegend()->item(i)->textColor()));
        // The STA queue line is not black on black.
        QVERIFY(panel.gatewayGraph(GatewayMetric::StaQueueDepth)->pen().color().lightness() > 150);
    }

    void crosshairReadoutFollowsTheTheme()
    {
        SeriesStore store;
        feed(store, 60);
        PlotPanel panel(&store);
        panel.resize(1000, 700);
        panel.setTheme(Theme::Dark);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.refreshNow();
        const QPoint at = panel.axisRect(PlotPanel::Plot::Outstanding)->rect().center();
        QMouseEvent move(QEvent::MouseMove, at, panel.customPlot()->mapToGlobal(at), Qt::NoButton,
                         Qt::NoButton, Qt::NoModifier);
        QApplication::sendEvent(panel.customPlot(), &move);
        QCPItemText* readout = nullptr;
        for (int i = 0; i < panel.customPlot()->itemCount(); ++i)
            if (auto* t = qobject_cast<QCPItemText*>(panel.customPlot()->item(i)))
                if (t->visible() && t->text().startsWith(QStringLiteral("t ")))
                    readout = t;
        QVERIFY(readout);
        QVERIFY(dark(readout->brush().color()));
        QVERIFY(light(readout->color()));
    }

    void exportedPngIsDarkInTheDarkTheme()
    {
        QTemporaryDir dir;
        SeriesStore store;
        feed(store, 60);
        PlotPanel panel(&store);
        panel.resize(900, 600);
        panel.setTheme(Theme::Dark);
        const QString path = dir.filePath("dark.png");
        QVERIFY(panel.exportPng(path, nullptr, QSize(1280, 720)));
        const QImage image(path);
        QCOMPARE(image.size(), QSize(1280, 720));
        QVERIFY2(darkShare(image) > 0.8, qPrintable(QString::number(darkShare(image))));
        panel.setTheme(Theme::Light);
        QVERIFY(panel.exportPng(path, nullptr, QSize(1280, 720)));
        QVERIFY(darkShare(QImage(path)) < 0.1);
    }

    void windowThemeSwitchReachesThePlots()
    {
        QTemporaryDir dir;
        MainWindow w;
        w.setSettingsFile(dir.filePath("s.ini"));
        w.resize(1200, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.setTheme(Theme::Dark);
        QCOMPARE(w.plots()->theme(), Theme::Dark);
        w.plots()->refreshNow();
        QVERIFY(darkShare(w.plots()->customPlot()->toPixmap().toImage()) > 0.8);
        // A panel made while the dark theme is on starts dark (report PNGs, new windows).
        SeriesStore store;
        PlotPanel later(&store);
        QCOMPARE(later.theme(), Theme::Dark);
        w.setTheme(Theme::Light);
        QCOMPARE(w.plots()->theme(), Theme::Light);
        w.plots()->refreshNow();
        QVERIFY(darkShare(w.plots()->customPlot()->toPixmap().toImage()) < 0.1);
    }

    void compareViewPlotsFollowTheTheme()
    {
        applyTheme(Theme::Dark);
        QList<ScenarioError> errors;
        auto scenario = loadScenario(QStringLiteral("live-gate-lever1"), &errors);
        QVERIFY(scenario);
        CompareView view(*scenario);
        const auto plots = view.findChildren<QCustomPlot*>();
        QVERIFY(!plots.isEmpty());
        for (QCustomPlot* plot : plots) {
            plot->resize(600, 200);
            plot->replot();
            QVERIFY(darkShare(plot->toPixmap().toImage()) > 0.7);
            QVERIFY(light(plot->xAxis->tickLabelColor()));
        }
    }
};

QTEST_MAIN(TestPlotTheme)
#include "tst_plot_theme.moc"
