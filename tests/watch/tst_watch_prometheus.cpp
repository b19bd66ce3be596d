// The watch service as a site runs it: the built stormwatch --watch on the example site, its
// two gateways two real mxgw-mock processes, scraped every second by a real Prometheus
// (Debian's), read back through Prometheus's HTTP API. One gateway is SIGKILLed and restarted
// on its port: the other's Good tags never drop, the killed one's go to 0 and come back, and
// no tag is ever orphaned. SIGHUP re-reads the site (a changed one is watched, a broken one
// refused while the service goes on); SIGTERM closes the sessions and exits 0.
#include "integration/support_mock_process.h"
#include "test_paths.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QRegularExpression>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QUrlQuery>
#include <QtTest>
#include <csignal>
#include <map>
#include <memory>
#include <optional>

using testsupport::MockProcess;

namespace {

// The example site's gateways, as its file names them.
const QString kPackaging = QStringLiteral("gw-packaging");
const QString kUtilities = QStringLiteral("gw-utilities");

QByteArray httpGet(const QString& url, int* status = nullptr)
{
    static QNetworkAccessManager* nam = new QNetworkAccessManager;
    QNetworkRequest request{QUrl(url)};
    request.setTransferTimeout(5000);
    QNetworkReply* reply = nam->get(request);
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    loop.exec();
    if (status)
        *status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QByteArray body =
        reply->error() == QNetworkReply::NoError ? reply->readAll() : QByteArray();
    reply->deleteLater();
    return body;
}

int freePort()
{
    QTcpServer server;
    if (!server.listen(QHostAddress::LocalHost, 0))
        return 0;
    return server.serverPort();
}

// stormwatch --watch, started as a user starts it; its log (stderr) kept.
struct Watch {
    QProcess process;
    QString log;
    int port = 0;

    bool start(const QStringList& args)
    {
        process.setProcessChannelMode(QProcess::SeparateChannels);
        QObject::connect(&process, &QProcess::readyReadStandardError,
                         [this] { log += QString::fromLocal8Bit(process.readAllStandardError()); });
        process.start(testpaths::stormwatchBinary(),
                      QStringList{"--metrics-listen", "127.0.0.1:0"} + args);
        if (!process.waitForStarted(10000))
            return false;
        QString line;
        while (!line.contains('\n') && process.waitForReadyRead(30000))
            line += QString::fromLocal8Bit(process.readAllStandardOutput());
        const auto match =
            QRegularExpression("metrics on http://127\\.0\\.0\\.1:(\\d+)/metrics").match(line);
        if (!match.hasMatch())
            return false;
        port = match.captured(1).toInt();
        return true;
    }
    QString metrics() const
    {
        return QString::fromUtf8(httpGet(QStringLiteral("http://127.0.0.1:%1/metrics").arg(port)));
    }
    // SIGTERM; the exit code (-1: not within the time).
    int terminate()
    {
        ::kill(pid_t(process.processId()), SIGTERM);
        if (!process.waitForFinished(20000))
            return -1;
        log += QString::fromLocal8Bit(process.readAllStandardError());
        return process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    }
    ~Watch()
    {
        if (process.state() != QProcess::NotRunning) {
            process.kill();
            process.waitForFinished(5000);
        }
    }
};

// The value of every series of `name` with `labels` in a /metrics text, summed by `by`.
std::map<QString, double> sumBy(const QString& text, const QString& name, const QString& by,
                                const QString& labels = {})
{
    std::map<QString, double> sums;
    const QRegularExpression byLabel(by + QStringLiteral("=\"([^\"]*)\""));
    for (const QString& line : text.split('\n')) {
        if (!line.startsWith(name + "{") || (!labels.isEmpty() && !line.contains(labels)))
            continue;
        const auto match = byLabel.match(line);
        if (match.hasMatch())
            sums[match.captured(1)] += line.mid(line.lastIndexOf(' ') + 1).toDouble();
    }
    return sums;
}

struct Prometheus {
    QProcess process;
    int port = 0;
    QTemporaryDir dir;

