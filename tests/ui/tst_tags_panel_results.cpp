// The Tags dock's "failed to add" and "never received a value" filters, driven as a person
// does: mouse clicks and the keyboard on the real widgets (offscreen). "Failed to add" lists
// what the gateway refused, not a tag whose subscribe call failed (a timeout).
#include "client/client_engine.h"
#include "client/engine_batcher.h"
#include "client/lever_set.h"
#include "client/virtual_scheduler.h"
#include "gateway/gateway_model.h"
#include "scenario/in_process_gateway_port.h"
#include "ui/tags_panel.h"

#include <QLineEdit>
#include <QTableView>
#include <QToolButton>
#include <QtTest>

using namespace stormwatch;

namespace {
// `rejected`: the gateway refused the item; an error without it: the call failed.
TagChange tag(int t, int handle, int quality, qint64 timestampUs, const QString& error = {},
              bool rejected = false)
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
    c.rejected = rejected;
    return c;
}
} // namespace

class TestTagsPanelResults : public QObject {
    Q_OBJECT
private slots:
    void buttonsFilterByOutcomeOneAtATime();
    void failedToAddListsWhatTheGatewayRefusedNotTimeouts();
};

void TestTagsPanelResults::buttonsFilterByOutcomeOneAtATime()
{
    TagTableModel model;
    TagsPanel panel(&model);
    panel.resize(900, 400);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    model.applyChanges({tag(1, 11, 192, 2'000'000),
                        tag(2, 0, 0, 0, "item not found: P202.Run", true), tag(3, 13, 64, 0),
                        tag(4, 0, 0, 0, "item not found: P204.Run", true),
                        tag(5, 0, 0, 0, "DEADLINE_EXCEEDED: SubscribeBulk timed out after 30 s")});
    QToolButton* failed = panel.failedToAddButton();
    QToolButton* noValue = panel.neverReceivedButton();
    QCOMPARE(failed->text(), QString("Failed to add 2"));
    QCOMPARE(noValue->text(), QString("No value 4"));
    QCOMPARE(panel.view()->model()->rowCount(), 5);

    QTest::mouseClick(failed, Qt::LeftButton);
    QVERIFY(failed->isChecked());
    QCOMPARE(panel.view()->model()->rowCount(), 2);
    QStringList shown;
    for (int r = 0; r < 2; ++r)
        shown << panel.view()->model()->index(r, TagTableModel::SubscribeResult).data().toString();
    shown.sort();
    QCOMPARE(shown, QStringList({"item not found: P202.Run",
                                 "item not found: P204.Run"})); // not the timeout

    // The other button takes over: one outcome at a time.
    QTest::mouseClick(noValue, Qt::LeftButton);
    QVERIFY(noValue->isChecked());
    QVERIFY(!failed->isChecked());
    QCOMPARE(panel.view()->model()->rowCount(), 4);

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
    QCOMPARE(panel.view()->model()->rowCount(), 5);

    // Counts follow the data: a refused tag added after all, with a value; the timed-out
    // tag's retry reaches the gateway, which refuses it.
    model.applyChanges(
        {tag(2, 12, 192, 5'000'000), tag(5, 0, 0, 0, "item not found: P205.Run", true)});
    QCOMPARE(failed->text(), QString("Failed to add 2"));
    QCOMPARE(noValue->text(), QString("No value 3"));
    QTest::mouseClick(failed, Qt::LeftButton);
    QCOMPARE(panel.view()->model()->rowCount(), 2);
}

// The real client against the modelled gateway (virtual time): one instance's subscribe is
// answered and one of its addresses refused; a second instance subscribes into a wedged
// gateway and its call times out. The dock, fed the engine's own tag changes, lists only
// the refused address under "Failed to add"; the timed-out tags show their error but are
// not listed.
void TestTagsPanelResults::failedToAddListsWhatTheGatewayRefusedNotTimeouts()
{
    using namespace std::chrono_literals;
    VirtualScheduler sched;
    gateway::GatewayModel gateway(sched);
    InProcessGatewayPort port(sched, gateway, 1ms);
    gateway.setUnknownTags({"P20.Run3"});
    EngineConfig config;
    config.levers = *leverPreset(QStringLiteral("lever1+2"), nullptr);
    config.connections.push_back({"gw1", 0});
    config.instances.push_back({"Pumps", "gw1", {"P20.Run1", "P20.Run2", "P20.Run3", "P20.Run4"}});
    config.instances.push_back({"Valves", "gw1", {"V30.Open1", "V30.Open2", "V30.Open3"}});
    ClientEngine engine(sched, port, config);
    EngineBatcher batcher(engine);
    engine.setObserver(&batcher);
    engine.startConnections();
    engine.deploy(0);
    sched.runFor(5s);
    gateway.wedge(600s);
    engine.deploy(1);
    sched.runFor(120s); // past the session's command timeout: the Valves' subscribe failed

    TagTableModel model;
    TagsPanel panel(&model);
    panel.resize(900, 400);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    model.applyChanges(batcher.take().tags);
    QCOMPARE(model.rowCount(), 7);
    int callErrors = 0;
    for (int r = 0; r < model.rowCount(); ++r) {
        const TagChange& t = model.row(r);
        if (t.instanceName == "Valves" && !t.error.isEmpty() && !t.rejected)
            ++callErrors;
    }
    QVERIFY2(callErrors == 3,
             qPrintable(model.row(model.rowOf(1, 0)).error)); // each Valves tag: the call's error
    QToolButton* failed = panel.failedToAddButton();
    QCOMPARE(failed->text(), QString("Failed to add 1"));
    QTest::mouseClick(failed, Qt::LeftButton);
    QCOMPARE(panel.view()->model()->rowCount(), 1);
    QCOMPARE(panel.view()->model()->index(0, TagTableModel::Tag).data().toString(),
             QString("P20.Run3"));
    QVERIFY(!panel.view()
                 ->model()
                 ->index(0, TagTableModel::SubscribeResult)
                 .data()
                 .toString()
                 .isEmpty());
}

QTEST_MAIN(TestTagsPanelResults)
#include "tst_tags_panel_results.moc"
