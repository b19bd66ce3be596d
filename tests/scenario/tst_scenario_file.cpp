// What a valid scenario file becomes: defaults, variants, the timeline's order and faults,
// the round trip through scenarioToJson, loading by name or path, the bundled scenarios.

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

class TestScenarioFile : public QObject {
    Q_OBJECT
private slots:
    void defaultsApplied();
    void variantsDefaultToTheFourPresets();
    void inlineVariantKeepsItsSpec();
    void timelineIsStableSortedByAt();
    void faultPastTheEndIsClippedNotRejected();
    void lastFaultEndIgnoresLeverAndCapabilityChanges();
    void roundTripGivesTheSameScenario();
    void faultsNameOneOfTheScenariosGateways();
    void optionsAreKeptVerbatim();
    void unreadableFileIsAnError();
    void loadScenarioAcceptsAFilePath();
    void loadScenarioUnknownNameIsAnError();
    void everyBundledScenarioParses();
    void bundledLiveGateMatchesTheSeed();
    void actionNamesMapBothWays();
    void everyActionIsDocumented();
    void killGatewayTakesADowntimeLikeRestart();
    void clientModelSettingsHaveDefaultsAndRules();
    void clientModelKeepaliveIsOptionalAndBounded();
    void validateVariantAcceptsPresetsAndInlineObjects();
    void validateVariantRejectsUnknownLeverAndWrongType();
};

void TestScenarioFile::defaultsApplied()
{
    const QJsonObject minimal{
        {"name", "m"},
        {"description", "d"},
        {"duration_s", 60},
        {"connections", QJsonArray{QJsonObject{{"name", "gw1"}}}},
        {"instances",
         QJsonArray{QJsonObject{{"name", "pump-7"}, {"connection", "gw1"}, {"tags", 4}}}},
    };
    QList<ScenarioError> errors;
    const auto s = parseScenario(bytes(minimal), "m.json", &errors);
    QVERIFY2(s, qPrintable(joined(errors)));
    QCOMPARE(s->seed, quint64(1));
    QCOMPARE(s->gateway.advertiseBulkSupervisory, true);
    QCOMPARE(s->gateway.defaultCommandTimeoutS, 30.0);
    QCOMPARE(s->gateway.commandMs, 2.0);
    QCOMPARE(s->gateway.perItemMs, 0.5);
    QCOMPARE(s->gateway.dataHz, 1.0);
    QCOMPARE(s->gateway.networkLatencyMs, 1.0);
    QVERIFY(s->options.isEmpty());
    QCOMPARE(s->connections[0].writeUserId, qint64(0));
    QCOMPARE(s->instances[0].tagPrefix, QString("pump-7.Attr"));
    QCOMPARE(s->instances[0].alarms, false);
    QCOMPARE(s->instances[0].startAtS, 0.0);
    QVERIFY(s->timeline.isEmpty());
    // restart_gateway without downtime_s gets 5 s
    const auto b = parseScenario(bytes(baseScenario()), "b.json", &errors);
    QVERIFY(b);
    QCOMPARE(b->timeline[3].action, TimelineAction::RestartGateway);
    QCOMPARE(b->timeline[3].downtimeS, 5.0);
    // kill_gateway too
    QCOMPARE(b->timeline[10].action, TimelineAction::KillGateway);
    QCOMPARE(b->timeline[10].downtimeS, 5.0);
}

void TestScenarioFile::variantsDefaultToTheFourPresets()
{
    const auto s = parseScenario(bytes(baseScenario()), "b.json", nullptr);
    QVERIFY(s);
    QStringList names;
    for (const VariantSpec& v : s->variants) {
        names << v.name;
        QCOMPARE(v.levers, QJsonValue(v.name));
    }
    QCOMPARE(names, QStringList({"levers-off", "lever1", "lever1+2", "all"}));
}

void TestScenarioFile::inlineVariantKeepsItsSpec()
{
    const QJsonObject inlineLevers{{"inflight_guard", true}, {"backoff", false}};
    const auto s = parseScenario(
        set("variants", QJsonArray{"levers-off",
                                   QJsonObject{{"name", "guard-only"}, {"levers", inlineLevers}}}),
        "v.json", nullptr);
    QVERIFY(s);
    QCOMPARE(s->variants.size(), 2);
    QCOMPARE(s->variants[1].name, QString("guard-only"));
    QCOMPARE(s->variants[1].levers, QJsonValue(inlineLevers));
}

