// How often a tag is expected to change, in site and scenario files: a site gives a period per
// tag kind (the CSV's third column) and a stale factor; a scenario's instance one period for
// every tag or one per tag. Each rule is refused in the files' error form; the periods reach
// the engine as each tag's stale limit (period × factor), and a written-out scenario keeps them.
#include "scenario/scenario_parser.h"
#include "scenario/scenario_runner.h"
#include "scenario/site.h"
#include "scenario/site_live.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

using namespace stormwatch;

namespace {

QStringList messages(const QList<ScenarioError>& errors)
{
    QStringList out;
    for (const auto& e : errors)
        out << e.toString();
    return out;
}

const QByteArray kCsv = "instance,tag_address,kind\n"
                        "Tank,TK1.Level.PV,analog\n"
                        "Tank,TK1.Pump.Run,discrete\n"
                        "Tank,TK1.Note,\n";

// A site of one instance whose tags come from kCsv, with `extra` top-level keys.
std::optional<Site> site(const QTemporaryDir& dir, const QByteArray& extra,
                         QList<ScenarioError>* errors)
{
    QFile csv(dir.filePath("tags.csv"));
    if (!csv.open(QIODevice::WriteOnly))
        return std::nullopt;
    csv.write(kCsv);
    csv.close();
    const QByteArray json =
        R"({"name": "s", "gateways": [{"name": "gw", "endpoint": "127.0.0.1:5000"}],
        "instances": [{"name": "Tank", "gateway": "gw"}], "tags_csv": "tags.csv")" +
        (extra.isEmpty() ? QByteArray() : ", " + extra) + "}";
    return parseSite(json, dir.filePath("site.json"), errors);
}

QJsonObject scenario(const QJsonValue& expected, const QJsonValue& factor = QJsonValue::Undefined)
{
    QJsonObject instance{{"name", "probe"}, {"connection", "gw1"}, {"tags", 3}};
    if (!expected.isUndefined())
        instance.insert("expected_update_s", expected);
    QJsonObject o{{"name", "x"},
                  {"description", "expected updates"},
                  {"duration_s", 10},
                  {"connections", QJsonArray{QJsonObject{{"name", "gw1"}}}},
                  {"instances", QJsonArray{instance}}};
    if (!factor.isUndefined())
        o.insert("stale_factor", factor);
    return o;
}

std::optional<Scenario> parse(const QJsonObject& o, QList<ScenarioError>* errors)
{
    return parseScenario(QJsonDocument(o).toJson(), QStringLiteral("x.json"), errors);
}

} // namespace