    bool start(int scrapePort)
    {
        const QString binary = qEnvironmentVariable("STORMWATCH_PROMETHEUS");
        if (binary.isEmpty() || !QFile::exists(binary)) {
            qWarning("no prometheus binary: %s (Debian's prometheus package)", qPrintable(binary));
            return false;
        }
        // The exporter's instance label is the site's instance, not the scrape target's:
        // honor_labels keeps it.
        QFile config(dir.filePath("prometheus.yml"));
        if (!config.open(QIODevice::WriteOnly))
            return false;
        config.write(QStringLiteral("global:\n"
                                    "  scrape_interval: 1s\n"
                                    "  evaluation_interval: 1s\n"
                                    "scrape_configs:\n"
                                    "  - job_name: stormwatch\n"
                                    "    honor_labels: true\n"
                                    "    static_configs:\n"
                                    "      - targets: ['127.0.0.1:%1']\n")
                         .arg(scrapePort)
                         .toUtf8());
        config.close();
        port = freePort();
        process.setProcessChannelMode(QProcess::MergedChannels);
        process.start(binary, {"--config.file=" + config.fileName(),
                               "--storage.tsdb.path=" + dir.filePath("data"),
                               QStringLiteral("--web.listen-address=127.0.0.1:%1").arg(port),
                               "--log.level=warn"});
        if (!process.waitForStarted(10000))
            return false;
        return QTest::qWaitFor(
            [&] {
                int status = 0;
                httpGet(QStringLiteral("http://127.0.0.1:%1/-/ready").arg(port), &status);
                return status == 200;
            },
            30000);
    }
    // An instant query's result: label `by` of each series -> its value.
    std::map<QString, double> query(const QString& promql, const QString& by = {})
    {
        QUrlQuery q;
        q.addQueryItem("query", promql);
        QUrl url(QStringLiteral("http://127.0.0.1:%1/api/v1/query").arg(port));
        url.setQuery(q);
        const QJsonObject reply = QJsonDocument::fromJson(httpGet(url.toString())).object();
        std::map<QString, double> values;
        for (const QJsonValue& r : reply["data"].toObject()["result"].toArray()) {
            const QJsonObject series = r.toObject();
            values[series["metric"].toObject()[by].toString()] =
                series["value"].toArray().at(1).toString().toDouble();
        }
        return values;
    }
    ~Prometheus()
    {
        if (process.state() != QProcess::NotRunning) {
            process.terminate();
            if (!process.waitForFinished(10000))
                process.kill();
        }
    }
};

QStringList endpointArgs(const MockProcess& packaging, const MockProcess& utilities)
{
    return {"--gateway-endpoint", kPackaging + "=" + packaging.endpoint(), "--gateway-endpoint",
            kUtilities + "=" + utilities.endpoint()};
}

// The example site copied next to its CSV, so a test can change it.
QString copyExampleSite(const QTemporaryDir& dir)
{
    for (const char* name : {"example-site.json", "example-site.csv"})
        if (!QFile::copy(testpaths::sourceFile(QStringLiteral("resources/sites/") + name),
                         dir.filePath(name)))
            return {};
    return dir.filePath("example-site.json");
}

} // namespace

