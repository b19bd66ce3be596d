#pragma once
// The protective levers (docs/ARCHITECTURE.md), switchable at run time and named by preset.
// JSON form: a preset name ("lever1"), or an object that starts from "preset" (from
// "levers-off" when absent, so an inline set says exactly what it turns on) and overrides
// single levers:
//   {"preset": "lever1", "bulk_supervisory": true, "session_command_timeout_ms": 30000,
//    "recovery": false | true | {"strategy": "simple|exponential|instant|none",
//                                "fail_handler": "simple|windowed", "recovery_seconds": 20,
//                                "initial_seconds": 5, "max_seconds": 300, "multiplier": 2,
//                                "failures_to_enter_recovery": 10,
//                                "failures_window_seconds": 100, "enabled": true}}
// A recovery object overrides the base set's recovery parameters and turns the gate on
// unless it says "enabled": false; `true` turns it on with the base parameters.

#include "client/defaults.h"
#include "client/recovery_gate.h"

#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

namespace stormwatch {

struct LeverSet {
    bool inflightGuard = true;   // Lever 1: one outstanding subscribe until the ceiling
    bool backoff = true;         // Lever 1: exponential backoff + jitter
    bool confirmedFlag = true;   // closes the cancel race
    bool bulkSupervisory = true; // Lever 2: SubscribeBulk{supervisory} when advertised
    int sessionCommandTimeoutMs =
        defaults::kSessionCommandTimeoutMs; // Lever 3: sent at OpenSession; 0 = not sent
    // Default-constructed LeverSet is the "all" preset, so the gate is on here (a bare
    // RecoveryConfig is off).
    RecoveryConfig recovery{.enabled = true};
    bool alarmGuard = true; // guard + backoff on the alarm subscription too
    bool coalesce = true;   // connection layer merges identical concurrent subscribes
    // Lever 1's follow-ups, on in lever1 and above (the incident analysis credits them to
    // Lever 1; off reproduces its plan as first written, docs/background.md):
    // after a reconnect the guard re-subscribes and retries until confirmed, instead of the
    // connection's one-shot transparent re-subscribe whose failure nobody retries;
    bool resubscribeGuard = true;
    // a subscribe held while disconnected is dropped once its guard supersedes it, so only
    // the latest goes out on reconnect.
    bool dropSuperseded = true;
    // gRPC's retry throttling (gRFC A6), one token bucket per gateway connection
    // (RetryBudget): off in every preset, so "all" is the incident's cure and this one is
    // tried on top of it.
    bool retryBudget = false;

    bool operator==(const LeverSet&) const = default;
};

// Lever ranges (docs/scenario-format.md, "Levers"), for the file and the Levers dock alike: a
// session command timeout of at most a day (it travels as a Duration and comes back as the
// session's ceiling), recovery periods of at most a day, a backoff multiplier of at most 100.
namespace lever_limits {
inline constexpr int kMaxSessionCommandTimeoutMs = 86'400'000;
inline constexpr double kMaxRecoverySeconds = 86400;
inline constexpr double kMaxMultiplier = 100;
} // namespace lever_limits

// The on/off levers, one row each: the JSON key, the member, where the Levers dock groups
// it, its label, its names in describeLevers and in a report's sentences, what it does in
// plain words and the first
// preset that turns it on. The presets, the reader, the writer, describeLevers, the report
// and the dock iterate this table, so a new switch needs one row here.
enum class LeverGroup { Lever1, Lever2, FollowUps, RetryBudget };
// The presets in order, each adding levers to the one before.
enum class LeverPreset { LeversOff, Lever1, Lever1And2, All, None };
struct SwitchLever {
    const char* key; // "inflight_guard"
    bool LeverSet::*member;
    LeverGroup group;
    const char* label;       // "In-flight guard"
    const char* shortName;   // "guard", in describeLevers' line
    const char* phrase;      // "in-flight guard", as a report's sentence names it
    const char* description; // the dock's tooltip
    LeverPreset onFrom;      // on in this preset and the ones after it; None = in no preset
};
const std::vector<SwitchLever>& switchLevers();

QStringList leverPresetNames(); // levers-off, lever1, lever1+2, all
// Unknown name ⇒ nullopt and an error listing the valid names.
std::optional<LeverSet> leverPreset(const QString& name, QString* error);

QStringList leverKeys();         // the object form's keys, "preset" first
QStringList recoveryLeverKeys(); // the recovery object's keys

// Unknown key ⇒ an error listing the valid keys; wrong type or range ⇒ an error naming the
// key. All problems found are joined with "; ".
std::optional<LeverSet> leverSetFromJson(const QJsonValue& json, QString* error);
// Every lever spelled out (no "preset"), so it round-trips through leverSetFromJson.
QJsonObject leverSetToJson(const LeverSet& levers);

// One line for logs and reports: "guard on, backoff on, confirmed on, bulk on,
// cmd-timeout 60 s, recovery windowed(10 in 100 s)/simple(60 s), alarm guard on, coalesce on"
QString describeLevers(const LeverSet& levers);
// The preset this set equals, if any.
std::optional<QString> presetNameOf(const LeverSet& levers);

} // namespace stormwatch
