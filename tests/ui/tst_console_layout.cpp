// The console in front of a room: usable at 1024×700 (defect 6), presenter mode
// (F5 / Esc), scenario files dropped on the window, an invalid file not listed (defect 11),
// and exports with a title, a chosen size and range, rounded numbers (defect 10).
#include "models/series_store.h"
#include "models/support_series_updates.h"
#include "ui/main_window.h"
#include "ui/plot_panel.h"
#include "ui/scenario_panel.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDialog>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFile>
#include <QImage>
#include <QMenuBar>
#include <QMimeData>
#include <QPushButton>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTimeZone>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QWheelEvent>
#include <QtTest>
#include <qcustomplot.h>

using namespace stormwatch;

namespace {

void feedRun(SeriesStore& store, int seconds)
{
    for (int t = 0; t <= seconds; ++t) {
        QVector<testsupport::SubscriptionStep> steps;
        for (int i = 0; i < 2; ++i) {
            testsupport::SubscriptionStep s;
            s.t = t + 0.001; // 55.001 s: a time that prints as 55.000999999999976
            s.instance = i;  // Z28061, Z28062
            s.outstanding = (t / 7 + i) % 4;
            s.intervalMs = 5000 + 1000.0 / 3.0 * (t % 5);
            s.good = t < 100 ? 100 : 244;
            s.bad = 244 - s.good;
            steps << s;
        }
        testsupport::feed(store, steps);
        testsupport::feed(store, testsupport::GatewayStep{.t = t + 0.001,
                                                          .staQueueDepth = double(t % 9),
                                                          .invokeRps = 7});
    }
}

RunCaption caption()
{
    RunCaption c;
    c.scenario = QStringLiteral("incident-2026-08-26");
    c.variant = QStringLiteral("levers-off");
    c.levers = QStringLiteral("levers-off");
    c.gateway = QStringLiteral("in-process mock");
    c.start = QDateTime(QDate(2026, 8, 26), QTime(9, 0), Qt::UTC);
    c.virtualTime = true;
    return c;
}

// Labels of a horizontal axis, as drawn: each one's pixel span.
QList<QPair<double, double>> labelSpans(QCPAxis* axis)
{
    QList<QPair<double, double>> spans;
    const QFontMetrics fm(axis->tickLabelFont());
    const QVector<double> ticks = axis->tickVector();
    const QVector<QString> labels = axis->tickVectorLabels();
    for (int i = 0; i < ticks.size(); ++i) {
        const double centre = axis->coordToPixel(ticks[i]);
        const double half = fm.horizontalAdvance(labels.value(i)) / 2.0;
        spans << qMakePair(centre - half, centre + half);
    }
    return spans;
}

} // namespace

