// The commissioning command at the real boundary: the built stormwatch against two built
// mxgw-mock processes serving the example site's two gateways, three of its addresses
// unknown to them. The report lists exactly those three as failed with the gateway's
// reason and everything else Good (exit 1); without them in the CSV, exit 0.
#include "integration/support_mock_process.h"
#include "support_app.h"
#include "test_paths.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

using apptest::Run;
using apptest::stormwatch;
using testsupport::MockProcess;

namespace {

QStringList unknownAddresses()
{
    QFile f(testpaths::sourceFile(QStringLiteral("resources/sites/example-unknown.txt")));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    QStringList out;
    for (const QByteArray& line : f.readAll().split('\n'))
        if (!line.trimmed().isEmpty() && !line.startsWith('#'))
            out << QString::fromUtf8(line.trimmed());
    return out;
}

// A copy of the example site in `dir`, its CSV without the rows of `drop`.
bool copySite(const QTemporaryDir& dir, const QStringList& drop)
{
    if (!QFile::copy(testpaths::sourceFile(QStringLiteral("resources/sites/example-site.json")),
                     dir.filePath("site.json")))
        return false;
    QFile in(testpaths::sourceFile(QStringLiteral("resources/sites/example-site.csv")));
    QFile out(dir.filePath("example-site.csv"));
    if (!in.open(QIODevice::ReadOnly) || !out.open(QIODevice::WriteOnly))
        return false;
    for (const QByteArray& line : in.readAll().split('\n')) {
        const QList<QByteArray> fields = line.split(',');
        if (fields.size() >= 2 && drop.contains(QString::fromUtf8(fields[1])))
            continue;
        if (!line.isEmpty())
            out.write(line + '\n');
    }
    return true;
}

QJsonObject readJson(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(f.readAll()).object()
                                       : QJsonObject();
}

} // namespace

class TestCommission : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void reportsExactlyTheUnknownTagsAsFailed();
    void exitsZeroWhenEveryTagIsGood();
    void anUnreachableGatewayFailsOnlyItsOwnTags();
    void validateSite();
    void badInputExits2_data();
    void badInputExits2();

private:
    QStringList commissionArgs(const QString& site, const QString& report) const
    {
        return {"--headless",
                "--site",
                site,
                "--commission",
                "--report",
                report,
                "--timeout-s",
                "60",
                "--gateway-endpoint",
                "gw-packaging=" + m_packaging->endpoint(),
                "--gateway-endpoint",
                "gw-utilities=" + m_utilities->endpoint()};
    }
    std::unique_ptr<MockProcess> m_packaging, m_utilities;
    QStringList m_unknown;
};

void TestCommission::initTestCase()
{
    m_unknown = unknownAddresses();
    QCOMPARE(m_unknown.size(), 3);
    const QString unknownFile =
        testpaths::sourceFile(QStringLiteral("resources/sites/example-unknown.txt"));
    // Initial values only (no data ticks): every tag's Good must come from the value sent
    // when its item was advised, which may reach the client before the subscribe's reply —
    // a site's static setpoints, and the route race a 1 Hz tick would hide.
    const QStringList args = {"--data-hz", "0", "--unknown-tags", unknownFile};
    m_packaging = std::make_unique<MockProcess>(args);
    m_utilities = std::make_unique<MockProcess>(args);
    QVERIFY(m_packaging->start());
    QVERIFY(m_utilities->start());
}

