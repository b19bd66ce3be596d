// TopologyModel: gateway → connections → instances, updated by diffs (in place, insert,
// remove), state colours and tooltips — under the model tester.
#include "models/topology_model.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QtTest>

using namespace stormwatch;

namespace {

ConnectionInfo connection(const QString& name, const QString& state, bool bulk = true)
{
    ConnectionInfo c;
    c.name = name;
    c.state = state;
    c.address = QStringLiteral("127.0.0.1:50051");
    c.sessionId = QStringLiteral("s-1");
    c.capabilities = {QStringLiteral("unary-invoke"), QStringLiteral("bulk-subscribe-commands")};
    if (bulk)
        c.capabilities << QStringLiteral("bulk-subscribe-supervisory");
    c.protocolVersion = 3;
    c.echoedCommandTimeoutS = 60;
    c.supportsSupervisoryBulk = bulk;
    return c;
}

QStringList childNames(const QAbstractItemModel& m, const QModelIndex& parent)
{
    QStringList names;
    for (int r = 0; r < m.rowCount(parent); ++r)
        names << m.data(m.index(r, 0, parent)).toString();
    return names;
}

} // namespace

class TestTopologyModel : public QObject {
    Q_OBJECT
private slots:
    void gatewayConnectionsAndInstancesFormATree()
    {
        TopologyModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 1);
        model.setGateway(QStringLiteral("127.0.0.1:50051"), QStringLiteral("normal"));
        model.setConnections({connection("gw1", "connected"), connection("gw2", "connecting")});
        model.setInstances({{"gw1", {"Z28061", "Z28062"}}, {"gw2", {"Z30001"}}});
        const QModelIndex gateway = model.gatewayIndex();
        QCOMPARE(model.data(gateway).toString(), QStringLiteral("gateway 127.0.0.1:50051"));
        QCOMPARE(model.data(model.index(0, TopologyModel::State)).toString(),
                 QStringLiteral("normal"));
        QCOMPARE(childNames(model, gateway), (QStringList{"gw1", "gw2"}));
        QCOMPARE(childNames(model, model.connectionIndex("gw1")),
                 (QStringList{"Z28061", "Z28062"}));
        const QModelIndex z = model.instanceIndex("gw2", "Z30001");
        QVERIFY(z.isValid());
        QCOMPARE(model.parent(z), model.connectionIndex("gw2"));
        QCOMPARE(model.data(z, TopologyModel::KindRole).toInt(),
                 int(TopologyModel::Kind::Instance));
    }

    void connectionStateUpdatesInPlace()
    {
        TopologyModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setConnections({connection("gw1", "connected")});
        model.setInstances({{"gw1", {"Z28061"}}});
        const QPersistentModelIndex gw1 = model.connectionIndex("gw1");
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        model.setConnections({connection("gw1", "waiting to reconnect")});
        QCOMPARE(changed.count(), 1);
        QCOMPARE(inserted.count() + removed.count() + reset.count(), 0);
        QVERIFY(gw1.isValid());
        const QModelIndex state = gw1.sibling(gw1.row(), TopologyModel::State);
        QCOMPARE(model.data(state).toString(), QStringLiteral("waiting to reconnect"));
        QCOMPARE(model.data(state, Qt::ForegroundRole).value<QColor>(),
                 TopologyModel::stateColor("waiting to reconnect"));
        QVERIFY(TopologyModel::stateColor("connected") !=
                TopologyModel::stateColor("waiting to reconnect"));
        QCOMPARE(model.data(gw1, Qt::DecorationRole).value<QColor>(),
                 TopologyModel::stateColor("waiting to reconnect"));
        // Same again: nothing to announce.
        model.setConnections({connection("gw1", "waiting to reconnect")});
        QCOMPARE(changed.count(), 1);
    }

    void tooltipCarriesSessionCapabilitiesAndTimeout()
    {
        TopologyModel model;
        model.setConnections({connection("gw1", "connected", false)});
        const QString tip = model.data(model.connectionIndex("gw1"), Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains("session: s-1"), qPrintable(tip));
        QVERIFY(tip.contains("bulk-subscribe-commands"));
        QVERIFY(tip.contains("not advertised"));
        QVERIFY(tip.contains("command timeout (echoed): 60 s"));
        QVERIFY(!tip.contains("in-flight ceiling")); // no guard reported one
        QVERIFY(tip.contains("protocol version: 3"));
    }

    void connectionsAndInstancesAreAddedAndRemovedByDiff()
    {
        TopologyModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setConnections({connection("gw1", "connected"), connection("gw2", "connected")});
        model.setInstances({{"gw1", {"A", "B", "C"}}, {"gw2", {"D"}}});
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        model.setInstances({{"gw1", {"A", "C", "E"}}, {"gw2", {"D"}}});
        QCOMPARE(childNames(model, model.connectionIndex("gw1")), (QStringList{"A", "C", "E"}));
        model.setInstances({{"gw1", {"A"}}});
        model.setConnections({connection("gw1", "connected")});
        QCOMPARE(childNames(model, model.gatewayIndex()), (QStringList{"gw1"}));
        QCOMPARE(reset.count(), 0);
    }

    void instancesBeforeTheirConnectionShowNotConnectedYet()
    {
        TopologyModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setInstances({{"gw1", {"Z28061"}}});
        const QModelIndex gw1 = model.connectionIndex("gw1");
        QVERIFY(gw1.isValid());
        QCOMPARE(model.data(gw1, TopologyModel::StateRole).toString(),
                 QStringLiteral("not connected yet"));
        model.setConnections({connection("gw1", "connected")});
        QCOMPARE(model.data(model.connectionIndex("gw1"), TopologyModel::StateRole).toString(),
                 QStringLiteral("connected"));
        QCOMPARE(model.rowCount(model.connectionIndex("gw1")), 1);
    }

    void gatewayRecoveryStateIsColoured()
    {
        TopologyModel model;
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.setGateway(QStringLiteral("gw.local:5001"), QStringLiteral("recovering"));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(model.data(model.gatewayIndex(), Qt::DecorationRole).value<QColor>(),
                 TopologyModel::stateColor("recovering"));
        QVERIFY(TopologyModel::stateColor("recovering") != TopologyModel::stateColor("normal"));
    }
};

QTEST_GUILESS_MAIN(TestTopologyModel)
#include "tst_topology_model.moc"