void TestScenarioFile::timelineIsStableSortedByAt()
{
    const QJsonArray timeline{
        QJsonObject{{"at_s", 30}, {"action", "wedge"}, {"duration_s", 1}},
        QJsonObject{{"at_s", 10}, {"action", "set_levers"}, {"levers", "lever1"}},
        QJsonObject{{"at_s", 30}, {"action", "end_event_streams"}},
        QJsonObject{{"at_s", 10}, {"action", "set_levers"}, {"levers", "all"}},
    };
    const auto s = parseScenario(set("timeline", timeline), "t.json", nullptr);
    QVERIFY(s);
    QCOMPARE(s->timeline.size(), 4);
    QCOMPARE(s->timeline[0].levers, QJsonValue("lever1")); // file order kept among equal times
    QCOMPARE(s->timeline[1].levers, QJsonValue("all"));
    QCOMPARE(s->timeline[2].action, TimelineAction::Wedge);
    QCOMPARE(s->timeline[3].action, TimelineAction::EndEventStreams);
}

void TestScenarioFile::faultPastTheEndIsClippedNotRejected()
{
    const auto s = parseScenario(
        set("timeline",
            QJsonArray{QJsonObject{{"at_s", 90}, {"action", "wedge"}, {"duration_s", 60}}}),
        "c.json", nullptr);
    QVERIFY(s);
    QCOMPARE(s->timeline[0].durationS, 60.0);           // kept as written ...
    QCOMPARE(s->timeline[0].endS(s->durationS), 100.0); // ... but its effect ends with the run
    QCOMPARE(s->lastFaultEndS(), std::optional<double>(100.0));
}

void TestScenarioFile::lastFaultEndIgnoresLeverAndCapabilityChanges()
{
    const QJsonArray timeline{
        QJsonObject{{"at_s", 5}, {"action", "restart_gateway"}, {"downtime_s", 7}},
        QJsonObject{{"at_s", 50}, {"action", "set_levers"}, {"levers", "all"}},
        QJsonObject{
            {"at_s", 60}, {"action", "set_capability"}, {"advertise_bulk_supervisory", false}},
    };
    const auto s = parseScenario(set("timeline", timeline), "f.json", nullptr);
    QVERIFY(s);
    QCOMPARE(s->lastFaultEndS(), std::optional<double>(12.0));
    const auto none = parseScenario(set("timeline", QJsonArray{timeline[1]}), "f.json", nullptr);
    QVERIFY(none);
    QCOMPARE(none->lastFaultEndS(), std::nullopt);
}

void TestScenarioFile::roundTripGivesTheSameScenario()
{
    QJsonObject o = baseScenario();
    o["seed"] = 42;
    o["gateway"] = QJsonObject{{"advertise_bulk_supervisory", false}, {"data_hz", 10}};
    o["options"] = QJsonObject{{"TagSubscribeRetryIntervalMs", 2000}};
    o["variants"] =
        QJsonArray{"levers-off", QJsonObject{{"name", "guard"},
                                             {"levers", QJsonObject{{"inflight_guard", true}}}}};
    const auto first = parseScenario(bytes(o), "r.json", nullptr);
    QVERIFY(first);
    QList<ScenarioError> errors;
    const auto second =
        parseScenario(QJsonDocument(scenarioToJson(*first)).toJson(), "r2.json", &errors);
    QVERIFY2(second, qPrintable(joined(errors)));
    QVERIFY(*first == *second);
    QCOMPARE(second->seed, quint64(42));
    QCOMPARE(second->gateway.dataHz, 10.0);
    QCOMPARE(second->timeline[9].advertiseBulkSupervisory, false);
}

