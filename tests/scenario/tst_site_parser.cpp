// Site files: the shipped example validates with its 1,000 CSV tags; every rule names the
// file, the JSON path (and for CSV rows file:line) and the rule; validation stays linear.
#include "scenario/site.h"
#include "scenario/site_live.h"
#include "test_paths.h"

#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace stormwatch;

namespace {
QString examplePath()
{
    return testpaths::sourceFile(QStringLiteral("resources/sites/example-site.json"));
}

QStringList messages(const QList<ScenarioError>& errors)
{
    QStringList out;
    for (const auto& e : errors)
        out << e.toString();
    return out;
}

// Writes `files` (name -> content) into `dir`, returns the site file's path.
QString write(const QTemporaryDir& dir, const QMap<QString, QByteArray>& files)
{
    for (auto it = files.begin(); it != files.end(); ++it) {
        QFile f(dir.filePath(it.key()));
        if (!f.open(QIODevice::WriteOnly))
            return {};
        f.write(it.value());
    }
    return dir.filePath("site.json");
}

const QByteArray kGateways = R"("gateways": [{"name": "gw-a", "endpoint": "127.0.0.1:50061"},
                                             {"name": "gw-b", "endpoint": "plant-gw2.example:5001"}])";
} // namespace

class TestSiteParser : public QObject {
    Q_OBJECT
private slots:
    void exampleSiteValidatesWithItsThousandTags();
    void inlineTagsAndCsvRowsAddUp();
    void csvErrorsNameFileAndLine();
    void csvBytesThatAreNotUtf8AreRefusedNotReplaced();
    void gatewayRules_data();
    void gatewayRules();
    void keepaliveReachesThePortOptions();
    void instanceRules_data();
    void instanceRules();
    void strictJsonAndUnknownKeysAreRejected();
    void twentyThousandRowsValidateInWellUnderASecond();
};

void TestSiteParser::exampleSiteValidatesWithItsThousandTags()
{
    QList<ScenarioError> errors;
    const auto site = loadSiteFile(examplePath(), &errors);
    QVERIFY2(site, qPrintable(messages(errors).join('\n')));
    QCOMPARE(site->name, QString("example-site"));
    QCOMPARE(site->gateways.size(), 2);
    QCOMPARE(site->gateways[0].name, QString("gw-packaging"));
    QCOMPARE(site->gateways[1].endpoint, QString("127.0.0.1:50062"));
    QCOMPARE(site->tagCount(), qsizetype(1000));
    QCOMPARE(site->instances.size(), 7);
    QCOMPARE(site->instances[0].name, QString("Line3_Filler"));
    QCOMPARE(site->instances[0].tags[0].address, QString("Line3_Filler.Speed.PV"));
    QCOMPARE(site->instances[0].tags[0].kind, QString("analog"));
    QCOMPARE(site->options.value("TagSubscribeRetryIntervalMs").toInt(), 5000);

    // The three unknown addresses the example's mock is given are tags of the site.
    QFile unknown(testpaths::sourceFile(QStringLiteral("resources/sites/example-unknown.txt")));
    QVERIFY(unknown.open(QIODevice::ReadOnly));
    QSet<QString> all;
    for (const auto& i : site->instances)
        for (const auto& t : i.tags)
            all.insert(t.address);
    int listed = 0;
    for (const QByteArray& line : unknown.readAll().split('\n')) {
        if (line.trimmed().isEmpty() || line.startsWith('#'))
            continue;
        QVERIFY2(all.contains(QString::fromUtf8(line.trimmed())), line.constData());
        ++listed;
    }
    QCOMPARE(listed, 3);
}

void TestSiteParser::inlineTagsAndCsvRowsAddUp()
{
    QTemporaryDir dir;
    const QString path =
        write(dir, {{"site.json", R"({"name": "s", )" + kGateways + R"(,
        "instances": [{"name": "TK101", "gateway": "gw-a", "tags": ["TK101.Level.PV"]},
                      {"name": "P201", "gateway": "gw-b"}],
        "tags_csv": "tags.csv"})"},
                    {"tags.csv",
                     "instance,tag_address,kind\n# a comment\n\nTK101,TK101.Temp.PV,analog\r\n"
                     "P201, \"P201.Run, A\" ,discrete\nP201,P201.Fault\n"}});
    QList<ScenarioError> errors;
    const auto site = loadSiteFile(path, &errors);
    QVERIFY2(site, qPrintable(messages(errors).join('\n')));
    QCOMPARE(site->instances[0].tags.size(), 2);
    QCOMPARE(site->instances[0].tags[1].address, QString("TK101.Temp.PV"));
    QCOMPARE(site->instances[1].tags.size(), 2);
    QCOMPARE(site->instances[1].tags[0].address, QString("P201.Run, A"));
    QCOMPARE(site->instances[1].tags[0].kind, QString("discrete"));
    QCOMPARE(site->instances[1].tags[1].kind, QString());
    QCOMPARE(site->tagsCsv, QFileInfo(dir.filePath("tags.csv")).absoluteFilePath());
}

