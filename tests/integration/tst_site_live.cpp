// A live run of a scenario on a site's shape reaches every gateway of the site:
// the runner opens one gRPC port per site gateway (endpoint, TLS and token as the site says,
// built by the same sitePortOptions as commissioning) and one engine over them. At the real
// boundary: two mxgw-mock processes serve the site's two gateways.
#include "integration/support_mock_process.h"
#include "scenario/run_host.h"
#include "scenario/scenario_parser.h"
#include "scenario/scenario_runner.h"
#include "scenario/site_live.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace stormwatch;
using testsupport::MockProcess;

namespace {

QJsonArray addresses(const QString& prefix, int n)
{
    QJsonArray a;
    for (int i = 1; i <= n; ++i)
        a.append(QStringLiteral("%1%2.PV").arg(prefix).arg(i));
    return a;
}

bool writeJson(const QString& path, const QJsonObject& o)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(QJsonDocument(o).toJson()) > 0;
}

// A site of two gateways (three instances, 60 real-looking tags) and a scenario on it.
QString writeSiteAndScenario(const QTemporaryDir& dir, const QString& north, const QString& south)
{
    const QJsonObject site{
        {"name", "two-gateway-plant"},
        {"gateways", QJsonArray{QJsonObject{{"name", "gw-north"}, {"endpoint", north}},
                                QJsonObject{{"name", "gw-south"}, {"endpoint", south}}}},
        {"instances",
         QJsonArray{
             QJsonObject{
                 {"name", "Pumps"}, {"gateway", "gw-north"}, {"tags", addresses("PS01.Pump", 20)}},
             QJsonObject{
                 {"name", "Tanks"}, {"gateway", "gw-south"}, {"tags", addresses("TK1", 25)}},
             QJsonObject{
                 {"name", "Valves"}, {"gateway", "gw-south"}, {"tags", addresses("XV2", 15)}}}}};
    const QJsonObject scenario{
        {"name", "site-live"},
        {"description", "the site's real shape, live"},
        {"duration_s", 4},
        {"site", "site.json"},
        {"variants", QJsonArray{QJsonObject{{"name", "lever1+2"}, {"levers", "lever1+2"}}}}};
    if (!writeJson(dir.filePath("site.json"), site) ||
        !writeJson(dir.filePath("scenario.json"), scenario))
        return {};
    return dir.filePath("scenario.json");
}

bool everyTagGood(const ClientEngine& e)
{
    for (const auto& i : e.instances())
        if (i->counts().good != int(i->tagNames().size()))
            return false;
    return true;
}

} // namespace

class TestSiteLive : public QObject {
    Q_OBJECT
private slots:
    void aSiteScenarioRunsLiveOnEveryGateway();
    void theConsolesLiveRunOnASiteReachesEveryGateway();
    void variantsRunOneAfterAnotherOnTheSitesGateways();
    void aConnectionWithoutAGatewayIsAnError();
    void endpointOverridesAreCheckedAndApplied();
};

void TestSiteLive::aSiteScenarioRunsLiveOnEveryGateway()
{
    MockProcess north{}, south{};
    QVERIFY(north.start());
    QVERIFY(south.start());
    QTemporaryDir dir;
    const QString scenarioFile = writeSiteAndScenario(dir, north.endpoint(), south.endpoint());
    QVERIFY(!scenarioFile.isEmpty());

    QList<ScenarioError> errors;
    const auto scenario = loadScenarioFile(scenarioFile, &errors);
    QVERIFY2(scenario, qPrintable(errors.value(0).toString()));
    const auto site = loadSiteFile(dir.filePath("site.json"), &errors);
    QVERIFY(site);
    QString error;
    const auto ports = sitePortOptions(*site, {}, &error);
    QVERIFY2(ports, qPrintable(error));

    LiveOptions live;
    live.gateways = *ports;
    ScenarioRunner runner(*scenario, scenario->variants.first(), live);
    QVERIFY2(runner.ok(), qPrintable(runner.error()));
    QCOMPARE(runner.gatewayDescription(),
             QStringLiteral("gw-north %1, gw-south %2").arg(north.endpoint(), south.endpoint()));

    runner.start();
    double t = 0;
    while (t < 3.5 && !everyTagGood(runner.engine()))
        runner.advanceTo(t += 0.1);
    QVERIFY2(everyTagGood(runner.engine()), "every tag of both gateways Good within 3.5 s");
    runner.advanceTo(runner.durationS()); // and they stay Good for the rest of the run
    QVERIFY(everyTagGood(runner.engine()));
    QCOMPARE(runner.notGoodTags(), 0);

    // A connection per gateway, named as the gateway, each with its own session and data.
    const auto& connections = runner.engine().connections();
    QCOMPARE(connections.size(), std::size_t(2));
    QCOMPARE(connections[0]->name(), std::string("gw-north"));
    QCOMPARE(connections[1]->name(), std::string("gw-south"));
    for (const auto& c : connections) {
        QVERIFY2(c->connected(), c->name().c_str());
        QVERIFY2(c->stats().dataChanges > 0, c->name().c_str());
    }
    // Each gateway has its own recovery gate.
    QVERIFY(runner.engine().gate("gw-north"));
    QVERIFY(runner.engine().gate("gw-south"));
    QVERIFY(runner.engine().gate("gw-north") != runner.engine().gate("gw-south"));

    const VariantRun run = runner.finish();
    QCOMPARE(run.metrics.subscribeRequests > 0, true);
}

