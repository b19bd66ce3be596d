// Scenario files from a hostile hand: ranges, the run budget, strict JSON, what
// an error may echo, and caps on errors, file size and validation time.

#include "client/lever_set.h"
#include "client/options.h"
#include "scenario/gateway_access.h"
#include "scenario/scenario_parser.h"
#include "scenario/variant_validation.h"
#include "test_paths.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <optional>

using namespace stormwatch;
#include "support_scenario_file.h"

using namespace stormwatch::scenariotest;

class TestScenarioParserHostile : public QObject {
    Q_OBJECT
private slots:
    void rangeMaximaAreAccepted();
    void defaultTagPrefixOfTheLongestNameRoundTrips();
    void everyNumericFieldHasADocumentedRange();
    void runBudgetBoundsTheSubscribesARunCanSend();
    void strictJson_data();
    void strictJson();
    void strictJsonErrorNamesLineAndColumn();
    void strictJsonAcceptsWhatTheRfcAllows();
    void unknownNamesAreListedBriefly();
    void echoedTextIsCutAndEscaped();
    void errorListIsCapped();
    void fileSizeIsCapped();
    void validationScalesLinearly_data();
    void validationScalesLinearly();
    void bigFilesValidateQuickly();
};

// Found by the fuzzer: the default tag_prefix ("<name>.Attr") of the longest name is longer
// than a name, and scenarioToJson writes it out; the file it writes must read back.
void TestScenarioParserHostile::defaultTagPrefixOfTheLongestNameRoundTrips()
{
    QList<ScenarioError> errors;
    QJsonValue v =
        withValue(baseScenario(), {"instances", "0", "name"}, QJsonValue(QString(128, 'i')));
    v = withValue(v, {"timeline", "7", "instance"}, QJsonValue(QString(128, 'i')));
    const auto s = parseScenario(bytes(v), "long.json", &errors);
    QVERIFY2(s, qPrintable(joined(errors)));
    QCOMPARE(s->instances[0].tagPrefix.size(), 133);
    errors.clear();
    const auto back =
        parseScenario(QJsonDocument(scenarioToJson(*s)).toJson(), "back.json", &errors);
    QVERIFY2(back, qPrintable(joined(errors)));
    QVERIFY(*back == *s);
}

// Each range's largest (and smallest) value is still a valid file.
void TestScenarioParserHostile::rangeMaximaAreAccepted()
{
    QJsonValue v = baseScenario();
    auto put = [&v](const QString& path, const QJsonValue& x) {
        v = withValue(v, path.split('/'), x);
    };
    put("duration_s", 86400);
    put("seed", 9007199254740991.0);
    put("gateway", QJsonObject{{"default_command_timeout_s", 86400},
                               {"command_ms", 10000},
                               {"per_item_ms", 100},
                               {"data_hz", 0.001},
                               {"network_latency_ms", 10000}});
    put("instances/0/tags", 10000);
    put("instances/0/tag_prefix", QString(133, 'p'));
    put("instances/0/start_at_s", 86400);
    put("name", QString(128, 'n'));
    put("description", QString(10000, 'd'));
    put("timeline/0/duration_s", 86400);
    put("timeline/1/factor", 1000);
    put("timeline/3/downtime_s", 86400);
    put("timeline/10/downtime_s", 0);
    put("options", QJsonObject{{"TagSubscribeRetryIntervalMs", 3600000},
                               {"TagSubscribeRetryMaxIntervalMs", 3600000},
                               {"TagSubscribeInFlightCeilingMs", 86400000},
                               {"MxCommandTimeoutMs", 86400000},
                               {"TagSubscribeInFlightCeilingMarginMs", 3600000},
                               {"ReconnectBackoffFloorMs", 10},
                               {"ReconnectBackoffMaxMs", 3600000},
                               {"AlarmSubscribeRetryIntervalMs", 10}});
    put("timeline/8/levers",
        QJsonObject{{"session_command_timeout_ms", 86400000},
                    {"recovery", QJsonObject{{"strategy", "exponential"},
                                             {"initial_seconds", 86400},
                                             {"max_seconds", 86400},
                                             {"multiplier", 100},
                                             {"recovery_seconds", 86400},
                                             {"failures_window_seconds", 86400}}}});
    put("connections", connectionList(1000));
    put("connections/0/write_user_id", 2147483647.0);
    put("variants", variantList(32));
    QList<ScenarioError> errors;
    const auto s = parseScenario(bytes(v), "max.json", &errors);
    QVERIFY2(s, qPrintable(joined(errors)));
    QCOMPARE(s->seed, quint64(9007199254740991ULL));
    QCOMPARE(s->connections[0].writeUserId, qint64(2147483647));
    QCOMPARE(s->gateway.dataHz, 0.001);
    // data_hz 0 (no data changes) is in range too
    QVERIFY(parseScenario(set("gateway", QJsonObject{{"data_hz", 0}}), "zero.json", nullptr));
}

