// The headless command line as users run it: the built binary under QProcess.

#include "scenario/scenario_parser.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#ifndef STORMWATCH_BINARY
#error "STORMWATCH_BINARY must name the built stormwatch executable"
#endif

namespace {

struct Result {
    int exitCode = -1;
    QByteArray out;
    QString err;
};

Result run(const QStringList& args)
{
    QProcess p;
    p.start(QStringLiteral(STORMWATCH_BINARY), args);
    Result r;
    if (!p.waitForFinished(60'000)) {
        p.kill();
        p.waitForFinished(5'000);
        r.err = QStringLiteral("timed out");
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
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
                               "gateway_rpcs",
                               "gateway_rpcs_by_kind",
                               "deadline_exceeded",
                               "bad_tag_seconds",
                               "time_to_all_good_s",
                               "max_sta_queue_depth",
                               "suppressed_calls",
                               "wall_ms"};
        for (const QJsonValue& v : variants) {
            QStringList got = v.toObject().keys();
            got.sort();
            QStringList want = keys;
            want.sort();
            QCOMPARE(got, want);
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
        // One line per bundled scenario: its name, two spaces, the description's first sentence.
        QVERIFY2(text.startsWith("live-gate-lever1  The Lever 1 live gate") ||
                     text.contains("\nlive-gate-lever1  The Lever 1 live gate"),
                 qPrintable(text));
        QCOMPARE(text.count('\n'), int(stormwatch::bundledScenarioNames().size()));
    }

    void helpNamesEveryOption()
    {
        const Result r = run({"--help"});
        QCOMPARE(r.exitCode, 0);
        const QString text = QString::fromUtf8(r.out);
        for (const char* option :
             {"--headless", "--scenario", "--variants", "--seed", "--json", "--report",
              "--list-scenarios", "--validate-scenario", "--live", "--gateway", "--progress"})
            QVERIFY2(text.contains(option), option);
        QVERIFY(text.contains("default: the scenario's seed"));
    }

    void consoleAndLiveAreNotThereYet()
    {
        Result r = run({});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("the console is not built yet"));
        r = run({"--live", "--gateway", "127.0.0.1:5001"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.contains("live mode: not yet available"));
        r = run({"--live", "--gateway", "nowhere"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("HOST:PORT"));
    }
};

QTEST_GUILESS_MAIN(TestStormwatchCli)
#include "tst_stormwatch_cli.moc"