class TestWatchPrometheus : public QObject {
    Q_OBJECT
private slots:
    void aKilledGatewaysTagsGoAndComeBackWhileTheOtherStaysGood()
    {
        MockProcess packaging, utilities;
        QVERIFY(packaging.start());
        QVERIFY(utilities.start());
        Watch watch;
        QVERIFY2(watch.start(QStringList{"--watch", testpaths::sourceFile(
                                                        "resources/sites/example-site.json")} +
                             endpointArgs(packaging, utilities)),
                 qPrintable(watch.log));

        // Every tag usable on both gateways (Good, or Good and stale), as /metrics says it.
        std::map<QString, double> total;
        QVERIFY2(QTest::qWaitFor(
                     [&] {
                         const QString text = watch.metrics();
                         total = sumBy(text, "stormwatch_tags", "gateway");
                         const auto usable =
                             sumBy(text, "stormwatch_tags", "gateway", R"(quality="good")");
                         return total.size() == 2 && total[kPackaging] > 0 &&
                                usable.count(kPackaging) && usable.count(kUtilities) &&
                                usable.at(kPackaging) == total[kPackaging] &&
                                usable.at(kUtilities) == total[kUtilities];
                     },
                     60000),
                 qPrintable(watch.log));
        QCOMPARE(total[kPackaging] + total[kUtilities], 1000.0); // the site's tags

        int healthy = 0;
        httpGet(QStringLiteral("http://127.0.0.1:%1/-/healthy").arg(watch.port), &healthy);
        QCOMPARE(healthy, 200);

        // Every metric the alert rules and the dashboard name is served.
        QProcess names;
        names.start("python3", {testpaths::sourceFile("tests/prometheus/named_metrics.py"),
                                testpaths::sourceFile("resources/prometheus/stormwatch-rules.yml"),
                                testpaths::sourceFile("resources/grafana/stormwatch.json")});
        QVERIFY(names.waitForFinished(30000));
        QCOMPARE(names.exitCode(), 0);
        const QStringList named =
            QString::fromUtf8(names.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts);
        QVERIFY(named.size() >= 10);
        const QString exposed = watch.metrics();
        for (const QString& name : named)
            QVERIFY2(exposed.contains(QRegularExpression("^" + name + "(_bucket|_sum|_count)?[{ ]",
                                                         QRegularExpression::MultilineOption)),
                     qPrintable(name + " is named by a rule or panel and not served"));

        Prometheus prometheus;
        QVERIFY(prometheus.start(watch.port));
        const QString good = R"(sum by (gateway) (stormwatch_tags{quality="good"}))";
        QVERIFY2(QTest::qWaitFor(
                     [&] {
                         const auto v = prometheus.query(good, "gateway");
                         return v.count(kPackaging) && v.count(kUtilities) &&
                                v.at(kPackaging) == total[kPackaging] &&
                                v.at(kUtilities) == total[kUtilities];
                     },
                     30000),
                 "Prometheus never saw every tag Good");

        packaging.kill();
        bool otherDropped = false;
        auto otherStays = [&](const std::map<QString, double>& v) {
            if (!v.count(kUtilities) || v.at(kUtilities) != total[kUtilities])
                otherDropped = true;
        };
        QVERIFY2(QTest::qWaitFor(
                     [&] {
                         const auto v = prometheus.query(good, "gateway");
                         otherStays(v);
                         return v.count(kPackaging) && v.at(kPackaging) == 0;
                     },
                     60000),
                 qPrintable("the killed gateway's tags stayed Good\n" + watch.log));

        QVERIFY(packaging.start()); // the same port
        QVERIFY2(QTest::qWaitFor(
                     [&] {
                         const auto v = prometheus.query(good, "gateway");
                         otherStays(v);
                         return v.count(kPackaging) && v.at(kPackaging) == total[kPackaging];
                     },
                     90000),
                 qPrintable("the restarted gateway's tags did not come back\n" + watch.log));
        QVERIFY2(!otherDropped, "the other gateway's Good tags dropped while one was down");
        QCOMPARE(prometheus.query("max(max_over_time(stormwatch_orphaned_tags[10m]))")[""], 0.0);
        QVERIFY(prometheus.query("sum(stormwatch_session_restarts_total)")[""] >= 1);

        QCOMPARE(watch.terminate(), 0);
        QVERIFY2(watch.log.contains("closing every gateway session"), qPrintable(watch.log));
    }