namespace {
// Every numeric leaf of `v`, as the documentation names it: array indices as "[i]", and
// anything inside a lever set as "levers.<key>".
void numericPaths(const QJsonValue& v, const QString& path, QSet<QString>* out)
{
    if (v.isDouble()) {
        out->insert(path);
    } else if (v.isArray()) {
        for (const QJsonValue& x : v.toArray())
            numericPaths(x, path + "[i]", out);
    } else if (v.isObject()) {
        const QJsonObject o = v.toObject();
        for (auto it = o.begin(); it != o.end(); ++it) {
            const bool levers = it.key() == "levers";
            numericPaths(it.value(), levers ? QString("levers") : path + "." + it.key(), out);
        }
    }
}
} // namespace

// A scenario that spells out every field (scenarioToJson writes every default; the
// options and an inline lever set with a recovery object are added): each numeric field in
// it has a row with a range in docs/scenario-format.md.
void TestScenarioParserHostile::everyNumericFieldHasADocumentedRange()
{
    QJsonObject o = baseScenario();
    o["options"] = optionsToJson(ClientOptions{});
    QJsonObject levers = leverSetToJson(*leverPreset("all", nullptr));
    o["variants"] = QJsonArray{QJsonObject{{"name", "everything"}, {"levers", levers}}};
    QList<ScenarioError> errors;
    const auto s = parseScenario(bytes(o), "full.json", &errors);
    QVERIFY2(s, qPrintable(joined(errors)));
    QSet<QString> paths;
    numericPaths(scenarioToJson(*s), "$", &paths);
    QVERIFY(paths.contains("$.gateway.command_ms"));
    QVERIFY(paths.contains("levers.recovery.multiplier"));
    QVERIFY(paths.contains("$.options.AlarmSubscribeRetryIntervalMs"));

    const QString docPath = testpaths::sourceFile(QStringLiteral("docs/scenario-format.md"));
    QVERIFY2(!docPath.isEmpty(), "docs/scenario-format.md not found");
    QFile doc(docPath);
    QVERIFY(doc.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(doc.readAll()).split('\n');
    for (const QString& path : paths) {
        const QString start = "| `" + path + "` |";
        const auto it = std::find_if(lines.begin(), lines.end(),
                                     [&](const QString& l) { return l.startsWith(start); });
        QVERIFY2(it != lines.end(),
                 qPrintable("no row for " + path + " in docs/scenario-format.md"));
        const QStringList cells = it->split('|'); // "", field, type, range, default, ""
        QVERIFY2(cells.size() >= 5 && cells[3].contains(QRegularExpression("[0-9]")),
                 qPrintable("no range in the row for " + path + ": " + *it));
    }
}

// With the levers off every retry tick re-sends an instance's tags, and a wedged gateway
// queues them all: the subscribes a run could send are bounded at validation.
void TestScenarioParserHostile::runBudgetBoundsTheSubscribesARunCanSend()
{
    QJsonValue v = baseScenario();
    v = withValue(v, {"duration_s"}, QJsonValue(86400));
    v = withValue(v, {"instances", "0", "tags"}, QJsonValue(10000));
    QList<ScenarioError> errors;
    QVERIFY(!parseScenario(bytes(v), "budget.json", &errors));
    QCOMPARE(errors.size(), 1);
    QCOMPARE(errors[0].path, QString("$.instances"));
    // 10,000 tags × (1 + 86,400,000 ms / 5,000 ms) + a redeploy of the instance's 10,000 tags
    QVERIFY2(errors[0].rule.contains("172820000 tag subscribes") &&
                 errors[0].rule.contains("5000000"),
             qPrintable(errors[0].rule));

    // a slower retry brings the same file back under it
    errors.clear();
    const QJsonValue slower = withValue(v, {"options"},
                                        QJsonObject{{"TagSubscribeRetryIntervalMs", 3600000},
                                                    {"TagSubscribeRetryMaxIntervalMs", 3600000}});
    QVERIFY2(parseScenario(bytes(slower), "slower.json", &errors), qPrintable(joined(errors)));

    // alarms count too: a 10 ms alarm retry for a day is 8,640,001 alarm subscribes
    errors.clear();
    QJsonValue alarms = withValue(baseScenario(), {"duration_s"}, QJsonValue(86400));
    alarms = withValue(alarms, {"instances", "0", "alarms"}, QJsonValue(true));
    alarms = withValue(alarms, {"options"}, QJsonObject{{"AlarmSubscribeRetryIntervalMs", 10}});
    QVERIFY(!parseScenario(bytes(alarms), "alarms.json", &errors));
    QCOMPARE(errors.size(), 1);
    QCOMPARE(errors[0].path, QString("$.instances"));

    // every bundled scenario is well inside it (everyBundledScenarioParses); the incident
    // with a 10 ms retry (488 tags × 180,001 ticks) is not: a levers-off run of it queues
    // gigabytes on a wedged gateway.
    errors.clear();
    auto incident = loadScenario("incident-2026-08-26", nullptr);
    QVERIFY(incident);
    QJsonObject storm = scenarioToJson(*incident);
    storm["options"] =
        QJsonObject{{"TagSubscribeRetryIntervalMs", 10}, {"TagSubscribeRetryMaxIntervalMs", 10}};
    QVERIFY(!parseScenario(QJsonDocument(storm).toJson(), "storm.json", &errors));
    QVERIFY2(joined(errors).contains("$.instances: the run could send up to"),
             qPrintable(joined(errors)));
}

void TestScenarioParserHostile::strictJson_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("rule");
    auto row = [](const char* name, const QByteArray& json, const char* path, const char* rule) {
        QTest::newRow(name) << json << QString(path) << QString(rule);
    };
    // numbers Qt's reader takes but RFC 8259 does not
    row("number 100.", edited("\"duration_s\":100", "\"duration_s\":100."), "$.duration_s",
        "a number needs a digit after '.'");
    row("number .5", edited("\"probability\":0.5", "\"probability\":.5"),
        "$.timeline[2].probability", "a number needs a digit before '.'");
    row("number -.5", edited("\"tags\":3", "\"tags\":-.5"), "$.instances[0].tags",
        "a number needs a digit after '-'");
    row("number 1.e1", edited("\"at_s\":10,", "\"at_s\":1.e1,"), "$.timeline[0].at_s",
        "a number needs a digit after '.'");
    // integers beyond 2^53 lose digits in a double
    row("seed 2^53 + 1", edited("\"name\":\"base\"", "\"name\":\"base\",\"seed\":9007199254740993"),
        "$.seed", "integer 9007199254740993 is outside ±9007199254740991 (2^53 - 1)");
    row("seed -(2^53 + 1)",
        edited("\"name\":\"base\"", "\"name\":\"base\",\"seed\":-9007199254740993"), "$.seed",
        "integer -9007199254740993 is outside");
    row("30-digit integer", edited("\"tags\":3", "\"tags\":123456789012345678901234567890"),
        "$.instances[0].tags", "integer 123456789012345678901234567890 is outside");
    // strings
    row("control character",
        edited("every action once", "every\x01"
                                    "action once"),
        "$.description", "control character U+0001 in a string");
    row("raw tab", edited("every action once", "every\taction once"), "$.description",
        "control character U+0009 in a string");
    row("unknown escape", edited("\"name\":\"base\"", "\"name\":\"ba\\xse\""), "$.name",
        "unknown escape \\x");
    row("lone high surrogate", edited("\"name\":\"base\"", "\"name\":\"ba\\ud800se\""), "$.name",
        "unpaired UTF-16 surrogate \\ud800");
    row("lone low surrogate", edited("\"name\":\"base\"", "\"name\":\"ba\\uDC00se\""), "$.name",
        "unpaired UTF-16 surrogate \\uDC00");
    // keys
    row("duplicate key", edited("\"name\":\"base\"", "\"name\":\"base\",\"name\":\"base\""),
        "$.name", "duplicate key");
    row("duplicate nested key", edited("\"tags\":3", "\"tags\":3,\"tags\":4"),
        "$.instances[0].tags", "duplicate key");
    row("duplicate key spelled with an escape",
        edited("\"name\":\"base\"", "\"name\":\"base\",\"n\\u0061me\":\"b\""), "$.name",
        "duplicate key");
}

