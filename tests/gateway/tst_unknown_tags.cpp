// Addresses the gateway is told it does not know (a site's tags never configured on it):
// AddItem fails, AddItemBulk and SubscribeBulk fail exactly those items with the gateway's
// "item not found: <address>" while the rest go through — in the model and in the built
// mxgw-mock (--unknown-tags FILE).
#include "integration/support_mock_process.h"
#include "mxaccess_gateway.grpc.pb.h"
#include "support_model.h"
#include "test_paths.h"

#include <QTemporaryDir>
#include <QTest>
#include <grpcpp/grpcpp.h>

using namespace testsupport;
using namespace mxgateway::v1;

namespace {
GatewayConfig quiet()
{
    GatewayConfig c;
    c.dataHz = 0;
    return c;
}
} // namespace

class TestUnknownTags : public QObject {
    Q_OBJECT
private slots:
    void bulkCommandsFailExactlyTheUnknownItems_data();
    void bulkCommandsFailExactlyTheUnknownItems();
    void addItemFailsAnUnknownAddress();
    void replacingTheSetAppliesToLaterCommands();
    void mockProcessRejectsTheAddressesOfItsFile();
    void mockProcessRefusesAnUnreadableFile();
};

void TestUnknownTags::bulkCommandsFailExactlyTheUnknownItems_data()
{
    QTest::addColumn<bool>("subscribe");
    QTest::newRow("AddItemBulk") << false;
    QTest::newRow("SubscribeBulk") << true;
}

void TestUnknownTags::bulkCommandsFailExactlyTheUnknownItems()
{
    QFETCH(bool, subscribe);
    VirtualScheduler sched;
    GatewayModel model(sched, quiet());
    model.setUnknownTags({"TK101.Level.PV", "Line3_Filler.Speed.SP"});
    const auto id = open(model, sched).id();
    const int sh = registerClient(model, sched, id);
    const std::vector<std::string> tags = {"TK101.Level.PV", "TK101.Temp.PV",
                                           "Line3_Filler.Speed.SP", "P201.Run"};
    auto answer =
        send(model, id, subscribe ? subscribeBulk(sh, tags, true) : addItemBulk(sh, tags));
    QVERIFY(runUntilAnswered(sched, answer));
    QVERIFY(answer->status.ok());
    QVERIFY(answer->reply.success()); // the command itself succeeds, item by item
    const auto& r = subscribe ? answer->reply.subscribe_bulk().results()
                              : answer->reply.add_item_bulk().results();
    QCOMPARE(r.size(), 4);
    for (int i = 0; i < 4; ++i)
        QCOMPARE(r[i].tag_address(), tags[std::size_t(i)]);
    QVERIFY(!r[0].ok());
    QCOMPARE(r[0].item_handle(), 0);
    QCOMPARE(r[0].error(), std::string("item not found: TK101.Level.PV"));
    QVERIFY(r[1].ok() && r[1].item_handle() > 0);
    QVERIFY(!r[2].ok());
    QCOMPARE(r[2].error(), std::string("item not found: Line3_Filler.Speed.SP"));
    QVERIFY(r[3].ok() && r[3].item_handle() > 0);
    QCOMPARE(model.session(id)->items.size(), std::size_t(2));
    if (subscribe) {
        QVERIFY(model.adviseState(id, r[1].item_handle())->supervisory);
        QVERIFY(model.adviseState(id, r[3].item_handle())->supervisory);
    }
}

void TestUnknownTags::addItemFailsAnUnknownAddress()
{
    VirtualScheduler sched;
    GatewayModel model(sched, quiet());
    model.setUnknownTags({"FIC301.PV"});
    const auto id = open(model, sched).id();
    const int sh = registerClient(model, sched, id);
    auto bad = send(model, id, addItem(sh, "FIC301.PV"));
    QVERIFY(runUntilAnswered(sched, bad));
    QVERIFY(!bad->reply.success());
    QCOMPARE(bad->reply.error_message(), std::string("item not found: FIC301.PV"));
    auto good = send(model, id, addItem(sh, "FIC301.SP"));
    QVERIFY(runUntilAnswered(sched, good));
    QVERIFY(good->reply.success());
    QVERIFY(good->reply.add_item().item_handle() > 0);
}

void TestUnknownTags::replacingTheSetAppliesToLaterCommands()
{
    VirtualScheduler sched;
    GatewayModel model(sched, quiet());
    model.setUnknownTags({"A.PV"});
    QCOMPARE(model.unknownTags().size(), std::size_t(1));
    const auto id = open(model, sched).id();
    const int sh = registerClient(model, sched, id);
    auto first = send(model, id, addItem(sh, "A.PV"));
    QVERIFY(runUntilAnswered(sched, first));
    QVERIFY(!first->reply.success());
    model.setUnknownTags({});
    auto second = send(model, id, addItem(sh, "A.PV"));
    QVERIFY(runUntilAnswered(sched, second));
    QVERIFY(second->reply.success());
}

void TestUnknownTags::mockProcessRejectsTheAddressesOfItsFile()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QFile file(dir.filePath("unknown.txt"));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("# not configured on this gateway\n  TK101.Level.PV  \n\nLine3_Filler.Speed.SP\n");
    file.close();

    MockProcess mock({"--data-hz", "0", "--unknown-tags", file.fileName()});
    QVERIFY(mock.start());
    auto stub = MxAccessGateway::NewStub(
        grpc::CreateChannel(mock.address(), grpc::InsecureChannelCredentials()));
    auto call = [&](auto method, const auto& request, auto& reply) {
        grpc::ClientContext ctx;
        ctx.set_deadline(std::chrono::system_clock::now() + 5s);
        return ((*stub).*method)(&ctx, request, &reply);
    };
    OpenSessionReply opened;
    QVERIFY(call(&MxAccessGateway::Stub::OpenSession, OpenSessionRequest{}, opened).ok());
    MxCommandRequest reg;
    reg.set_session_id(opened.session_id());
    *reg.mutable_command() = registerCommand();
    MxCommandReply regReply;
    QVERIFY(call(&MxAccessGateway::Stub::Invoke, reg, regReply).ok());
    const int sh = regReply.register_().server_handle();

    MxCommandRequest sub;
    sub.set_session_id(opened.session_id());
    *sub.mutable_command() =
        subscribeBulk(sh, {"TK101.Level.PV", "TK101.Temp.PV", "Line3_Filler.Speed.SP"}, true);
    MxCommandReply subReply;
    QVERIFY(call(&MxAccessGateway::Stub::Invoke, sub, subReply).ok());
    const auto& r = subReply.subscribe_bulk().results();
    QCOMPARE(r.size(), 3);
    QCOMPARE(r[0].error(), std::string("item not found: TK101.Level.PV"));
    QVERIFY(!r[0].ok());
    QVERIFY(r[1].ok());
    QCOMPARE(r[2].error(), std::string("item not found: Line3_Filler.Speed.SP"));
    QVERIFY(!r[2].ok());
}

void TestUnknownTags::mockProcessRefusesAnUnreadableFile()
{
    QProcess p;
    p.start(testpaths::mockBinary(),
            {"--listen", "127.0.0.1:0", "--unknown-tags", "/nonexistent/unknown.txt"});
    QVERIFY(p.waitForFinished(10000));
    QCOMPARE(p.exitCode(), 2);
    QVERIFY(QString::fromLocal8Bit(p.readAllStandardError())
                .contains("--unknown-tags /nonexistent/unknown.txt"));
}

QTEST_GUILESS_MAIN(TestUnknownTags)
#include "tst_unknown_tags.moc"
