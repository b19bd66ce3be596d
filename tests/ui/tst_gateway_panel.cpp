// The Gateway dock's gateway chooser: shown only for a run on several gateways,
// picked with the mouse or the keys like any combo, and carried by every fault button into
// the fault it requests ("" = every gateway); the capability checkbox follows it too.
// Driven with real events, offscreen.

#include "ui/gateway_panel.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QCheckBox>
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

// What one click on the capability checkbox asked for: every gateway (capabilityToggled)
// or one (a set_capability naming it).
struct CapabilityClick {
    int toggled = 0; // capabilityToggled emitted
    bool toggledTo = false;
    QList<TimelineEvent> events; // faultRequested emitted
};

CapabilityClick clickCapability(GatewayPanel& panel)
{
    auto* box = panel.findChild<QCheckBox*>(QStringLiteral("advertiseBulkSupervisory"));
    QSignalSpy toggled(&panel, &GatewayPanel::capabilityToggled);
    QSignalSpy requested(&panel, &GatewayPanel::faultRequested);
    QTest::mouseClick(box, Qt::LeftButton, {}, QPoint(8, box->height() / 2)); // its indicator
    CapabilityClick c;
    c.toggled = int(toggled.count());
    if (c.toggled)
        c.toggledTo = toggled.first().first().toBool();
    for (const auto& args : requested)
        c.events << args.first().value<TimelineEvent>();
    return c;
}

Qt::CheckState capabilityShown(const GatewayPanel& panel)
{
    return panel.findChild<QCheckBox*>(QStringLiteral("advertiseBulkSupervisory"))->checkState();
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

    // The console sets the run's gateways at every refresh (20 times a second live): an
    // open list must keep the row the person moved to with the keys.
    void anOpenListKeepsItsHighlightThroughRefreshes()
    {
        GatewayPanel panel;
        panel.resize(420, 600);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        const QStringList names{"gw-a", "gw-b", "gw-c"};
        panel.setGateways(names);
        QComboBox* chooser = panel.gatewayChooser();
        chooser->setFocus(Qt::TabFocusReason);
        QTRY_VERIFY(chooser->hasFocus());
        QTest::keyClick(chooser, Qt::Key_F4); // opens the list
        QAbstractItemView* list = chooser->view();
        QTRY_VERIFY(list->isVisible());
        QTest::keyClick(list, Qt::Key_Down);
        QTest::keyClick(list, Qt::Key_Down);
        QCOMPARE(list->currentIndex().row(), 2);
        panel.setGateways(names); // a refresh
        panel.setGateways(names);
        QVERIFY(list->isVisible());
        QCOMPARE(list->currentIndex().row(), 2);
        QTest::keyClick(list, Qt::Key_Return);
        QTRY_VERIFY(!list->isVisible());
        QCOMPARE(chooser->currentText(), QString("gw-b"));
        QCOMPARE(clickFault(panel, TimelineAction::Wedge).gateway, QString("gw-b"));
    }

    void theCapabilityFollowsTheChosenGateway()
    {
        GatewayPanel panel;
        panel.resize(420, 600);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        // One gateway: the checkbox speaks for the run, as ever.
        CapabilityClick c = clickCapability(panel);
        QCOMPARE(c.toggled, 1);
        QCOMPARE(c.toggledTo, false);
        QVERIFY(c.events.isEmpty());
        QCOMPARE(clickCapability(panel).toggledTo, true);

        panel.setGateways({"gw-a", "gw-b"});
        QComboBox* chooser = panel.gatewayChooser();
        QCOMPARE(capabilityShown(panel), Qt::Checked);
        // All gateways: withdrawn from every one.
        c = clickCapability(panel);
        QCOMPARE(c.toggled, 1);
        QCOMPARE(c.toggledTo, false);
        QVERIFY(c.events.isEmpty());
        QCOMPARE(capabilityShown(panel), Qt::Unchecked);

        // gw-b chosen with the keys: a click advertises it on gw-b only.
        chooser->setFocus(Qt::TabFocusReason);
        QTRY_VERIFY(chooser->hasFocus());
        QTest::keyClick(chooser, Qt::Key_Down);
        QTest::keyClick(chooser, Qt::Key_Down);
        QCOMPARE(chooser->currentText(), QString("gw-b"));
        QCOMPARE(capabilityShown(panel), Qt::Unchecked);
        c = clickCapability(panel);
        QCOMPARE(c.toggled, 0);
        QCOMPARE(c.events.size(), 1);
        QCOMPARE(c.events[0].action, TimelineAction::SetCapability);
        QCOMPARE(c.events[0].advertiseBulkSupervisory, true);
        QCOMPARE(c.events[0].gateway, QString("gw-b"));
        QCOMPARE(capabilityShown(panel), Qt::Checked);

        // The checkbox shows the chosen gateway's state; All, when they differ, partly.
        QTest::keyClick(chooser, Qt::Key_Up);
        QCOMPARE(chooser->currentText(), QString("gw-a"));
        QCOMPARE(capabilityShown(panel), Qt::Unchecked);
        QTest::keyClick(chooser, Qt::Key_Up);
        QCOMPARE(chooser->currentText(), QString("All gateways"));
        QCOMPARE(capabilityShown(panel), Qt::PartiallyChecked);
        // A click from there advertises it on every gateway.
        c = clickCapability(panel);
        QCOMPARE(c.toggled, 1);
        QCOMPARE(c.toggledTo, true);
        QVERIFY(c.events.isEmpty());
        QCOMPARE(capabilityShown(panel), Qt::Checked);
        QTest::keyClick(chooser, Qt::Key_Down);
        QCOMPARE(capabilityShown(panel), Qt::Checked); // gw-a too

        // gw-a withdrawn alone; the run's own reflection sets every gateway, silently.
        c = clickCapability(panel);
        QCOMPARE(c.events.size(), 1);
        QCOMPARE(c.events[0].gateway, QString("gw-a"));
        QCOMPARE(c.events[0].advertiseBulkSupervisory, false);
        QSignalSpy toggled(&panel, &GatewayPanel::capabilityToggled);
        QSignalSpy requested(&panel, &GatewayPanel::faultRequested);
        panel.setAdvertiseBulkSupervisory(true);
        QCOMPARE(capabilityShown(panel), Qt::Checked);
        QTest::keyClick(chooser, Qt::Key_Down);
        QCOMPARE(capabilityShown(panel), Qt::Checked);
        QCOMPARE(toggled.count() + requested.count(), 0);
    }
};

QTEST_MAIN(TestGatewayPanel)
#include "tst_gateway_panel.moc"