void TestScenarioParserHostile::strictJson()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, path);
    QFETCH(QString, rule);
    QVERIFY2(!json.isEmpty(), "the edit did not apply");
    QList<ScenarioError> errors;
    QVERIFY(!parseScenario(json, "strict.json", &errors));
    QVERIFY2(errors.size() == 1, qPrintable(joined(errors)));
    QCOMPARE(errors[0].path, path);
    QVERIFY2(errors[0].rule.startsWith("invalid JSON at line 1, column "),
             qPrintable(errors[0].rule));
    QVERIFY2(errors[0].rule.contains(rule), qPrintable(errors[0].rule));
}

void TestScenarioParserHostile::strictJsonErrorNamesLineAndColumn()
{
    const QByteArray json = "{\n  \"name\": \"x\",\n  \"duration_s\": 1.\n}";
    QList<ScenarioError> errors;
    QVERIFY(!parseScenario(json, "s.json", &errors));
    QCOMPARE(errors.size(), 1);
    QCOMPARE(errors[0].toString(), QString("s.json: $.duration_s: invalid JSON at line 3, column "
                                           "19: a number needs a digit after '.'"));
}

void TestScenarioParserHostile::strictJsonAcceptsWhatTheRfcAllows()
{
    QByteArray json =
        edited("every action once", "every \\\"action\\\" \\/ \\\\ \\b\\f\\n\\r\\t \\u00e9 "
                                    "\\ud83d\\ude00 \xc3\xa9 \xf0\x9f\x98\x80 once");
    json.replace("\"duration_s\":100", "\"duration_s\":1E2");
    json.replace("\"at_s\":10,", "\"at_s\":0.1e+2,");
    json.replace("\"probability\":0.5", "\"probability\":-0.0");
    json.replace("\"name\":\"base\"", "\"name\":\"base\",\"seed\":9007199254740991");
    json.replace(",", " ,\r\n\t ");
    json.prepend("\xef\xbb\xbf \n"); // a UTF-8 byte order mark may be ignored (RFC 8259 8.1)
    QList<ScenarioError> errors;
    const auto s = parseScenario(json, "rfc.json", &errors);
    QVERIFY2(s, qPrintable(joined(errors)));
    QCOMPARE(s->seed, quint64(9007199254740991ULL));
    QCOMPARE(s->durationS, 100.0);
    QCOMPARE(s->description,
             QString::fromUtf8("every \"action\" / \\ \b\f\n\r\t \xc3\xa9 \xf0\x9f\x98\x80 "
                               "\xc3\xa9 \xf0\x9f\x98\x80 once"));
}