class TestConsoleLayout : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
    }

    void at1024x700ThePlotsKeepMostOfTheWidth()
    {
        MainWindow w;
        w.setSettingsFile(m_dir->filePath("s.ini"));
        feedRun(*w.store(), 600);
        w.resize(1024, 700);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTest::qWait(50);
        QCoreApplication::processEvents();
        w.plots()->refreshNow();
        QString docks;
        for (QDockWidget* d : w.findChildren<QDockWidget*>())
            docks += QStringLiteral(" %1 %2 (min %3)")
                         .arg(d->objectName())
                         .arg(d->width())
                         .arg(d->minimumSizeHint().width());
        QTRY_VERIFY2(w.plots()->width() >= 0.6 * w.width(),
                     qPrintable(QStringLiteral("plots %1 of %2;%3")
                                    .arg(w.plots()->width())
                                    .arg(w.width())
                                    .arg(docks)));
        QVERIFY2(w.plots()->height() >= 0.5 * w.height(),
                 qPrintable(QString::number(w.plots()->height())));
        // The plot toolbar is whole: nothing folded into "»".
        auto* ext =
            w.plots()->toolBar()->findChild<QToolButton*>(QStringLiteral("qt_toolbar_ext_button"));
        QVERIFY(!ext || !ext->isVisible());
        // Every dock that is shown lies inside the window and its content is not cut.
        for (QDockWidget* d : w.findChildren<QDockWidget*>()) {
            if (!d->isVisible() || d->visibleRegion().isEmpty())
                continue; // a tab behind another
            const QRect r(d->mapTo(&w, QPoint(0, 0)), d->size());
            QVERIFY2(w.rect().contains(r), qPrintable(d->objectName()));
            QVERIFY2(
                d->widget()->height() >= d->widget()->minimumSizeHint().height(),
                qPrintable(d->objectName() + QStringLiteral(" cut: %1 < %2")
                                                 .arg(d->widget()->height())
                                                 .arg(d->widget()->minimumSizeHint().height())));
        }
        // The side legends do not dominate the plots.
        QCPLayoutGrid* grid = w.plots()->customPlot()->plotLayout();
        for (int row = 0; row < grid->rowCount(); ++row)
            if (QCPLayoutElement* e = grid->element(row, 1))
                QVERIFY2(e->outerRect().width() <= 0.2 * w.plots()->width(),
                         qPrintable(QString::number(e->outerRect().width())));
        // Tick labels of the time axis do not overlap, nor do the value axes' labels.
        QCPAxis* x = w.plots()->axisRect(PlotPanel::Plot::Gateway)->axis(QCPAxis::atBottom);
        const auto spans = labelSpans(x);
        QVERIFY(spans.size() >= 3);
        for (int i = 1; i < spans.size(); ++i)
            QVERIFY2(spans[i].first > spans[i - 1].second,
                     qPrintable(x->tickVectorLabels().join(' ')));
        for (PlotPanel::Plot p : {PlotPanel::Plot::Outstanding, PlotPanel::Plot::Interval,
                                  PlotPanel::Plot::Quality, PlotPanel::Plot::Gateway}) {
            QCPAxis* y = w.plots()->axisRect(p)->axis(QCPAxis::atLeft);
            const QVector<double> ticks = y->tickVector();
            const int h = QFontMetrics(y->tickLabelFont()).height();
            for (int i = 1; i < ticks.size(); ++i)
                QVERIFY2(std::abs(y->coordToPixel(ticks[i]) - y->coordToPixel(ticks[i - 1])) >= h,
                         qPrintable(y->label()));
        }
        // Wide again: the docks are beside the plots again.
        w.resize(1600, 1000);
        QCoreApplication::processEvents();
        QTRY_VERIFY(w.findChild<QDockWidget*>(QStringLiteral("dockGateway"))->geometry().left() >
                    w.plots()->mapTo(&w, QPoint(0, 0)).x());
    }

    void f5PresentsAndEscReturns()
    {
        MainWindow w;
        w.setSettingsFile(m_dir->filePath("s.ini"));
        feedRun(*w.store(), 120);
        w.setRunCaption(caption());
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.plots()->refreshNow();
        const double tickPt = w.plots()
                                  ->axisRect(PlotPanel::Plot::Gateway)
                                  ->axis(QCPAxis::atBottom)
                                  ->tickLabelFont()
                                  .pointSizeF();
        QStringList shownBefore;
        for (QDockWidget* d : w.findChildren<QDockWidget*>())
            if (d->isVisible())
                shownBefore << d->objectName();
        QVERIFY(!shownBefore.isEmpty());

        QTest::keyClick(&w, Qt::Key_F5);
        QVERIFY(w.presenterMode());
        QCoreApplication::processEvents();
        for (QDockWidget* d : w.findChildren<QDockWidget*>())
            QVERIFY2(!d->isVisible(), qPrintable(d->objectName()));
        QVERIFY(!w.menuBar()->isVisible());
        QVERIFY(!w.statusBar()->isVisible());
        QVERIFY(!w.plots()->toolBar()->isVisible());
        QVERIFY(w.presenterCaption()->isVisible());
        QVERIFY(w.presenterCaption()->text().contains("incident-2026-08-26 — levers-off"));
        QVERIFY(w.presenterCaption()->text().contains("levers: levers-off"));
        QVERIFY(w.presenterCaption()->font().pointSizeF() > w.font().pointSizeF() * 1.4);
        QVERIFY(w.plots()->width() >= 0.95 * w.width());
        QCPAxis* x = w.plots()->axisRect(PlotPanel::Plot::Gateway)->axis(QCPAxis::atBottom);
        QVERIFY(x->tickLabelFont().pointSizeF() >= tickPt * 1.4);
        QCOMPARE(w.plots()->subscriptionGraph({0, false}, SubMetric::Outstanding)->pen().widthF(),
                 2.0);

        QTest::keyClick(&w, Qt::Key_Escape);
        QVERIFY(!w.presenterMode());
        QCoreApplication::processEvents();
        QStringList shownAfter;
        for (QDockWidget* d : w.findChildren<QDockWidget*>())
            if (d->isVisible())
                shownAfter << d->objectName();
        QCOMPARE(shownAfter, shownBefore);
        QVERIFY(w.menuBar()->isVisible());
        QVERIFY(!w.presenterCaption()->isVisible());
        QCOMPARE(x->tickLabelFont().pointSizeF(), tickPt);
        // Esc outside presenter mode does not present or leave anything.
        QTest::keyClick(&w, Qt::Key_Escape);
        QVERIFY(!w.presenterMode());
    }

    void droppedScenarioFileOpensAndABadOneIsNotListed()
    {
        MainWindow w;
        w.setSettingsFile(m_dir->filePath("s.ini"));
        w.setScenarioNames({QStringLiteral("live-gate-lever1")});
        QVERIFY(w.loadScenario(QStringLiteral("live-gate-lever1")));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* combo = w.scenarioPanel()->findChild<QComboBox*>();
        QVERIFY(combo);
        const int listed = combo->count();

        const QString good = m_dir->filePath("dropped.json");
        QVERIFY(QFile::copy(QStringLiteral(":/scenarios/live-gate-lever1.json"), good));
        QFile::setPermissions(good, QFile::ReadOwner | QFile::WriteOwner);
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(good)});
        const QPoint at = w.rect().center();
        QDragEnterEvent enter(at, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&w, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(at, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&w, &drop);
        QCOMPARE(w.scenarioPanel()->currentScenario(), good);
        QCOMPARE(combo->count(), listed + 1);
        QVERIFY(w.findChild<QPushButton*>(QStringLiteral("play"))->isEnabled());

        // Not a scenario file: the drag is refused.
        QMimeData text;
        text.setUrls({QUrl::fromLocalFile(m_dir->filePath("notes.txt"))});
        QDragEnterEvent refused(at, Qt::CopyAction, &text, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&w, &refused);
        QVERIFY(!refused.isAccepted());

        // A broken file: errors shown, not listed, the previous one still selected and playable.
        const QString bad = m_dir->filePath("broken.json");
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"name": "x", "duration_s": -5})");
        f.close();
        mime.setUrls({QUrl::fromLocalFile(bad)});
        QDragEnterEvent enterBad(at, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&w, &enterBad); // a drop goes where the drag was accepted
        QVERIFY(enterBad.isAccepted());
        QDropEvent dropBad(at, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&w, &dropBad);
        QVERIFY(dropBad.isAccepted());
        QCOMPARE(combo->count(), listed + 1);
        QVERIFY(combo->findData(bad) < 0);
        QCOMPARE(w.scenarioPanel()->currentScenario(), good);
        QVERIFY2(w.scenarioPanel()->description().contains("duration_s"),
                 qPrintable(w.scenarioPanel()->description()));
        QVERIFY(w.findChild<QPushButton*>(QStringLiteral("play"))->isEnabled());
    }

    void pngExportHasTheChosenSizeAndATitle()
    {
        MainWindow w;
        w.setSettingsFile(m_dir->filePath("s.ini"));
        feedRun(*w.store(), 600);
        w.setRunCaption(caption());
        w.resize(1024, 700);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.plots()->setXRange(100, 200);
        PlotPanel::ExportOptions options;
        options.size = QSize(1920, 1080);
        options.range = PlotPanel::Range::WholeRun;
        const QString titled = m_dir->filePath("titled.png");
        QVERIFY(w.exportPng(titled, options));
        const QImage image(titled);
        QCOMPARE(image.size(), QSize(1920, 1080));
        // The view on screen is what it was (the slide's larger fonts were for the image).
        QVERIFY(!w.plots()->presentation());
        QVERIFY(w.plots()->toolBar()->isVisible());
        QCOMPARE(w.plots()->xLower(), 100.0);
        QCOMPARE(w.plots()->xUpper(), 200.0);
        QCOMPARE(w.plots()->rangeText(PlotPanel::Range::WholeRun),
                 QStringLiteral("0:00–10:00 (whole run)"));
        QCOMPARE(w.plots()->rangeText(PlotPanel::Range::Visible),
                 QStringLiteral("1:40–3:20 (visible range)"));
        // The title band: text pixels above the plots, where an untitled export has none.
        w.setRunCaption(RunCaption{});
        const QString bare = m_dir->filePath("bare.png");
        options.title.clear();
        QVERIFY(w.plots()->exportPng(bare, nullptr, options));
        const auto inkInTopBand = [](const QImage& img) {
            int ink = 0;
            for (int y = 0; y < 40; ++y)
                for (int x = img.width() / 3; x < 2 * img.width() / 3; ++x)
                    ink += img.pixelColor(x, y).lightness() < 128 ? 1 : 0;
            return ink;
        };
        QVERIFY(inkInTopBand(image) > 50);
        QVERIFY(inkInTopBand(QImage(bare)) < inkInTopBand(image));
        options.size = QSize(1280, 720);
        QVERIFY(w.plots()->exportPng(bare, nullptr, options));
        QCOMPARE(QImage(bare).size(), QSize(1280, 720));
    }

    // The export dialog asks for the range and the size; its size list does not change
    // under a wheel scrolled over it unfocused (the window's wheel rule reaches its dialogs).
    void exportDialogAsksAndIgnoresAStrayWheel()
    {
        MainWindow w;
        w.setSettingsFile(m_dir->filePath("s.ini"));
        feedRun(*w.store(), 60);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        bool checked = false;
        QTimer::singleShot(0, &w, [&] {
            QWidget* dialog = QApplication::activeModalWidget();
            QVERIFY(dialog);
            auto* size = dialog->findChild<QComboBox*>();
            QVERIFY(size);
            QCOMPARE(size->currentData().toSize(), QSize(1920, 1080));
            QCOMPARE(size->count(), 3);
            const QPointF at = size->rect().center();
            QWheelEvent wheel(at, size->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton,
                              Qt::NoModifier, Qt::NoScrollPhase, false);
            QApplication::sendEvent(size, &wheel);
            QCOMPARE(size->currentIndex(), 0);
            checked = true;
            static_cast<QDialog*>(dialog)->reject(); // cancelled: no file dialog follows
        });
        w.findChild<QAction*>(QStringLiteral("actionExportPng"))->trigger();
        QVERIFY(checked);
    }

    void csvSaysItsRangeHasWallTimeAndRoundedNumbers()
    {
        MainWindow w;
        w.setSettingsFile(m_dir->filePath("s.ini"));
        feedRun(*w.store(), 120);
        w.setRunCaption(caption());
        w.plots()->setXRange(50, 60);
        const QString visible = m_dir->filePath("visible.csv");
        const QString whole = m_dir->filePath("whole.csv");
        QVERIFY(w.exportCsv(visible, PlotPanel::Range::Visible));
        QVERIFY(w.exportCsv(whole, PlotPanel::Range::WholeRun));
        const auto read = [](const QString& path) {
            QFile f(path);
            f.open(QIODevice::ReadOnly);
            return QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
        };
        const QStringList v = read(visible), a = read(whole);
        QVERIFY(v[0].startsWith("# incident-2026-08-26 — levers-off"));
        QVERIFY2(v[1].startsWith("# range: 0:50–1:00 (visible range)"), qPrintable(v[1]));
        QVERIFY2(a[1].startsWith("# range: 0:00–2:00 (whole run)"), qPrintable(a[1]));
        QCOMPARE(v[2], QStringLiteral("# run start: 2026-08-26T09:00:00.000Z"));
        QVERIFY(v[3].startsWith("t_s,time_utc,"));
        QVERIFY(a.size() > v.size() + 50);
        // 55.001 s into the run: its wall time, and no float noise anywhere.
        const QString row = *std::find_if(v.begin(), v.end(),
                                          [](const QString& l) { return l.startsWith("55.001,"); });
        QVERIFY2(row.startsWith("55.001,2026-08-26T09:00:55.001Z,"), qPrintable(row));
        const QRegularExpression noise(QStringLiteral("\\d\\.\\d{4,}"));
        for (const QString& line : a)
            if (!line.startsWith('#'))
                QVERIFY2(!noise.match(line).hasMatch(), qPrintable(line));
        // 5333.333… ms is rounded, not dropped.
        QVERIFY(a.join('\n').contains(QStringLiteral(",5333.333,")));
    }

private:
    std::unique_ptr<QTemporaryDir> m_dir;
};

QTEST_MAIN(TestConsoleLayout)
#include "tst_console_layout.moc"