class TestExpectedUpdates : public QObject {
    Q_OBJECT
private slots:
    void aSiteGivesAPeriodPerKind()
    {
        QTemporaryDir dir;
        QList<ScenarioError> errors;
        const auto s =
            site(dir, R"("expected_update_s": {"analog": 10}, "stale_factor": 3)", &errors);
        QVERIFY2(s, qPrintable(messages(errors).join('\n')));
        QCOMPARE(s->staleFactor, 3.0);
        QCOMPARE(s->expectedUpdateS.value("analog"), 10.0);
        // The scenario shape: a period per tag, 0 where the kind has none (or the tag no kind).
        const Scenario shaped = siteScenario(*s);
        QCOMPARE(shaped.staleFactor, 3.0);
        QCOMPARE(shaped.instances.first().expectedUpdateS, (QList<double>{10, 0, 0}));
        // The engine gets each tag's limit: period × factor.
        QString error;
        const EngineConfig config = engineConfigFor(shaped, shaped.variants.first(), 1, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(config.instances.front().staleAfterS, (std::vector<double>{30, 0, 0}));
    }

    void aSiteWithoutPeriodsHasNoLimits()
    {
        QTemporaryDir dir;
        QList<ScenarioError> errors;
        const auto s = site(dir, {}, &errors);
        QVERIFY(s);
        QCOMPARE(s->staleFactor, 5.0);
        const Scenario shaped = siteScenario(*s);
        QVERIFY(shaped.instances.first().expectedUpdateS.isEmpty());
        QString error;
        QVERIFY(engineConfigFor(shaped, shaped.variants.first(), 1, &error)
                    .instances.front()
                    .staleAfterS.empty());
    }

    void siteRules_data()
    {
        QTest::addColumn<QByteArray>("extra");
        QTest::addColumn<QString>("expected");
        QTest::newRow("misspelt kind")
            << QByteArray(R"("expected_update_s": {"analgo": 10})")
            << QString("site.json: $.expected_update_s.analgo: no tag has this kind "
                       "(kinds: analog, discrete)");
        QTest::newRow("bad kind")
            << QByteArray(R"("expected_update_s": {"an alog": 10})")
            << QString("site.json: $.expected_update_s.an alog: a kind is letters, digits, "
                       "'_' and '-' (got \"an alog\")");
        QTest::newRow("not a number")
            << QByteArray(R"("expected_update_s": {"analog": "10"})")
            << QString("site.json: $.expected_update_s.analog: expected number, got string");
        QTest::newRow("negative")
            << QByteArray(R"("expected_update_s": {"analog": -1})")
            << QString("site.json: $.expected_update_s.analog: must be 0 … 86400 s (got -1)");
        QTest::newRow("not an object")
            << QByteArray(R"("expected_update_s": 10)")
            << QString("site.json: $.expected_update_s: expected object, got number");
        QTest::newRow("factor below 1")
            << QByteArray(R"("stale_factor": 0.5)")
            << QString("site.json: $.stale_factor: must be >= 1 (got 0.5)");
    }
    void siteRules()
    {
        QFETCH(QByteArray, extra);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        QList<ScenarioError> errors;
        QVERIFY(!site(dir, extra, &errors));
        QStringList got = messages(errors);
        for (QString& m : got)
            m.replace(dir.path() + "/", QString());
        QVERIFY2(got.contains(expected), qPrintable(got.join('\n')));
    }

    void aScenarioGivesOnePeriodOrOnePerTag()
    {
        QList<ScenarioError> errors;
        auto s = parse(scenario(2), &errors);
        QVERIFY2(s, qPrintable(messages(errors).join('\n')));
        QCOMPARE(s->instances.first().expectedUpdateS, (QList<double>{2, 2, 2}));
        QCOMPARE(s->staleFactor, 5.0);
        s = parse(scenario(QJsonArray{1, 0, 4}, 2), &errors);
        QVERIFY2(s, qPrintable(messages(errors).join('\n')));
        QCOMPARE(s->instances.first().expectedUpdateS, (QList<double>{1, 0, 4}));
        QString error;
        const EngineConfig config =
            engineConfigFor(*s, VariantSpec{"all", QJsonValue("all")}, 1, &error);
        QCOMPARE(config.instances.front().staleAfterS, (std::vector<double>{2, 0, 8}));
        // Written out and read again: the same scenario.
        const auto again = parse(scenarioToJson(*s), &errors);
        QVERIFY(again);
        QCOMPARE(*again, *s);
        // 0 for every tag: nothing expected.
        s = parse(scenario(0), &errors);
        QVERIFY(s);
        QVERIFY(s->instances.first().expectedUpdateS.isEmpty());
    }

    void scenarioRules_data()
    {
        QTest::addColumn<QJsonValue>("expected");
        QTest::addColumn<QJsonValue>("factor");
        QTest::addColumn<QString>("message");
        QTest::newRow("wrong count")
            << QJsonValue(QJsonArray{1, 2}) << QJsonValue(QJsonValue::Undefined)
            << QString("x.json: $.instances[0].expected_update_s: must list one period per "
                       "tag (3) (got 2)");
        QTest::newRow("text in list")
            << QJsonValue(QJsonArray{1, "2", 3}) << QJsonValue(QJsonValue::Undefined)
            << QString("x.json: $.instances[0].expected_update_s[1]: expected number, got "
                       "string");
        QTest::newRow("too long")
            << QJsonValue(90000) << QJsonValue(QJsonValue::Undefined)
            << QString("x.json: $.instances[0].expected_update_s: must be <= 86400 s (got "
                       "90000)");
        QTest::newRow("factor") << QJsonValue(1) << QJsonValue(2000)
                                << QString("x.json: $.stale_factor: must be <= 1000 (got 2000)");
    }
    void scenarioRules()
    {
        QFETCH(QJsonValue, expected);
        QFETCH(QJsonValue, factor);
        QFETCH(QString, message);
        QList<ScenarioError> errors;
        QVERIFY(!parse(scenario(expected, factor), &errors));
        QVERIFY2(messages(errors).contains(message), qPrintable(messages(errors).join('\n')));
    }
};

QTEST_GUILESS_MAIN(TestExpectedUpdates)
#include "tst_expected_updates.moc"