void TestScenarioParserHostile::unknownNamesAreListedBriefly()
{
    QJsonValue v = withValue(baseScenario(), {"connections"}, connectionList(1000));
    v = withValue(v, {"instances", "0", "connection"}, QJsonValue("ghost"));
    QList<ScenarioError> errors;
    QVERIFY(!parseScenario(bytes(v), "many.json", &errors));
    QCOMPARE(errors.size(), 1);
    const QString rule = errors[0].rule;
    QVERIFY2(rule.startsWith("unknown connection \"ghost\" (known: gw1, gw-1, "), qPrintable(rule));
    QVERIFY2(rule.contains("gw-9, … and 990 more)"), qPrintable(rule));
    QVERIFY2(rule.size() < 300, qPrintable(rule));

    v = withValue(baseScenario(), {"instances"}, instanceList(10000, "gw1"));
    v = withValue(v, {"timeline", "7", "instance"}, QJsonValue("ghost"));
    errors.clear();
    QVERIFY(!parseScenario(bytes(v), "many.json", &errors));
    QCOMPARE(errors.size(), 1);
    QVERIFY2(errors[0].rule.startsWith("unknown instance \"ghost\" (known: i1, inst-1, "),
             qPrintable(errors[0].rule));
    QVERIFY2(errors[0].rule.size() < 300, qPrintable(errors[0].rule));
}

// A name echoed in an error is cut and its control characters escaped: an error line stays
// one short line whatever the file holds.
void TestScenarioParserHostile::echoedTextIsCutAndEscaped()
{
    const QString hostile = "x\n\x1b[31m" + QString(1 << 20, 'y');
    QJsonValue v = withValue(baseScenario(), {"instances", "0", "connection"}, QJsonValue(hostile));
    v = withValue(v, {"gateway", hostile}, QJsonValue(1));
    QList<ScenarioError> errors;
    QVERIFY(!parseScenario(bytes(v), "hostile.json", &errors));
    QCOMPARE(errors.size(), 2);
    for (const ScenarioError& e : errors) {
        const QString line = e.toString();
        QVERIFY2(line.size() < 600, qPrintable(line.left(600)));
        QVERIFY2(!line.contains('\n') && !line.contains(QChar(0x1b)), qPrintable(line.left(600)));
        QVERIFY2(line.contains("x\\n\\u001b[31myyy"), qPrintable(line.left(600)));
    }
}

