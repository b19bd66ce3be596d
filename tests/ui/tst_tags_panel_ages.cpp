// The Tags dock's ages, driven as a person does on the real widgets (offscreen): typing an age
// into "Older than…" (and a wrong one), the clock moving on without any tag changing, the
// "Stale" button one at a time with the other outcome buttons, a click on the Age header, and
// the mouse wheel over the field changing nothing.
#include "ui/tags_panel.h"

#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QTableView>
#include <QToolButton>
#include <QWheelEvent>
#include <QtTest>

using namespace stormwatch;

namespace {

TagChange tag(int t, double receivedS, bool stale = false, int quality = 192)
{
    TagChange c;
    c.instance = 0;
    c.tag = t;
    c.instanceName = QStringLiteral("Tanks");
    c.tagName = QStringLiteral("TK%1.Level.PV").arg(t);
    c.quality = quality;
    c.itemHandle = 10 + t;
    c.receivedUs = receivedS < 0 ? -1 : qint64(receivedS * 1e6);
    c.sourceTimestampUs = receivedS < 0 ? 0 : qint64(receivedS * 1e6);
    c.stale = stale;
    c.staleAfterS = 50;
    return c;
}

QStringList shownTags(const TagsPanel& panel)
{
    QStringList names;
    const QAbstractItemModel* m = panel.view()->model();
    for (int r = 0; r < m->rowCount(); ++r)
        names << m->data(m->index(r, TagTableModel::Tag)).toString();
    return names;
}

void typeInto(QLineEdit* edit, const QString& text)
{
    edit->setFocus();
    QTest::keyClick(edit, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClick(edit, Qt::Key_Delete);
    QTest::keyClicks(edit, text);
}

} // namespace

class TestTagsPanelAges : public QObject {
    Q_OBJECT
private slots:
    void olderThanFiltersAndFollowsTheClock()
    {
        TagTableModel model;
        TagsPanel panel(&model);
        panel.resize(1024, 400);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        model.applyChanges({tag(1, 1), tag(2, 51), tag(3, 100), tag(4, -1)});
        model.setNow(110);
        typeInto(panel.olderThanEdit(), QStringLiteral("1 min"));
        QCOMPARE(shownTags(panel), (QStringList{"TK1.Level.PV"})); // 109 s old; the next one 59 s
        QCOMPARE(panel.findChild<QLabel*>("tagsShown")->text(), QString("1 of 4"));
        model.setNow(111); // a second passes, nothing else changes
        QCOMPARE(shownTags(panel), (QStringList{"TK1.Level.PV", "TK2.Level.PV"}));

        // Unreadable ("1 minx"): the filter stays as it was and the field says so.
        QTest::keyClick(panel.olderThanEdit(), Qt::Key_End);
        QTest::keyClicks(panel.olderThanEdit(), QStringLiteral("x"));
        QVERIFY(panel.olderThanEdit()->property("invalid").toBool());
        QCOMPARE(shownTags(panel).size(), 2);
        // Cleared: off.
        typeInto(panel.olderThanEdit(), QString());
        QVERIFY(!panel.olderThanEdit()->property("invalid").toBool());
        QCOMPARE(shownTags(panel).size(), 4);
    }

    void theWheelOverTheFieldChangesNothing()
    {
        TagTableModel model;
        TagsPanel panel(&model);
        panel.resize(1024, 400);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        model.applyChanges({tag(1, 0), tag(2, 50)});
        model.setNow(100);
        typeInto(panel.olderThanEdit(), QStringLiteral("60"));
        QLineEdit* edit = panel.olderThanEdit();
        const QPoint at = edit->rect().center();
        for (int step : {120, -120, -120}) {
            QWheelEvent wheel(at, edit->mapToGlobal(at), QPoint(), QPoint(0, step), Qt::NoButton,
                              Qt::NoModifier, Qt::NoScrollPhase, false);
            QApplication::sendEvent(edit, &wheel);
        }
        QCOMPARE(edit->text(), QString("60"));
        QCOMPARE(shownTags(panel), (QStringList{"TK1.Level.PV"}));
    }

    void staleIsOneOutcomeAmongTheOthers()
    {
        TagTableModel model;
        TagsPanel panel(&model);
        panel.resize(1024, 400);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        model.applyChanges({tag(1, 1, true), tag(2, 2), tag(3, 3, true, 0), tag(4, -1)});
        QCOMPARE(panel.staleButton()->text(),
                 QString("Stale 1")); // the Bad one is not Good to begin with
        QTest::mouseClick(panel.staleButton(), Qt::LeftButton);
        QCOMPARE(shownTags(panel), (QStringList{"TK1.Level.PV"}));
        QTest::mouseClick(panel.neverReceivedButton(), Qt::LeftButton);
        QVERIFY(!panel.staleButton()->isChecked());
        QCOMPARE(shownTags(panel), (QStringList{"TK4.Level.PV"}));
        QTest::mouseClick(panel.neverReceivedButton(), Qt::LeftButton);
        QCOMPARE(shownTags(panel).size(), 4);
        // Its next value: fresh, and the count follows.
        model.applyChanges({tag(1, 60)});
        QCOMPARE(panel.staleButton()->text(), QString("Stale 0"));
    }

    void clickingTheAgeHeaderSortsOldestFirstAndKeepsSortingAsTimePasses()
    {
        TagTableModel model;
        TagsPanel panel(&model);
        panel.resize(1400, 400);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        model.applyChanges({tag(1, 30), tag(2, 10), tag(3, 20)});
        model.setNow(40);
        QHeaderView* header = panel.view()->horizontalHeader();
        const int x = header->sectionViewportPosition(TagTableModel::Age) +
                      header->sectionSize(TagTableModel::Age) / 2;
        QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, QPoint(x, header->height() / 2));
        if (header->sortIndicatorOrder() ==
            Qt::AscendingOrder) // Qt starts ascending: youngest first
            QTest::mouseClick(header->viewport(), Qt::LeftButton, {},
                              QPoint(x, header->height() / 2));
        QCOMPARE(header->sortIndicatorSection(), int(TagTableModel::Age));
        QCOMPARE(shownTags(panel), (QStringList{"TK2.Level.PV", "TK3.Level.PV", "TK1.Level.PV"}));
        // TK2 gets a value; as the clock moves on it is the youngest.
        model.applyChanges({tag(2, 41)});
        model.setNow(42);
        QCOMPARE(shownTags(panel), (QStringList{"TK3.Level.PV", "TK1.Level.PV", "TK2.Level.PV"}));
    }
};

QTEST_MAIN(TestTagsPanelAges)
#include "tst_tags_panel_ages.moc"
