// The console's compare window as a person uses it: Compare variants… (the Scenario dock's
// button, clicked) opens one window; Compare again reruns in that window — where the person
// put it, as they sized it, with the column widths they dragged — and another scenario
// (chosen with the keys) runs there too, its columns laid out afresh. A Compare while a run
// is going starts over in the same window; once the window is closed, Compare opens a new one.

#include "ui/compare_view.h"
#include "ui/console_controller.h"
#include "ui/main_window.h"
#include "ui/main_window_view.h"

#include <QApplication>
#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QLoggingCategory>
#include <QPointer>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>

using namespace stormwatch;

namespace {

constexpr int kTimeoutMs = 60000;

template <typename T> T* child(const QObject& parent, const QString& name)
{
    T* c = parent.findChild<T*>(name);
    Q_ASSERT_X(c, "child", qPrintable(name));
    return c;
}

QPushButton* button(const QWidget& window, const QString& text)
{
    for (QPushButton* b : window.findChildren<QPushButton*>())
        if (b->text() == text)
            return b;
    Q_ASSERT_X(false, "button", qPrintable(text));
    return nullptr;
}

int compareWindows()
{
    int n = 0;
    for (QWidget* w : QApplication::topLevelWidgets())
        if (qobject_cast<CompareView*>(w) && w->isVisible())
            ++n;
    return n;
}

QStringList columnTitles(const QTableWidget* table)
{
    QStringList titles;
    for (int c = 0; c < table->columnCount(); ++c)
        titles << table->horizontalHeaderItem(c)->text();
    return titles;
}

// Drags the right edge of a column's header by dx pixels, as a person widens a column.
void dragColumnEdge(QHeaderView* header, int column, int dx)
{
    const int edge = header->sectionViewportPosition(column) + header->sectionSize(column) - 1;
    const int y = header->height() / 2;
    QTest::mouseMove(header->viewport(), QPoint(edge, y));
    QTest::mousePress(header->viewport(), Qt::LeftButton, {}, QPoint(edge, y));
    for (int step = 1; step <= 4; ++step)
        QTest::mouseMove(header->viewport(), QPoint(edge + dx * step / 4, y));
    QTest::mouseRelease(header->viewport(), Qt::LeftButton, {}, QPoint(edge + dx, y));
}

struct Console {
    QTemporaryDir dir;
    MainWindow window;
    MainWindowView view{window};
    ConsoleController controller{&view};

    Console()
    {
        window.setSettingsFile(dir.filePath(QStringLiteral("settings.ini")));
        QString error;
        controller.setDemoScenario(QStringLiteral("live-gate-lever1"), &error);
        controller.loadDemoScenario();
        window.resize(1400, 900);
        window.show();
    }
    void clickCompare()
    {
        QTest::mouseClick(child<QPushButton>(window, "compare"), Qt::LeftButton);
    }
};

bool labelSaying(const QWidget& view, const QString& text)
{
    const auto labels = view.findChildren<QLabel*>();
    return std::any_of(labels.begin(), labels.end(),
                       [&](const QLabel* l) { return l->text() == text; });
}

} // namespace

class TestCompareWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QLoggingCategory::setFilterRules(QStringLiteral("stormwatch.*.warning=false"));
    }

    void compareAgainRerunsInTheSameWindow()
    {
        Console console;
        QVERIFY(QTest::qWaitForWindowExposed(&console.window));
        console.clickCompare();
        QPointer<CompareView> view = console.controller.compareView();
        QVERIFY(view);
        QSignalSpy finished(view.data(), &CompareView::finished);
        QTRY_VERIFY_WITH_TIMEOUT(view->done(), kTimeoutMs);
        QCOMPARE(columnTitles(view->table()), (QStringList{"levers-off", "lever1"}));
        const QString firstCell = view->table()->item(0, 0)->text();

        // Put where the person wants it, sized, and the first column widened by hand.
        view->setGeometry(120, 90, 900, 640);
        QTRY_COMPARE(view->width(), 900);
        QHeaderView* header = view->table()->horizontalHeader();
        const int shared = header->sectionSize(0);
        dragColumnEdge(header, 0, 80);
        QCOMPARE(header->sectionSize(0), shared + 80);
        const QRect placed = view->geometry();

        console.clickCompare();
        QCOMPARE(console.controller.compareView(), view.data()); // the same window
        QVERIFY(!view->done());                                  // running again
        QTRY_VERIFY_WITH_TIMEOUT(view->done(), kTimeoutMs);
        QCOMPARE(finished.size(), 2);
        QCOMPARE(compareWindows(), 1);
        QCOMPARE(view->geometry(), placed);
        QCOMPARE(header->sectionSize(0), shared + 80);
        QCOMPARE(view->table()->item(0, 0)->text(), firstCell); // the same seed: the same result
        QVERIFY(button(*view, QStringLiteral("Export report…"))->isEnabled());

        // Another scenario, chosen with the keys: the same window, its own variants, the
        // columns sharing the width again.
        auto* scenarios = child<QComboBox>(console.window, "scenario");
        scenarios->setFocus();
        QTest::keyClicks(scenarios, QStringLiteral("capab"));
        QCOMPARE(scenarios->currentText(), QStringLiteral("capability-fallback"));
        console.clickCompare();
        QCOMPARE(console.controller.compareView(), view.data());
        QTRY_VERIFY_WITH_TIMEOUT(view->done() && finished.size() == 3, kTimeoutMs);
        QCOMPARE(compareWindows(), 1);
        QVERIFY2(view->windowTitle().contains(QStringLiteral("capability-fallback")),
                 qPrintable(view->windowTitle()));
        QCOMPARE(view->report().scenario, QStringLiteral("capability-fallback"));
        QCOMPARE(columnTitles(view->table()), (QStringList{"levers-off", "lever1+2"}));
        QCOMPARE(view->geometry(), placed);
        QCOMPARE(header->sectionSize(0), view->table()->viewport()->width() / 2);
    }

    void compareWhileRunningStartsOverInTheSameWindow()
    {
        Console console;
        QVERIFY(QTest::qWaitForWindowExposed(&console.window));
        console.clickCompare();
        QPointer<CompareView> view = console.controller.compareView();
        QVERIFY(view && view->running());
        QSignalSpy finished(view.data(), &CompareView::finished);
        console.clickCompare(); // while the first run is going
        // The click returned before the cancelled run ended: joining it would have ended it.
        QVERIFY(view->running());
        QVERIFY2(labelSaying(*view, QStringLiteral("stopping the last run…")),
                 "the click waited for the cancelled run");
        QCOMPARE(console.controller.compareView(), view.data());
        QTRY_VERIFY_WITH_TIMEOUT(view->done(), kTimeoutMs);
        QCOMPARE(finished.size(), 1); // the cancelled run showed nothing
        QCOMPARE(compareWindows(), 1);
        QCOMPARE(view->table()->rowCount() > 0, true);
        QVERIFY(view->table()->item(view->table()->rowCount() - 1, 1));
    }

    void closedWindowIsOpenedAnew()
    {
        Console console;
        QVERIFY(QTest::qWaitForWindowExposed(&console.window));
        console.clickCompare();
        QPointer<CompareView> first = console.controller.compareView();
        QTRY_VERIFY_WITH_TIMEOUT(first->done(), kTimeoutMs);
        QTest::mouseClick(button(*first, QStringLiteral("Close")), Qt::LeftButton);
        QTRY_VERIFY(!first); // closed windows are deleted
        console.clickCompare();
        QVERIFY(console.controller.compareView());
        QVERIFY(console.controller.compareView()->isVisible());
        QCOMPARE(compareWindows(), 1);
    }
};

QTEST_MAIN(TestCompareWindow)
#include "tst_compare_window.moc"