void TestSiteParser::csvErrorsNameFileAndLine()
{
    QTemporaryDir dir;
    const QString path = write(dir, {{"site.json", R"({"name": "s", )" + kGateways + R"(,
        "instances": [{"name": "TK101", "gateway": "gw-a"}], "tags_csv": "tags.csv"})"},
                                     {"tags.csv", "TK101,TK101.Level.PV\n" // 1
                                                  "TK999,TK999.Level.PV\n" // 2 unknown instance
                                                  "TK101,TK101.Level.PV\n" // 3 duplicate of line 1
                                                  "TK101\n"                // 4 one field
                                                  "TK101,\"TK101.Open\n"   // 5 unclosed quote
                                                  "TK101,TK101.A,an alog\n"}}); // 6 bad kind
    QList<ScenarioError> errors;
    QVERIFY(!loadSiteFile(path, &errors));
    const QStringList m = messages(errors);
    const QString csv = dir.filePath("tags.csv");
    QCOMPARE(m.size(), 5);
    QVERIFY2(m[0].startsWith(path + ": $.tags_csv: " + csv + ":2: unknown instance \"TK999\""),
             qPrintable(m[0]));
    QVERIFY2(m[1].contains(
                 csv +
                 ":3: duplicate tag address \"TK101.Level.PV\" in instance \"TK101\" (first at " +
                 csv + ":1)"),
             qPrintable(m[1]));
    QVERIFY2(m[2].contains(csv + ":4: expected instance,tag_address[,kind] (got 1 fields)"),
             qPrintable(m[2]));
    QVERIFY2(m[3].contains(csv + ":5: a quoted field is not closed"), qPrintable(m[3]));
    QVERIFY2(m[4].contains(csv + ":6: a kind is letters"), qPrintable(m[4]));
}

// A byte that is not UTF-8 would otherwise become U+FFFD in the address, and the site would
// subscribe a tag its engineer never named: the row is refused, by file and line.
void TestSiteParser::csvBytesThatAreNotUtf8AreRefusedNotReplaced()
{
    QTemporaryDir dir;
    const QString path = write(dir, {{"site.json", R"({"name": "s", )" + kGateways + R"(,
        "instances": [{"name": "A", "gateway": "gw-a"}], "tags_csv": "tags.csv"})"},
                                     {"tags.csv", "instance,tag_address\n" // 1
                                                  "A,A.Temp.PV\n"          // 2
                                                  "A,\xff\xfe.PV\n"        // 3
                                                  "A,A.Caf\xc3\xa9.PV\n"   // 4 é: valid
                                                  "A,A.Trunc\xc3\n"        // 5 cut sequence
                                                  "A,A.Level.PV\n"}});     // 6
    QList<ScenarioError> errors;
    QVERIFY(!loadSiteFile(path, &errors));
    const QStringList m = messages(errors);
    const QString csv = dir.filePath("tags.csv");
    QCOMPARE(m.size(), 2);
    QVERIFY2(m[0].contains(csv + ":3: not valid UTF-8"), qPrintable(m[0]));
    QVERIFY2(m[1].contains(csv + ":5: not valid UTF-8"), qPrintable(m[1]));
    for (const QString& message : m)
        QVERIFY2(!message.contains(QChar(0xFFFD)), qPrintable(message));

    // Without the bad rows, the same file validates and keeps the accented address whole.
    QFile f(dir.filePath("tags.csv"));
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write("A,A.Temp.PV\nA,A.Caf\xc3\xa9.PV\n");
    f.close();
    errors.clear();
    const auto site = loadSiteFile(path, &errors);
    QVERIFY2(site, qPrintable(messages(errors).join('\n')));
    QCOMPARE(site->instances[0].tags[1].address, QStringLiteral("A.Caf\u00e9.PV"));
}

