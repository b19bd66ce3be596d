// The Tags dock's table repaints for changed tags at most five times a second, and only
// when a changed row is in sight (20 repaints a second of ~9 ms each beside a
// live run). Driven by the model's own change signals on the real panel, offscreen; the
// repaints are counted as the viewport's paint events.
#include "ui/tag_table_view.h"
#include "ui/tags_panel.h"

#include <QScrollBar>
#include <QtTest>

using namespace stormwatch;

namespace {

TagChange tag(int t, double value)
{
    TagChange c;
    c.instance = 0;
    c.tag = t;
    c.instanceName = QStringLiteral("Pumps");
    c.tagName = QStringLiteral("P%1.Flow").arg(t, 4, 10, QLatin1Char('0'));
    c.value = value;
    c.quality = 192;
    c.sourceTimestampUs = 1'000'000 + qint64(value * 1000);
    c.itemHandle = 100 + t;
    return c;
}

QVector<TagChange> tags(int from, int to, double value)
{
    QVector<TagChange> out;
    for (int t = from; t < to; ++t)
        out.push_back(tag(t, value));
    return out;
}

class PaintCounter : public QObject {
public:
    int paints = 0;
    bool eventFilter(QObject*, QEvent* event) override
    {
        if (event->type() == QEvent::Paint)
            ++paints;
        return false;
    }
};

} // namespace

class TestTagTableView : public QObject {
    Q_OBJECT
private slots:
    void changesInSightRepaintOnceAnInterval()
    {
        TagTableModel model;
        model.applyChanges(tags(0, 200, 1));
        TagsPanel panel(&model);
        panel.resize(900, 400);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        auto* view = qobject_cast<TagTableView*>(panel.view());
        QVERIFY(view);
        PaintCounter counter;
        view->viewport()->installEventFilter(&counter);
        QTRY_VERIFY(!view->repaintPending());
        QCoreApplication::processEvents();
        const int before = counter.paints;

        // A live run's batches: every tag changes, many times within one interval.
        QElapsedTimer clock;
        clock.start();
        model.applyChanges(tags(0, 200, 2));
        QVERIFY(view->repaintPending());
        for (int i = 3; i <= 6; ++i) {
            QCoreApplication::processEvents(); // no paint before the interval is over
            model.applyChanges(tags(0, 200, i));
        }
        if (clock.elapsed() < 1000 / TagTableView::kRepaintsPerSecond - 20)
            QCOMPARE(counter.paints, before); // unless a loaded machine took the interval
        QTRY_COMPARE(counter.paints, before + 1);
        QVERIFY(!view->repaintPending()); // the later batches asked for no second repaint

        // The next change is shown again (within the next interval).
        model.applyChanges({tag(1, 7)});
        QVERIFY(view->repaintPending());
        QTRY_COMPARE(counter.paints, before + 2);
    }

    void aChangeOutOfSightOrWhileHiddenRepaintsNothing()
    {
        TagTableModel model;
        model.applyChanges(tags(0, 500, 1));
        TagsPanel panel(&model);
        panel.resize(900, 300);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        auto* view = qobject_cast<TagTableView*>(panel.view());
        QVERIFY(view);
        QTRY_VERIFY(!view->repaintPending());
        QVERIFY(view->rowAt(view->viewport()->height() - 1) < 400); // 300 px show far fewer rows

        model.applyChanges(tags(450, 500, 2)); // below the rows in sight
        QVERIFY(!view->repaintPending());
        model.applyChanges({tag(0, 3)}); // the first row is in sight
        QVERIFY(view->repaintPending());
        QTRY_VERIFY(!view->repaintPending());

        // Scrolled to the end with the keyboard, as a person does: now the last rows are in sight.
        view->setFocus();
        QTest::keyClick(view, Qt::Key_End, Qt::ControlModifier);
        QTRY_COMPARE(view->verticalScrollBar()->value(), view->verticalScrollBar()->maximum());
        model.applyChanges({tag(0, 4)});
        QVERIFY(!view->repaintPending());
        model.applyChanges({tag(499, 4)});
        QVERIFY(view->repaintPending());
        QTRY_VERIFY(!view->repaintPending());

        PaintCounter counter;
        view->viewport()->installEventFilter(&counter);
        panel.hide();
        model.applyChanges(tags(0, 500, 5));
        QVERIFY(!view->repaintPending());
        QCoreApplication::processEvents();
        QCOMPARE(counter.paints, 0); // hidden: nothing painted
        panel.show(); // shown again: the rows in sight are painted (with the model's values)
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QTRY_VERIFY(counter.paints > 0);
        QVERIFY(!view->repaintPending()); // the hidden change left no repaint owed
    }
};

QTEST_MAIN(TestTagTableView)
#include "tst_tag_table_view.moc"