void TestScenarioFile::faultsNameOneOfTheScenariosGateways()
{
    QJsonObject o = baseScenario();
    o["connections"] = QJsonArray{QJsonObject{{"name", "gw1"}, {"gateway", "A"}},
                                  QJsonObject{{"name", "gw2"}, {"gateway", "B"}},
                                  QJsonObject{{"name", "gw3"}, {"gateway", "A"}}};
    QJsonArray timeline = o["timeline"].toArray();
    QJsonObject wedge = timeline[0].toObject();
    wedge["gateway"] = "B";
    timeline[0] = wedge;
    QJsonObject capability = timeline[9].toObject();
    capability["gateway"] = "A";
    timeline[9] = capability;
    o["timeline"] = timeline;
    QList<ScenarioError> errors;
    const auto s = parseScenario(bytes(o), "g.json", &errors);
    QVERIFY2(s, qPrintable(joined(errors)));
    QCOMPARE(s->gatewayNames(), QStringList({"A", "B"}));
    QCOMPARE(s->connections[2].gateway, QString("A"));
    QCOMPARE(s->timeline[0].gateway, QString("B"));
    QCOMPARE(s->timeline[9].gateway, QString("A"));
    QCOMPARE(s->timeline[1].gateway, QString()); // none named: every gateway
    // Written out and read back: the same gateways, the same targets.
    const auto again =
        parseScenario(QJsonDocument(scenarioToJson(*s)).toJson(), "g2.json", &errors);
    QVERIFY2(again, qPrintable(joined(errors)));
    QVERIFY(*again == *s);
    QVERIFY(!scenarioToJson(*s)["timeline"].toArray()[1].toObject().contains("gateway"));

    // A name the scenario does not have lists the ones it has.
    wedge["gateway"] = "C";
    timeline[0] = wedge;
    o["timeline"] = timeline;
    errors.clear();
    QVERIFY(!parseScenario(bytes(o), "g.json", &errors));
    QCOMPARE(joined(errors),
             QString("g.json: $.timeline[0].gateway: unknown gateway \"C\" (gateways: A, B)"));
}

void TestScenarioFile::optionsAreKeptVerbatim()
{
    // Kept exactly as written: the runner hands them to the client.
    const QJsonObject options{{"TagSubscribeInFlightCeilingMs", 45000},
                              {"MxSupervisoryAdviseParallelism", 16}};
    const auto s = parseScenario(set("options", options), "o.json", nullptr);
    QVERIFY(s);
    QCOMPARE(s->options, options);
}

void TestScenarioFile::unreadableFileIsAnError()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("missing.json");
    QList<ScenarioError> errors;
    QVERIFY(!loadScenarioFile(path, &errors));
    QCOMPARE(errors.size(), 1);
    QCOMPARE(errors[0].file, path);
    QCOMPARE(errors[0].path, QString("$"));
    QVERIFY2(errors[0].rule.startsWith("cannot read file"), qPrintable(errors[0].rule));
}

void TestScenarioFile::loadScenarioAcceptsAFilePath()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("mine.json");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes(baseScenario()));
    f.close();
    QList<ScenarioError> errors;
    const auto s = loadScenario(path, &errors);
    QVERIFY2(s, qPrintable(joined(errors)));
    QCOMPARE(s->name, QString("base"));
    // and errors in it name the path
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(set("duration_s", 0));
    f.close();
    QVERIFY(!loadScenario(path, &errors));
    QCOMPARE(errors.last().file, path);
}

void TestScenarioFile::loadScenarioUnknownNameIsAnError()
{
    QList<ScenarioError> errors;
    QVERIFY(!loadScenario("no-such-scenario", &errors));
    QCOMPARE(errors.size(), 1);
    QVERIFY2(errors[0].rule.contains("live-gate-lever1"),
             qPrintable(errors[0].rule)); // lists the bundled ones
}

void TestScenarioFile::everyBundledScenarioParses()
{
    const QStringList names = bundledScenarioNames();
    QVERIFY(names.contains("live-gate-lever1"));
    for (const QString& name : names) {
        QList<ScenarioError> errors;
        const auto s = loadScenario(name, &errors);
        QVERIFY2(s, qPrintable(joined(errors)));
        QCOMPARE(s->name, name); // the file name and the scenario's name agree
        QVERIFY(!s->description.isEmpty());
    }
}

