// Scenario files: every validation rule (one row each), and how errors are reported.
// What a valid file becomes: tst_scenario_file; hostile input: tst_scenario_parser_hostile.

#include "client/lever_set.h"
#include "client/options.h"
#include "scenario/gateway_access.h"
#include "scenario/scenario_parser.h"
#include "scenario/variant_validation.h"

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

class TestScenarioParser : public QObject {
    Q_OBJECT
private slots:
    void baseScenarioIsValid();
    void validationRule_data();
    void validationRule();
    void invalidJsonReportsLineAndColumn();
    void invalidJsonColumnCountsCharactersNotBytes();
    void rootMustBeAnObject();
    void reportsEveryErrorNotJustTheFirst();
    void errorToStringNamesFileAndPathAndRule();
};

void TestScenarioParser::baseScenarioIsValid()
{
    QList<ScenarioError> errors;
    const auto s = parseScenario(bytes(baseScenario()), "base.json", &errors);
    QVERIFY2(s.has_value(), qPrintable(joined(errors)));
    QCOMPARE(s->timeline.size(), 11);
}

void TestScenarioParser::validationRule_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("rule");
    auto row = [](const char* name, const QByteArray& json, const char* path, const char* rule) {
        QTest::newRow(name) << json << QString(path) << QString(rule);
    };
    // top level
    row("name required", removed("name"), "$.name", "required key missing");
    row("name type", set("name", 5), "$.name", "expected string, got number");
    row("name empty", set("name", ""), "$.name", "must not be empty");
    row("description required", removed("description"), "$.description", "required key missing");
    row("description empty", set("description", "  "), "$.description", "must not be empty");
    row("duration required", removed("duration_s"), "$.duration_s", "required key missing");
    row("duration type", set("duration_s", "100"), "$.duration_s", "expected number, got string");
    row("duration > 0", set("duration_s", 0), "$.duration_s", "must be > 0 s (got 0)");
    row("duration <= 86400", set("duration_s", 86401), "$.duration_s",
        "must be <= 86400 s (got 86401)");
    row("seed >= 0", set("seed", -1), "$.seed", "must be >= 0 (got -1)");
    row("seed integer", set("seed", 1.5), "$.seed", "must be an integer (got 1.5)");
    row("unknown top key", set("foo", 1), "$.foo",
        "unknown key (valid: name, description, duration_s");
    // gateway
    row("gateway type", set("gateway", QJsonArray{}), "$.gateway", "expected object, got array");
    row("gateway capability type", set("gateway/advertise_bulk_supervisory", "yes"),
        "$.gateway.advertise_bulk_supervisory", "expected bool, got string");
    row("gateway timeout > 0", set("gateway/default_command_timeout_s", 0),
        "$.gateway.default_command_timeout_s", "must be > 0 s (got 0)");
    row("gateway command_ms >= 0", set("gateway/command_ms", -1), "$.gateway.command_ms",
        "must be >= 0 ms (got -1)");
    row("gateway per_item_ms >= 0", set("gateway/per_item_ms", -0.5), "$.gateway.per_item_ms",
        "must be >= 0 ms (got -0.5)");
    row("gateway data_hz >= 0", set("gateway/data_hz", -1), "$.gateway.data_hz",
        "must be >= 0 Hz (got -1)");
    row("gateway data_hz <= 100", set("gateway/data_hz", 101), "$.gateway.data_hz",
        "must be <= 100 Hz (got 101)");
    row("gateway latency >= 0", set("gateway/network_latency_ms", -2),
        "$.gateway.network_latency_ms", "must be >= 0 ms (got -2)");
    row("gateway unknown key", set("gateway/foo", 1), "$.gateway.foo",
        "unknown key (valid: advertise_bulk_supervisory, default_command_timeout_s");
    // options
    row("options type", set("options", QJsonArray{}), "$.options", "expected object, got array");
    // option names and rules are the client's (client/options.h); the path points into the file
    row("option unknown", set("options/TagSubscribeRetryMs", 5000), "$.options.TagSubscribeRetryMs",
        "TagSubscribeRetryIntervalMs");
    row("option rule", set("options/TagSubscribeInFlightCeilingMs", 0),
        "$.options.TagSubscribeInFlightCeilingMs", "must be 1..86400000 (got 0)");
    row("option cross-key rule",
        set("options", QJsonObject{{"TagSubscribeRetryIntervalMs", 10000},
                                   {"TagSubscribeRetryMaxIntervalMs", 5000}}),
        "$.options.TagSubscribeRetryMaxIntervalMs",
        "must be >= TagSubscribeRetryIntervalMs (10000) (got 5000)");
    // connections
    row("connections required", removed("connections"), "$.connections", "required key missing");
    row("connections type", set("connections", QJsonObject{}), "$.connections",
        "expected array, got object");
    row("connections non-empty", set("connections", QJsonArray{}), "$.connections",
        "at least 1 connection");
    row("connection element type", set("connections/0", "gw1"), "$.connections[0]",
        "expected object, got string");
    row("connection name required", removed("connections/0/name"), "$.connections[0].name",
        "required key missing");
    row("connection name empty", set("connections/0/name", ""), "$.connections[0].name",
        "must not be empty");
    row("connection name unique", set("connections/1", QJsonObject{{"name", "gw1"}}),
        "$.connections[1].name", "duplicate connection name \"gw1\"");
    row("write user >= 0", set("connections/0/write_user_id", -1), "$.connections[0].write_user_id",
        "must be >= 0 (got -1)");
    row("write user integer", set("connections/0/write_user_id", 0.5),
        "$.connections[0].write_user_id", "must be an integer");
    row("connection unknown key", set("connections/0/host", "x"), "$.connections[0].host",
        "unknown key (valid: name, write_user_id, gateway)");
    // instances
    row("instances required", removed("instances"), "$.instances", "required key missing");
    row("instances non-empty", set("instances", QJsonArray{}), "$.instances",
        "at least 1 instance");
    row("instance element type", set("instances/0", 3), "$.instances[0]",
        "expected object, got number");
    row("instance name required", removed("instances/0/name"), "$.instances[0].name",
        "required key missing");
    row("instance name unique",
        set("instances/1", QJsonObject{{"name", "i1"}, {"connection", "gw1"}, {"tags", 1}}),
        "$.instances[1].name", "duplicate instance name \"i1\"");
    row("instance name without '/'", set("instances/0/name", "Area/Pumps"), "$.instances[0].name",
        "must not contain '/' (it separates an instance from its connection)");
    row("instance connection required", removed("instances/0/connection"),
        "$.instances[0].connection", "required key missing");
    row("instance connection known", set("instances/0/connection", "plc9"),
        "$.instances[0].connection", "unknown connection \"plc9\" (known: gw1)");
    row("tags required", removed("instances/0/tags"), "$.instances[0].tags",
        "required key missing");
    row("tags >= 1", set("instances/0/tags", 0), "$.instances[0].tags", "must be >= 1 (got 0)");
    row("tags <= 10000", set("instances/0/tags", 10001), "$.instances[0].tags",
        "must be <= 10000 (got 10001)");
    row("tags integer", set("instances/0/tags", 2.5), "$.instances[0].tags",
        "must be an integer (got 2.5)");
    row("tag_prefix type", set("instances/0/tag_prefix", 1), "$.instances[0].tag_prefix",
        "expected string, got number");
    row("tag_prefix empty", set("instances/0/tag_prefix", ""), "$.instances[0].tag_prefix",
        "must not be empty");
    row("alarms type", set("instances/0/alarms", "no"), "$.instances[0].alarms",
        "expected bool, got string");
    row("start_at >= 0", set("instances/0/start_at_s", -1), "$.instances[0].start_at_s",
        "must be >= 0 s (got -1)");
    row("start_at <= duration", set("instances/0/start_at_s", 101), "$.instances[0].start_at_s",
        "must be <= duration_s (100) (got 101)");
    row("instance unknown key", set("instances/0/tag", 3), "$.instances[0].tag",
        "unknown key (valid: name");
    // timeline
    row("timeline type", set("timeline", QJsonObject{}), "$.timeline",
        "expected array, got object");
    row("event element type", set("timeline/0", "wedge"), "$.timeline[0]",
        "expected object, got string");
    row("at_s required", removed("timeline/0/at_s"), "$.timeline[0].at_s", "required key missing");
    row("at_s >= 0", set("timeline/0/at_s", -1), "$.timeline[0].at_s", "must be >= 0 s (got -1)");
    row("at_s <= duration", set("timeline/0/at_s", 150), "$.timeline[0].at_s",
        "must be <= duration_s (100) (got 150)");
    row("action required", removed("timeline/0/action"), "$.timeline[0].action",
        "required key missing");
    row("action type", set("timeline/0/action", 1), "$.timeline[0].action",
        "expected string, got number");
    row("action known", set("timeline/1/action", "wedgee"), "$.timeline[1].action",
        "unknown action \"wedgee\" (valid: wedge, slow, drop_replies, restart_gateway, "
        "end_event_streams, "
        "source_outage, refuse_sessions, redeploy, set_levers, set_capability, kill_gateway, "
        "lose_events, "
        "stall_reader, freeze, half_open, reset_peer)");
    row("wedge duration required", removed("timeline/0/duration_s"), "$.timeline[0].duration_s",
        "required key missing");
    row("wedge duration > 0", set("timeline/0/duration_s", -5), "$.timeline[0].duration_s",
        "must be > 0 s (got -5)");
    row("wedge rejects slow's factor", set("timeline/0/factor", 2), "$.timeline[0].factor",
        "unknown key (valid: at_s, action, duration_s, gateway)");
    row("slow factor required", removed("timeline/1/factor"), "$.timeline[1].factor",
        "required key missing");
    row("slow factor >= 1", set("timeline/1/factor", 0.5), "$.timeline[1].factor",
        "must be >= 1 (got 0.5)");
    row("slow duration > 0", set("timeline/1/duration_s", 0), "$.timeline[1].duration_s",
        "must be > 0 s (got 0)");
    row("drop probability required", removed("timeline/2/probability"), "$.timeline[2].probability",
        "required key missing");
    row("drop probability >= 0", set("timeline/2/probability", -0.1), "$.timeline[2].probability",
        "must be >= 0 (got -0.1)");
    row("drop probability <= 1", set("timeline/2/probability", 1.5), "$.timeline[2].probability",
        "must be <= 1 (got 1.5)");
    row("drop duration > 0", set("timeline/2/duration_s", -1), "$.timeline[2].duration_s",
        "must be > 0 s (got -1)");
    row("restart downtime >= 0", set("timeline/3/downtime_s", -1), "$.timeline[3].downtime_s",
        "must be >= 0 s (got -1)");
    row("kill downtime >= 0", set("timeline/10/downtime_s", -1), "$.timeline[10].downtime_s",
        "must be >= 0 s (got -1)");
    row("kill downtime is a number", set("timeline/10/downtime_s", "3"),
        "$.timeline[10].downtime_s", "expected number, got string");
    row("kill takes no duration_s", set("timeline/10/duration_s", 3), "$.timeline[10].duration_s",
        "unknown key (valid: at_s, action, downtime_s, gateway)");
    row("end_event_streams takes no params", set("timeline/4/duration_s", 3),
        "$.timeline[4].duration_s", "unknown key (valid: at_s, action, gateway)");
    row("source_outage duration required", removed("timeline/5/duration_s"),
        "$.timeline[5].duration_s", "required key missing");
    row("source_outage has no active flag", set("timeline/5/active", true), "$.timeline[5].active",
        "unknown key (valid: at_s, action, duration_s, gateway)");
    row("refuse duration > 0", set("timeline/6/duration_s", 0), "$.timeline[6].duration_s",
        "must be > 0 s (got 0)");
    row("redeploy instance required", removed("timeline/7/instance"), "$.timeline[7].instance",
        "required key missing");
    row("redeploy instance known", set("timeline/7/instance", "ghost"), "$.timeline[7].instance",
        "unknown instance \"ghost\" (known: i1)");
    row("set_levers levers required", removed("timeline/8/levers"), "$.timeline[8].levers",
        "required key missing");
    row("set_levers unknown preset", set("timeline/8/levers", "lever9"), "$.timeline[8].levers",
        "unknown lever preset 'lever9'");
    row("set_levers unknown inline lever",
        set("timeline/8/levers", QJsonObject{{"warp_drive", true}}), "$.timeline[8].levers",
        "warp_drive");
    row("set_levers wrong type", set("timeline/8/levers", 7), "$.timeline[8].levers",
        "must be a preset name");
    row("set_capability flag required", removed("timeline/9/advertise_bulk_supervisory"),
        "$.timeline[9].advertise_bulk_supervisory", "required key missing");
    row("set_capability flag type", set("timeline/9/advertise_bulk_supervisory", 1),
        "$.timeline[9].advertise_bulk_supervisory", "expected bool, got number");
    // variants
    row("variants type", set("variants", "all"), "$.variants", "expected array, got string");
    row("variants non-empty", set("variants", QJsonArray{}), "$.variants", "at least 1 variant");
    row("variant unknown preset", set("variants", QJsonArray{"lever9"}), "$.variants[0]",
        "unknown lever preset 'lever9'; valid presets: levers-off, lever1, lever1+2, all");
    row("variant element type", set("variants", QJsonArray{3}), "$.variants[0]",
        "expected a preset name or {name, levers} object, got number");
    row("variant names unique", set("variants", QJsonArray{"lever1", "lever1"}), "$.variants[1]",
        "duplicate variant name \"lever1\"");
    row("inline variant name unique",
        set("variants", QJsonArray{"all", QJsonObject{{"name", "all"}, {"levers", "lever1"}}}),
        "$.variants[1].name", "duplicate variant name \"all\"");
    row("inline variant name required", set("variants", QJsonArray{QJsonObject{{"levers", "all"}}}),
        "$.variants[0].name", "required key missing");
    row("inline variant name empty",
        set("variants", QJsonArray{QJsonObject{{"name", ""}, {"levers", "all"}}}),
        "$.variants[0].name", "must not be empty");
    row("inline variant levers required", set("variants", QJsonArray{QJsonObject{{"name", "x"}}}),
        "$.variants[0].levers", "required key missing");
    row("inline variant lever type",
        set("variants",
            QJsonArray{QJsonObject{{"name", "x"}, {"levers", QJsonObject{{"backoff", 1}}}}}),
        "$.variants[0].levers", "backoff must be true or false");
    row("inline variant unknown key",
        set("variants",
            QJsonArray{QJsonObject{{"name", "x"}, {"levers", "all"}, {"colour", "red"}}}),
        "$.variants[0].colour", "unknown key (valid: name, levers)");
    // ranges (docs/scenario-format.md): absurd values are refused once, at validation
    row("duration 1e308", set("duration_s", 1e308), "$.duration_s",
        "must be <= 86400 s (got 1e+308)");
    row("seed <= 2^53 - 1", set("seed", 9007199254740992.0), "$.seed", "9007199254740991");
    row("gateway timeout 1e308", set("gateway/default_command_timeout_s", 1e308),
        "$.gateway.default_command_timeout_s", "must be <= 86400 s (got 1e+308)");
    row("gateway command_ms 1e16", set("gateway/command_ms", 1e16), "$.gateway.command_ms",
        "must be <= 10000 ms (got 1e+16)");
    row("gateway per_item_ms <= 100", set("gateway/per_item_ms", 100.5), "$.gateway.per_item_ms",
        "must be <= 100 ms (got 100.5)");
    row("gateway data_hz 0 or >= 0.001", set("gateway/data_hz", 1e-300), "$.gateway.data_hz",
        "must be 0 or >= 0.001 Hz (got 1e-300)");
    row("gateway latency 1e16", set("gateway/network_latency_ms", 1e16),
        "$.gateway.network_latency_ms", "must be <= 10000 ms (got 1e+16)");
    row("write user int32", set("connections/0/write_user_id", 2147483648.0),
        "$.connections[0].write_user_id", "must be <= 2147483647 (got 2147483648)");
    row("wedge duration 1e308", set("timeline/0/duration_s", 1e308), "$.timeline[0].duration_s",
        "must be <= 86400 s (got 1e+308)");
    row("slow factor 1e308", set("timeline/1/factor", 1e308), "$.timeline[1].factor",
        "must be <= 1000 (got 1e+308)");
    row("slow duration <= 86400", set("timeline/1/duration_s", 86400.5), "$.timeline[1].duration_s",
        "must be <= 86400 s (got 86400.5)");
    row("drop window 1e9 s", set("timeline/2/duration_s", 1e9), "$.timeline[2].duration_s",
        "must be <= 86400 s (got 1000000000)");
    row("restart downtime 1e308", set("timeline/3/downtime_s", 1e308), "$.timeline[3].downtime_s",
        "must be <= 86400 s (got 1e+308)");
    row("outage duration <= 86400", set("timeline/5/duration_s", 86401), "$.timeline[5].duration_s",
        "must be <= 86400 s (got 86401)");
    row("refuse duration 1e308", set("timeline/6/duration_s", 1e308), "$.timeline[6].duration_s",
        "must be <= 86400 s (got 1e+308)");
    row("kill downtime <= 86400", set("timeline/10/downtime_s", 86401), "$.timeline[10].downtime_s",
        "must be <= 86400 s (got 86401)");
    row("option retry 1 ms", set("options/TagSubscribeRetryIntervalMs", 1),
        "$.options.TagSubscribeRetryIntervalMs", "must be 10..3600000 (got 1)");
    row("option alarm interval 2^30 ms", set("options/AlarmSubscribeRetryIntervalMs", 1073741824),
        "$.options.AlarmSubscribeRetryIntervalMs", "must be 10..3600000 (got 1073741824)");
    row("set_levers session timeout <= 1 day",
        set("timeline/8/levers",
            QJsonObject{{"preset", "lever1"}, {"session_command_timeout_ms", 86400001}}),
        "$.timeline[8].levers", "session_command_timeout_ms must be a whole number 0..86400000");
    row("variant recovery multiplier 1e308",
        set("variants",
            QJsonArray{QJsonObject{
                {"name", "x"},
                {"levers", QJsonObject{{"recovery", QJsonObject{{"multiplier", 1e308}}}}}}}),
        "$.variants[0].levers", "recovery.multiplier must be 1..100 (got 1e+308)");
    // lengths and counts keep a file's footprint bounded
    row("name <= 128 characters", set("name", QString(129, 'n')), "$.name",
        "must be at most 128 characters (got 129)");
    row("description <= 10000 characters", set("description", QString(10001, 'd')), "$.description",
        "must be at most 10000 characters (got 10001)");
    row("connection name <= 128", set("connections/0/name", QString(129, 'c')),
        "$.connections[0].name", "must be at most 128 characters (got 129)");
    row("instance name <= 128", set("instances/0/name", QString(129, 'i')), "$.instances[0].name",
        "must be at most 128 characters (got 129)");
    row("tag_prefix 1 MiB", set("instances/0/tag_prefix", QString(1 << 20, 'p')),
        "$.instances[0].tag_prefix", "must be at most 133 characters (got 1048576)");
    row("variant name <= 128",
        set("variants", QJsonArray{QJsonObject{{"name", QString(129, 'v')}, {"levers", "all"}}}),
        "$.variants[0].name", "must be at most 128 characters (got 129)");
    row("connections <= 1000", set("connections", connectionList(1001)), "$.connections",
        "must list at most 1000 connections (got 1001)");
    row("variants <= 32", set("variants", variantList(33)), "$.variants",
        "must list at most 32 variants (got 33)");
    row("instances <= 50000", set("instances", instanceList(50001, "gw1")), "$.instances",
        "must list at most 50000 instances (got 50001)");
    row("timeline <= 100000", set("timeline", capabilityEvents(100001)), "$.timeline",
        "must list at most 100000 entries (got 100001)");
    // a gateway named by a fault: only where the scenario names its gateways
    row("fault gateway, none named", set("timeline/0/gateway", "gw-a"), "$.timeline[0].gateway",
        "unknown gateway \"gw-a\" (the scenario has one gateway, unnamed: its connections name "
        "none)");
    row("fault gateway type", set("timeline/0/gateway", 5), "$.timeline[0].gateway",
        "expected string, got number");
    row("fault gateway empty", set("timeline/0/gateway", ""), "$.timeline[0].gateway",
        "must not be empty");
    row("redeploy takes no gateway", set("timeline/7/gateway", "gw-a"), "$.timeline[7].gateway",
        "unknown key");
    row("set_levers takes no gateway", set("timeline/8/gateway", "gw-a"), "$.timeline[8].gateway",
        "unknown key");
    row("connection gateways all or none",
        set("connections", QJsonArray{QJsonObject{{"name", "gw1"}, {"gateway", "A"}},
                                      QJsonObject{{"name", "gw2"}}}),
        "$.connections[1].gateway", "every connection names its gateway or none does");
}

