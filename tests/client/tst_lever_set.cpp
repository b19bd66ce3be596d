// LeverSet: the presets' exact contents, the JSON form (preset name or object with
// overrides), its errors, round trip, and the one-line description.

#include "client/lever_set.h"
#include "client/options.h"
#include "test_paths.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace stormwatch;

namespace {

LeverSet preset(const QString& name)
{
    QString error;
    const auto s = leverPreset(name, &error);
    if (!s)
        qFatal("%s", qPrintable(error));
    return *s;
}

std::optional<LeverSet> parse(const char* json, QString* error)
{
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray("[") + json + "]", &pe);
    if (pe.error != QJsonParseError::NoError)
        qFatal("bad test JSON: %s", json);
    return leverSetFromJson(doc.array().at(0), error);
}

} // namespace

class TestLeverSet : public QObject {
    Q_OBJECT
private slots:
    void presetNamesAreTheDesignOnes()
    {
        QCOMPARE(leverPresetNames(), QStringList({"levers-off", "lever1", "lever1+2", "all"}));
    }

    void leversOffPresetTurnsEverythingOff()
    {
        const LeverSet s = preset("levers-off");
        QVERIFY(!s.inflightGuard);
        QVERIFY(!s.backoff);
        QVERIFY(!s.confirmedFlag);
        QVERIFY(!s.bulkSupervisory);
        QCOMPARE(s.sessionCommandTimeoutMs, 0);
        QVERIFY(!s.recovery.enabled);
        QVERIFY(!s.alarmGuard);
        QVERIFY(!s.coalesce);
        QVERIFY(!s.resubscribeGuard);
        QVERIFY(!s.dropSuperseded);
    }

    // Lever 1 with its two follow-ups (what the incident analysis claims of Lever 1,
    // docs/background.md).
    void lever1PresetIsGuardBackoffConfirmedAndItsFollowUps()
    {
        LeverSet expected = preset("levers-off");
        expected.inflightGuard = expected.backoff = expected.confirmedFlag = true;
        expected.resubscribeGuard = expected.dropSuperseded = true;
        QVERIFY(preset("lever1") == expected);
        QVERIFY(preset("all").resubscribeGuard && preset("all").dropSuperseded);
    }

    void lever12PresetAddsBulkSupervisory()
    {
        LeverSet expected = preset("lever1");
        QVERIFY(!expected.bulkSupervisory);
        expected.bulkSupervisory = true;
        QVERIFY(preset("lever1+2") == expected);
    }

    void allPresetTurnsEverythingOnWithOptionDefaults()
    {
        const LeverSet s = preset("all");
        QVERIFY(s.inflightGuard && s.backoff && s.confirmedFlag && s.bulkSupervisory);
        QVERIFY(s.alarmGuard && s.coalesce);
        QCOMPARE(s.sessionCommandTimeoutMs, 60000);
        QVERIFY(s.recovery.enabled);
        QCOMPARE(s.recovery.strategy, RecoveryConfig::Strategy::Simple);
        QCOMPARE(s.recovery.failHandler, RecoveryConfig::FailHandler::Windowed);
        QCOMPARE(s.recovery.recoverySeconds, 60.0);
        QCOMPARE(s.recovery.failuresToEnterRecovery, 10);
        QCOMPARE(s.recovery.failuresWindowSeconds, 100.0);
        QVERIFY(s == LeverSet{}); // a default LeverSet is "all"
    }

    void unknownPresetErrorListsValidNames()
    {
        QString error;
        QVERIFY(!leverPreset("lever2", &error));
        QCOMPARE(error, QString("unknown lever preset 'lever2'; valid presets: levers-off, "
                                "lever1, lever1+2, all"));
        QString jsonError;
        QVERIFY(!parse(R"({"preset": "everything"})", &jsonError));
        for (const QString& name : leverPresetNames())
            QVERIFY2(jsonError.contains(name), qPrintable(jsonError));
    }

    void presetNameStringParsesToThePreset()
    {
        for (const QString& name : leverPresetNames()) {
            QString error;
            const auto s = leverSetFromJson(QJsonValue(name), &error);
            QVERIFY2(s.has_value(), qPrintable(error));
            QVERIFY(*s == preset(name));
        }
    }

    void inlineObjectStartsFromLeversOff()
    {
        QString error;
        const auto s = parse(R"({"backoff": true})", &error);
        QVERIFY2(s.has_value(), qPrintable(error));
        LeverSet expected = preset("levers-off");
        expected.backoff = true;
        QVERIFY(*s == expected);
    }

