// The published gateway contract at the real boundary: the built stormwatch and mxgw-mock
// processes, both given resources/contracts/mxaccess-gateway-v1.proto (or a copy of it with
// every field number moved): the example site commissions with the gateway's own reasons
// for the three unknown tags, Lever 2 falls back because the contract has no supervisory
// flag, and a contract that lacks a needed field is refused before any command, the field
// named, the mock's stats showing no Invoke.
#include "integration/support_mock_process.h"
#include "mock_control.grpc.pb.h"
#include "support_app.h"
#include "test_paths.h"
#include "wire/support_contracts.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <grpcpp/grpcpp.h>

using apptest::Run;
using testsupport::MockProcess;

namespace {

QString contractPath()
{
    return contracts::kV1;
}

// The example site in `dir`, each gateway given `contract`.
bool copySite(const QTemporaryDir& dir, const QString& contract)
{
    QFile in(testpaths::sourceFile(QStringLiteral("resources/sites/example-site.json")));
    if (!in.open(QIODevice::ReadOnly))
        return false;
    QJsonObject site = QJsonDocument::fromJson(in.readAll()).object();
    QJsonArray gateways = site.value("gateways").toArray();
    for (qsizetype i = 0; i < gateways.size(); ++i) {
        QJsonObject g = gateways[i].toObject();
        g.insert("contract", contract);
        gateways[i] = g;
    }
    site.insert("gateways", gateways);
    contracts::writeText(dir, "site.json", QString::fromUtf8(QJsonDocument(site).toJson()));
    return QFile::copy(testpaths::sourceFile(QStringLiteral("resources/sites/example-site.csv")),
                       dir.filePath("example-site.csv"));
}

QJsonObject readJson(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(f.readAll()).object()
                                       : QJsonObject();
}

// The mock's Invoke count, from its control service (which speaks stormwatch's own contract).
std::int64_t invokesReceived(const MockProcess& mock)
{
    auto control = mxgateway::mock::v1::MockGatewayControl::NewStub(
        grpc::CreateChannel(mock.address(), grpc::InsecureChannelCredentials()));
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    mxgateway::mock::v1::WatchStatsRequest request;
    request.set_interval_s(0);
    auto reader = control->WatchStats(&context, request);
    mxgateway::mock::v1::GatewayStats stats;
    if (!reader->Read(&stats))
        return -1;
    context.TryCancel();
    return stats.invoke_rpcs();
}

} // namespace

class TestPublishedContract : public QObject {
    Q_OBJECT
private slots:
    void theExampleSiteCommissionsOnThePublishedContract_data();
    void theExampleSiteCommissionsOnThePublishedContract();
    void aContractMissingAFieldSendsNothing();
    void checkContractExitsByVerdict();
};

void TestPublishedContract::theExampleSiteCommissionsOnThePublishedContract_data()
{
    QTest::addColumn<bool>("renumber");
    QTest::newRow("as published") << false;
    QTest::newRow("every field number changed, both sides given the copy") << true;
}

