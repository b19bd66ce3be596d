// A scenario on a site's real shape: "site": FILE takes the site's gateways as
// connections and its instances with their real tag addresses (and its client options unless
// the scenario has its own), so an incident can be replayed on the site's real tags; the
// written-out form ("tag_addresses") round-trips; its rules name the path.
#include "scenario/scenario_parser.h"
#include "scenario/scenario_runner.h"
#include "scenario/site.h"
#include "test_paths.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QtTest>

using namespace stormwatch;

namespace {

QString examplePath()
{
    return QFileInfo(testpaths::sourceFile(QStringLiteral("resources/sites/example-site.json")))
        .absoluteFilePath();
}

QJsonObject siteScenario(const QString& site)
{
    return QJsonObject{
        {"name", "incident-on-site"},
        {"description", "a wedge on the example site's real tags"},
        {"duration_s", 60},
        {"site", site},
        {"timeline",
         QJsonArray{QJsonObject{{"at_s", 10}, {"action", "wedge"}, {"duration_s", 10}}}},
        {"variants", QJsonArray{QJsonObject{{"name", "lever1+2"}, {"levers", "lever1+2"}}}}};
}

std::optional<Scenario> parse(const QJsonObject& o, const QString& file,
                              QStringList* messages = nullptr)
{
    QList<ScenarioError> errors;
    auto s = parseScenario(QJsonDocument(o).toJson(), file, &errors);
    if (messages)
        for (const auto& e : errors)
            *messages << e.toString();
    return s;
}

QJsonObject instance(const QJsonObject& extra)
{
    QJsonObject o{{"name", "TK101"}, {"connection", "gw1"}};
    for (auto it = extra.begin(); it != extra.end(); ++it)
        o.insert(it.key(), it.value());
    return o;
}

QJsonObject inlineScenario(const QJsonObject& inst)
{
    return QJsonObject{{"name", "inline"},
                       {"description", "real addresses inline"},
                       {"duration_s", 10},
                       {"connections", QJsonArray{QJsonObject{{"name", "gw1"}}}},
                       {"instances", QJsonArray{inst}}};
}

} // namespace

class TestSiteScenario : public QObject {
    Q_OBJECT
private slots:
    void takesTheSitesConnectionsInstancesTagsAndOptions();
    void runsOnTheRealAddresses();
    void writtenOutFormRoundTrips();
    void siteAndOwnInstancesDoNotMix();
    void aFaultNamesOneOfTheSitesGateways();
    void siteErrorsAreListedUnderSite();
    void tagAddressRules_data();
    void tagAddressRules();
};

void TestSiteScenario::takesTheSitesConnectionsInstancesTagsAndOptions()
{
    QStringList messages;
    const auto s = parse(siteScenario(examplePath()), "/tmp/incident.json", &messages);
    QVERIFY2(s, qPrintable(messages.join('\n')));
    QCOMPARE(s->connections.size(), 2);
    QCOMPARE(s->connections[0].name, QString("gw-packaging"));
    QCOMPARE(s->instances.size(), 7);
    int tags = 0;
    for (const auto& i : s->instances) {
        QCOMPARE(i.tags, int(i.tagAddresses.size()));
        tags += i.tags;
    }
    QCOMPARE(tags, 1000);
    QCOMPARE(s->instances[0].tagAddresses[0], QString("Line3_Filler.Speed.PV"));
    QCOMPARE(s->instances[4].connection, QString("gw-utilities"));
    QCOMPARE(s->options.value("TagSubscribeInFlightCeilingMs").toInt(),
             45000); // the site's options

    // A scenario's own options win over the site's.
    QJsonObject own = siteScenario(examplePath());
    own["options"] = QJsonObject{{"TagSubscribeRetryIntervalMs", 2000}};
    const auto withOwn = parse(own, "/tmp/incident.json");
    QVERIFY(withOwn);
    QCOMPARE(withOwn->options, (QJsonObject{{"TagSubscribeRetryIntervalMs", 2000}}));

    // A relative site path is the scenario file's neighbour.
    QTemporaryDir dir;
    QVERIFY(QFile::copy(examplePath(), dir.filePath("site.json")));
    QVERIFY(QFile::copy(testpaths::sourceFile(QStringLiteral("resources/sites/example-site.csv")),
                        dir.filePath("example-site.csv")));
    QVERIFY(parse(siteScenario("site.json"), dir.filePath("incident.json")));
}

void TestSiteScenario::runsOnTheRealAddresses()
{
    const auto s = parse(siteScenario(examplePath()), "/tmp/incident.json");
    QVERIFY(s);
    ScenarioRunner runner(*s, s->variants.first());
    QVERIFY2(runner.ok(), qPrintable(runner.error()));
    runner.start();
    runner.advanceTo(60);
    // The client subscribed the real addresses: the engine's tag names are the site's.
    const auto& engine = runner.engine();
    QCOMPARE(engine.instances().size(), std::size_t(7));
    QCOMPARE(engine.instances()[0]->tagNames()[0], std::string("Line3_Filler.Speed.PV"));
    QCOMPARE(engine.deployedTags(), 1000);
    QCOMPARE(engine.deployedCounts().good, 1000);
    const VariantRun run = runner.finish();
    QVERIFY(run.metrics.timeToAllGoodS.has_value());
}