void TestSiteParser::gatewayRules_data()
{
    QTest::addColumn<QByteArray>("gateway");
    QTest::addColumn<QString>("expected");
    QTest::newRow("no port") << QByteArray(R"({"name": "g", "endpoint": "gateway.plant"})")
                             << "$.gateways[0].endpoint: must be HOST:PORT with a port 1..65535";
    QTest::newRow("port 0") << QByteArray(R"({"name": "g", "endpoint": "127.0.0.1:0"})")
                            << "$.gateways[0].endpoint: must be HOST:PORT";
    QTest::newRow("port too big") << QByteArray(R"({"name": "g", "endpoint": "127.0.0.1:65536"})")
                                  << "$.gateways[0].endpoint: must be HOST:PORT";
    QTest::newRow("blank in host") << QByteArray(R"({"name": "g", "endpoint": "a b:1"})")
                                   << "$.gateways[0].endpoint: must be HOST:PORT";
    QTest::newRow("token without tls")
        << QByteArray(R"({"name": "g", "endpoint": "h:1", "token_file": "site.json"})")
        << "$.gateways[0].token_file: a bearer token is sent only over TLS";
    QTest::newRow("missing ca")
        << QByteArray(R"({"name": "g", "endpoint": "h:1", "tls": {"ca": "nope.pem"}})")
        << "$.gateways[0].tls.ca: cannot read file";
    QTest::newRow("cert without key")
        << QByteArray(R"({"name": "g", "endpoint": "h:1", "tls": {"cert": "site.json"}})")
        << "$.gateways[0].tls.cert: cert and key come together";
    QTest::newRow("write user range")
        << QByteArray(R"({"name": "g", "endpoint": "h:1", "write_user_id": 3000000000})")
        << "$.gateways[0].write_user_id: must be <= 2147483647";
    QTest::newRow("keepalive too short")
        << QByteArray(R"({"name": "g", "endpoint": "h:1", "keepalive_s": 0.05})")
        << "$.gateways[0].keepalive_s: must be >= 0.1";
    QTest::newRow("keepalive timeout too long")
        << QByteArray(R"({"name": "g", "endpoint": "h:1", "keepalive_timeout_s": 7200})")
        << "$.gateways[0].keepalive_timeout_s: must be <= 3600";
    QTest::newRow("unknown key") << QByteArray(R"({"name": "g", "endpoint": "h:1", "port": 5})")
                                 << "$.gateways[0].port: unknown key";
}

void TestSiteParser::gatewayRules()
{
    QFETCH(QByteArray, gateway);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const QString path =
        write(dir, {{"site.json", R"({"name": "s", "gateways": [)" + gateway + R"(],
        "instances": [{"name": "I", "gateway": "g", "tags": ["I.PV"]}]})"}});
    QList<ScenarioError> errors;
    QVERIFY(!loadSiteFile(path, &errors));
    QVERIFY2(messages(errors).join('\n').contains(path + ": " + expected),
             qPrintable(messages(errors).join('\n')));
}

void TestSiteParser::keepaliveReachesThePortOptions()
{
    QList<ScenarioError> errors;
    const auto site = parseSite(R"({"name": "s", "gateways": [
        {"name": "gw-a", "endpoint": "127.0.0.1:50061", "keepalive_s": 2, "keepalive_timeout_s": 0.5},
        {"name": "gw-b", "endpoint": "127.0.0.1:50062"}],
        "instances": [{"name": "I", "gateway": "gw-a", "tags": ["I.PV"]}]})",
                                "s.json", &errors);
    QVERIFY2(site, qPrintable(messages(errors).join('\n')));
    QString error;
    const auto ports = sitePortOptions(*site, {}, &error);
    QVERIFY2(ports, qPrintable(error));
    using namespace std::chrono_literals;
    QCOMPARE(ports->at("gw-a").keepaliveTime, Duration(2s));
    QCOMPARE(ports->at("gw-a").keepaliveTimeout, Duration(500ms));
    const GrpcPortOptions defaults;
    QCOMPARE(ports->at("gw-b").keepaliveTime, defaults.keepaliveTime);
    QCOMPARE(ports->at("gw-b").keepaliveTimeout, defaults.keepaliveTimeout);
}