// The console's path: the run host's open-ended live run on the site's shape (siteScenario),
// a port per gateway; its connections report Connected on their own gateway's address, and
// its instances are grouped by the connection (gateway) they subscribe through.
void TestSiteLive::theConsolesLiveRunOnASiteReachesEveryGateway()
{
    MockProcess north{}, south{};
    QVERIFY(north.start());
    QVERIFY(south.start());
    QTemporaryDir dir;
    QVERIFY(!writeSiteAndScenario(dir, north.endpoint(), south.endpoint()).isEmpty());
    QList<ScenarioError> errors;
    const auto site = loadSiteFile(dir.filePath("site.json"), &errors);
    QVERIFY(site);
    QString error;
    LiveOptions live;
    live.gateways = *sitePortOptions(*site, {}, &error);

    RunHost host;
    QMap<QString, QString> connected; // connection -> address, once Connected
    QObject::connect(&host, &RunHost::connectionInfo, [&](const QVector<ConnectionInfo>& infos) {
        for (const ConnectionInfo& c : infos)
            if (c.state == "connected")
                connected[c.name] = c.address;
    });
    const Scenario shape = siteScenario(*site);
    QVERIFY2(host.startLive(RunHost::openEndedLive(shape, *leverPreset("lever1+2", nullptr)),
                            "live", live, &error),
             qPrintable(error));
    QVERIFY(host.openEnded());
    QCOMPARE(host.gatewayAddress(),
             QStringLiteral("gw-north %1, gw-south %2").arg(north.endpoint(), south.endpoint()));
    const QMap<QString, QStringList> grouped{{"gw-north", {"Pumps"}},
                                             {"gw-south", {"Tanks", "Valves"}}};
    QCOMPARE(host.instancesByConnection(), grouped);
    QTRY_COMPARE_WITH_TIMEOUT(connected.size(), 2, 10000);
    QCOMPARE(connected.value("gw-north"), north.endpoint());
    QCOMPARE(connected.value("gw-south"), south.endpoint());
    host.stop();
}

// runScenarioLive over a site's shared gateways: each variant on both gateways, every tag
// Good in each (time_to_all_good set), the second variant started on idle gateways.
void TestSiteLive::variantsRunOneAfterAnotherOnTheSitesGateways()
{
    MockProcess north{}, south{};
    QVERIFY(north.start());
    QVERIFY(south.start());
    QTemporaryDir dir;
    const QString scenarioFile = writeSiteAndScenario(dir, north.endpoint(), south.endpoint());
    QList<ScenarioError> errors;
    auto scenario = loadScenarioFile(scenarioFile, &errors);
    QVERIFY(scenario);
    scenario->durationS = 2;
    scenario->variants.append(VariantSpec{"lever1", QJsonValue("lever1")});
    const auto site = loadSiteFile(dir.filePath("site.json"), &errors);
    QVERIFY(site);
    QString error;
    LiveOptions live;
    live.gateways = *sitePortOptions(*site, {}, &error);
    const ScenarioReport report = runScenarioLive(*scenario, {}, std::nullopt, live, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(report.variants.size(), 2);
    for (const VariantMetrics& v : report.variants) {
        QVERIFY2(v.timeToAllGoodS.has_value(), qPrintable(v.name));
        QVERIFY2(v.notes.isEmpty(), qPrintable(v.notes.join("; ")));
    }
}

void TestSiteLive::aConnectionWithoutAGatewayIsAnError()
{
    Scenario s;
    s.name = "two";
    s.durationS = 1;
    s.connections = {ScenarioConnection{"gw-a", 0}, ScenarioConnection{"gw-b", 0}};
    ScenarioInstance i;
    i.name = "I";
    i.connection = "gw-a";
    i.tags = 1;
    i.tagPrefix = "I.Attr";
    s.instances = {i};
    s.variants = {VariantSpec{"live", QJsonValue("lever1+2")}};
    LiveOptions live;
    GrpcPortOptions a;
    a.address = "127.0.0.1:1";
    live.gateways.emplace("gw-a", a);
    ScenarioRunner runner(s, s.variants.first(), live);
    QVERIFY(!runner.ok());
    QCOMPARE(runner.error(), QStringLiteral("gateway: no endpoint for connection \"gw-b\""));
}

void TestSiteLive::endpointOverridesAreCheckedAndApplied()
{
    QTemporaryDir dir;
    QVERIFY(!writeSiteAndScenario(dir, "plant-n:50061", "plant-s:50062").isEmpty());
    QList<ScenarioError> errors;
    const auto site = loadSiteFile(dir.filePath("site.json"), &errors);
    QVERIFY(site);
    QString error;
    QVERIFY(!sitePortOptions(*site, {{"gw-east", "127.0.0.1:1"}}, &error));
    QCOMPARE(error,
             QStringLiteral("--gateway-endpoint gw-east: the site has no gateway \"gw-east\""));
    QVERIFY(!sitePortOptions(*site, {{"gw-north", "nowhere"}}, &error));
    QVERIFY2(error.startsWith("--gateway-endpoint gw-north=nowhere: must be HOST:PORT"),
             qPrintable(error));
    const auto ports = sitePortOptions(*site, {{"gw-south", "127.0.0.1:7000"}}, &error);
    QVERIFY2(ports, qPrintable(error));
    QCOMPARE(ports->at("gw-north").address, std::string("plant-n:50061"));
    QCOMPARE(ports->at("gw-south").address, std::string("127.0.0.1:7000"));
}

QTEST_GUILESS_MAIN(TestSiteLive)
#include "tst_site_live.moc"