void TestSiteScenario::writtenOutFormRoundTrips()
{
    const auto s = parse(siteScenario(examplePath()), "/tmp/incident.json");
    QVERIFY(s);
    const QJsonObject written = scenarioToJson(*s);
    QVERIFY(!written.contains("site"));
    QCOMPARE(written.value("instances")
                 .toArray()
                 .at(0)
                 .toObject()
                 .value("tag_addresses")
                 .toArray()
                 .size(),
             74);
    QStringList messages;
    const auto back = parse(written, "/elsewhere/written.json", &messages);
    QVERIFY2(back, qPrintable(messages.join('\n')));
    QVERIFY(*back == *s);
}

// Each connection of a site scenario names its gateway; a fault may name one of them (an
// unknown one is an error listing the site's), and the written-out form keeps both.
void TestSiteScenario::aFaultNamesOneOfTheSitesGateways()
{
    QJsonObject o = siteScenario(examplePath());
    o["timeline"] = QJsonArray{QJsonObject{
        {"at_s", 10}, {"action", "wedge"}, {"duration_s", 10}, {"gateway", "gw-utilities"}}};
    QStringList messages;
    const auto s = parse(o, "/tmp/incident.json", &messages);
    QVERIFY2(s, qPrintable(messages.join('\n')));
    QCOMPARE(s->gatewayNames(), QStringList({"gw-packaging", "gw-utilities"}));
    QCOMPARE(s->connections[1].gateway, QString("gw-utilities"));
    QCOMPARE(s->timeline[0].gateway, QString("gw-utilities"));
    const auto back = parse(scenarioToJson(*s), "/elsewhere/written.json", &messages);
    QVERIFY2(back, qPrintable(messages.join('\n')));
    QVERIFY(*back == *s);

    o["timeline"] = QJsonArray{
        QJsonObject{{"at_s", 10}, {"action", "wedge"}, {"duration_s", 10}, {"gateway", "gw-z"}}};
    messages.clear();
    QVERIFY(!parse(o, "/tmp/incident.json", &messages));
    QCOMPARE(messages,
             QStringList{"/tmp/incident.json: $.timeline[0].gateway: unknown gateway \"gw-z\" "
                         "(gateways: gw-packaging, gw-utilities)"});
}

void TestSiteScenario::siteAndOwnInstancesDoNotMix()
{
    QJsonObject o = siteScenario(examplePath());
    o["instances"] =
        QJsonArray{QJsonObject{{"name", "x"}, {"connection", "gw-packaging"}, {"tags", 1}}};
    QStringList messages;
    QVERIFY(!parse(o, "s.json", &messages));
    QVERIFY2(messages.join('\n').contains("s.json: $.instances: not with \"site\""),
             qPrintable(messages.join('\n')));
}

void TestSiteScenario::siteErrorsAreListedUnderSite()
{
    QTemporaryDir dir;
    QFile f(dir.filePath("bad-site.json"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(
        R"({"name": "s", "gateways": [{"name": "g", "endpoint": "h"}], "instances": [{"name": "I", "gateway": "g", "tags": ["a"]}]})");
    f.close();
    QStringList messages;
    QVERIFY(!parse(siteScenario("bad-site.json"), dir.filePath("s.json"), &messages));
    QVERIFY2(messages.join('\n').contains(dir.filePath("s.json") +
                                          ": $.site: " + dir.filePath("bad-site.json") +
                                          ": $.gateways[0].endpoint: must be HOST:PORT"),
             qPrintable(messages.join('\n')));
    messages.clear();
    QVERIFY(!parse(siteScenario("missing.json"), dir.filePath("s.json"), &messages));
    QVERIFY2(messages.join('\n').contains("$.site: ") &&
                 messages.join('\n').contains("cannot read file"),
             qPrintable(messages.join('\n')));
}

void TestSiteScenario::tagAddressRules_data()
{
    QTest::addColumn<QJsonObject>("inst");
    QTest::addColumn<QString>("expected");
    QTest::newRow("count differs")
        << instance({{"tags", 3}, {"tag_addresses", QJsonArray{"a", "b"}}})
        << "$.instances[0].tags: must equal the number of tag_addresses (2) (got 3)";
    QTest::newRow("with prefix") << instance(
                                        {{"tag_prefix", "X."}, {"tag_addresses", QJsonArray{"a"}}})
                                 << "$.instances[0].tag_prefix: not with tag_addresses";
    QTest::newRow("duplicate") << instance({{"tag_addresses", QJsonArray{"a", "a"}}})
                               << "$.instances[0].tag_addresses[1]: duplicate tag address \"a\"";
    QTest::newRow("empty list")
        << instance({{"tag_addresses", QJsonArray{}}})
        << "$.instances[0].tag_addresses: must list 1 … 10000 addresses (got 0)";
    QTest::newRow("not a string") << instance({{"tag_addresses", QJsonArray{1}}})
                                  << "$.instances[0].tag_addresses[0]: expected string, got number";
    QTest::newRow("blank around")
        << instance({{"tag_addresses", QJsonArray{" a"}}})
        << "$.instances[0].tag_addresses[0]: a tag address must not start or end with a blank";
}

void TestSiteScenario::tagAddressRules()
{
    QFETCH(QJsonObject, inst);
    QFETCH(QString, expected);
    QStringList messages;
    QVERIFY(!parse(inlineScenario(inst), "i.json", &messages));
    QVERIFY2(messages.join('\n').contains("i.json: " + expected), qPrintable(messages.join('\n')));
    // and the valid form parses, its count taken from the list
    const auto ok = parse(inlineScenario(instance(
                              {{"tag_addresses", QJsonArray{"TK101.Level.PV", "TK101.Temp.PV"}}})),
                          "i.json");
    QVERIFY(ok);
    QCOMPARE(ok->instances[0].tags, 2);
}

QTEST_GUILESS_MAIN(TestSiteScenario)
#include "tst_site_scenario.moc"