void TestSiteParser::instanceRules_data()
{
    QTest::addColumn<QByteArray>("instances");
    QTest::addColumn<QString>("expected");
    QTest::newRow("unknown gateway")
        << QByteArray(R"([{"name": "I", "gateway": "gw-z", "tags": ["I.PV"]}])")
        << R"($.instances[0].gateway: unknown gateway "gw-z" (gateways: gw-a, gw-b))";
    QTest::newRow("no tags") << QByteArray(R"([{"name": "I", "gateway": "gw-a"}])")
                             << R"($.instances[0]: instance "I" has no tags)";
    QTest::newRow("duplicate name")
        << QByteArray(R"([{"name": "I", "gateway": "gw-a", "tags": ["a"]},
                                                      {"name": "I", "gateway": "gw-b", "tags": ["b"]}])")
        << R"($.instances[1].name: duplicate instance name "I")";
    QTest::newRow("name with '/'")
        << QByteArray(R"([{"name": "Area/Pumps", "gateway": "gw-a", "tags": ["a"]}])")
        << R"($.instances[0].name: must not contain '/' (it separates an instance from its gateway))";
    QTest::newRow("duplicate inline tag")
        << QByteArray(R"([{"name": "I", "gateway": "gw-a", "tags": ["a", "a"]}])")
        << R"($.instances[0].tags[1]: duplicate tag address "a" in instance "I" (first at $.instances[0].tags[0]))";
    QTest::newRow("tag not a string")
        << QByteArray(R"([{"name": "I", "gateway": "gw-a", "tags": [5]}])")
        << "$.instances[0].tags[0]: expected string, got number";
    QTest::newRow("control character")
        << QByteArray(R"([{"name": "I", "gateway": "gw-a", "tags": ["a\u001bb"]}])")
        << "$.instances[0].tags[0]: a tag address must not contain control characters";
    QTest::newRow("address too long")
        << QByteArray(R"([{"name": "I", "gateway": "gw-a", "tags": [")" + QByteArray(257, 'x') +
                      R"("]}])")
        << "$.instances[0].tags[0]: a tag address must be at most 256 characters (got 257)";
}

void TestSiteParser::instanceRules()
{
    QFETCH(QByteArray, instances);
    QFETCH(QString, expected);
    QList<ScenarioError> errors;
    QVERIFY(!parseSite(R"({"name": "s", )" + kGateways + R"(, "instances": )" + instances + "}",
                       "s.json", &errors));
    QVERIFY2(messages(errors).join('\n').contains("s.json: " + expected),
             qPrintable(messages(errors).join('\n')));
}

void TestSiteParser::strictJsonAndUnknownKeysAreRejected()
{
    QList<ScenarioError> errors;
    QVERIFY(!parseSite(R"({"name": "s", "version": 1., "gateways": [], "instances": []})", "s.json",
                       &errors));
    QVERIFY2(messages(errors).join('\n').contains("a number needs a digit after '.'"),
             qPrintable(messages(errors).join('\n')));
    errors.clear();
    QVERIFY(!parseSite(R"({"name": "s", )" + kGateways +
                           R"(, "instances": [{"name": "I", "gateway": "gw-a", "tags": ["a"]}],
        "options": {"TagSubscribeRetryIntervalMs": 1}, "colour": "red"})",
                       "s.json", &errors));
    const QString all = messages(errors).join('\n');
    QVERIFY2(all.contains("s.json: $.options.TagSubscribeRetryIntervalMs: "), qPrintable(all));
    QVERIFY2(all.contains("s.json: $.colour: unknown key (valid: name, description, options, "
                          "gateways, instances, tags_csv, expected_update_s, stale_factor)"),
             qPrintable(all));
}

// Validation is linear. 20,000 CSV rows over 200 instances.
void TestSiteParser::twentyThousandRowsValidateInWellUnderASecond()
{
    QTemporaryDir dir;
    QByteArray instances = "[";
    QByteArray csv;
    for (int i = 0; i < 200; ++i) {
        instances += (i ? "," : "") + QByteArray(R"({"name": "U)") + QByteArray::number(i) +
                     R"(", "gateway": "gw-a"})";
        for (int t = 0; t < 100; ++t)
            csv += "U" + QByteArray::number(i) + ",Area" + QByteArray::number(i) + ".FIC" +
                   QByteArray::number(t) + ".PV,analog\n";
    }
    instances += "]";
    const QString path =
        write(dir, {{"site.json", R"({"name": "s", )" + kGateways + R"(, "instances": )" +
                                      instances + R"(, "tags_csv": "tags.csv"})"},
                    {"tags.csv", csv}});
    QElapsedTimer timer;
    timer.start();
    QList<ScenarioError> errors;
    const auto site = loadSiteFile(path, &errors);
    const qint64 ms = timer.elapsed();
    QVERIFY2(site, qPrintable(messages(errors).join('\n')));
    QCOMPARE(site->tagCount(), qsizetype(20000));
    qInfo("20,000 tag rows validated in %lld ms", ms);
    QVERIFY2(ms < 1000, qPrintable(QString::number(ms)));
}

QTEST_GUILESS_MAIN(TestSiteParser)
#include "tst_site_parser.moc"
