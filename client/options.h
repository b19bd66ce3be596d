#pragma once
// Client options: validated at start; a bad value names the key, the value and the rule.
// Keys are exactly the bridge's configuration names, in JSON and on the command line
// (--option KEY=VALUE).

#include "client/defaults.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>
#include <optional>

namespace stormwatch {

// Every option's range (docs/scenario-format.md lists them with the scenario fields):
// intervals are at most an hour and timeouts at most a day, so twice an interval, a backoff
// step or a deadline in microseconds never overflows; retry intervals are at least 10 ms,
// the fastest storm a test needs (a 1 ms retry floods the gateway's queue faster than any
// run can record it). A scenario also bounds the subscribes its whole run can send (the
// run budget, scenario_parser.cpp).
namespace option_limits {
inline constexpr int kMinRetryIntervalMs = 10;   // tag and alarm retry, reconnect floor
inline constexpr int kMaxIntervalMs = 3'600'000; // an hour: retry, backoff max, margin
inline constexpr int kMaxTimeoutMs = 86'400'000; // a day: in-flight ceiling, command timeout
inline constexpr int kMaxAdviseParallelism = 256;
} // namespace option_limits

struct ClientOptions {
    int tagSubscribeRetryIntervalMs =
        defaults::kTagSubscribeRetryIntervalMs; // backoff floor (and fixed interval, lever off)
    int tagSubscribeRetryMaxIntervalMs =
        defaults::kTagSubscribeRetryMaxIntervalMs; // == floor makes it fixed
    // How long an unanswered subscribe blocks a duplicate for the same connection, at the
    // least; the effective ceiling is max(this, echoed session command timeout + margin).
    int tagSubscribeInFlightCeilingMs = defaults::kTagSubscribeInFlightCeilingMs;
    int tagSubscribeInFlightCeilingMarginMs = defaults::kTagSubscribeInFlightCeilingMarginMs;
    // The client's own deadline on every Invoke: a call the gateway has not answered by
    // then fails DEADLINE_EXCEEDED at the client (a gateway that never answers cannot
    // hold a subscribe, a coalesced caller or a fan-out slot forever).
    int mxCommandTimeoutMs = defaults::kMxCommandTimeoutMs;
    int mxSupervisoryAdviseParallelism =
        defaults::kMxSupervisoryAdviseParallelism; // legacy fan-out: AdviseSupervisory in flight
    int reconnectBackoffFloorMs = defaults::kReconnectBackoffFloorMs;
    int reconnectBackoffMaxMs = defaults::kReconnectBackoffMaxMs;
    int alarmSubscribeRetryIntervalMs = defaults::kAlarmSubscribeRetryIntervalMs;

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
QStringList optionKeys(); // in the order of the ClientOptions fields above

} // namespace stormwatch
