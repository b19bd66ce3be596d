// The plots filtered per gateway: the toolbar's Gateway chooser, shown when the
// run has several gateways, plots one gateway's subscriptions and its own gateway series
// (subject "gateway:NAME"); All is the unfiltered view. The choice holds through replots,
// zooms, themes and presenter mode, exports say it, and the wheel does not change it
// unfocused. At the real boundary: two mxgw-mock processes as a site's two gateways, one
// killed — filtered to the other, nothing moves; filtered to the killed one, its tags fall.
#include "integration/support_mock_process.h"
#include "models/series_store.h"
#include "scenario/run_host.h"
#include "scenario/site.h"
#include "scenario/site_live.h"
#include "support_two_gateway_site.h"
#include "ui/console_controller.h"
#include "ui/main_window.h"
#include "ui/main_window_view.h"
#include "ui/plot_panel.h"
#include "ui/theme.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLoggingCategory>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QToolBar>
#include <QToolButton>
#include <QtTest>
#include <cmath>
#include <qcustomplot.h>

using namespace stormwatch;

namespace {

const SubscriptionKey kA{0, false}; // inst-a, on gateway A
const SubscriptionKey kB{1, false}; // inst-b, on gateway B

SeriesUpdate update(int instance, const QString& label, const QString& metric,
                    QVector<QPointF> points)
{
    return SeriesUpdate{instance, label, metric, std::move(points)};
}

// A two-gateway run as the run host sends it: A's subscription fails at t = 10 (its tags go
// Bad, a subscribe stays outstanding, its gateway's deadline failures climb) while B stays
// Good with nothing outstanding; the aggregate gateway series sum both.
void feedTwoGateways(SeriesStore& store)
{
    store.appendSeries({
        update(0, "inst-a × A", "tags_good", {{0, 0}, {2, 10}, {10, 0}}),
        update(0, "inst-a × A", "tags_bad", {{0, 10}, {2, 0}, {10, 10}}),
        update(0, "inst-a × A", "outstanding", {{0, 1}, {2, 0}, {10, 1}}),
        update(0, "inst-a × A", "interval_ms", {{0, 0}, {12, 5000}}),
        update(1, "inst-b × B", "tags_good", {{0, 0}, {2, 20}}),
        update(1, "inst-b × B", "tags_bad", {{0, 20}, {2, 0}}),
        update(1, "inst-b × B", "outstanding", {{0, 1}, {2, 0}}),
        update(1, "inst-b × B", "interval_ms", {{0, 0}}),
        update(-1, QString(), "sta_queue_depth", {{0, 0}, {10, 40}}),
        update(-1, QString(), "deadline_exceeded_per_s", {{0, 0}, {10, 6}}),
        update(-1, "gateway:A", "sta_queue_depth", {{0, 0}, {10, 40}}),
        update(-1, "gateway:A", "deadline_exceeded_per_s", {{0, 0}, {10, 6}}),
        update(-1, "gateway:B", "sta_queue_depth", {{0, 0}}),
        update(-1, "gateway:B", "deadline_exceeded_per_s", {{0, 0}}),
    });
    store.advanceTo(30);
}

const QMap<QString, QList<int>> kTwoGateways{{"A", {0}}, {"B", {1}}};

QToolBar* toolBarOf(PlotPanel& panel)
{
    return panel.toolBar();
}

// Picks `name` in the chooser as a person does: a click opens the list, the arrow keys
// move to it, Return takes it.
void choose(PlotPanel& panel, const QString& name)
{
    QComboBox* combo = panel.gatewayChooser();
    QTRY_VERIFY(combo->isVisible()); // the toolbar lays its widgets out on the next pass
    const int target = name.isEmpty() ? 0 : combo->findText(name);
    QVERIFY(target >= 0);
    QTest::mouseClick(combo, Qt::LeftButton);
    QAbstractItemView* list = combo->view();
    QTRY_VERIFY(list->isVisible());
    for (int i = combo->currentIndex(); i < target; ++i)
        QTest::keyClick(list, Qt::Key_Down);
    for (int i = combo->currentIndex(); i > target; --i)
        QTest::keyClick(list, Qt::Key_Up);
    QTest::keyClick(list, Qt::Key_Return);
    QTRY_VERIFY(!list->isVisible());
}

void wheelOn(QWidget* target, int steps)
{
    const QPoint at = target->rect().center();
    QWheelEvent e(QPointF(at), QPointF(target->mapToGlobal(at)), QPoint(0, 0),
                  QPoint(0, -120 * steps), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(target, &e);
}

QVector<double> values(const QCPGraph* g)
{
    QVector<double> v;
    for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
        v << it->value;
    return v;
}

double maxOf(const QVector<QPointF>& s)
{
    double m = 0;
    for (const QPointF& p : s)
        m = std::max(m, p.y());
    return m;
}

QString readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

} // namespace

class TestPlotGatewayFilter : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QLoggingCategory::setFilterRules(QStringLiteral("stormwatch.*.warning=false"));
    }
    void cleanup() { applyTheme(Theme::Light); }

    // The store keeps each gateway's own series beside the run's aggregate.
    void storeKeepsEachGatewaysSeriesApart()
    {
        SeriesStore store;
        feedTwoGateways(store);
        QCOMPARE(store.gatewayNames(), (QStringList{"A", "B"}));
        QCOMPARE(store.gatewayValueAt(GatewayMetric::StaQueueDepth, 20), 40.0);
        QCOMPARE(store.gatewayValueAt(GatewayMetric::StaQueueDepth, 20, "A"), 40.0);
        QCOMPARE(store.gatewayValueAt(GatewayMetric::StaQueueDepth, 20, "B"), 0.0);
        QVERIFY(store.gatewaySeries(GatewayMetric::InvokeRps, "B").isEmpty());
        QVERIFY(store.gatewaySeries(GatewayMetric::StaQueueDepth, "nobody").isEmpty());
        QCOMPARE(SeriesStore::gatewayOfLabel("gateway:gw-north"), QStringLiteral("gw-north"));
        QCOMPARE(SeriesStore::gatewayOfLabel("gateway"), QString());

        const QString csv = QString::fromUtf8(store.toCsv(0, 30, {kB}, "B"));
        QVERIFY2(csv.contains("gateway:B/sta_queue_depth"), qPrintable(csv));
        QVERIFY(!csv.contains("gateway:A") && !csv.contains("gateway/") && !csv.contains("inst-a"));
        QVERIFY(
            QString::fromUtf8(store.toCsv(0, 30, {kA, kB})).contains("gateway/sta_queue_depth"));

        store.clear();
        QVERIFY(store.gatewayNames().isEmpty());
        QVERIFY(store.gatewaySeries(GatewayMetric::StaQueueDepth, "A").isEmpty());
    }

    void chooserIsShownOnlyWithSeveralGateways()
    {
        SeriesStore store;
        PlotPanel panel(&store);
        panel.resize(1200, 800);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QComboBox* combo = panel.gatewayChooser();
        QVERIFY(!combo->isVisible()); // one gateway (every scenario): nothing to choose
        panel.setGateways({{"gw1", {0, 1}}});
        QVERIFY(!combo->isVisible());
        panel.setGateways(kTwoGateways);
        QTRY_VERIFY(combo->isVisible());
        QCOMPARE(combo->count(), 3);
        QCOMPARE(combo->itemText(0), QStringLiteral("All gateways"));
        QCOMPARE(combo->itemText(2), QStringLiteral("B"));
        QVERIFY(toolBarOf(panel)->isVisible());
        // The run ends and one with a single gateway starts: the filter goes with it.
        panel.setGatewayFilter("B");
        QSignalSpy changed(&panel, &PlotPanel::gatewayFilterChanged);
        panel.setGateways({});
        QCOMPARE(panel.gatewayFilter(), QString());
        QCOMPARE(changed.count(), 1);
        QTRY_VERIFY(!combo->isVisible());
    }

    // Filtered to B: B's subscription only (legend, lines, quality stack, crosshair) and B's
    // own gateway series; All again: everything, and the run's aggregate.
    void filterShowsOnlyThatGatewaysSeries()
    {
        SeriesStore store;
        PlotPanel panel(&store);
        panel.resize(1200, 800);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.setGateways(kTwoGateways);
        feedTwoGateways(store);
        panel.showAll();
        panel.refreshNow();
        QCOMPARE(panel.visibleSubscriptions(), (QList<SubscriptionKey>{kA, kB}));
        QCOMPARE(maxOf(store.gatewaySeries(GatewayMetric::StaQueueDepth)), 40.0);
        QVERIFY(values(panel.gatewayGraph(GatewayMetric::StaQueueDepth)).contains(40));

        QSignalSpy changed(&panel, &PlotPanel::gatewayFilterChanged);
        choose(panel, "B");
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(changed.count(), 1);
        QCOMPARE(panel.gatewayFilter(), QStringLiteral("B"));
        panel.refreshNow();
        QCOMPARE(panel.visibleSubscriptions(), QList<SubscriptionKey>{kB});
        QVERIFY(!panel.subscriptionGraph(kA, SubMetric::Outstanding)->visible());
        QVERIFY(panel.subscriptionGraph(kB, SubMetric::Outstanding)->visible());
        QCOMPARE(panel.subscriptionLegend()->itemCount(), 1);
        // The quality stack is B's alone: 20 Good from t = 2 on, never A's fall at t = 10.
        const QVector<double> good = values(panel.qualityGraph(SubMetric::Good));
        QVERIFY(good.contains(20));
        QVERIFY(!good.contains(10) && !good.contains(30));
        // The gateway plot is B's own: its queue never rose.
        const QVector<double> queue = values(panel.gatewayGraph(GatewayMetric::StaQueueDepth));
        QVERIFY(!queue.isEmpty());
        QCOMPARE(*std::max_element(queue.begin(), queue.end()), 0.0);
        const QVector<double> expired =
            values(panel.gatewayGraph(GatewayMetric::DeadlineExceededPerS));
        QVERIFY(!expired.isEmpty());
        QCOMPARE(*std::max_element(expired.begin(), expired.end()), 0.0);
        const QString readout = panel.crosshairText(20);
        QVERIFY2(readout.contains("inst-b × B") && !readout.contains("inst-a"),
                 qPrintable(readout));
        QVERIFY2(readout.contains("gateway B: ") && readout.contains("STA queue 0"),
                 qPrintable(readout));

        choose(panel, QString()); // All gateways
        QCOMPARE(panel.gatewayFilter(), QString());
        panel.refreshNow();
        QCOMPARE(panel.visibleSubscriptions(), (QList<SubscriptionKey>{kA, kB}));
        QVERIFY(values(panel.gatewayGraph(GatewayMetric::StaQueueDepth)).contains(40));
    }

    // The choice is state of the plots, not of a replot: new points, a zoom, the theme,
    // presenter mode and an export leave it; the presenter caption and exports say it.
    void choiceSurvivesReplotZoomThemeAndPresenterMode()
    {
        QTemporaryDir dir;
        MainWindow w;
        w.setSettingsFile(dir.filePath("s.ini"));
        w.restoreSettings();
        MainWindowView view(w);
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        view.setRunGateways(kTwoGateways);
        feedTwoGateways(*w.store());
        RunCaption caption;
        caption.scenario = QStringLiteral("live");
        caption.levers = QStringLiteral("all");
        view.setRunCaption(caption);
        PlotPanel* plots = w.plots();
        choose(*plots, "B");
        if (QTest::currentTestFailed())
            return;
        const auto stillB = [&] {
            plots->refreshNow();
            return plots->gatewayFilter() == QLatin1String("B") &&
                   plots->visibleSubscriptions() == QList<SubscriptionKey>{kB} &&
                   !plots->subscriptionGraph(kA, SubMetric::Outstanding)->visible() &&
                   plots->gatewayChooser()->currentText() == QLatin1String("B");
        };
        QVERIFY(stillB());
        w.store()->appendSeries({update(1, "inst-b × B", "tags_good", {{31, 20}})});
        const int replots = plots->replotCount();
        QTRY_VERIFY(plots->replotCount() > replots);
        QVERIFY(stillB());
        plots->setXRange(5, 15);
        QVERIFY(stillB());
        plots->resetZoom();
        w.setTheme(Theme::Dark);
        QVERIFY(stillB());
        // Offscreen, the closed list stays the active window; a desktop gives it back.
        QApplication::setActiveWindow(&w);
        QTRY_VERIFY(w.isActiveWindow());
        QTest::keyClick(&w, Qt::Key_F5); // presenter mode
        QVERIFY(w.presenterMode());
        QVERIFY(stillB());
        QVERIFY2(w.presenterCaption()->text().endsWith(QStringLiteral("— gateway B")),
                 qPrintable(w.presenterCaption()->text()));
        QTest::keyClick(&w, Qt::Key_Escape);
        QVERIFY(!w.presenterMode());
        QVERIFY(stillB());
        QTRY_VERIFY(plots->gatewayChooser()->isVisible()); // the toolbar is back, the chooser in it

        const QString csv = dir.filePath("b.csv");
        QVERIFY(w.exportCsv(csv, PlotPanel::Range::WholeRun));
        const QString text = readAll(csv);
        QVERIFY2(text.startsWith(QStringLiteral("# live · levers: all — gateway B\n")),
                 qPrintable(text.left(200)));
        QVERIFY(text.contains("gateway:B/sta_queue_depth") && !text.contains("inst-a") &&
                !text.contains("gateway:A"));
        PlotPanel::ExportOptions png;
        png.size = QSize(1280, 720);
        QVERIFY(w.exportPng(dir.filePath("b.png"), png));
        QCOMPARE(QImage(dir.filePath("b.png")).size(), QSize(1280, 720));
        QVERIFY(stillB()); // an export lays the plots out at its size, then gives them back
        QVERIFY(plots->exportCsv(dir.filePath("plain.csv"))); // the toolbar's CSV…, no title
        QVERIFY(readAll(dir.filePath("plain.csv")).startsWith(QStringLiteral("# gateway B\n")));
    }

    // At 1024×700 the toolbar with the chooser still fits the plot area: nothing folded
    // into "»", whichever of the example site's gateways is chosen.
    void toolbarWithTheChooserFitsAt1024x700()
    {
        QTemporaryDir dir;
        MainWindow w;
        w.setSettingsFile(dir.filePath("s.ini"));
        w.restoreSettings();
        MainWindowView view(w);
        view.setRunGateways({{"gw-packaging", {0, 1, 2, 3}}, {"gw-utilities", {4, 5, 6}}});
        w.resize(1024, 700);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QToolBar* bar = w.plots()->toolBar();
        for (const QString& gateway :
             {QString(), QStringLiteral("gw-packaging"), QStringLiteral("gw-utilities")}) {
            w.plots()->setGatewayFilter(gateway);
            QTest::qWait(50);
            QTRY_VERIFY(w.plots()->gatewayChooser()->isVisible());
            auto* ext = bar->findChild<QToolButton*>(QStringLiteral("qt_toolbar_ext_button"));
            QString widths;
            for (QAction* a : bar->actions())
                if (QWidget* item = bar->widgetForAction(a))
                    widths += QStringLiteral(" %1:%2").arg(
                        a->text(), QString::number(item->sizeHint().width()));
            QVERIFY2(!ext || !ext->isVisible(),
                     qPrintable(QStringLiteral("toolbar %1 wide, needs %2;%3")
                                    .arg(bar->width())
                                    .arg(bar->sizeHint().width())
                                    .arg(widths)));
            const QRect chooser(w.plots()->gatewayChooser()->mapTo(bar, QPoint(0, 0)),
                                w.plots()->gatewayChooser()->size());
            QVERIFY(bar->rect().contains(chooser));
        }
    }

    // The window's wheel rule: scrolling over the chooser does not pick a gateway until a
    // person focused it — in the window and in a panel of its own.
    void wheelDoesNotChangeTheChooserUnlessFocused()
    {
        QTemporaryDir dir;
        MainWindow w;
        w.setSettingsFile(dir.filePath("s.ini"));
        w.restoreSettings();
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.plots()->setGateways(kTwoGateways);
        SeriesStore store;
        PlotPanel alone(&store);
        alone.setGateways(kTwoGateways);
        alone.resize(1200, 800);
        alone.show();
        QVERIFY(QTest::qWaitForWindowExposed(&alone));
        for (PlotPanel* panel : {w.plots(), &alone}) {
            QComboBox* combo = panel->gatewayChooser();
            panel->window()->activateWindow();
            QVERIFY(QTest::qWaitForWindowActive(panel->window()));
            QTRY_VERIFY(combo->isVisible());
            panel->customPlot()->setFocus();
            QVERIFY(!combo->hasFocus());
            wheelOn(combo, 1);
            wheelOn(combo, 2);
            QCOMPARE(combo->currentIndex(), 0);
            QCOMPARE(panel->gatewayFilter(), QString());
            // Focused on purpose (a click, the list closed again): the wheel is the person's.
            QTest::mouseClick(combo, Qt::LeftButton);
            QTRY_VERIFY(combo->view()->isVisible());
            QTest::keyClick(combo->view(), Qt::Key_Escape);
            QTRY_VERIFY(!combo->view()->isVisible());
            QTRY_VERIFY(combo->hasFocus());
            wheelOn(combo, 1);
            QCOMPARE(combo->currentIndex(), 1);
            QCOMPARE(panel->gatewayFilter(), QStringLiteral("A"));
        }
    }

    // A site scenario played in virtual time models each gateway on its own: its gateway A
    // killed for 30 s, the plots filtered to B show B's own gateway series (queue, expired
    // calls, recovery) and B's tags, all undisturbed; filtered to A, the fall and the
    // recovery.
    void virtualSiteRunIsFilteredPerGateway()
    {
        QTemporaryDir dir;
        QJsonArray tagsA, tagsB;
        for (int i = 1; i <= 40; ++i) {
            tagsA.append(QStringLiteral("PS01.Pump%1.PV").arg(i));
            tagsB.append(QStringLiteral("TK%1.Level.PV").arg(i));
        }
        const QJsonObject siteJson{
            {"name", "two-gateway-plant"},
            {"gateways", QJsonArray{QJsonObject{{"name", "A"}, {"endpoint", "127.0.0.1:1"}},
                                    QJsonObject{{"name", "B"}, {"endpoint", "127.0.0.1:2"}}}},
            {"instances",
             QJsonArray{QJsonObject{{"name", "Pumps"}, {"gateway", "A"}, {"tags", tagsA}},
                        QJsonObject{{"name", "Tanks"}, {"gateway", "B"}, {"tags", tagsB}}}}};
        const QJsonObject scenarioJson{
            {"name", "site-a-killed"},
            {"description", "gateway A of the site dies for 30 s"},
            {"duration_s", 120},
            {"site", "site.json"},
            {"timeline",
             QJsonArray{QJsonObject{
                 {"at_s", 30}, {"action", "kill_gateway"}, {"downtime_s", 30}, {"gateway", "A"}}}},
            {"variants", QJsonArray{QJsonObject{{"name", "lever1+2"}, {"levers", "lever1+2"}}}}};
        for (const auto& [name, json] :
             {std::pair{QStringLiteral("site.json"), siteJson},
              std::pair{QStringLiteral("scenario.json"), scenarioJson}}) {
            QFile f(dir.filePath(name));
            QVERIFY(f.open(QIODevice::WriteOnly) && f.write(QJsonDocument(json).toJson()) > 0);
        }
        MainWindow w;
        w.setSettingsFile(dir.filePath("s.ini"));
        w.restoreSettings();
        MainWindowView view(w);
        ConsoleController controller(&view);
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QString error;
        const QString recording = dir.filePath("run.sqlite");
        QVERIFY2(controller.setRecording(recording, &error), qPrintable(error));
        emit view.intents()->playRequested(dir.filePath("scenario.json"),
                                           QStringLiteral("lever1+2"), 0);
        QTRY_VERIFY_WITH_TIMEOUT(controller.host()->state() == RunHost::State::Finished, 60000);
        PlotPanel* plots = w.plots();
        QCOMPARE(plots->gateways(), (QStringList{"A", "B"}));
        SeriesStore* store = w.store();
        QCOMPARE(store->gatewayNames(), (QStringList{"A", "B"}));
        const SubscriptionKey pumps{0, false}, tanks{1, false};
        QCOMPARE(store->label(tanks), QStringLiteral("Tanks × B"));
        // When B was all Good and nothing was in flight: from then on, nothing moves on B.
        double deployed = -1;
        for (const QPointF& p : store->series(tanks, SubMetric::Good))
            if (p.y() == 40 && deployed < 0)
                deployed = p.x();
        QVERIFY(deployed >= 0 && deployed < 30);

        choose(*plots, "B");
        if (QTest::currentTestFailed())
            return;
        plots->refreshNow();
        QCOMPARE(plots->visibleSubscriptions(), QList<SubscriptionKey>{tanks});
        for (const QPointF& p : store->series(tanks, SubMetric::Good))
            if (p.x() >= deployed)
                QCOMPARE(p.y(), 40.0);
        for (const QPointF& p : store->series(tanks, SubMetric::Outstanding))
            if (p.x() >= deployed)
                QCOMPARE(p.y(), 0.0);
        QVERIFY(maxOf(store->gatewaySeries(GatewayMetric::RecoveryState, "B")) == 0);
        QVERIFY(maxOf(store->gatewaySeries(GatewayMetric::DeadlineExceededPerS, "B")) == 0);
        // The gateway plot draws B's own series, not the run's sum.
        const QVector<double> queue = values(plots->gatewayGraph(GatewayMetric::StaQueueDepth));
        QVERIFY(!queue.isEmpty());
        QCOMPARE(*std::max_element(queue.begin(), queue.end()),
                 maxOf(store->gatewaySeries(GatewayMetric::StaQueueDepth, "B")));
        const QVector<double> invokes = values(plots->gatewayGraph(GatewayMetric::InvokeRps));
        QVERIFY(!invokes.isEmpty());
        QVERIFY(*std::max_element(invokes.begin(), invokes.end()) <=
                maxOf(store->gatewaySeries(GatewayMetric::InvokeRps, "B")));

        choose(*plots, "A");
        plots->refreshNow();
        QCOMPARE(plots->visibleSubscriptions(), QList<SubscriptionKey>{pumps});
        QCOMPARE(store->valueAt(pumps, SubMetric::Bad, 45), 40.0);   // down with its gateway
        QCOMPARE(store->valueAt(pumps, SubMetric::Good, 119), 40.0); // and back
        QVERIFY(values(plots->qualityGraph(SubMetric::Good)).contains(0));

        // Reopened from its recording: the same gateways to choose from, B's own series.
        const QVector<QPointF> queueB = store->gatewaySeries(GatewayMetric::StaQueueDepth, "B");
        QVERIFY(!queueB.isEmpty());
        QVERIFY(controller.setRecording(QString(), &error));
        QVERIFY2(controller.openRecording(recording, &error), qPrintable(error));
        QCOMPARE(plots->gateways(), (QStringList{"A", "B"}));
        choose(*plots, "B");
        if (QTest::currentTestFailed())
            return;
        plots->refreshNow();
        QCOMPARE(plots->visibleSubscriptions(), QList<SubscriptionKey>{tanks});
        QCOMPARE(store->gatewaySeries(GatewayMetric::StaQueueDepth, "B"), queueB);
    }

    // Done-when of two mxgw-mock processes as a site's two gateways, the console
    // live on the site; A is killed (SIGKILL). Filtered to B, every series shown is
    // undisturbed from the deploy on: Good constant at B's tag count, nothing Bad, nothing
    // in flight. Filtered to A, the plots show A's tags falling.
    void killedGatewayLeavesTheOtherUndisturbedOnItsPlots()
    {
        testsupport::MockProcess mockA{}, mockB{};
        QVERIFY(mockA.start());
        QVERIFY(mockB.start());
        QJsonArray tagsA, tagsB;
        for (int i = 1; i <= 30; ++i) {
            tagsA.append(QStringLiteral("PS01.Pump%1.PV").arg(i));
            tagsB.append(QStringLiteral("TK%1.Level.PV").arg(i));
        }
        QString error;
        const auto site = testsupport::twoGatewaySite(
            mockA.endpoint(), mockB.endpoint(),
            QJsonArray{QJsonObject{{"name", "Pumps"}, {"gateway", "A"}, {"tags", tagsA}},
                       QJsonObject{{"name", "Tanks"}, {"gateway", "B"}, {"tags", tagsB}},
                       QJsonObject{{"name", "Valves"},
                                   {"gateway", "B"},
                                   {"tags", QJsonArray{"XV1.PV", "XV2.PV"}}}},
            &error);
        QVERIFY2(site, qPrintable(error));

        QTemporaryDir dir;
        MainWindow w;
        w.setSettingsFile(dir.filePath("s.ini"));
        w.restoreSettings();
        MainWindowView view(w);
        ConsoleController controller(&view);
        controller.setSite(site->shape, site->ports);
        QVERIFY2(controller.startEmbedded(&error), qPrintable(error));
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        PlotPanel* plots = w.plots();
        QCOMPARE(plots->gateways(), (QStringList{"A", "B"}));
        QTRY_VERIFY(plots->gatewayChooser()->isVisible());

        SeriesStore* store = w.store();
        const QList<SubscriptionKey> pumps{{0, false}}, tanksAndValves{{1, false}, {2, false}};
        const QHash<int, int> tagCount{{0, 30}, {1, 30}, {2, 2}};
        const auto allGood = [&](const QList<SubscriptionKey>& keys) {
            const double t = store->latestTime();
            for (const SubscriptionKey& k : keys)
                if (store->valueAt(k, SubMetric::Good, t) != tagCount[k.instance] ||
                    store->valueAt(k, SubMetric::Outstanding, t) != 0)
                    return false;
            return true;
        };
        QTRY_VERIFY_WITH_TIMEOUT(allGood(pumps) && allGood(tanksAndValves), 20000);
        const double deployed = store->latestTime();

        mockA.kill();
        const double killedAt = store->latestTime();
        // A's tags fall; B's run on for three more seconds.
        QTRY_VERIFY_WITH_TIMEOUT(
            store->valueAt(pumps[0], SubMetric::Bad, store->latestTime()) == 30, 15000);
        QTRY_VERIFY_WITH_TIMEOUT(store->latestTime() > killedAt + 3, 15000);

        // The status bar says which gateway's session is gone.
        const QLabel* session = w.findChild<QLabel*>(QStringLiteral("statusSession"));
        QTRY_VERIFY2(session->text().startsWith(QStringLiteral("1 of 2 sessions, A ")),
                     qPrintable(session->text()));
        QVERIFY2(session->toolTip().contains(QStringLiteral("\nB: session")),
                 qPrintable(session->toolTip()));

        choose(*plots, "B");
        if (QTest::currentTestFailed())
            return;
        plots->fitWholeRun();
        plots->refreshNow();
        QCOMPARE(plots->visibleSubscriptions(), tanksAndValves);
        for (const SubscriptionKey& k : plots->visibleSubscriptions()) {
            const QString name = store->label(k);
            QVERIFY2(name.endsWith(QStringLiteral("× B")), qPrintable(name));
            for (const QPointF& p : store->series(k, SubMetric::Good))
                if (p.x() >= deployed)
                    QVERIFY2(
                        p.y() == tagCount[k.instance],
                        qPrintable(
                            QStringLiteral("%1 Good %2 at %3").arg(name).arg(p.y()).arg(p.x())));
            for (SubMetric m : {SubMetric::Bad, SubMetric::Uncertain, SubMetric::Outstanding})
                for (const QPointF& p : store->series(k, m))
                    if (p.x() >= deployed)
                        QVERIFY2(p.y() == 0, qPrintable(QStringLiteral("%1 %2 %3 at %4")
                                                            .arg(name, metricName(m))
                                                            .arg(p.y())
                                                            .arg(p.x())));
        }
        // B's own gateway series: its gate never left Normal, no call of B's expired.
        QCOMPARE(store->gatewayNames(), (QStringList{"A", "B"}));
        QVERIFY(!store->gatewaySeries(GatewayMetric::RecoveryState, "B").isEmpty());
        QCOMPARE(maxOf(store->gatewaySeries(GatewayMetric::RecoveryState, "B")), 0.0);
        QCOMPARE(maxOf(store->gatewaySeries(GatewayMetric::DeadlineExceededPerS, "B")), 0.0);
        // What the plot draws for B: the stacked Good level flat at B's 32 tags after the deploy.
        const QCPGraph* good = plots->qualityGraph(SubMetric::Good);
        for (auto it = good->data()->findBegin(deployed + 0.5, false);
             it != good->data()->constEnd(); ++it)
            QVERIFY2(it->value == 32,
                     qPrintable(QStringLiteral("B's Good %1 at %2").arg(it->value).arg(it->key)));
        const QCPGraph* bad = plots->qualityGraph(SubMetric::Bad);
        for (auto it = bad->data()->findBegin(deployed + 0.5, false); it != bad->data()->constEnd();
             ++it)
            QVERIFY2(it->value == 32, "the Bad level (good + uncertain + bad) rose above B's tags");

        choose(*plots, "A");
        plots->refreshNow();
        QCOMPARE(plots->visibleSubscriptions(), pumps);
        const QCPGraph* goodA = plots->qualityGraph(SubMetric::Good);
        QVERIFY(!goodA->data()->isEmpty());
        QCOMPARE((goodA->data()->constEnd() - 1)->value, 0.0); // A's tags are not Good any more
        QVERIFY(plots->crosshairText(store->latestTime()).contains(QStringLiteral("bad 30")));
        controller.host()->stop();
    }
};

QTEST_MAIN(TestPlotGatewayFilter)
#include "tst_plot_gateway_filter.moc"