void TestScenarioFile::bundledLiveGateMatchesTheSeed()
{
    const auto s = loadScenario("live-gate-lever1", nullptr);
    QVERIFY(s);
    QCOMPARE(s->durationS, 110.0);
    QCOMPARE(s->connections.size(), 1);
    QCOMPARE(s->connections[0].writeUserId, qint64(0));
    QCOMPARE(s->instances.size(), 1);
    QCOMPARE(s->instances[0].name, QString("rig-probe-1"));
    QCOMPARE(s->instances[0].tags, 3);
    QCOMPARE(s->timeline.size(), 1);
    QCOMPARE(s->timeline[0].action, TimelineAction::RefuseSessions);
    QCOMPARE(s->timeline[0].atS, 0.0);
    QCOMPARE(s->timeline[0].endS(s->durationS), 110.0);
    QCOMPARE(s->variants.size(), 2);
    QCOMPARE(s->variants[0].name, QString("levers-off"));
    QCOMPARE(s->variants[1].name, QString("lever1"));
    QVERIFY(s->description.contains("22 requests"));
    QVERIFY(s->description.contains("3 requests"));
}

void TestScenarioFile::actionNamesMapBothWays()
{
    const QStringList names = timelineActionNames();
    QCOMPARE(names.size(), 16);
    QCOMPARE(names.last(), QString("reset_peer")); // appended: earlier values keep their numbers
    for (int i = 0; i < names.size(); ++i) {
        const auto a = timelineActionFromName(names[i]);
        QVERIFY(a);
        QCOMPARE(int(*a), i);
        QCOMPARE(timelineActionName(*a), names[i]);
    }
    QCOMPARE(timelineActionFromName("Wedge"), std::nullopt);
}

