#pragma once
// Client options (DESIGN.md "Options"): validated at start; a bad value names the key, the
// value and the rule. Keys are exactly the DESIGN.md names, in JSON and on the command line
// (--option KEY=VALUE).

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>
#include <optional>

namespace stormwatch {

struct ClientOptions {
    int tagSubscribeRetryIntervalMs = 5000;     // backoff floor (and fixed interval, lever off)
    int tagSubscribeRetryMaxIntervalMs = 60000; // backoff ceiling; == floor makes it fixed
    // How long an unanswered subscribe blocks a duplicate for the same connection.
    int tagSubscribeInFlightCeilingMs = 45000;
    int mxCommandTimeoutMs = 60000;
    int mxSupervisoryAdviseParallelism = 16; // legacy fan-out: AdviseSupervisory in flight
    double recoverySeconds = 60;
    int failuresToEnterRecovery = 10;
    double failuresWindowSeconds = 100;
    int reconnectBackoffFloorMs = 1000;
    int reconnectBackoffMaxMs = 30000;
    int alarmSubscribeRetryIntervalMs = 5000;

    bool operator==(const ClientOptions&) const = default;
};

struct OptionError {
    QString key;
    QString value;
    QString rule;
    // "<key> = <value> is invalid: <rule>", e.g. "TagSubscribeRetryMaxIntervalMs = 4999 is
    // invalid: must be >= TagSubscribeRetryIntervalMs (5000)"
    QString message() const;
};

// Every rule the options break, in key order; empty when valid.
QList<OptionError> validate(const ClientOptions& options);

// Starts from the defaults and applies the object's keys, then validates. Unknown key ⇒ an
// error listing the valid keys; wrong type ⇒ an error naming key, value and expected type.
// nullopt when anything is wrong (all errors are appended to `errors` when given).
std::optional<ClientOptions> optionsFromJson(const QJsonObject& json, QList<OptionError>* errors);

// Sets one key from text (the command line's --option KEY=VALUE). Checks the key and the
// type only: rules that relate two keys depend on the order keys are given, so run
// validate() once all are set.
bool setOption(ClientOptions& options, const QString& key, const QString& value,
               OptionError* error);

QJsonObject optionsToJson(const ClientOptions& options);
QStringList optionKeys(); // in DESIGN.md order

} // namespace stormwatch
