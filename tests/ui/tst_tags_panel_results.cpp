// The Tags dock's "failed to add" and "never received a value" filters, driven as a person
// does: mouse clicks and the keyboard on the real widgets (offscreen).
#include "ui/tags_panel.h"

#include <QLineEdit>
#include <QTableView>
#include <QToolButton>
#include <QtTest>

using namespace stormwatch;

namespace {
TagChange tag(int t, int handle, int quality, qint64 timestampUs, const QString& error = {})
{
    TagChange c;
    c.instance = 0;
    c.tag = t;
    c.instanceName = QStringLiteral("Pumps");
    c.tagName = QStringLiteral("P20%1.Run").arg(t);
    c.quality = quality;
    c.sourceTimestampUs = timestampUs;
    c.itemHandle = handle;
    c.error = error;
    return c;
}
} // namespace

class TestTagsPanelResults : public QObject {
    Q_OBJECT
private slots:
    void buttonsFilterByOutcomeOneAtATime();
};

void TestTagsPanelResults::buttonsFilterByOutcomeOneAtATime()
{
    TagTableModel model;
    TagsPanel panel(&model);
    panel.resize(900, 400);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    model.applyChanges({tag(1, 11, 192, 2'000'000), tag(2, 0, 0, 0, "item not found: P202.Run"), tag(3, 13, 64, 0),
                        tag(4, 0, 0, 0, "item not found: P204.Run")});
    QToolButton* failed = panel.failedToAddButton();
    QToolButton* noValue = panel.neverReceivedButton();
    QCOMPARE(failed->text(), QString("Failed to add 2"));
    QCOMPARE(noValue->text(), QString("No value 3"));
    QCOMPARE(panel.view()->model()->rowCount(), 4);

    QTest::mouseClick(failed, Qt::LeftButton);
    QVERIFY(failed->isChecked());
    QCOMPARE(panel.view()->model()->rowCount(), 2);
    QCOMPARE(panel.view()->model()->index(0, TagTableModel::SubscribeResult).data().toString(),
             QString("item not found: P202.Run"));

    // The other button takes over: one outcome at a time.
    QTest::mouseClick(noValue, Qt::LeftButton);
    QVERIFY(noValue->isChecked());
    QVERIFY(!failed->isChecked());
    QCOMPARE(panel.view()->model()->rowCount(), 3);

    // Typing narrows it further; the keyboard lets go of the button again.
    panel.filterEdit()->setFocus();
    QTest::keyClicks(panel.filterEdit(), "P203");
    QCOMPARE(panel.view()->model()->rowCount(), 1);
    QTest::keyClick(panel.filterEdit(), Qt::Key_A, Qt::ControlModifier);
    QTest::keyClick(panel.filterEdit(), Qt::Key_Backspace);
    QCOMPARE(panel.filterEdit()->text(), QString());
    noValue->setFocus();
    QTest::keyClick(noValue, Qt::Key_Space);
    QVERIFY(!noValue->isChecked());
    QCOMPARE(panel.view()->model()->rowCount(), 4);

    // Counts follow the data: a refused tag added after all, with a value.
    model.applyChanges({tag(2, 12, 192, 5'000'000)});
    QCOMPARE(failed->text(), QString("Failed to add 1"));
    QCOMPARE(noValue->text(), QString("No value 2"));
}

QTEST_MAIN(TestTagsPanelResults)
#include "tst_tags_panel_results.moc"
