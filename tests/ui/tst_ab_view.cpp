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
#include <QPushButton>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <QWheelEvent>
#include <QtTest>
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
        // Beside the docks it is narrower than kSideBySideWidth: A above B, their time axes
        // on the same pixels, so one moment is one x on both.
        QVERIFY(ab->width() < AbView::kSideBySideWidth);
        QVERIFY(ab->panel(0)->mapTo(&w, QPoint()).y() + ab->panel(0)->height() <=
                ab->panel(1)->mapTo(&w, QPoint()).y());
        ab->panel(0)->refreshNow();
        ab->panel(1)->refreshNow();
        const auto xAt = [&](int i, double t) {
            return ab->panel(i)->customPlot()->mapTo(&w, QPoint()).x() +
                   ab->panel(i)
                       ->axisRect(PlotPanel::Plot::Gateway)
                       ->axis(QCPAxis::atBottom)
                       ->coordToPixel(t);
        };
        QVERIFY(std::abs(xAt(0, 60) - xAt(1, 60)) <= 1);
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