void TestScenarioParserHostile::errorListIsCapped()
{
    const QJsonValue v = withValue(baseScenario(), {"instances"}, instanceList(5000, "ghost"));
    QList<ScenarioError> errors;
    QVERIFY(!parseScenario(bytes(v), "capped.json", &errors));
    QCOMPARE(errors.size(), 1001);
    QCOMPARE(errors.last().path, QString("$"));
    QVERIFY2(errors.last().rule.contains("and 4000 more errors"), qPrintable(errors.last().rule));
}

void TestScenarioParserHostile::fileSizeIsCapped()
{
    QByteArray json = bytes(baseScenario());
    json.append(QByteArray(64 * 1024 * 1024 - json.size() + 1, ' '));
    QList<ScenarioError> errors;
    QVERIFY(!parseScenario(json, "huge.json", &errors));
    QCOMPARE(errors.size(), 1);
    QCOMPARE(errors[0].path, QString("$"));
    QVERIFY2(errors[0].rule.contains("64 MiB"), qPrintable(errors[0].rule));
}

void TestScenarioParserHostile::validationScalesLinearly_data()
{
    QTest::addColumn<int>("shape");
    QTest::newRow("instances naming connections") << 0;
    QTest::newRow("instances naming unknown connections") << 1;
    QTest::newRow("redeploys naming instances") << 2;
}

namespace {
QByteArray shapedScenario(int shape, int n)
{
    QJsonObject o{{"name", "big"}, {"description", "d"}, {"duration_s", 100}};
    QJsonArray connections, instances, timeline;
    for (int i = 0; i < n; ++i) {
        const QString c = QString("connection-%1").arg(i);
        if (shape != 2 || i == 0)
            connections.append(QJsonObject{{"name", c}});
        const QString target = shape == 0   ? QString("connection-%1").arg(n - 1 - i)
                               : shape == 1 ? QString("missing-%1").arg(i)
                                            : QString("connection-0");
        instances.append(QJsonObject{
            {"name", QString("instance-%1").arg(i)}, {"connection", target}, {"tags", 1}});
        if (shape == 2)
            timeline.append(QJsonObject{{"at_s", i % 100},
                                        {"action", "redeploy"},
                                        {"instance", QString("instance-%1").arg(n - 1 - i)}});
    }
    o["connections"] = connections;
    o["instances"] = instances;
    o["timeline"] = timeline;
    return document(o);
}
} // namespace

// Four times the entries take about four times as long (a quadratic check takes sixteen).
// Each size's fastest of three parses: a busy machine only ever adds time to one.
void TestScenarioParserHostile::validationScalesLinearly()
{
    QFETCH(int, shape);
    const auto fastestMs = [](const QByteArray& file) {
        double best = parseMs(file);
        for (int i = 0; i < 2; ++i)
            best = std::min(best, parseMs(file));
        return best;
    };
    const double small = fastestMs(shapedScenario(shape, 4000));
    const double big = fastestMs(shapedScenario(shape, 16000));
    qInfo("4000 entries: %.1f ms, 16000 entries: %.1f ms", small, big);
    QVERIFY2(big < 8 * small + 50, qPrintable(QString("%1 ms vs %2 ms").arg(big).arg(small)));
}

// Figures: well under a second in the release build (bench_validate prints
// them); the bound here leaves room for a sanitizer build.
void TestScenarioParserHostile::bigFilesValidateQuickly()
{
    QJsonArray timeline;
    for (int i = 0; i < 50000; ++i)
        timeline.append(
            i % 2 ? QJsonObject{{"at_s", i % 100}, {"action", "wedge"}, {"duration_s", 1}}
                  : QJsonObject{{"at_s", i % 100}, {"action", "redeploy"}, {"instance", "i1"}});
    const double timelineMs = parseMs(bytes(withValue(baseScenario(), {"timeline"}, timeline)));
    const double connectionsMs = parseMs(shapedScenario(0, 20000));
    qInfo("50,000 timeline entries: %.1f ms, 20,000 connections: %.1f ms", timelineMs,
          connectionsMs);
    QVERIFY2(timelineMs < 2500, qPrintable(QString::number(timelineMs)));
    QVERIFY2(connectionsMs < 2500, qPrintable(QString::number(connectionsMs)));
}

QTEST_GUILESS_MAIN(TestScenarioParserHostile)
#include "tst_scenario_parser_hostile.moc"