// docs/scenario-format.md names every action of the table, in its order, and says what each
// does in the table's words: a new action cannot land undocumented.
void TestScenarioFile::everyActionIsDocumented()
{
    const QString docPath = testpaths::sourceFile(QStringLiteral("docs/scenario-format.md"));
    QVERIFY2(!docPath.isEmpty(), "docs/scenario-format.md not found");
    QFile doc(docPath);
    QVERIFY(doc.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(doc.readAll()).split('\n');
    const auto row = [&](const QString& start) {
        const auto it = std::find_if(lines.begin(), lines.end(),
                                     [&](const QString& l) { return l.startsWith(start); });
        return it == lines.end() ? QString() : *it;
    };
    QStringList quoted;
    for (const TimelineActionInfo& a : timelineActions())
        quoted << "`" + QString::fromUtf8(a.name) + "`";
    const QString fieldRow = row("| `$.timeline[i].action` |");
    QVERIFY2(fieldRow.contains(quoted.join(", ")), qPrintable(fieldRow));
    for (const TimelineActionInfo& a : timelineActions()) {
        const QString actionRow = row("| `" + QString::fromUtf8(a.name) + "` |");
        QVERIFY2(!actionRow.isEmpty(), a.name);
        QVERIFY2(actionRow.contains(QString::fromUtf8(a.description)), qPrintable(actionRow));
    }
}

void TestScenarioFile::killGatewayTakesADowntimeLikeRestart()
{
    const QJsonArray timeline{
        QJsonObject{{"at_s", 5}, {"action", "kill_gateway"}, {"downtime_s", 7}},
        QJsonObject{{"at_s", 50}, {"action", "set_levers"}, {"levers", "all"}},
    };
    QList<ScenarioError> errors;
    const auto s = parseScenario(set("timeline", timeline), "k.json", &errors);
    QVERIFY2(s, qPrintable(joined(errors)));
    const TimelineEvent& kill = s->timeline[0];
    QCOMPARE(kill.action, TimelineAction::KillGateway);
    QCOMPARE(kill.downtimeS, 7.0);
    QVERIFY(kill.isFault());
    QCOMPARE(kill.endS(s->durationS), 12.0);
    QCOMPARE(s->lastFaultEndS(), std::optional<double>(12.0));
    const auto fault = faultRequestFor(kill);
    QVERIFY(fault);
    QVERIFY(fault->has_kill());
    QCOMPARE(fault->kill().downtime_s(), 7.0);
    // written back with its downtime
    const QJsonObject written = scenarioToJson(*s).value("timeline").toArray().at(0).toObject();
    QCOMPARE(written.value("action").toString(), QString("kill_gateway"));
    QCOMPARE(written.value("downtime_s").toDouble(), 7.0);
}

// What the incident analysis leaves open is a named setting with a default, checked like everything
// else.
void TestScenarioFile::clientModelSettingsHaveDefaultsAndRules()
{
    QList<ScenarioError> errors;
    const auto plain = parseScenario(set("timeline", QJsonArray{}), "m.json", &errors);
    QVERIFY2(plain, qPrintable(joined(errors)));
    QCOMPARE(plain->clientModel.redeployTeardown, QString("per_item_remove"));
    QVERIFY(plain->clientModel.teardownGated);

    const auto none = parseScenario(
        set("client_model", QJsonObject{{"redeploy_teardown", "none"}, {"teardown_gated", false}}),
        "m.json", &errors);
    QVERIFY2(none, qPrintable(joined(errors)));
    QCOMPARE(none->clientModel.redeployTeardown, QString("none"));
    QVERIFY(!none->clientModel.teardownGated);
    const QJsonObject written = scenarioToJson(*none).value("client_model").toObject();
    QCOMPARE(written.value("redeploy_teardown").toString(), QString("none"));
    QCOMPARE(written.value("teardown_gated").toBool(), false);

    errors.clear();
    QVERIFY(!parseScenario(
        set("client_model", QJsonObject{{"redeploy_teardown", "bulk_remove"}, {"gated", 1}}),
        "m.json", &errors));
    const QString all = joined(errors);
    QVERIFY2(all.contains("$.client_model.redeploy_teardown") && all.contains("per_item_remove"),
             qPrintable(all));
    QVERIFY2(all.contains("$.client_model.gated"), qPrintable(all));
}

// The keepalive a scenario gives reaches the transport in both modes; unset, it is the
// transport's own default and is not written back.
void TestScenarioFile::clientModelKeepaliveIsOptionalAndBounded()
{
    QList<ScenarioError> errors;
    const auto plain = parseScenario(set("timeline", QJsonArray{}), "m.json", &errors);
    QVERIFY2(plain, qPrintable(joined(errors)));
    QVERIFY(!plain->clientModel.keepaliveS && !plain->clientModel.keepaliveTimeoutS);
    QVERIFY(!scenarioToJson(*plain).value("client_model").toObject().contains("keepalive_s"));

    const auto quick = parseScenario(
        set("client_model", QJsonObject{{"keepalive_s", 1}, {"keepalive_timeout_s", 0.5}}),
        "m.json", &errors);
    QVERIFY2(quick, qPrintable(joined(errors)));
    QCOMPARE(quick->clientModel.keepaliveS.value_or(0), 1.0);
    QCOMPARE(quick->clientModel.keepaliveTimeoutS.value_or(0), 0.5);
    const QJsonObject written = scenarioToJson(*quick).value("client_model").toObject();
    QCOMPARE(written.value("keepalive_s").toDouble(), 1.0);
    QCOMPARE(written.value("keepalive_timeout_s").toDouble(), 0.5);

    errors.clear();
    QVERIFY(
        !parseScenario(set("client_model", QJsonObject{{"keepalive_s", 0.01}}), "m.json", &errors));
    QVERIFY2(joined(errors).contains("$.client_model.keepalive_s"), qPrintable(joined(errors)));
}

void TestScenarioFile::validateVariantAcceptsPresetsAndInlineObjects()
{
    QString why;
    for (const QString& preset : defaultVariantNames())
        QVERIFY2(validateVariant(preset, &why), qPrintable(why));
    QVERIFY2(validateVariant(QJsonObject{{"inflight_guard", true},
                                         {"backoff", true},
                                         {"session_command_timeout_ms", 60000}},
                             &why),
             qPrintable(why));
}

void TestScenarioFile::validateVariantRejectsUnknownLeverAndWrongType()
{
    QString why;
    QVERIFY(!validateVariant(QJsonObject{{"turbo", true}}, &why));
    QVERIFY2(why.contains("turbo"), qPrintable(why));
    QVERIFY(!validateVariant(QJsonObject{{"session_command_timeout_ms", -1}}, &why));
    QVERIFY2(why.contains("session_command_timeout_ms"), qPrintable(why));
    QVERIFY(!validateVariant(QJsonValue(true), &why));
    QVERIFY(!validateVariant(QString("Lever1"), &why));
}

QTEST_GUILESS_MAIN(TestScenarioFile)
#include "tst_scenario_file.moc"
