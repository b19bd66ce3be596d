// The headless command line as users run it: the built binary under QProcess.

#include "gateway/mock_gateway_server.h"
#include "mxaccess_gateway.grpc.pb.h"
#include "scenario/metric_table.h"
#include "scenario/scenario_parser.h"
#include "support_app.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <grpcpp/grpcpp.h>
#include <memory>

namespace {

// The built binary through the app suites' one launcher; the output under the names these
// cases use.
struct Result {
    int exitCode = -1;
    QByteArray out;
    QString err;
};

Result run(const QStringList& args,
           const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment())
{
    const apptest::Run r = apptest::stormwatch(args, 60'000, 0, env);
    return {r.exitCode, r.stdOut,
            r.exitCode == -1 && r.stdErr.isEmpty() ? "timed out or crashed" : r.stdErr};
}

// A two-second live scenario with one connection, for runs against --gateway.
QString writeShortLiveScenario(const QTemporaryDir& dir)
{
    const QString file = dir.filePath("short-live.json");
    QFile f(file);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write(R"({"name": "short-live", "description": "two seconds", "duration_s": 2,
                "connections": [{"name": "gw1"}],
                "instances": [{"name": "i", "connection": "gw1", "tags": 8}],
                "variants": ["all"]})");
    return file;
}

// A self-signed certificate (its own CA) for `san`, made with the openssl CLI: {cert, key}.
std::pair<QString, QString> makeCertificate(const QTemporaryDir& dir, const QString& name,
                                            const QString& san)
{
    const QString openssl = QStandardPaths::findExecutable(QStringLiteral("openssl"));
    const QString cert = dir.filePath(name + "-cert.pem");
    const QString key = dir.filePath(name + "-key.pem");
    QProcess make;
    make.start(openssl,
               {"req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                "-nodes", "-days", "1", "-subj", "/CN=" + name, "-addext", "subjectAltName=" + san,
                "-keyout", key, "-out", cert});
    if (openssl.isEmpty() || !make.waitForFinished(10000) || make.exitCode() != 0)
        return {};
    return {cert, key};
}

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// A TLS gateway on 127.0.0.1 (ephemeral port) that refuses every session UNAUTHENTICATED.
class RefusingTlsGateway final : public mxgateway::v1::MxAccessGateway::CallbackService {
public:
    RefusingTlsGateway(const QString& cert, const QString& key)
    {
        grpc::SslServerCredentialsOptions tls;
        tls.pem_key_cert_pairs.push_back({readAll(key).toStdString(), readAll(cert).toStdString()});
        grpc::ServerBuilder builder;
        builder.AddListeningPort("127.0.0.1:0", grpc::SslServerCredentials(tls), &m_port);
        builder.RegisterService(this);
        m_server = builder.BuildAndStart();
    }
    ~RefusingTlsGateway() override
    {
        m_server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
    }
    QString address() const { return QStringLiteral("127.0.0.1:%1").arg(m_port); }

    grpc::ServerUnaryReactor* OpenSession(grpc::CallbackServerContext* context,
                                          const mxgateway::v1::OpenSessionRequest*,
                                          mxgateway::v1::OpenSessionReply*) override
    {
        auto* reactor = context->DefaultReactor();
        reactor->Finish(
            grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "missing or wrong bearer token"));
        return reactor;
    }

private:
    std::unique_ptr<grpc::Server> m_server;
    int m_port = 0;
};

// stderr without the live progress lines ("all: 1/2 s").
QStringList problemLines(const QString& err)
{
    static const QRegularExpression progress(QStringLiteral("^\\S+: \\d+/\\d+ s$"));
    QStringList lines;
    for (const QString& line : err.split(QLatin1Char('\n'), Qt::SkipEmptyParts))
        if (!progress.match(line).hasMatch())
            lines << line;
    return lines;
}

} // namespace