void TestScenarioParser::validationRule()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, path);
    QFETCH(QString, rule);
    QList<ScenarioError> errors;
    const auto s = parseScenario(json, "rules.json", &errors);
    QVERIFY(!s.has_value());
    QVERIFY2(errors.size() == 1, qPrintable(joined(errors)));
    QCOMPARE(errors[0].file, QString("rules.json"));
    QCOMPARE(errors[0].path, path);
    QVERIFY2(errors[0].rule.contains(rule), qPrintable(errors[0].rule));
}

void TestScenarioParser::invalidJsonReportsLineAndColumn()
{
    const QByteArray json = "{\n  \"name\": \"x\",\n  \"duration_s\": ,\n}";
    QList<ScenarioError> errors;
    QVERIFY(!parseScenario(json, "broken.json", &errors));
    QCOMPARE(errors.size(), 1);
    QCOMPARE(errors[0].path, QString("$"));
    QVERIFY2(errors[0].rule.startsWith("invalid JSON at line 3, column 17"),
             qPrintable(errors[0].rule));
}

void TestScenarioParser::invalidJsonColumnCountsCharactersNotBytes()
{
    // "é" is two bytes in UTF-8 but one column for the reader.
    const QByteArray json = QString("{\"name\": \"é\" \"x\"}").toUtf8();
    QList<ScenarioError> errors;
    QVERIFY(!parseScenario(json, "u.json", &errors));
    QCOMPARE(errors.size(), 1);
    QVERIFY2(errors[0].rule.startsWith("invalid JSON at line 1, column 14"),
             qPrintable(errors[0].rule));
}