void TestCommission::reportsExactlyTheUnknownTagsAsFailed()
{
    QTemporaryDir dir;
    QVERIFY(copySite(dir, {}));
    const QString reportDir = dir.filePath("report");
    const Run run = stormwatch(commissionArgs(dir.filePath("site.json"), reportDir));
    QVERIFY2(run.exitCode == 1, qPrintable(run.stdErr));
    QVERIFY2(run.stdErr.contains("commission: "), qPrintable(run.stdErr)); // progress on stderr

    const QJsonObject report = readJson(reportDir + "/report.json");
    QCOMPARE(report.value("tags").toArray().size(), 1000);
    QCOMPARE(report.value("good").toInt(), 997);
    QCOMPARE(report.value("failed").toInt(), 3);
    QCOMPARE(report.value("no_value").toInt(), 0);
    QCOMPARE(report.value("all_good").toBool(), false);
    QSet<QString> failed;
    for (const QJsonValue& v : report.value("tags").toArray()) {
        const QJsonObject t = v.toObject();
        if (t.value("outcome").toString() == "failed") {
            failed.insert(t.value("tag_address").toString());
            QCOMPARE(t.value("reason").toString(),
                     "item not found: " + t.value("tag_address").toString());
            QVERIFY(t.value("first_value_s").isNull()); // refused: it never had a value
        } else {
            QCOMPARE(t.value("outcome").toString(), QString("good"));
            QVERIFY(t.value("first_value_s").isDouble());
        }
    }
    QCOMPARE(failed, QSet<QString>(m_unknown.begin(), m_unknown.end()));
    const QJsonArray gateways = report.value("gateways").toArray();
    QCOMPARE(gateways.size(), 2);
    for (const QJsonValue& v : gateways) {
        const QJsonObject g = v.toObject();
        QVERIFY(g.value("subscribe_rpcs").toInt() >= 1);
        QVERIFY(
            g.value("capabilities").toArray().contains(QJsonValue("bulk-subscribe-supervisory")));
        QCOMPARE(g.value("advise_kind").toString(), QString("supervisory (SubscribeBulk)"));
        QVERIFY(g.value("echoed_command_timeout_s").toDouble() > 0);
        QVERIFY(g.value("first_value_max_s").toDouble() >= g.value("first_value_p50_s").toDouble());
    }
    QCOMPARE(report.value("instances").toArray().size(), 7);

    QFile csv(reportDir + "/report.csv");
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QList<QByteArray> rows = csv.readAll().trimmed().split('\n');
    QCOMPARE(rows.size(), 1001);
    QCOMPARE(rows[0],
             QByteArray("gateway,instance,tag_address,kind,outcome,reason,first_value_s,quality"));
    QFile md(reportDir + "/report.md");
    QVERIFY(md.open(QIODevice::ReadOnly));
    const QString markdown = QString::fromUtf8(md.readAll());
    QVERIFY2(
        markdown.contains("FAIL: 997 of 1000 tags Good; 3 failed to add, 0 never received a value"),
        qPrintable(markdown));
    for (const QString& a : m_unknown)
        QVERIFY2(markdown.contains("| " + a + " | item not found: " + a + " |"), qPrintable(a));
}

void TestCommission::exitsZeroWhenEveryTagIsGood()
{
    QTemporaryDir dir;
    QVERIFY(copySite(dir, m_unknown));
    const QString reportDir = dir.filePath("report");
    const Run run = stormwatch(commissionArgs(dir.filePath("site.json"), reportDir));
    QVERIFY2(run.exitCode == 0, qPrintable(run.stdErr));
    const QJsonObject report = readJson(reportDir + "/report.json");
    QCOMPARE(report.value("good").toInt(), 997);
    QCOMPARE(report.value("tags").toArray().size(), 997);
    QCOMPARE(report.value("all_good").toBool(), true);
    QVERIFY(
        report.value("verdict").toString().startsWith("PASS: all 997 tags Good on 2 gateway(s)"));
}