    void overrideOnTopOfPreset()
    {
        QString error;
        const auto s = parse(R"({"preset": "lever1", "inflight_guard": false,
                                 "bulk_supervisory": true, "session_command_timeout_ms": 30000,
                                 "recovery": {"recovery_seconds": 20}})",
                             &error);
        QVERIFY2(s.has_value(), qPrintable(error));
        LeverSet expected = preset("lever1");
        expected.inflightGuard = false;
        expected.bulkSupervisory = true;
        expected.sessionCommandTimeoutMs = 30000;
        expected.recovery.enabled = true;
        expected.recovery.recoverySeconds = 20;
        QVERIFY(*s == expected);
    }

    void recoveryObjectParsesEveryField()
    {
        QString error;
        const auto s = parse(R"({"recovery": {"strategy": "exponential", "fail_handler": "simple",
                                 "recovery_seconds": 15, "initial_seconds": 2, "max_seconds": 64,
                                 "multiplier": 3, "failures_to_enter_recovery": 4,
                                 "failures_window_seconds": 30}})",
                             &error);
        QVERIFY2(s.has_value(), qPrintable(error));
        const RecoveryConfig& r = s->recovery;
        QVERIFY(r.enabled);
        QCOMPARE(r.strategy, RecoveryConfig::Strategy::Exponential);
        QCOMPARE(r.failHandler, RecoveryConfig::FailHandler::Simple);
        QCOMPARE(r.recoverySeconds, 15.0);
        QCOMPARE(r.initialSeconds, 2.0);
        QCOMPARE(r.maxSeconds, 64.0);
        QCOMPARE(r.multiplier, 3.0);
        QCOMPARE(r.failuresToEnterRecovery, 4);
        QCOMPARE(r.failuresWindowSeconds, 30.0);
    }

    void recoveryTrueAndFalse()
    {
        QString error;
        const auto on = parse(R"({"recovery": true})", &error);
        QVERIFY(on.has_value());
        QVERIFY(on->recovery == RecoveryConfig{.enabled = true});
        const auto off = parse(R"({"preset": "all", "recovery": false})", &error);
        QVERIFY(off.has_value());
        QVERIFY(!off->recovery.enabled);
        QVERIFY(off->inflightGuard);
    }

    void recoveryBadStrategyNameIsRejected()
    {
        QString error;
        QVERIFY(!parse(R"({"recovery": {"strategy": "linear"}})", &error));
        QCOMPARE(error, QString("recovery.strategy \"linear\" is invalid; valid strategies: "
                                "instant, none, simple, exponential"));
        QVERIFY(!parse(R"({"recovery": {"fail_handler": "sliding"}})", &error));
        QVERIFY2(error.startsWith("recovery.fail_handler"), qPrintable(error));
        QVERIFY(!parse(R"({"recovery": {"strategy": 2}})", &error));
        QVERIFY2(error.startsWith("recovery.strategy 2 is invalid"), qPrintable(error));
    }

    void recoveryOutOfRangeValuesNameTheKey_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("key");
        QTest::newRow("max below initial")
            << R"({"recovery": {"initial_seconds": 10, "max_seconds": 5}})"
            << "recovery.max_seconds";
        QTest::newRow("multiplier < 1") << R"({"recovery": {"multiplier": 0.5}})"
                                        << "recovery.multiplier";
        QTest::newRow("failures 0") << R"({"recovery": {"failures_to_enter_recovery": 0}})"
                                    << "recovery.failures_to_enter_recovery";
        QTest::newRow("failures 2.5") << R"({"recovery": {"failures_to_enter_recovery": 2.5}})"
                                      << "recovery.failures_to_enter_recovery";
        QTest::newRow("recovery 0") << R"({"recovery": {"recovery_seconds": 0}})"
                                    << "recovery.recovery_seconds";
        QTest::newRow("window string") << R"({"recovery": {"failures_window_seconds": "60"}})"
                                       << "recovery.failures_window_seconds";
        QTest::newRow("unknown recovery key") << R"({"recovery": {"seconds": 60}})"
                                              << "unknown recovery key 'seconds'";
        QTest::newRow("enabled not bool") << R"({"recovery": {"enabled": 1}})"
                                          << "recovery.enabled";
        // Every number has a ceiling, so a backoff step never overflows
        QTest::newRow("recovery 1e308")
            << R"({"recovery": {"recovery_seconds": 1e308}})"
            << "recovery.recovery_seconds must be > 0 and <= 86400 (got 1e+308)";
        QTest::newRow("initial above a day")
            << R"({"recovery": {"initial_seconds": 86401, "max_seconds": 86401}})"
            << "recovery.initial_seconds must be > 0 and <= 86400 (got 86401)";
        QTest::newRow("max above a day") << R"({"recovery": {"max_seconds": 1e308}})"
                                         << "recovery.max_seconds must be <= 86400 (got 1e+308)";
        QTest::newRow("multiplier 1e308") << R"({"recovery": {"multiplier": 1e308}})"
                                          << "recovery.multiplier must be 1..100 (got 1e+308)";
        QTest::newRow("window 1e9")
            << R"({"recovery": {"failures_window_seconds": 1e9}})"
            << "recovery.failures_window_seconds must be > 0 and <= 86400 (got 1e+09)";
    }
    void recoveryOutOfRangeValuesNameTheKey()
    {
        QFETCH(QString, json);
        QFETCH(QString, key);
        QString error;
        QVERIFY(!parse(json.toUtf8().constData(), &error));
        QVERIFY2(error.startsWith(key), qPrintable(error));
    }

    // The largest value of every numeric lever is still accepted.
    void rangeMaximaAreAccepted()
    {
        QString error;
        const auto s = parse(R"({"session_command_timeout_ms": 86400000,
                                 "recovery": {"strategy": "exponential", "recovery_seconds": 86400,
                                              "initial_seconds": 86400, "max_seconds": 86400,
                                              "multiplier": 100, "failures_to_enter_recovery": 1000,
                                              "failures_window_seconds": 86400}})",
                             &error);
        QVERIFY2(s, qPrintable(error));
        QCOMPARE(s->sessionCommandTimeoutMs, 86400000);
        QCOMPARE(s->recovery.multiplier, 100.0);
    }

    void unknownKeyErrorListsValidKeys()
    {
        QString error;
        QVERIFY(!parse(R"({"preset": "all", "inflight-guard": false})", &error));
        QVERIFY2(error.startsWith("unknown lever key 'inflight-guard'"), qPrintable(error));
        for (const QString& key : leverKeys())
            QVERIFY2(error.contains(key), qPrintable(error));
    }

    void wrongTypeErrorNamesTheKey_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("expected");
        QTest::newRow("bool as string") << R"({"backoff": "yes"})"
                                        << R"(backoff must be true or false (got "yes"))";
        QTest::newRow("negative timeout") << R"({"session_command_timeout_ms": -1})"
                                          << "session_command_timeout_ms must be a whole number "
                                             "0..86400000 (0 = not sent) (got -1)";
        QTest::newRow("fractional timeout") << R"({"session_command_timeout_ms": 1.5})"
                                            << "session_command_timeout_ms must be a whole number "
                                               "0..86400000 (0 = not sent) (got 1.5)";
        QTest::newRow("timeout above a day") << R"({"session_command_timeout_ms": 86400001})"
                                             << "session_command_timeout_ms must be a whole number "
                                                "0..86400000 (0 = not sent) (got 86400001)";
        QTest::newRow("timeout 1e308") << R"({"session_command_timeout_ms": 1e308})"
                                       << "session_command_timeout_ms must be a whole number "
                                          "0..86400000 (0 = not sent) (got 1e+308)";
        QTest::newRow("recovery as string")
            << R"({"recovery": "on"})"
            << R"(recovery must be true, false or an object (got "on"))";
        QTest::newRow("preset as number") << R"({"preset": 1})"
                                          << "preset must be a preset name (got 1)";
    }
    void wrongTypeErrorNamesTheKey()
    {
        QFETCH(QString, json);
        QFETCH(QString, expected);
        QString error;
        QVERIFY(!parse(json.toUtf8().constData(), &error));
        QCOMPARE(error, expected);
    }

    void neitherNameNorObjectIsRejected()
    {
        QString error;
        QVERIFY(!leverSetFromJson(QJsonValue(true), &error));
        QVERIFY2(error.contains("preset name") && error.contains("lever1+2"), qPrintable(error));
        QVERIFY(!leverSetFromJson(QJsonArray{"lever1"}, &error));
    }

    void severalProblemsAreReportedTogether()
    {
        QString error;
        QVERIFY(!parse(R"({"backoff": 1, "coalesce": null, "turbo": true})", &error));
        QVERIFY2(error.contains("backoff must be true or false (got 1)"), qPrintable(error));
        QVERIFY2(error.contains("coalesce must be true or false (got null)"), qPrintable(error));
        QVERIFY2(error.contains("unknown lever key 'turbo'"), qPrintable(error));
    }

    void jsonRoundTrip_data()
    {
        QTest::addColumn<int>("which");
        for (int i = 0; i < 8; ++i)
            QTest::newRow(qPrintable(QString::number(i))) << i;
    }
    void jsonRoundTrip()
    {
        QFETCH(int, which);
        LeverSet s;
        if (which < 4) {
            s = preset(leverPresetNames().at(which));
        } else if (which == 4) {
            s = preset("lever1");
            s.sessionCommandTimeoutMs = 1500;
            s.recovery = {.enabled = true,
                          .strategy = RecoveryConfig::Strategy::Exponential,
                          .failHandler = RecoveryConfig::FailHandler::Simple,
                          .initialSeconds = 2.5,
                          .maxSeconds = 40,
                          .multiplier = 1.5};
        } else if (which == 5) {
            s.recovery.enabled = false; // disabled but with "all"'s parameters kept
            s.recovery.recoverySeconds = 12;
        } else if (which == 6) {
            s.recovery.strategy = RecoveryConfig::Strategy::None;
            s.recovery.failuresToEnterRecovery = 1;
            s.coalesce = false;
        } else {
            s.recovery.strategy = RecoveryConfig::Strategy::Instant;
            s.confirmedFlag = false;
        }
        const QJsonObject json = leverSetToJson(s);
        QVERIFY(!json.contains("preset"));
        // Through text, as scenario files and reports carry it.
        const QByteArray text = QJsonDocument(json).toJson();
        QString error;
        const auto back = leverSetFromJson(QJsonDocument::fromJson(text).object(), &error);
        QVERIFY2(back.has_value(), qPrintable(error));
        QVERIFY2(*back == s, text.constData());
    }

    void describeLeversIsOneLine()
    {
        QCOMPARE(describeLevers(preset("all")),
                 QString("guard on, backoff on, confirmed on, bulk on, cmd-timeout 60 s, "
                         "recovery windowed(10 in 100 s)/simple(60 s), alarm guard on, "
                         "coalesce on, resubscribe guard on, drop superseded on, "
                         "retry budget off"));
        QCOMPARE(describeLevers(preset("levers-off")),
                 QString("guard off, backoff off, confirmed off, bulk off, cmd-timeout not sent, "
                         "recovery off, alarm guard off, coalesce off, resubscribe guard off, "
                         "drop superseded off, retry budget off"));
        LeverSet s = preset("lever1");
        s.sessionCommandTimeoutMs = 1500;
        s.recovery = {.enabled = true,
                      .strategy = RecoveryConfig::Strategy::Exponential,
                      .failHandler = RecoveryConfig::FailHandler::Simple};
        QCOMPARE(describeLevers(s),
                 QString("guard on, backoff on, confirmed on, bulk off, cmd-timeout 1.5 s, "
                         "recovery simple/exponential(5..300 s x2), alarm guard off, "
                         "coalesce off, resubscribe guard on, drop superseded on, "
                         "retry budget off"));
        s.retryBudget = true;
        QVERIFY(describeLevers(s).endsWith("drop superseded on, retry budget on"));
    }

    // docs/usage.md's lever table has a row for every lever of the table, so a new lever
    // cannot land undocumented.
    void everyLeverHasARowInTheUsageTable()
    {
        QFile doc(testpaths::sourceFile(QStringLiteral("docs/usage.md")));
        QVERIFY2(doc.open(QIODevice::ReadOnly), qPrintable(doc.fileName()));
        const QString text = QString::fromUtf8(doc.readAll());
        for (const QString& key : leverKeys()) {
            if (key == "preset")
                continue;
            QVERIFY2(text.contains("\n| `" + key + "` | "), qPrintable(key));
        }
    }

    // The new lever is off in every preset and read and written like every switch.
    void retryBudgetIsOffInEveryPresetAndRoundTrips()
    {
        for (const QString& name : leverPresetNames())
            QVERIFY2(!preset(name).retryBudget, qPrintable(name));
        QString error;
        const auto on =
            leverSetFromJson(QJsonObject{{"preset", "levers-off"}, {"retry_budget", true}}, &error);
        QVERIFY2(on.has_value(), qPrintable(error));
        LeverSet expected = preset("levers-off");
        expected.retryBudget = true;
        QCOMPARE(*on, expected);
        QCOMPARE(leverSetToJson(*on).value("retry_budget"), QJsonValue(true));
        QVERIFY(!presetNameOf(*on).has_value());
        QVERIFY(leverKeys().contains("retry_budget"));
    }

    void presetNameOfIdentifiesPresets()
    {
        for (const QString& name : leverPresetNames())
            QCOMPARE(presetNameOf(preset(name)), std::optional<QString>(name));
        LeverSet custom = preset("lever1+2");
        custom.coalesce = true;
        QCOMPARE(presetNameOf(custom), std::nullopt);
    }
};

QTEST_GUILESS_MAIN(TestLeverSet)
#include "tst_lever_set.moc"