    void sighupWatchesAChangedSiteAndKeepsTheOldOneForABrokenFile()
    {
        MockProcess packaging, utilities;
        QVERIFY(packaging.start());
        QVERIFY(utilities.start());
        QTemporaryDir dir;
        const QString site = copyExampleSite(dir);
        QVERIFY(!site.isEmpty());
        // A recording directory with a recording older than --keep-days, and another file.
        const QString records = dir.filePath("records");
        QVERIFY(QDir().mkpath(records));
        const QString old = records + "/example-site-2020-01-01T000000.sqlite";
        const QString other = records + "/notes.sqlite";
        for (const QString& f : {old, other}) {
            QFile file(f);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write("x");
            file.close();
            QVERIFY(file.open(QIODevice::ReadWrite));
            QVERIFY(file.setFileTime(QDateTime::currentDateTime().addDays(-30),
                                     QFileDevice::FileModificationTime));
        }
        Watch watch;
        QVERIFY2(
            watch.start(QStringList{"--watch", site, "--record-dir", records, "--keep-days", "7"} +
                        endpointArgs(packaging, utilities)),
            qPrintable(watch.log));
        QTRY_VERIFY_WITH_TIMEOUT(watch.metrics().contains(R"(instance="Boilers")"), 20000);
        QVERIFY2(!QFile::exists(old), qPrintable(watch.log));
        QVERIFY(QFile::exists(other)); // not one of the site's recordings

        // Boilers removed: the service watches the changed site, and Boilers goes from /metrics.
        QFile file(site);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QJsonObject json = QJsonDocument::fromJson(file.readAll()).object();
        file.close();
        QJsonArray instances;
        for (const QJsonValue& i : json["instances"].toArray())
            if (i.toObject()["name"].toString() != "Boilers")
                instances.append(i);
        json["instances"] = instances;
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(QJsonDocument(json).toJson());
        file.close();
        // The CSV's Boilers rows would now name an unknown instance: drop them too.
        QFile csv(dir.filePath("example-site.csv"));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        QStringList rows = QString::fromUtf8(csv.readAll()).split('\n');
        csv.close();
        rows.erase(std::remove_if(rows.begin(), rows.end(),
                                  [](const QString& r) { return r.startsWith("Boilers,"); }),
                   rows.end());
        QVERIFY(csv.open(QIODevice::WriteOnly | QIODevice::Truncate));
        csv.write(rows.join('\n').toUtf8());
        csv.close();

        ::kill(pid_t(watch.process.processId()), SIGHUP);
        QTRY_VERIFY_WITH_TIMEOUT(watch.log.contains("removed Boilers") ||
                                     watch.log.contains("none added, Boilers removed"),
                                 20000);
        QTRY_VERIFY_WITH_TIMEOUT(!watch.metrics().contains(R"(instance="Boilers")") &&
                                     watch.metrics().contains(R"(instance="Pumps")"),
                                 20000);

        // A broken file is refused with its error; the service goes on serving the site.
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write("{ \"name\": ");
        file.close();
        ::kill(pid_t(watch.process.processId()), SIGHUP);
        QTRY_VERIFY_WITH_TIMEOUT(watch.log.contains("refused, still watching the site as it was"),
                                 20000);
        QCOMPARE(watch.process.state(), QProcess::Running);
        QVERIFY(watch.metrics().contains(R"(instance="Pumps")"));
        QCOMPARE(watch.terminate(), 0);

        // The day's recording holds the watched runs: the first site and the changed one.
        const QStringList recorded =
            QDir(records).entryList({"example-site-*.sqlite"}, QDir::Files);
        QCOMPARE(recorded.size(), 1);
        QProcess info;
        info.start(testpaths::stormwatchBinary(),
                   {"--recording-info", records + "/" + recorded.first()});
        QVERIFY(info.waitForFinished(30000));
        const QString runs = QString::fromUtf8(info.readAllStandardOutput());
        QCOMPARE(info.exitCode(), 0);
        QVERIFY2(runs.contains("run 1: live / live") && runs.contains("run 2: live / live"),
                 qPrintable(runs));
    }

    void badInputIsRefusedBeforeAnythingStarts()
    {
        struct Case {
            QStringList args;
            QString says;
        };
        const QString site = testpaths::sourceFile("resources/sites/example-site.json");
        for (const Case& c :
             {Case{{"--watch", site, "--metrics-listen", "0.0.0.0:9464"}, "--allow-remote"},
              Case{{"--watch", site, "--metrics-listen", "127.0.0.1:99999"}, "port"},
              Case{{"--watch", site, "--variant", "lever9"}, "--variant lever9"},
              Case{{"--watch", site, "--keep-days", "3"}, "--keep-days is for --record-dir"},
              Case{{"--watch", "/nonexistent/site.json"}, "site.json"},
              Case{{"--metrics-listen", "127.0.0.1:1"}, "--metrics-listen is for --watch"}}) {
            QProcess p;
            p.start(testpaths::stormwatchBinary(), c.args);
            QVERIFY(p.waitForFinished(30000));
            const QString err = QString::fromUtf8(p.readAllStandardError());
            QCOMPARE(p.exitCode(), 2);
            QVERIFY2(err.contains(c.says), qPrintable(c.args.join(' ') + ": " + err));
        }
    }
};

QTEST_GUILESS_MAIN(TestWatchPrometheus)
#include "tst_watch_prometheus.moc"