// One gateway down for the whole run: its tags never receive a value (the report names the
// connection's state and why), the other gateway's tags are Good all the same, exit 1 at
// the timeout.
void TestCommission::anUnreachableGatewayFailsOnlyItsOwnTags()
{
    int deadPort = 0;
    {
        MockProcess gone({"--data-hz", "0"});
        QVERIFY(gone.start());
        deadPort = gone.port;
        gone.kill(); // nothing listens there any more
    }
    QTemporaryDir dir;
    QVERIFY(copySite(dir, m_unknown));
    const QString reportDir = dir.filePath("report");
    const Run run = stormwatch({"--headless", "--site", dir.filePath("site.json"), "--commission",
                                "--report", reportDir, "--timeout-s", "4", "--gateway-endpoint",
                                "gw-packaging=" + m_packaging->endpoint(), "--gateway-endpoint",
                                QStringLiteral("gw-utilities=127.0.0.1:%1").arg(deadPort)});
    QVERIFY2(run.exitCode == 1, qPrintable(run.stdErr));
    const QJsonObject report = readJson(reportDir + "/report.json");
    QCOMPARE(report.value("timed_out").toBool(), true);
    for (const QJsonValue& v : report.value("gateways").toArray()) {
        const QJsonObject g = v.toObject();
        if (g.value("name").toString() == "gw-packaging") {
            QCOMPARE(g.value("good").toInt(), g.value("tags").toInt());
            QCOMPARE(g.value("state").toString(), QString("connected"));
        } else {
            QCOMPARE(g.value("good").toInt(), 0);
            QCOMPARE(g.value("no_value").toInt(), g.value("tags").toInt());
            QVERIFY(g.value("tags").toInt() > 0);
            QVERIFY2(g.value("state").toString() != "connected",
                     qPrintable(g.value("state").toString()));
            QVERIFY2(!g.value("last_error").toString().isEmpty(), "the report says why");
            QVERIFY(g.value("capabilities").toArray().isEmpty());
        }
    }
    QVERIFY(report.value("verdict").toString().contains("timed out after 4 s"));
}

void TestCommission::validateSite()
{
    const Run ok =
        stormwatch({"--validate-site",
                    testpaths::sourceFile(QStringLiteral("resources/sites/example-site.json"))});
    QVERIFY2(ok.exitCode == 0, qPrintable(ok.stdErr));
    QTemporaryDir dir;
    QVERIFY(copySite(dir, {}));
    QFile csv(dir.filePath("example-site.csv"));
    QVERIFY(csv.open(QIODevice::Append));
    csv.write("Nowhere,Nowhere.PV\n");
    csv.close();
    const Run bad = stormwatch({"--validate-site", dir.filePath("site.json")});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.stdErr.contains("example-site.csv:1002: unknown instance \"Nowhere\""),
             qPrintable(bad.stdErr));
}

void TestCommission::badInputExits2_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    const QString site = testpaths::sourceFile(QStringLiteral("resources/sites/example-site.json"));
    QTest::newRow("unknown preset")
        << QStringList{"--headless", "--site", site,        "--commission",
                       "--report",   "/tmp/x", "--variant", "lever9"}
        << "--variant lever9";
    QTest::newRow("no report") << QStringList{"--headless", "--site", site, "--commission"}
                               << "--report DIR";
    QTest::newRow("timeout") << QStringList{"--headless", "--site", site,          "--commission",
                                            "--report",   "/tmp/x", "--timeout-s", "0"}
                             << "--timeout-s 0: must be a number > 0";
    QTest::newRow("endpoint of no gateway")
        << QStringList{"--headless",         "--site",          site,
                       "--commission",       "--report",        "/tmp/x",
                       "--gateway-endpoint", "gw-x=127.0.0.1:1"}
        << "the site has no gateway \"gw-x\"";
    QTest::newRow("bad endpoint") << QStringList{"--headless",
                                                 "--site",
                                                 site,
                                                 "--commission",
                                                 "--report",
                                                 "/tmp/x",
                                                 "--gateway-endpoint",
                                                 "gw-packaging=nowhere"}
                                  << "must be HOST:PORT";
    QTest::newRow("missing site") << QStringList{"--headless",   "--site",   "/nonexistent.json",
                                                 "--commission", "--report", "/tmp/x"}
                                  << "cannot read file";
}

void TestCommission::badInputExits2()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const Run run = stormwatch(args);
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.stdErr.contains(message), qPrintable(run.stdErr));
}

QTEST_GUILESS_MAIN(TestCommission)
#include "tst_commission.moc"
