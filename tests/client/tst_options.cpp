// ClientOptions: every validation rule at its boundary, JSON parsing and the command-line
// setter, and the error messages that name key, value and rule.

#include "client/gateway_connection.h"
#include "client/options.h"
#include "client/tag_subscribe_guard.h"

#include <QJsonArray>
#include <QTest>

using namespace stormwatch;

class TestOptions : public QObject {
    Q_OBJECT
private slots:
    void defaultsAreValid()
    {
        const ClientOptions o;
        QVERIFY(validate(o).isEmpty());
        QCOMPARE(o.tagSubscribeRetryIntervalMs, 5000);
        QCOMPARE(o.tagSubscribeRetryMaxIntervalMs, 60000);
        QCOMPARE(o.tagSubscribeInFlightCeilingMs, 45000);
        QCOMPARE(o.mxSupervisoryAdviseParallelism, 16);
    }

    void ruleRejectsBoundaryBadValue_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("rule");
        QTest::newRow("interval 0") << "TagSubscribeRetryIntervalMs"
                                    << "0"
                                    << "must be 10..3600000";
        QTest::newRow("interval -1") << "TagSubscribeRetryIntervalMs"
                                     << "-1"
                                     << "must be 10..3600000";
        // A 1 ms retry floods the gateway's queue faster than a run can record it
        QTest::newRow("interval 9") << "TagSubscribeRetryIntervalMs"
                                    << "9"
                                    << "must be 10..3600000";
        QTest::newRow("max above an hour") << "TagSubscribeRetryMaxIntervalMs"
                                           << "3600001"
                                           << "must be <= 3600000";
        QTest::newRow("ceiling above a day") << "TagSubscribeInFlightCeilingMs"
                                             << "86400001"
                                             << "must be 1..86400000";
        QTest::newRow("ceiling margin above an hour") << "TagSubscribeInFlightCeilingMarginMs"
                                                      << "3600001"
                                                      << "must be 0..3600000";
        QTest::newRow("command timeout above a day") << "MxCommandTimeoutMs"
                                                     << "86400001"
                                                     << "must be 1..86400000";
        QTest::newRow("reconnect max above an hour") << "ReconnectBackoffMaxMs"
                                                     << "3600001"
                                                     << "must be <= 3600000";
        // 2 × 2^30 ms overflowed the pre-fix alarm actor's fixed interval
        QTest::newRow("alarm interval 2^30") << "AlarmSubscribeRetryIntervalMs"
                                             << "1073741824"
                                             << "must be 10..3600000";
        QTest::newRow("alarm interval INT_MAX") << "AlarmSubscribeRetryIntervalMs"
                                                << "2147483647"
                                                << "must be 10..3600000";
        QTest::newRow("max below interval") << "TagSubscribeRetryMaxIntervalMs"
                                            << "4999"
                                            << "must be >= TagSubscribeRetryIntervalMs (5000)";
        QTest::newRow("ceiling 0") << "TagSubscribeInFlightCeilingMs"
                                   << "0"
                                   << "must be 1..86400000";
        QTest::newRow("command timeout 0") << "MxCommandTimeoutMs"
                                           << "0"
                                           << "must be 1..86400000";
        QTest::newRow("parallelism 0") << "MxSupervisoryAdviseParallelism"
                                       << "0"
                                       << "must be 1..256";
        QTest::newRow("parallelism 257") << "MxSupervisoryAdviseParallelism"
                                         << "257"
                                         << "must be 1..256";
        QTest::newRow("ceiling margin -1") << "TagSubscribeInFlightCeilingMarginMs"
                                           << "-1"
                                           << "must be 0..3600000";
        QTest::newRow("reconnect floor 0") << "ReconnectBackoffFloorMs"
                                           << "0"
                                           << "must be 10..3600000";
        QTest::newRow("reconnect max below floor") << "ReconnectBackoffMaxMs"
                                                   << "999"
                                                   << "must be >= ReconnectBackoffFloorMs (1000)";
        QTest::newRow("alarm interval 0") << "AlarmSubscribeRetryIntervalMs"
                                          << "0"
                                          << "must be 10..3600000";
    }
    void ruleRejectsBoundaryBadValue()
    {
        QFETCH(QString, key);
        QFETCH(QString, value);
        QFETCH(QString, rule);
        ClientOptions o;
        OptionError setError;
        QVERIFY2(setOption(o, key, value, &setError), qPrintable(setError.message()));
        const QList<OptionError> errors = validate(o);
        QCOMPARE(errors.size(), 1);
        QCOMPARE(errors[0].key, key);
        QCOMPARE(errors[0].value, value);
        QCOMPARE(errors[0].rule, rule);
        QCOMPARE(errors[0].message(), key + " = " + value + " is invalid: " + rule);
    }

    void ruleAcceptsBoundaryGoodValue_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");
        QTest::newRow("interval 10") << "TagSubscribeRetryIntervalMs"
                                     << "10";
        QTest::newRow("max an hour") << "TagSubscribeRetryMaxIntervalMs"
                                     << "3600000";
        QTest::newRow("max == interval") << "TagSubscribeRetryMaxIntervalMs"
                                         << "5000";
        QTest::newRow("ceiling 1") << "TagSubscribeInFlightCeilingMs"
                                   << "1";
        QTest::newRow("ceiling a day") << "TagSubscribeInFlightCeilingMs"
                                       << "86400000";
        QTest::newRow("command timeout 1") << "MxCommandTimeoutMs"
                                           << "1";
        QTest::newRow("command timeout a day") << "MxCommandTimeoutMs"
                                               << "86400000";
        QTest::newRow("parallelism 1") << "MxSupervisoryAdviseParallelism"
                                       << "1";
        QTest::newRow("parallelism 256") << "MxSupervisoryAdviseParallelism"
                                         << "256";
        QTest::newRow("ceiling margin 0") << "TagSubscribeInFlightCeilingMarginMs"
                                          << "0";
        QTest::newRow("ceiling margin an hour") << "TagSubscribeInFlightCeilingMarginMs"
                                                << "3600000";
        QTest::newRow("reconnect floor 10") << "ReconnectBackoffFloorMs"
                                            << "10";
        QTest::newRow("reconnect max an hour") << "ReconnectBackoffMaxMs"
                                               << "3600000";
        QTest::newRow("reconnect max == floor") << "ReconnectBackoffMaxMs"
                                                << "1000";
        QTest::newRow("alarm interval 10") << "AlarmSubscribeRetryIntervalMs"
                                           << "10";
        QTest::newRow("alarm interval an hour") << "AlarmSubscribeRetryIntervalMs"
                                                << "3600000";
    }
    void ruleAcceptsBoundaryGoodValue()
    {
        QFETCH(QString, key);
        QFETCH(QString, value);
        ClientOptions o;
        QVERIFY(setOption(o, key, value, nullptr));
        QVERIFY(o != ClientOptions{});
        const QList<OptionError> errors = validate(o);
        QVERIFY2(errors.isEmpty(), qPrintable(errors.value(0).message()));
    }

    // An interval above an hour breaks its own range, and the backoff max, which
    // must lie between the interval and an hour, cannot follow it there.
    void intervalAboveAnHourBreaksBothRules()
    {
        ClientOptions o;
        o.tagSubscribeRetryIntervalMs = 3600001;
        o.tagSubscribeRetryMaxIntervalMs = 3600001;
        const QList<OptionError> errors = validate(o);
        QCOMPARE(errors.size(), 2);
        QCOMPARE(errors[0].message(),
                 QString("TagSubscribeRetryIntervalMs = 3600001 is invalid: must be 10..3600000"));
        QCOMPARE(
            errors[1].message(),
            QString("TagSubscribeRetryMaxIntervalMs = 3600001 is invalid: must be <= 3600000"));
    }

    // A value quoted in an error is cut: a file may hold a megabyte where a number belongs.
    void echoedValuesAreCut()
    {
        QList<OptionError> errors;
        QVERIFY(!optionsFromJson(
            QJsonObject{{"MxCommandTimeoutMs", QString(1 << 20, 'x')}, {QString(1 << 20, 'k'), 1}},
            &errors));
        QCOMPARE(errors.size(), 2);
        for (const OptionError& e : errors)
            QVERIFY2(e.value.size() <= 70, qPrintable(e.value.left(100)));
    }

    // Lever 1's plan, task 1 (docs/background.md): a backoff maximum below the floor is named
    // in the message.
    void maxIntervalBelowFloorMessageNamesBothKeys()
    {
        ClientOptions o;
        o.tagSubscribeRetryMaxIntervalMs = 4999;
        const QList<OptionError> errors = validate(o);
        QCOMPARE(errors.size(), 1);
        QCOMPARE(errors[0].message(),
                 QString("TagSubscribeRetryMaxIntervalMs = 4999 is invalid: must be >= "
                         "TagSubscribeRetryIntervalMs (5000)"));
    }

    void everyBrokenRuleIsReported()
    {
        ClientOptions o;
        o.tagSubscribeInFlightCeilingMs = 0;
        o.mxSupervisoryAdviseParallelism = 300;
        o.alarmSubscribeRetryIntervalMs = -1;
        const QList<OptionError> errors = validate(o);
        QCOMPARE(errors.size(), 3);
        QCOMPARE(errors[0].key, QString("TagSubscribeInFlightCeilingMs"));
        QCOMPARE(errors[1].key, QString("MxSupervisoryAdviseParallelism"));
        QCOMPARE(errors[2].key, QString("AlarmSubscribeRetryIntervalMs"));
    }

    void jsonStartsFromDefaultsAndAppliesKeys()
    {
        QList<OptionError> errors;
        const auto o = optionsFromJson(
            QJsonObject{{"TagSubscribeRetryIntervalMs", 200}, {"MxCommandTimeoutMs", 20500}},
            &errors);
        QVERIFY(errors.isEmpty());
        QVERIFY(o.has_value());
        ClientOptions expected;
        expected.tagSubscribeRetryIntervalMs = 200;
        expected.mxCommandTimeoutMs = 20500;
        QVERIFY(*o == expected);
    }

    // Defect 7: these validated but were never read; the recovery lever carries them.
    void recoveryKeysPointToTheRecoveryLever()
    {
        for (const char* key :
             {"RecoverySeconds", "FailuresToEnterRecovery", "FailuresWindowSeconds"}) {
            QList<OptionError> errors;
            QVERIFY(!optionsFromJson(QJsonObject{{key, 10}}, &errors).has_value());
            QCOMPARE(errors.size(), 1);
            QVERIFY2(errors[0].rule.contains("recovery lever"), qPrintable(errors[0].message()));
            QVERIFY(!optionKeys().contains(key));
        }
    }

    // One source of defaults: the options, the guard's timing and the connection's config.
    void defaultsHaveOneSource()
    {
        const ClientOptions o;
        const GuardTiming t;
        const ConnectionConfig c;
        QCOMPARE(Duration(std::chrono::milliseconds(o.tagSubscribeRetryIntervalMs)), t.floor);
        QCOMPARE(Duration(std::chrono::milliseconds(o.tagSubscribeRetryMaxIntervalMs)), t.max);
        QCOMPARE(Duration(std::chrono::milliseconds(o.tagSubscribeInFlightCeilingMs)), t.ceiling);
        QCOMPARE(Duration(std::chrono::milliseconds(o.mxCommandTimeoutMs)), c.commandTimeout);
        QCOMPARE(o.mxSupervisoryAdviseParallelism, c.adviseParallelism);
        QCOMPARE(Duration(std::chrono::milliseconds(o.reconnectBackoffFloorMs)), c.reconnectFloor);
        QCOMPARE(Duration(std::chrono::milliseconds(o.reconnectBackoffMaxMs)), c.reconnectMax);
    }

    void jsonUnknownKeyListsValidKeys()
    {
        QList<OptionError> errors;
        const auto o = optionsFromJson(QJsonObject{{"TagSubscribeRetryMs", 200}}, &errors);
        QVERIFY(!o.has_value());
        QCOMPARE(errors.size(), 1);
        QCOMPARE(errors[0].key, QString("TagSubscribeRetryMs"));
        for (const QString& key : optionKeys())
            QVERIFY2(errors[0].message().contains(key), qPrintable(errors[0].message()));
    }

    // A key or value the user (or a hostile file) chose reaches logs and dialogs through
    // message(): one line, no terminal escapes, and a huge one costs a short line.
    void messageCutsAndEscapesWhatTheUserChose()
    {
        const QString key = QString("Tag\n\x1b[31mForged") + QString(100000, QChar('k'));
        const QString value = QString("5\r\n") + QString(100000, QChar('9'));
        ClientOptions o;
        OptionError error;
        QVERIFY(!setOption(o, key, value, &error));
        const QString message = error.message();
        QVERIFY2(!message.contains(QChar('\n')) && !message.contains(QChar('\r')) &&
                     !message.contains(QChar(0x1b)),
                 qPrintable(message.left(200)));
        QVERIFY2(message.contains("\\x1b[31mForged"), qPrintable(message.left(200)));
        QVERIFY2(message.size() < 2000, qPrintable(QString::number(message.size())));
        QVERIFY2(message.contains("unknown option"), qPrintable(message.left(200)));
        // The fields themselves keep what was given (callers compare keys).
        QCOMPARE(error.key, key);
    }

    void jsonWrongTypeNamesKeyValueAndType()
    {
        QList<OptionError> errors;
        const auto o = optionsFromJson(QJsonObject{{"TagSubscribeRetryIntervalMs", "5000"},
                                                   {"MxCommandTimeoutMs", 1500.5},
                                                   {"ReconnectBackoffFloorMs", true},
                                                   {"ReconnectBackoffMaxMs", QJsonArray{1}}},
                                       &errors);
        QVERIFY(!o.has_value());
        QCOMPARE(errors.size(), 4);
        QStringList messages;
        for (const OptionError& e : errors)
            messages << e.message();
        QVERIFY(messages.contains(
            "TagSubscribeRetryIntervalMs = \"5000\" is invalid: must be a whole number"));
        QVERIFY(
            messages.contains("MxCommandTimeoutMs = 1500.5 is invalid: must be a whole number"));
        QVERIFY(
            messages.contains("ReconnectBackoffFloorMs = true is invalid: must be a whole number"));
        QVERIFY(
            messages.contains("ReconnectBackoffMaxMs = [1] is invalid: must be a whole number"));
    }

    void jsonAppliesTheRules()
    {
        QList<OptionError> errors;
        const auto o = optionsFromJson(QJsonObject{{"TagSubscribeRetryIntervalMs", 10000},
                                                   {"TagSubscribeRetryMaxIntervalMs", 8000}},
                                       &errors);
        QVERIFY(!o.has_value());
        QCOMPARE(errors.size(), 1);
        QCOMPARE(errors[0].message(),
                 QString("TagSubscribeRetryMaxIntervalMs = 8000 is invalid: must be >= "
                         "TagSubscribeRetryIntervalMs (10000)"));
    }

    void jsonRoundTrip()
    {
        ClientOptions o;
        o.tagSubscribeInFlightCeilingMs = 200;
        o.tagSubscribeInFlightCeilingMarginMs = 30;
        o.reconnectBackoffMaxMs = 5000;
        const QJsonObject json = optionsToJson(o);
        QCOMPARE(json.keys().size(), optionKeys().size());
        for (const QString& key : optionKeys())
            QVERIFY2(json.contains(key), qPrintable(key));
        QList<OptionError> errors;
        const auto back = optionsFromJson(json, &errors);
        QVERIFY(errors.isEmpty());
        QVERIFY(back.has_value() && *back == o);
    }

    void setOptionParsesCommandLineValues()
    {
        ClientOptions o;
        QVERIFY(setOption(o, "TagSubscribeInFlightCeilingMs", "200", nullptr));
        QVERIFY(!setOption(o, "TagSubscribeInFlightCeilingMarginMs", "12.5", nullptr));
        QCOMPARE(o.tagSubscribeInFlightCeilingMs, 200);

        const ClientOptions before = o;
        OptionError error;
        QVERIFY(!setOption(o, "MxCommandTimeoutMs", "60s", &error));
        QCOMPARE(error.message(),
                 QString("MxCommandTimeoutMs = 60s is invalid: must be a whole number"));
        QVERIFY(!setOption(o, "MxCommandTimeoutMs", "1.5", &error));
        QVERIFY(!setOption(o, "ReconnectBackoffMaxMs", "abc", &error));
        QCOMPARE(error.rule, QString("must be a whole number"));
        QVERIFY(!setOption(o, "reconnectbackoffmaxms", "20", &error)); // keys are exact
        QVERIFY(error.message().contains("valid keys: TagSubscribeRetryIntervalMs,"));
        QVERIFY(o == before);
    }

    void optionKeysAreTheDesignNames()
    {
        QCOMPARE(optionKeys(),
                 QStringList({"TagSubscribeRetryIntervalMs", "TagSubscribeRetryMaxIntervalMs",
                              "TagSubscribeInFlightCeilingMs",
                              "TagSubscribeInFlightCeilingMarginMs", "MxCommandTimeoutMs",
                              "MxSupervisoryAdviseParallelism", "ReconnectBackoffFloorMs",
                              "ReconnectBackoffMaxMs", "AlarmSubscribeRetryIntervalMs"}));
    }
};

QTEST_GUILESS_MAIN(TestOptions)
#include "tst_options.moc"
