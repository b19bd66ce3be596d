// The Gateway dock's gateway chooser (issue 13): shown only for a run on several gateways,
// picked with the mouse or the keys like any combo, and carried by every fault button into
// the fault it requests ("" = every gateway). Driven with real events, offscreen.

#include "ui/gateway_panel.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QComboBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QtTest>

using namespace stormwatch;

namespace {

// Clicks the button and returns the fault it requested (one, or the test fails).
TimelineEvent clickFault(GatewayPanel& panel, TimelineAction action)
{
    QSignalSpy requested(&panel, &GatewayPanel::faultRequested);
    QPushButton* button = panel.faultButton(action);
    QTest::mouseClick(button, Qt::LeftButton, {}, button->rect().center());
    if (requested.count() != 1) {
        TimelineEvent none;
        none.gateway = QStringLiteral("<not one fault requested>");
        return none;
    }
    return requested.first().first().value<TimelineEvent>();
}

QStringList items(const QComboBox* combo)
{
    QStringList texts;
    for (int i = 0; i < combo->count(); ++i)
        texts << combo->itemText(i);
    return texts;
}

} // namespace

class TestGatewayPanel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { qRegisterMetaType<TimelineEvent>(); }

    void oneGatewayShowsNoChooserAndFaultsHitIt()
    {
        GatewayPanel panel;
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QVERIFY(!panel.gatewayChooser()->isVisible());
        const TimelineEvent e = clickFault(panel, TimelineAction::Wedge);
        QCOMPARE(e.action, TimelineAction::Wedge);
        QCOMPARE(e.gateway, QString());
        panel.setGateways({"gw-only"}); // one named gateway: nothing to choose either
        QVERIFY(!panel.gatewayChooser()->isVisible());
        QCOMPARE(clickFault(panel, TimelineAction::Slow).gateway, QString());
    }

    void theChosenGatewayGoesWithEveryFault()
    {
        GatewayPanel panel;
        panel.resize(420, 600);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.setGateways({"gw-a", "gw-b"});
        QComboBox* chooser = panel.gatewayChooser();
        QVERIFY(chooser->isVisible());
        QCOMPARE(items(chooser), QStringList({"All gateways", "gw-a", "gw-b"}));
        QCOMPARE(clickFault(panel, TimelineAction::Wedge).gateway, QString()); // All: every gateway

        // The mouse: open the list, click gw-b.
        QTest::mouseClick(chooser, Qt::LeftButton, {}, chooser->rect().center());
        QAbstractItemView* list = chooser->view();
        QTRY_VERIFY(list->isVisible());
        // A combo ignores a release within a double-click interval of its popup opening (the
        // opening click's own): a person's second click comes later.
        QTest::qWait(QApplication::doubleClickInterval() + 50);
        const QRect b = list->visualRect(list->model()->index(2, 0));
        QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, b.center());
        QTRY_VERIFY(!list->isVisible());
        QCOMPARE(chooser->currentText(), QString("gw-b"));
        TimelineEvent e = clickFault(panel, TimelineAction::SourceOutage);
        QCOMPARE(e.action, TimelineAction::SourceOutage);
        QCOMPARE(e.gateway, QString("gw-b"));
        QCOMPARE(e.durationS, 30.0);

        // The keys: focused, Up picks gw-a.
        chooser->setFocus(Qt::TabFocusReason);
        QTRY_VERIFY(chooser->hasFocus());
        QTest::keyClick(chooser, Qt::Key_Up);
        QCOMPARE(chooser->currentText(), QString("gw-a"));
        e = clickFault(panel, TimelineAction::RestartGateway);
        QCOMPARE(e.gateway, QString("gw-a"));
        QCOMPARE(e.downtimeS, 5.0);
        QTest::keyClick(chooser, Qt::Key_Up);
        QCOMPARE(clickFault(panel, TimelineAction::Wedge).gateway, QString());
        QTest::keyClick(chooser, Qt::Key_Down);

        // A new list that still has the chosen gateway keeps it; one without falls back to
        // All; a run on one gateway hides the chooser and its faults hit that gateway.
        panel.setGateways({"gw-x", "gw-a", "gw-b"});
        QCOMPARE(chooser->currentText(), QString("gw-a"));
        panel.setGateways({"gw-c", "gw-d"});
        QCOMPARE(chooser->currentText(), QString("All gateways"));
        QCOMPARE(clickFault(panel, TimelineAction::Wedge).gateway, QString());
        panel.setGateways({"gw-c", "gw-d"});
        QTest::keyClick(chooser, Qt::Key_Down);
        QCOMPARE(clickFault(panel, TimelineAction::Wedge).gateway, QString("gw-c"));
        panel.setGateways({});
        QVERIFY(!chooser->isVisible());
        QCOMPARE(clickFault(panel, TimelineAction::Wedge).gateway, QString());
    }
};

QTEST_MAIN(TestGatewayPanel)
#include "tst_gateway_panel.moc"