void TestScenarioParser::rootMustBeAnObject()
{
    QList<ScenarioError> errors;
    QVERIFY(!parseScenario("[1, 2]", "a.json", &errors));
    QCOMPARE(errors.size(), 1);
    QCOMPARE(errors[0].path, QString("$"));
    QCOMPARE(errors[0].rule, QString("expected object, got array"));
}

void TestScenarioParser::reportsEveryErrorNotJustTheFirst()
{
    QJsonValue v = baseScenario();
    v = withValue(v, {"duration_s"}, QJsonValue(-1));
    v = withValue(v, {"instances", "0", "connection"}, QJsonValue("plc9"));
    v = withValue(v, {"timeline", "2", "probability"}, QJsonValue(2));
    v = withValue(v, {"gateway"}, QJsonObject{{"foo", 1}});
    QList<ScenarioError> errors;
    QVERIFY(!parseScenario(bytes(v), "many.json", &errors));
    QStringList paths;
    for (const ScenarioError& e : errors)
        paths << e.path;
    QCOMPARE(paths.size(), 4);
    QVERIFY(paths.contains("$.duration_s"));
    QVERIFY(paths.contains("$.instances[0].connection"));
    QVERIFY(paths.contains("$.timeline[2].probability"));
    QVERIFY(paths.contains("$.gateway.foo"));
}

void TestScenarioParser::errorToStringNamesFileAndPathAndRule()
{
    QList<ScenarioError> errors;
    QVERIFY(!parseScenario(set("timeline/2/duration_s", -5), "live-gate.json", &errors));
    QCOMPARE(errors.size(), 1);
    QCOMPARE(errors[0].toString(),
             QString("live-gate.json: $.timeline[2].duration_s: must be > 0 s (got -5)"));
}

QTEST_GUILESS_MAIN(TestScenarioParser)
#include "tst_scenario_parser.moc"
