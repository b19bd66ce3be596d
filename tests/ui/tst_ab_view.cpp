// A/B side by side in the main window: two variants of one
// scenario, each panel labelled, one time axis in lock-step, one y-scale for both.
#include "scenario/scenario_parser.h"
#include "ui/ab_view.h"
#include "ui/main_window.h"
#include "ui/plot_panel.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QLabel>
#include <QLoggingCategory>
#include <QMenu>
#include <QPushButton>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <QToolButton>
#include <QWheelEvent>
#include <QtTest>
#include <array>
#include <qcustomplot.h>

using namespace stormwatch;

class TestAbView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QLoggingCategory::setFilterRules(QStringLiteral("stormwatch.*.warning=false"));
    }

    void ctrlBShowsTwoVariantsInLockStep()
    {
        QTemporaryDir dir;
        MainWindow w;
        w.setSettingsFile(dir.filePath("s.ini"));
        w.setScenarioNames({QStringLiteral("live-gate-lever1")});
        QVERIFY(w.loadScenario(QStringLiteral("live-gate-lever1")));
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTest::keyClick(&w, Qt::Key_B, Qt::ControlModifier);
        AbView* ab = w.abView();
        QVERIFY(ab);
        QTRY_VERIFY_WITH_TIMEOUT(ab->done(), 30000);
        QVERIFY(ab->isVisible());
        QVERIFY(!w.plots()->isVisible());

        // Labelled: which variant and which levers, left and right.
        QVERIFY2(ab->label(0)->text().startsWith(
                     "A: live-gate-lever1 — levers-off · levers: levers-off"),
                 qPrintable(ab->label(0)->text()));
        QVERIFY(ab->label(1)->text().startsWith("B: live-gate-lever1 — lever1 · levers: lever1"));
        // Beside the docks it is narrower than kSideBySideWidth, and too short for A above B
        // to leave each plot its height: side by side.
        QVERIFY(ab->width() < AbView::kSideBySideWidth);
        QVERIFY(ab->sideBySide());
        QVERIFY(ab->panel(0)->mapTo(&w, QPoint()).x() + ab->panel(0)->width() <=
                ab->panel(1)->mapTo(&w, QPoint()).x());
        // With the docks closed it is wide: left and right.
        for (QDockWidget* d : w.findChildren<QDockWidget*>())
            d->hide();
        QTRY_VERIFY(ab->width() >= AbView::kSideBySideWidth);
        QTRY_VERIFY(ab->panel(0)->mapTo(&w, QPoint()).x() + ab->panel(0)->width() <=
                    ab->panel(1)->mapTo(&w, QPoint()).x());
        // Both whole, on one y-scale (levers-off's 22 outstanding sets it for lever1 too).
        for (int i = 0; i < 2; ++i) {
            QCOMPARE(ab->panel(i)->xLower(), 0.0);
            QVERIFY(ab->panel(i)->xUpper() >= 109);
            QCOMPARE(ab->panel(i)->markers().size(), 1);
        }
        ab->panel(0)->refreshNow();
        ab->panel(1)->refreshNow();
        const auto upper = [&](int i) {
            return ab->panel(i)
                ->axisRect(PlotPanel::Plot::Outstanding)
                ->axis(QCPAxis::atLeft)
                ->range()
                .upper;
        };
        QVERIFY(upper(0) > 20);
        QCOMPARE(upper(1), upper(0));
        // A wheel zoom over A moves B to the same time range.
        QCustomPlot* plot = ab->panel(0)->customPlot();
        const QPointF at = ab->panel(0)->axisRect(PlotPanel::Plot::Interval)->rect().center();
        QWheelEvent wheel(at, plot->mapToGlobal(at), QPoint(), QPoint(0, 120), Qt::NoButton,
                          Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(plot, &wheel);
        QVERIFY(ab->panel(0)->xUpper() - ab->panel(0)->xLower() < 100);
        QCOMPARE(ab->panel(1)->xLower(), ab->panel(0)->xLower());
        QCOMPARE(ab->panel(1)->xUpper(), ab->panel(0)->xUpper());
        // Back to the console's plots.
        ab->findChild<QPushButton*>(QStringLiteral("abClose"))->click();
        QVERIFY(!ab->isVisible());
        QVERIFY(w.plots()->isVisible());
    }

    // At 1024 x 700 the two sides are stacked and each of their four plots is a thin strip:
    // each side chooses its plots from its own Plots button, with the mouse or the keys, and
    // the plots it keeps take the height. The choice is kept in the settings.
    void eachSideChoosesItsPlots()
    {
        QTemporaryDir dir;
        const QString settings = dir.filePath("s.ini");
        {
            MainWindow w;
            w.setSettingsFile(settings);
            w.setScenarioNames({QStringLiteral("live-gate-lever1")});
            QVERIFY(w.loadScenario(QStringLiteral("live-gate-lever1")));
            w.resize(1024, 700);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QTest::keyClick(&w, Qt::Key_B, Qt::ControlModifier);
            AbView* ab = w.abView();
            QTRY_VERIFY_WITH_TIMEOUT(ab && ab->done(), 30000);
            PlotPanel* a = ab->panel(0);
            PlotPanel* b = ab->panel(1);
            // Beside the docks, stacked sides would leave each plot a strip of a few pixels:
            // they are side by side.
            QVERIFY(ab->width() < AbView::kSideBySideWidth);
            QVERIFY(ab->sideBySide());
            a->refreshNow();
            std::array<int, PlotPanel::kPlotCount> before{};
            for (int p = 0; p < PlotPanel::kPlotCount; ++p)
                before[std::size_t(p)] = a->axisRect(PlotPanel::Plot(p))->rect().height();

            // A click on A's Plots button opens its menu; a click on "Gateway load" hides it.
            QTimer::singleShot(0, [&] {
                auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget());
                QVERIFY(menu);
                QAction* gateway = nullptr;
                for (QAction* action : menu->actions())
                    if (action->text() == PlotPanel::plotName(PlotPanel::Plot::Gateway))
                        gateway = action;
                QVERIFY(gateway && gateway->isChecked());
                QTest::mouseClick(menu, Qt::LeftButton, {}, menu->actionGeometry(gateway).center());
            });
            QTest::mouseClick(ab->plotsButton(0), Qt::LeftButton);
            QTRY_VERIFY(!QApplication::activePopupWidget());
            QVERIFY(!a->plotShown(PlotPanel::Plot::Gateway));
            QVERIFY(b->plotShown(PlotPanel::Plot::Gateway)); // B keeps its own choice
            a->refreshNow();
            QCPAxisRect* quality = a->axisRect(PlotPanel::Plot::Quality);
            QVERIFY(!a->axisRect(PlotPanel::Plot::Gateway)->visible());
            QVERIFY(!a->customPlot()->axisRects().contains(a->axisRect(PlotPanel::Plot::Gateway)));
            // The three left share its height; the time axis's labels moved to the lowest.
            for (int p = 0; p < 3; ++p) {
                const int after = a->axisRect(PlotPanel::Plot(p))->rect().height();
                QVERIFY2(after >= before[std::size_t(p)] + 5,
                         qPrintable(QStringLiteral("plot %1: %2 -> %3")
                                        .arg(p)
                                        .arg(before[std::size_t(p)])
                                        .arg(after)));
            }
            QVERIFY(quality->axis(QCPAxis::atBottom)->tickLabels());
            QVERIFY(!quality->axis(QCPAxis::atBottom)->label().isEmpty());
            QVERIFY(quality->outerRect().bottom() <= a->customPlot()->height());

            // The keys: Space opens the menu, Down to "Outstanding requests" (first), Return.
            ab->plotsButton(0)->setFocus();
            QTimer::singleShot(0, [&] {
                QWidget* menu = QApplication::activePopupWidget();
                QVERIFY(menu);
                QTest::keyClick(menu, Qt::Key_Down);
                QTest::keyClick(menu, Qt::Key_Return);
            });
            QTest::keyClick(ab->plotsButton(0), Qt::Key_Space);
            QTRY_VERIFY(!QApplication::activePopupWidget());
            QVERIFY(!a->plotShown(PlotPanel::Plot::Outstanding));
            a->refreshNow();
            // The marker's label moved to the top shown plot, inside it.
            QCPAxisRect* top = a->axisRect(PlotPanel::Plot::Interval);
            const QList<QCPItemText*> labels = a->markerLabels();
            QCOMPARE(labels.size(), 1);
            QCOMPARE(labels.front()->clipAxisRect(), top);
            QVERIFY(top->rect().contains(labels.front()->position->pixelPosition().toPoint()));

            // The last shown plot stays: hiding both others leaves one, and it is refused.
            QVERIFY(a->setPlotShown(PlotPanel::Plot::Quality, false));
            QVERIFY(!a->setPlotShown(PlotPanel::Plot::Interval, false));
            QVERIFY(a->plotShown(PlotPanel::Plot::Interval));
            QVERIFY(a->plotsMenu()->actions().at(1)->isChecked());
            QVERIFY(a->setPlotShown(PlotPanel::Plot::Quality, true));
            w.saveSettings();
        }
        MainWindow w;
        w.setSettingsFile(settings);
        w.restoreSettings();
        w.setScenarioNames({QStringLiteral("live-gate-lever1")});
        QVERIFY(w.loadScenario(QStringLiteral("live-gate-lever1")));
        w.resize(1024, 700);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTest::keyClick(&w, Qt::Key_B, Qt::ControlModifier);
        QTRY_VERIFY_WITH_TIMEOUT(w.abView() && w.abView()->done(), 30000);
        QCOMPARE(w.abView()->panel(0)->shownPlotsText(), QStringLiteral("interval,quality"));
        QCOMPARE(w.abView()->panel(1)->shownPlotsText(),
                 QStringLiteral("outstanding,interval,quality,gateway"));
    }

    // A above B keeps the time axes wide and aligned; side by side keeps the plots tall. A
    // above B while each plot keeps kMinStackedPlotHeight, else side by side while each
    // side keeps kMinSideWidth; side by side from kSideBySideWidth on.
    void sidesAreArrangedSoThatEachPlotKeepsItsHeight()
    {
        QList<ScenarioError> errors;
        const auto scenario = loadScenario(QStringLiteral("live-gate-lever1"), &errors);
        QVERIFY(scenario);
        AbView ab;
        ab.resize(900, 1400);
        ab.show();
        QVERIFY(QTest::qWaitForWindowExposed(&ab));
        ab.start(*scenario, QStringLiteral("levers-off"), QStringLiteral("lever1"));
        QTRY_VERIFY_WITH_TIMEOUT(ab.done(), 30000);
        QTRY_VERIFY(!ab.sideBySide());
        ab.panel(0)->refreshNow();
        ab.panel(1)->refreshNow();
        QVERIFY(ab.panel(0)->mapTo(&ab, QPoint()).y() + ab.panel(0)->height() <=
                ab.panel(1)->mapTo(&ab, QPoint()).y());
        // One moment is one x on both.
        const auto xAt = [&](int i, double t) {
            return ab.panel(i)->customPlot()->mapTo(&ab, QPoint()).x() +
                   ab.panel(i)
                       ->axisRect(PlotPanel::Plot::Gateway)
                       ->axis(QCPAxis::atBottom)
                       ->coordToPixel(t);
        };
        QVERIFY(std::abs(xAt(0, 60) - xAt(1, 60)) <= 1);
        for (int side = 0; side < 2; ++side)
            for (int p = 0; p < PlotPanel::kPlotCount; ++p)
                QVERIFY2(
                    ab.panel(side)->axisRect(PlotPanel::Plot(p))->rect().height() >=
                        AbView::kMinStackedPlotHeight - 15,
                    qPrintable(
                        QStringLiteral("side %1 plot %2: %3 px")
                            .arg(side)
                            .arg(p)
                            .arg(ab.panel(side)->axisRect(PlotPanel::Plot(p))->rect().height())));
        // Shorter: stacked plots would be strips, so side by side.
        ab.resize(900, 700);
        QTRY_VERIFY(ab.sideBySide());
        // Too narrow for two sides: stacked after all.
        ab.resize(2 * AbView::kMinSideWidth - 40, 700);
        QTRY_VERIFY(!ab.sideBySide());
        // Two plots a side fit stacked where four did not.
        ab.resize(900, 700);
        QTRY_VERIFY(ab.sideBySide());
        for (int side = 0; side < 2; ++side) {
            QVERIFY(ab.panel(side)->setPlotShown(PlotPanel::Plot::Quality, false));
            QVERIFY(ab.panel(side)->setPlotShown(PlotPanel::Plot::Gateway, false));
        }
        QTRY_VERIFY(!ab.sideBySide());
    }

    // The two finished runs reach the panels over several event-loop turns (each side's
    // series, then the scale, then each side's view), so a live run beside the view keeps
    // being served between them; done() and finished() only once both sides are whole.
    void finishedRunsAreShownOverSeveralTurns()
    {
        QList<ScenarioError> errors;
        const auto scenario = loadScenario(QStringLiteral("live-gate-lever1"), &errors);
        QVERIFY(scenario);
        AbView ab;
        ab.resize(1400, 800);
        ab.show();
        int turns = 0;
        int turnsAtThreadEnd = -1;
        QTimer ticker;
        ticker.setInterval(0);
        connect(&ticker, &QTimer::timeout, [&] {
            ++turns;
            if (turnsAtThreadEnd < 0 && !ab.running())
                turnsAtThreadEnd = turns;
        });
        int turnsAtFinished = -1;
        bool wholeAtFinished = false;
        connect(&ab, &AbView::finished, [&] {
            turnsAtFinished = turns;
            wholeAtFinished = ab.done();
            for (int i = 0; i < 2; ++i)
                wholeAtFinished = wholeAtFinished && ab.panel(i)->xLower() == 0.0 &&
                                  ab.panel(i)->xUpper() >= 109 &&
                                  ab.panel(i)->markers().size() == 1 &&
                                  ab.label(i)->text().contains(QStringLiteral("levers:"));
        });
        ab.start(*scenario, QStringLiteral("levers-off"), QStringLiteral("lever1"));
        ticker.start();
        QTRY_VERIFY_WITH_TIMEOUT(ab.done(), 30000);
        QVERIFY(wholeAtFinished);
        QVERIFY(turnsAtThreadEnd >= 0);
        // Two loads, two scales, two views, then finished: other events ran in between.
        QVERIFY2(turnsAtFinished - turnsAtThreadEnd >= 4,
                 qPrintable(QStringLiteral("%1 -> %2").arg(turnsAtThreadEnd).arg(turnsAtFinished)));
    }
};

QTEST_MAIN(TestAbView)
#include "tst_ab_view.moc"