void TestPublishedContract::theExampleSiteCommissionsOnThePublishedContract()
{
    QFETCH(bool, renumber);
    QTemporaryDir dir;
    QString contract = contractPath();
    if (renumber) {
        contract = contracts::writeText(
            dir, "site-gateway.proto",
            contracts::renumberFields(contracts::readText(contractPath()), 100));
    }
    QVERIFY(copySite(dir, contract));
    const QString unknown =
        testpaths::sourceFile(QStringLiteral("resources/sites/example-unknown.txt"));
    const QStringList args = {"--data-hz", "0", "--unknown-tags", unknown, "--contract", contract};
    MockProcess packaging(args), utilities(args);
    QVERIFY(packaging.start());
    QVERIFY(utilities.start());

    const QString reportDir = dir.filePath("report");
    const Run run = apptest::stormwatch(
        {"--headless", "--site", dir.filePath("site.json"), "--commission", "--report", reportDir,
         "--timeout-s", "60", "--gateway-endpoint", "gw-packaging=" + packaging.endpoint(),
         "--gateway-endpoint", "gw-utilities=" + utilities.endpoint()});
    QVERIFY2(run.exitCode == 1, qPrintable(run.stdErr));
    const QJsonObject report = readJson(reportDir + "/report.json");
    QCOMPARE(report.value("good").toInt(), 997);
    QCOMPARE(report.value("failed").toInt(), 3);
    for (const QJsonValue& v : report.value("tags").toArray()) {
        const QJsonObject t = v.toObject();
        if (t.value("outcome").toString() == "failed")
            QCOMPARE(t.value("reason").toString(),
                     "item not found: " + t.value("tag_address").toString());
    }
    for (const QJsonValue& v : report.value("gateways").toArray()) {
        const QJsonObject g = v.toObject();
        // No supervisory flag in the contract: not advertised, and the client fans out.
        QVERIFY(
            !g.value("capabilities").toArray().contains(QJsonValue("bulk-subscribe-supervisory")));
        QVERIFY(g.value("capabilities").toArray().contains(QJsonValue("bulk-subscribe-commands")));
        QCOMPARE(g.value("advise_kind").toString(),
                 QString("supervisory (AddItemBulk + AdviseSupervisory)"));
        QVERIFY(g.value("echoed_command_timeout_s").toDouble() >
                0); // Lever 3's echo read by its own number
    }
    QVERIFY(invokesReceived(packaging) > 0);
}

void TestPublishedContract::aContractMissingAFieldSendsNothing()
{
    QTemporaryDir dir;
    QString text = contracts::readText(contractPath());
    const QString line = QStringLiteral("  int32 item_handle = 5;\n  MxValue value = 6;");
    QVERIFY(text.contains(line));
    text.replace(line, QStringLiteral("  MxValue value = 6;"));
    const QString broken = contracts::writeText(dir, "broken.proto", text);
    MockProcess mock({"--data-hz", "0", "--contract", contractPath()});
    QVERIFY(mock.start());

    const Run run =
        apptest::stormwatch({"--headless", "--scenario", "subscribe-storm", "--variants", "lever1",
                             "--live", "--gateway", mock.endpoint(), "--gateway-contract", broken});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.stdErr.contains("MxEvent has no field item_handle"), qPrintable(run.stdErr));
    QVERIFY2(run.stdErr.contains("server_handle = 4 (int32)"),
             qPrintable(run.stdErr)); // what is there
    QVERIFY2(run.stdErr.contains("--check-contract"), qPrintable(run.stdErr));
    QCOMPARE(invokesReceived(mock), std::int64_t(0));

    // The mock refuses to serve it too.
    MockProcess refused({"--contract", broken});
    QVERIFY(!refused.start());
    QCOMPARE(refused.process.exitCode(), 2);
    QVERIFY(QString::fromLocal8Bit(refused.process.readAllStandardError())
                .contains("MxEvent has no field item_handle"));
}

void TestPublishedContract::checkContractExitsByVerdict()
{
    const Run limited = apptest::stormwatch({"--check-contract", contractPath()});
    QCOMPARE(limited.exitCode, 1);
    QVERIFY(limited.stdOut.contains("verdict:  usable with limits (exit 1)"));
    QVERIFY(limited.stdOut.contains("Lever 2 falls back to the per-item fan-out"));
    const Run wrongProfile =
        apptest::stormwatch({"--check-contract", contractPath(), "--profile", "stormwatch"});
    QCOMPARE(wrongProfile.exitCode, 2);
    const Run unknownProfile =
        apptest::stormwatch({"--check-contract", contractPath(), "--profile", "nope"});
    QCOMPARE(unknownProfile.exitCode, 2);
    QVERIFY(unknownProfile.stdErr.contains("profiles: stormwatch, mxaccess-gateway-v1"));
    const Run missing = apptest::stormwatch({"--check-contract", "/nonexistent/gw.proto"});
    QCOMPARE(missing.exitCode, 2);
    QVERIFY(missing.stdErr.contains("'/nonexistent/gw.proto' does not exist"));
}

QTEST_GUILESS_MAIN(TestPublishedContract)
#include "tst_published_contract.moc"