class TestStormwatchCli : public QObject {
    Q_OBJECT

private slots:
    void headlessJsonReport()
    {
        const Result r = run({"--headless", "--scenario", "live-gate-lever1", "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(r.out, &error);
        QVERIFY2(doc.isObject(), qPrintable(error.errorString()));
        const QJsonObject o = doc.object();
        QCOMPARE(o.value("scenario").toString(), QStringLiteral("live-gate-lever1"));
        QCOMPARE(o.value("mode").toString(), QStringLiteral("virtual"));
        QCOMPARE(o.value("duration_s").toDouble(), 110.0);
        const QJsonArray variants = o.value("variants").toArray();
        QCOMPARE(variants.size(), 2);
        const QStringList keys{"name",
                               "levers",
                               "subscribe_requests",
                               "max_outstanding",
                               "max_gateway_outstanding_subscribes",
                               "gateway_rpcs",
                               "gateway_rpcs_by_kind",
                               "subscribe_rpcs",
                               "teardown_rpcs",
                               "deadline_exceeded",
                               "bad_tag_seconds",
                               "orphaned_tag_seconds",
                               "frozen_tag_seconds",
                               "stale_tag_seconds",
                               "unresponsive_seconds",
                               "time_to_all_good_s",
                               "time_to_all_good_from",
                               "connected_after_s",
                               "max_sta_queue_depth",
                               "suppressed_calls",
                               "throttled_retries",
                               "events_lost",
                               "wall_ms"};
        // Present only when there is something to say.
        const QStringList optional{"notes", "skipped_actions", "gateway_metrics_source"};
        for (const QJsonValue& v : variants) {
            QStringList got = v.toObject().keys();
            for (const QString& k : optional)
                got.removeAll(k);
            got.sort();
            QStringList want = keys;
            want.sort();
            QCOMPARE(got, want);
            // The mock gateway has a queue: a number, never null.
            QVERIFY(v.toObject().value("max_sta_queue_depth").isDouble());
        }
        QCOMPARE(variants[0].toObject().value("subscribe_requests").toInt(), 22);
        QCOMPARE(variants[1].toObject().value("subscribe_requests").toInt(), 3);
        QCOMPARE(variants[1].toObject().value("max_outstanding").toInt(), 1);
        QVERIFY(variants[1].toObject().value("time_to_all_good_s").isNull());
    }

    void headlessTableVariantsSeedAndReportDir()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString reportDir = dir.filePath("out");
        const Result r = run({"--headless", "--scenario", "live-gate-lever1", "--variants",
                              "lever1", "--seed", "42", "--report", reportDir});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QString table = QString::fromUtf8(r.out);
        QVERIFY2(table.contains("seed 42"), qPrintable(table));
        QVERIFY(table.contains(QRegularExpression("subscribe_requests\\s+3\\n")));
        QVERIFY(!table.contains("levers-off"));
        // A row for every metric of the one metric table.
        for (const stormwatch::MetricDescriptor& m : stormwatch::metricTable())
            QVERIFY2(table.contains(QRegularExpression("\\n" + m.keyString() + "( |\\n)")), m.key);
        for (const char* file : {"report.json", "report.csv", "report.md"})
            QVERIFY2(QFile::exists(QDir(reportDir).filePath(file)), file);
    }

    void badInputExitsTwoAndNamesTheProblem()
    {
        Result r = run({"--headless", "--scenario", "no-such-scenario"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("no-such-scenario") && r.err.contains("live-gate-lever1"),
                 qPrintable(r.err));

        r = run({"--headless", "--scenario", "live-gate-lever1", "--variants", "lever1,bogus"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("bogus") && r.err.contains("levers-off, lever1"),
                 qPrintable(r.err));

        r = run({"--headless", "--scenario", "live-gate-lever1", "--seed", "abc"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("--seed") && r.err.contains("abc"), qPrintable(r.err));

        r = run({"--headless"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("--scenario"), qPrintable(r.err));

        r = run({"--no-such-option"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("no-such-option"), qPrintable(r.err));
    }

    void validateScenario()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString broken = dir.filePath("broken.json");
        QFile f(broken);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"name": "b", "description": "d", "duration_s": -5,
                    "connections": [{"name": "gw1"}],
                    "instances": [{"name": "i", "connection": "gw2", "tags": 3}]})");
        f.close();
        Result r = run({"--validate-scenario", broken});
        QCOMPARE(r.exitCode, 2);
        const QStringList lines = r.err.split('\n', Qt::SkipEmptyParts);
        QVERIFY2(lines.size() >= 2, qPrintable(r.err)); // every error, not just the first
        QVERIFY2(r.err.contains(broken + ": $.duration_s: "), qPrintable(r.err));
        QVERIFY2(r.err.contains("$.instances[0].connection"), qPrintable(r.err));

        QList<stormwatch::ScenarioError> errors;
        const auto bundled = stormwatch::loadScenario("live-gate-lever1", &errors);
        QVERIFY(bundled);
        const QString good = dir.filePath("good.json");
        QFile g(good);
        QVERIFY(g.open(QIODevice::WriteOnly));
        g.write(QJsonDocument(stormwatch::scenarioToJson(*bundled)).toJson());
        g.close();
        r = run({"--validate-scenario", good});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out.trimmed(), QByteArray("ok"));
    }

    void listScenarios()
    {
        const Result r = run({"--list-scenarios"});
        QCOMPARE(r.exitCode, 0);
        const QString text = QString::fromUtf8(r.out);
        QVERIFY2(text.contains(QRegularExpression("^live-gate-lever1  The Lever 1 live gate ",
                                                  QRegularExpression::MultilineOption)),
                 qPrintable(text));
        QCOMPARE(text.count('\n'), int(stormwatch::bundledScenarioNames().size()));
    }

    void helpNamesEveryOption()
    {
        const Result r = run({"--help"});
        QCOMPARE(r.exitCode, 0);
        const QString text = QString::fromUtf8(r.out);
        for (const char* option : {"--headless",
                                   "--scenario",
                                   "--variants",
                                   "--seed",
                                   "--json",
                                   "--report",
                                   "--list-scenarios",
                                   "--validate-scenario",
                                   "--live",
                                   "--gateway",
                                   "--progress",
                                   "--tls-ca",
                                   "--tls-cert",
                                   "--tls-key",
                                   "--token-file",
                                   "--levers",
                                   "--settings",
                                   "--play",
                                   "--speed",
                                   "--screenshot",
                                   "--screenshot-after-s",
                                   "--record",
                                   "--recording-info",
                                   "--export-skeleton",
                                   "--open-recording",
                                   "--site",
                                   "--validate-site",
                                   "--commission",
                                   "--gateway-endpoint",
                                   "--keepalive-s",
                                   "--keepalive-timeout-s"})
            QVERIFY2(text.contains(option), option);
        QVERIFY(
            text.simplified().contains("default: the scenario's seed")); // wrapped to the terminal
    }

    // A two-second live run on the embedded mock gateway over loopback gRPC.
    void liveRunOnTheEmbeddedMock()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString file = dir.filePath("short.json");
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"name": "short-live", "description": "two seconds", "duration_s": 2,
                    "gateway": {"command_ms": 0.2, "per_item_ms": 0.01, "data_hz": 10},
                    "connections": [{"name": "gw1"}],
                    "instances": [{"name": "i", "connection": "gw1", "tags": 8}],
                    "variants": ["all"]})");
        f.close();
        const Result r = run({"--headless", "--scenario", file, "--live", "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(o.value("mode").toString(), QStringLiteral("live"));
        const QJsonObject v = o.value("variants").toArray().at(0).toObject();
        QCOMPARE(v.value("gateway_metrics_source").toString(), QStringLiteral("gateway"));
        QVERIFY(v.value("gateway_rpcs").toDouble() >= 2); // register + the subscribe
        QVERIFY(v.value("time_to_all_good_s").isDouble());
        QVERIFY2(r.err.contains("all: 1/2 s") && r.err.contains("all: 2/2 s"), qPrintable(r.err));
    }

    void liveGatewayProblemsExitTwo()
    {
        Result r =
            run({"--headless", "--scenario", "live-gate-lever1", "--live", "--gateway", "nowhere"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("--gateway") && r.err.contains("nowhere"), qPrintable(r.err));
        r = run({"--live", "--scenario", "live-gate-lever1", "--gateway", "127.0.0.1:5001",
                 "--tls-ca", "/no/such/ca.pem"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("/no/such/ca.pem"), qPrintable(r.err));
        r = run({"--live", "--scenario", "live-gate-lever1", "--token-file", "/tmp/t"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("--token-file"), qPrintable(r.err));
        r = run({"--headless", "--scenario", "live-gate-lever1", "--gateway", "127.0.0.1:5001"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("add --live"), qPrintable(r.err));
        r = run({"--live", "--scenario", "live-gate-lever1", "--gateway", "127.0.0.1:5001",
                 "--keepalive-s", "0.01"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("bad --keepalive-s \"0.01\"") && r.err.contains("0.1 to 3600"),
                 qPrintable(r.err));
        r = run({"--live", "--scenario", "live-gate-lever1", "--gateway", "127.0.0.1:5001",
                 "--keepalive-timeout-s", "soon"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("bad --keepalive-timeout-s"), qPrintable(r.err));
        r = run({"--live", "--scenario", "live-gate-lever1", "--keepalive-s", "3"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("--keepalive-* are for --gateway"), qPrintable(r.err));
    }

    // A bearer token is not sent in clear text unless asked for.
    void tokenFileWithoutTlsIsRefusedUnlessAllowed()
    {
        QTemporaryDir dir;
        const QString token = dir.filePath("token");
        QFile t(token);
        QVERIFY(t.open(QIODevice::WriteOnly));
        t.write("s3cret\n");
        t.close();
        const QString scenario = writeShortLiveScenario(dir);
        for (const QStringList& args :
             {QStringList{"--headless", "--live", "--scenario", scenario},
              QStringList{"--settings", dir.filePath("s.ini")}}) { // the console window too
            const Result r =
                run(args + QStringList{"--gateway", "127.0.0.1:5001", "--token-file", token});
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains("--token-file") && r.err.contains("clear text") &&
                         r.err.contains("--tls-ca") && r.err.contains("--allow-insecure-token"),
                     qPrintable(r.err));
            QVERIFY2(!r.err.contains("s3cret"), qPrintable(r.err));
            QCOMPARE(r.err.split(QLatin1Char('\n')).filter(QStringLiteral("--token-file")).size(),
                     1); // one line
        }
        QVERIFY(QString::fromUtf8(run({"--help"}).out).contains("--allow-insecure-token"));
        // Allowed: the run goes ahead over plaintext (a tunnel, a loopback gateway).
        stormwatch::gateway::MockGatewayServer server;
        QVERIFY(server.start("127.0.0.1:0"));
        const Result r = run({"--headless", "--live", "--scenario", scenario, "--json", "--gateway",
                              QString::fromStdString(server.address()), "--token-file", token,
                              "--allow-insecure-token"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject v =
            QJsonDocument::fromJson(r.out).object().value("variants").toArray().at(0).toObject();
        QVERIFY(v.value("connected_after_s").isDouble());
        QVERIFY(problemLines(r.err).isEmpty());
    }

    // A TLS failure or a refused token is named in one stderr line
    // without --verbose, and the run exits 1 (it printed nothing and exited 0 before).
    void tlsFailuresAndARefusedTokenAreNamedAndExitOne()
    {
        QTemporaryDir dir;
        const auto [cert, key] = makeCertificate(dir, "localhost", "IP:127.0.0.1,DNS:localhost");
        const auto [otherCert, otherKey] = makeCertificate(dir, "other", "DNS:other.example");
        QVERIFY2(!cert.isEmpty() && !otherCert.isEmpty(),
                 "the openssl CLI is needed to make test certificates");
        const QString token = dir.filePath("token");
        QFile t(token);
        QVERIFY(t.open(QIODevice::WriteOnly));
        t.write("wrong-token\n");
        t.close();
        const QString scenario = writeShortLiveScenario(dir);
        RefusingTlsGateway gateway(cert, key);
        RefusingTlsGateway elsewhere(otherCert, otherKey);
        struct Case {
            const char* what;
            QStringList args;
            QStringList words;
        };
        const Case cases[] = {
            {"untrusted CA",
             {"--gateway", gateway.address(), "--tls-ca", otherCert},
             {"not trusted", otherCert}},
            {"wrong host name",
             {"--gateway", elsewhere.address(), "--tls-ca", otherCert},
             {"not issued for", "127.0.0.1"}},
            {"refused token",
             {"--gateway", gateway.address(), "--tls-ca", cert, "--token-file", token},
             {"refused the bearer token", "UNAUTHENTICATED"}},
        };
        for (const Case& c : cases) {
            const Result r =
                run(QStringList{"--headless", "--live", "--scenario", scenario, "--json"} + c.args);
            QVERIFY2(r.exitCode == 1,
                     qPrintable(
                         QStringLiteral("%1: exit %2: %3").arg(c.what).arg(r.exitCode).arg(r.err)));
            const QStringList lines = problemLines(r.err);
            QVERIFY2(lines.size() == 1, qPrintable(QStringLiteral("%1: %2").arg(c.what, r.err)));
            QVERIFY2(lines[0].contains(c.args[1]), qPrintable(lines[0])); // names the gateway
            for (const QString& w : c.words)
                QVERIFY2(lines[0].contains(w),
                         qPrintable(QStringLiteral("%1: %2 lacks %3").arg(c.what, lines[0], w)));
            QVERIFY2(!r.err.contains("wrong-token"), qPrintable(r.err)); // never the token itself
            // The report is still printed: the connection never opened.
            const QJsonObject v = QJsonDocument::fromJson(r.out)
                                      .object()
                                      .value("variants")
                                      .toArray()
                                      .at(0)
                                      .toObject();
            QVERIFY2(v.value("connected_after_s").isNull(), r.out.constData());
        }
    }

    void reportToAPathThatIsAFileExitsOne()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath("taken");
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.close();
        const Result r = run({"--headless", "--scenario", "live-gate-lever1", "--report", file});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("cannot write the report") && r.err.contains(file),
                 qPrintable(r.err));
    }

    // --record onto an old recording where nothing can be written (no file may grow past
    // 60 kB, as on a full disk): exit 1, the reason, and the old recording untouched.
    void recordKeepsTheOldFileWhenTheNewCannotBeWritten()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath("incident.sqlite");
        const QStringList args{"--headless", "--scenario", "incident-2026-08-26",
                               "--variants", "lever1",     "--record",
                               file};
        apptest::Run r = apptest::stormwatch(args);
        QVERIFY2(r.exitCode == 0, qPrintable(r.stdErr));
        QFile old(file);
        QVERIFY(old.open(QIODevice::ReadOnly));
        const QByteArray before = old.readAll();
        old.close();
        r = apptest::stormwatch(args, 120000, 60 * 1024);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.stdErr.contains(QStringLiteral("cannot record to \"%1\": ").arg(file)) &&
                     r.stdErr.contains("the existing file is kept"),
                 qPrintable(r.stdErr));
        QVERIFY(r.stdOut.isEmpty());
        QVERIFY(old.open(QIODevice::ReadOnly));
        QCOMPARE(old.readAll(), before);
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden),
                 QStringList{"incident.sqlite"});
    }

    // The recorder fails during the first variant (its file may not grow past 400 kB: enough
    // to create it, not for the storm): the run stops there with exit 1 (a runtime failure,
    // not bad input) and the reason, no report is printed, and the second variant is not in
    // the file.
    void recordStopsAtTheFirstRecorderFailureAndExitsOne()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath("storm.sqlite");
        const apptest::Run r =
            apptest::stormwatch({"--headless", "--scenario", "incident-2026-08-26", "--variants",
                                 "levers-off,all", "--record", file},
                                120000, 400 * 1024);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.stdErr.contains(QStringLiteral("recording to \"%1\" stopped: ").arg(file)) &&
                     r.stdErr.contains(
                         "(variant levers-off; the file holds only what was committed before)"),
                 qPrintable(r.stdErr));
        QVERIFY2(r.stdOut.isEmpty(),
                 r.stdOut.constData()); // no report beside a recording that lacks the run
        const Result info = run({"--recording-info", file});
        QCOMPARE(info.exitCode, 0);
        QVERIFY2(!info.out.contains(" / all,"), info.out.constData());
    }

#ifdef STORMWATCH_CONSOLE
    // --report draws a PNG of the plots per variant, offscreen by itself: no display, no
    // QT_QPA_PLATFORM set by the caller. report.md shows them.
    void reportDirHasAPngPerVariantWithoutADisplay()
    {
        QTemporaryDir dir;
        const QString reportDir = dir.filePath("out");
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove("QT_QPA_PLATFORM");
        env.remove("DISPLAY");
        env.remove("WAYLAND_DISPLAY");
        const Result r =
            run({"--headless", "--scenario", "live-gate-lever1", "--report", reportDir}, env);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QDir out(reportDir);
        for (const char* file : {"report.json", "report.csv", "report.md"})
            QVERIFY2(QFile::exists(out.filePath(file)), file);
        QStringList pngs = out.entryList({"*.png"}, QDir::Files, QDir::Name);
        QCOMPARE(pngs, (QStringList{"lever1.png", "levers-off.png"}));
        for (const QString& png : pngs) {
            QFile f(out.filePath(png));
            QVERIFY(f.open(QIODevice::ReadOnly));
            QVERIFY2(f.read(8).startsWith("\x89PNG"), qPrintable(png));
        }
        QFile md(out.filePath("report.md"));
        QVERIFY(md.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(md.readAll());
        QVERIFY2(text.contains("![levers-off](levers-off.png)") &&
                     text.contains("![lever1](lever1.png)"),
                 qPrintable(text));
        QVERIFY(text.contains("## How to read the plots"));
    }

    // The console on the embedded mock, offscreen: the window is grabbed and it quits.
    void consoleStartsOnTheEmbeddedMockAndTakesAScreenshot()
    {
        QTemporaryDir dir;
        const QString png = dir.filePath("console.png");
        const Result r = run({"--screenshot", png, "--screenshot-after-s", "2", "--settings",
                              dir.filePath("s.ini")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QFile file(png);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(file.read(8).startsWith("\x89PNG"));
    }

    void consoleRefusesBadGatewayOptionsWithExitCode2()
    {
        QTemporaryDir dir;
        const QString settings = dir.filePath("s.ini");
        Result r = run({"--gateway", "127.0.0.1:5001", "--tls-ca", dir.filePath("missing.pem"),
                        "--settings", settings});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("missing.pem"), qPrintable(r.err));
        r = run({"--token-file", dir.filePath("token"), "--settings", settings});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("need --gateway"), qPrintable(r.err));
        r = run({"--levers", "most", "--settings", settings});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("--levers") && r.err.contains("lever1"), qPrintable(r.err));
    }

    void consolePlaysAVariantAtStartAndRefusesAnUnknownOne()
    {
        QTemporaryDir dir;
        const QString settings = dir.filePath("s.ini");
        Result r =
            run({"--scenario", "live-gate-lever1", "--play", "bogus", "--settings", settings});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("--play") && r.err.contains("levers-off, lever1"),
                 qPrintable(r.err));
        r = run({"--play", "lever1", "--speed", "5", "--settings", settings});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("--speed") && r.err.contains("max"), qPrintable(r.err));
        const QString png = dir.filePath("playing.png");
        r = run({"--scenario", "live-gate-lever1", "--play", "levers-off", "--speed", "max",
                 "--screenshot", png, "--screenshot-after-s", "2", "--settings", settings});
        QCOMPARE(r.exitCode, 0);
        QFile shot(png);
        QVERIFY(shot.open(QIODevice::ReadOnly));
        QVERIFY(shot.read(8).startsWith("\x89PNG"));
    }

    // --open-recording: a headless run's file shown in the console (it starts, shows, quits);
    // a file that is not a recording exits 2 with the reason.
    void consoleOpensARecordingAndRefusesABadOne()
    {
        QTemporaryDir dir;
        const QString settings = dir.filePath("s.ini");
        const QString file = dir.filePath("gate.sqlite");
        Result r = run({"--headless", "--scenario", "live-gate-lever1", "--variants", "lever1",
                        "--record", file});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QString png = dir.filePath("recording.png");
        r = run({"--open-recording", file, "--screenshot", png, "--screenshot-after-s", "1",
                 "--settings", settings});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QFile shot(png);
        QVERIFY(shot.open(QIODevice::ReadOnly));
        QVERIFY(shot.read(8).startsWith("\x89PNG"));

        const QString bad = dir.filePath("bad.sqlite");
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("not a database");
        f.close();
        r = run({"--open-recording", bad, "--settings", settings});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("bad.sqlite"), qPrintable(r.err));
    }
#else
    void consoleIsNotThereYet()
    {
        const Result r = run({});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("the console is not built yet"));
    }
#endif
};

QTEST_GUILESS_MAIN(TestStormwatchCli)
#include "tst_stormwatch_cli.moc"
