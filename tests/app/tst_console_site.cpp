// `stormwatch --site FILE` opens the console live on a site: the built console
// against two built mxgw-mock processes serving the example site's two gateways (their
// endpoints given by --gateway-endpoint). It starts, shows (a screenshot), exits 0, and the
// recording of its live run holds both gateways' connections and every tag Good; a bad site
// exits 2 with the site rules' `file: $.path: rule` message.
#include "integration/support_mock_process.h"
#include "support_app.h"
#include "test_paths.h"

#include <QFile>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>
#include <QtEndian>

using apptest::Run;
using apptest::stormwatch;
using testsupport::MockProcess;

class TestConsoleSite : public QObject {
    Q_OBJECT
private slots:
    void opensLiveOnEveryGatewayOfTheSite();
    void aBadSiteExits2WithItsRule();
    void anUnknownGatewayEndpointExits2();
};

void TestConsoleSite::opensLiveOnEveryGatewayOfTheSite()
{
    MockProcess packaging{}, utilities{};
    QVERIFY(packaging.start());
    QVERIFY(utilities.start());
    QTemporaryDir dir;
    const QString shot = dir.filePath("site.png"), recording = dir.filePath("site.sqlite");
    const Run run = stormwatch(
        {"--site", testpaths::sourceFile(QStringLiteral("resources/sites/example-site.json")),
         "--gateway-endpoint", "gw-packaging=" + packaging.endpoint(), "--gateway-endpoint",
         "gw-utilities=" + utilities.endpoint(), "--settings", dir.filePath("settings.ini"),
         "--record", recording, "--screenshot", shot, "--screenshot-after-s", "5"});
    QVERIFY2(run.exitCode == 0, qPrintable(run.stdErr));
    // The window was shown and grabbed: a PNG of its size (IHDR: width, height big-endian).
    QFile png(shot);
    QVERIFY(png.open(QIODevice::ReadOnly));
    const QByteArray head = png.read(24);
    QVERIFY(head.startsWith("\x89PNG\r\n\x1a\n"));
    const auto be32 = [&](int at) { return qFromBigEndian<quint32>(head.constData() + at); };
    QVERIFY2(be32(16) > 400 && be32(20) > 300,
             qPrintable(QString("%1x%2").arg(be32(16)).arg(be32(20))));

    // What the console's live run saw, as it recorded it.
    {
        auto db = QSqlDatabase::addDatabase("QSQLITE", "site");
        db.setDatabaseName(recording);
        db.setConnectOptions("QSQLITE_OPEN_READONLY");
        QVERIFY(db.open());
        QSqlQuery q(db);
        QVERIFY(q.exec("SELECT gateway FROM runs"));
        QVERIFY(q.next());
        const QString gateways = q.value(0).toString();
        QVERIFY2(gateways.contains("gw-packaging " + packaging.endpoint()), qPrintable(gateways));
        QVERIFY2(gateways.contains("gw-utilities " + utilities.endpoint()), qPrintable(gateways));
        // Each connection is named as its gateway and reached that gateway's endpoint.
        QVERIFY(q.exec("SELECT name, address FROM connections WHERE state = 'connected' GROUP BY "
                       "name ORDER BY name"));
        QStringList connected;
        while (q.next())
            connected << q.value(0).toString() + "@" + q.value(1).toString();
        QCOMPARE(connected, QStringList({"gw-packaging@" + packaging.endpoint(),
                                         "gw-utilities@" + utilities.endpoint()}));
        // The example site's 1,000 real addresses, every one Good (the mocks know them all).
        QVERIFY(
            q.exec("SELECT COUNT(*), SUM(quality = 192), COUNT(DISTINCT instance_name) FROM tags"));
        QVERIFY(q.next());
        QCOMPARE(q.value(0).toInt(), 1000);
        QCOMPARE(q.value(1).toInt(), 1000);
        QCOMPARE(q.value(2).toInt(), 7);
    }
    QSqlDatabase::removeDatabase("site");
}

void TestConsoleSite::aBadSiteExits2WithItsRule()
{
    QTemporaryDir dir;
    const QString site = dir.filePath("bad-site.json");
    QFile f(site);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"name": "x", "gateways": [{"name": "a", "endpoint": "plant-gw2"}],
               "instances": [{"name": "i", "gateway": "a", "tags": ["A.B"]}]})");
    f.close();
    const Run run = stormwatch({"--site", site, "--settings", dir.filePath("settings.ini")});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(
        run.stdErr.contains(
            site +
            ": $.gateways[0].endpoint: must be HOST:PORT with a port 1..65535 (got \"plant-gw2\")"),
        qPrintable(run.stdErr));
}

void TestConsoleSite::anUnknownGatewayEndpointExits2()
{
    QTemporaryDir dir;
    const Run run = stormwatch(
        {"--site", testpaths::sourceFile(QStringLiteral("resources/sites/example-site.json")),
         "--gateway-endpoint", "gw-nowhere=127.0.0.1:1", "--settings",
         dir.filePath("settings.ini")});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.stdErr.contains(
                 "--gateway-endpoint gw-nowhere: the site has no gateway \"gw-nowhere\""),
             qPrintable(run.stdErr));
}

QTEST_GUILESS_MAIN(TestConsoleSite)
#include "tst_console_site.moc"
