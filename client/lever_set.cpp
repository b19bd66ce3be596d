#include "client/lever_set.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <climits>
#include <cmath>
#include <utility>
#include <vector>

namespace stormwatch {

namespace {

using lever_limits::kMaxMultiplier;
using lever_limits::kMaxRecoverySeconds;
using lever_limits::kMaxSessionCommandTimeoutMs;

const std::vector<SwitchLever> kSwitchLevers = {
    {"inflight_guard", &LeverSet::inflightGuard, LeverGroup::Lever1, "In-flight guard", "guard",
     "in-flight guard",
     "Lever 1: one outstanding subscribe per (instance, connection) until the in-flight ceiling; "
     "off = re-send on every tick",
     LeverPreset::Lever1},
    {"backoff", &LeverSet::backoff, LeverGroup::Lever1, "Exponential backoff + jitter", "backoff",
     "backoff",
     "Lever 1: ×2 with ±20 % jitter up to the max interval; off = fixed "
     "TagSubscribeRetryIntervalMs",
     LeverPreset::Lever1},
    {"confirmed_flag", &LeverSet::confirmedFlag, LeverGroup::Lever1, "Confirmed flag", "confirmed",
     "confirmed flag", "Closes the cancel race: a tick queued when Success arrived does nothing",
     LeverPreset::Lever1},
    {"bulk_supervisory", &LeverSet::bulkSupervisory, LeverGroup::Lever2,
     "Bulk supervisory subscribe", "bulk", "bulk supervisory subscribe",
     "Lever 2: one SubscribeBulk{supervisory} when the gateway advertises "
     "bulk-subscribe-supervisory; off = AddItemBulk + N × AdviseSupervisory",
     LeverPreset::Lever1And2},
    {"alarm_guard", &LeverSet::alarmGuard, LeverGroup::FollowUps, "Alarm subscription guard",
     "alarm guard", "alarm guard",
     "Guard + backoff on the alarm subscription too; off = pre-fix alarm retry", LeverPreset::All},
    {"coalesce", &LeverSet::coalesce, LeverGroup::FollowUps, "Coalesce identical subscribes",
     "coalesce", "coalescing",
     "The connection layer merges identical concurrent subscribes across instances; off = each "
     "forwarded",
     LeverPreset::All},
    {"resubscribe_guard", &LeverSet::resubscribeGuard, LeverGroup::FollowUps,
     "Guarded re-subscribe", "resubscribe guard", "re-subscribe guard",
     "After a reconnect the guard re-subscribes and retries until confirmed; off = the "
     "connection's one-shot re-subscribe, whose failure nobody retries",
     LeverPreset::Lever1},
    {"drop_superseded", &LeverSet::dropSuperseded, LeverGroup::FollowUps,
     "Drop superseded subscribes", "drop superseded", "drop superseded",
     "A subscribe held while disconnected is dropped once its guard supersedes it, so only the "
     "latest goes out on reconnect",
     LeverPreset::Lever1},
    {"retry_budget", &LeverSet::retryBudget, LeverGroup::RetryBudget, "Retry budget (gRFC A6)",
     "retry budget", "retry budget",
     "gRPC's retry throttling per gateway: a bucket of 10 tokens, a failed subscribe costs 1, a "
     "confirmed one earns 0.1; retries go out only above half the bucket (and one probe per "
     "longest retry interval); first attempts always go. Off in every preset",
     LeverPreset::None},
};

// The value levers of each preset beside the switches: Lever 3's timeout and the recovery
// gate come with "all" only.
LeverSet presetSet(LeverPreset preset)
{
    LeverSet s;
    for (const SwitchLever& lever : kSwitchLevers)
        s.*lever.member = lever.onFrom != LeverPreset::None && lever.onFrom <= preset;
    const bool all = preset == LeverPreset::All;
    s.sessionCommandTimeoutMs = all ? defaults::kSessionCommandTimeoutMs : 0;
    s.recovery = all ? RecoveryConfig{.enabled = true} : RecoveryConfig{};
    return s;
}

LeverSet leversOff()
{
    return presetSet(LeverPreset::LeversOff);
}

std::vector<std::pair<QString, LeverSet>> presets()
{
    return {{"levers-off", presetSet(LeverPreset::LeversOff)},
            {"lever1", presetSet(LeverPreset::Lever1)},
            {"lever1+2", presetSet(LeverPreset::Lever1And2)},
            {"all", presetSet(LeverPreset::All)}};
}

QString jsonText(const QJsonValue& v)
{
    if (v.isString())
        return '"' + v.toString() + '"';
    if (v.isDouble())
        return QString::number(v.toDouble(), 'g', 12);
    if (v.isBool())
        return v.toBool() ? "true" : "false";
    if (v.isArray())
        return QString::fromUtf8(QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact));
    if (v.isObject())
        return QString::fromUtf8(QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact));
    return "null";
}

bool readInt(const QJsonValue& v, int lo, int hi, int* out)
{
    if (!v.isDouble())
        return false;
    const double d = v.toDouble();
    if (!std::isfinite(d) || d != std::floor(d) || d < lo || d > hi)
        return false;
    *out = static_cast<int>(d);
    return true;
}

QString secondsText(double s)
{
    return QString::number(s, 'g', 6) + " s";
}

// Applies a recovery object on top of `cfg`; problems go to `errors`.
void applyRecovery(const QJsonObject& obj, RecoveryConfig& cfg, QStringList& errors)
{
    cfg.enabled = true;
    const QStringList valid = recoveryLeverKeys();
    auto number = [&](const QString& key, const QJsonValue& v, double* out) {
        if (v.isDouble() && std::isfinite(v.toDouble()))
            *out = v.toDouble();
        else
            errors << QString("recovery.%1 must be a number (got %2)").arg(key, jsonText(v));
    };
    for (auto it = obj.begin(); it != obj.end(); ++it) {
        const QString key = it.key();
        const QJsonValue v = it.value();
        if (key == "enabled") {
            if (v.isBool())
                cfg.enabled = v.toBool();
            else
                errors
                    << QString("recovery.enabled must be true or false (got %1)").arg(jsonText(v));
        } else if (key == "strategy") {
            const auto s = strategyFromString(v.toString().toStdString());
            if (v.isString() && s)
                cfg.strategy = *s;
            else
                errors << QString("recovery.strategy %1 is invalid; valid strategies: instant, "
                                  "none, simple, exponential")
                              .arg(jsonText(v));
        } else if (key == "fail_handler") {
            const auto h = failHandlerFromString(v.toString().toStdString());
            if (v.isString() && h)
                cfg.failHandler = *h;
            else
                errors << QString("recovery.fail_handler %1 is invalid; valid fail handlers: "
                                  "simple, windowed")
                              .arg(jsonText(v));
        } else if (key == "recovery_seconds") {
            number(key, v, &cfg.recoverySeconds);
        } else if (key == "initial_seconds") {
            number(key, v, &cfg.initialSeconds);
        } else if (key == "max_seconds") {
            number(key, v, &cfg.maxSeconds);
        } else if (key == "multiplier") {
            number(key, v, &cfg.multiplier);
        } else if (key == "failures_window_seconds") {
            number(key, v, &cfg.failuresWindowSeconds);
        } else if (key == "failures_to_enter_recovery") {
            if (!readInt(v, 1, 1000, &cfg.failuresToEnterRecovery))
                errors << QString("recovery.failures_to_enter_recovery must be a whole number "
                                  "1..1000 (got %1)")
                              .arg(jsonText(v));
        } else {
            errors
                << QString("unknown recovery key '%1'; valid keys: %2").arg(key, valid.join(", "));
        }
    }
    // Ranges, checked on the result so a partial override is judged with its base. Every
    // period is at most a day and the multiplier at most 100, so a backoff step never
    // overflows.
    auto period = [&](const char* key, double v) {
        if (!(v > 0 && v <= kMaxRecoverySeconds))
            errors << QString("recovery.%1 must be > 0 and <= %2 (got %3)")
                          .arg(key)
                          .arg(kMaxRecoverySeconds)
                          .arg(v);
    };
    period("recovery_seconds", cfg.recoverySeconds);
    period("initial_seconds", cfg.initialSeconds);
    period("failures_window_seconds", cfg.failuresWindowSeconds);
    if (!(cfg.maxSeconds >= cfg.initialSeconds))
        errors << QString("recovery.max_seconds must be >= initial_seconds (%1) (got %2)")
                      .arg(cfg.initialSeconds)
                      .arg(cfg.maxSeconds);
    else if (!(cfg.maxSeconds <= kMaxRecoverySeconds))
        errors << QString("recovery.max_seconds must be <= %1 (got %2)")
                      .arg(kMaxRecoverySeconds)
                      .arg(cfg.maxSeconds);
    if (!(cfg.multiplier >= 1 && cfg.multiplier <= kMaxMultiplier))
        errors << QString("recovery.multiplier must be 1..%1 (got %2)")
                      .arg(kMaxMultiplier)
                      .arg(cfg.multiplier);
}

} // namespace

const std::vector<SwitchLever>& switchLevers()
{
    return kSwitchLevers;
}

QStringList leverPresetNames()
{
    QStringList names;
    for (const auto& [name, set] : presets())
        names << name;
    return names;
}

std::optional<LeverSet> leverPreset(const QString& name, QString* error)
{
    for (const auto& [n, set] : presets()) {
        if (n == name)
            return set;
    }
    if (error)
        *error = QString("unknown lever preset '%1'; valid presets: %2")
                     .arg(name, leverPresetNames().join(", "));
    return std::nullopt;
}

QStringList leverKeys()
{
    // The switches in table order, Lever 3 and the recovery gate after Lever 2 (as a report
    // and describeLevers list them).
    QStringList keys{"preset"};
    for (const SwitchLever& lever : kSwitchLevers) {
        keys << QString::fromLatin1(lever.key);
        if (lever.group == LeverGroup::Lever2)
            keys << "session_command_timeout_ms"
                 << "recovery";
    }
    return keys;
}

QStringList recoveryLeverKeys()
{
    return {"enabled",
            "strategy",
            "fail_handler",
            "recovery_seconds",
            "initial_seconds",
            "max_seconds",
            "multiplier",
            "failures_to_enter_recovery",
            "failures_window_seconds"};
}

std::optional<LeverSet> leverSetFromJson(const QJsonValue& json, QString* error)
{
    if (json.isString())
        return leverPreset(json.toString(), error);
    if (!json.isObject()) {
        if (error)
            *error = QString("levers must be a preset name (%1) or an object (got %2)")
                         .arg(leverPresetNames().join(", "), jsonText(json));
        return std::nullopt;
    }
    const QJsonObject obj = json.toObject();
    QStringList errors;

    LeverSet set = leversOff();
    if (obj.contains("preset")) {
        const QJsonValue p = obj.value("preset");
        QString presetError;
        const auto base = p.isString() ? leverPreset(p.toString(), &presetError) : std::nullopt;
        if (base)
            set = *base;
        else
            errors << (p.isString()
                           ? presetError
                           : QString("preset must be a preset name (got %1)").arg(jsonText(p)));
    }

    for (auto it = obj.begin(); it != obj.end(); ++it) {
        const QString key = it.key();
        const QJsonValue v = it.value();
        if (key == "preset")
            continue;
        bool known = false;
        for (const SwitchLever& lever : kSwitchLevers) {
            if (key != QLatin1String(lever.key))
                continue;
            known = true;
            if (v.isBool())
                set.*lever.member = v.toBool();
            else
                errors << QString("%1 must be true or false (got %2)").arg(key, jsonText(v));
        }
        if (known)
            continue;
        if (key == "session_command_timeout_ms") {
            if (!readInt(v, 0, kMaxSessionCommandTimeoutMs, &set.sessionCommandTimeoutMs))
                errors << QString("session_command_timeout_ms must be a whole number 0..%1 "
                                  "(0 = not sent) (got %2)")
                              .arg(kMaxSessionCommandTimeoutMs)
                              .arg(jsonText(v));
        } else if (key == "recovery") {
            if (v.isBool()) {
                if (v.toBool())
                    set.recovery.enabled = true;
                else
                    set.recovery = RecoveryConfig{};
            } else if (v.isObject()) {
                applyRecovery(v.toObject(), set.recovery, errors);
            } else {
                errors << QString("recovery must be true, false or an object (got %1)")
                              .arg(jsonText(v));
            }
        } else {
            errors << QString("unknown lever key '%1'; valid keys: %2")
                          .arg(key, leverKeys().join(", "));
        }
    }

    if (!errors.isEmpty()) {
        if (error)
            *error = errors.join("; ");
        return std::nullopt;
    }
    return set;
}

QJsonObject leverSetToJson(const LeverSet& levers)
{
    QJsonObject json;
    for (const SwitchLever& lever : kSwitchLevers)
        json.insert(lever.key, levers.*lever.member);
    json.insert("session_command_timeout_ms", levers.sessionCommandTimeoutMs);
    const RecoveryConfig& r = levers.recovery;
    if (r == RecoveryConfig{}) {
        json.insert("recovery", false);
    } else {
        json.insert("recovery", QJsonObject{
                                    {"enabled", r.enabled},
                                    {"strategy", toString(r.strategy)},
                                    {"fail_handler", toString(r.failHandler)},
                                    {"recovery_seconds", r.recoverySeconds},
                                    {"initial_seconds", r.initialSeconds},
                                    {"max_seconds", r.maxSeconds},
                                    {"multiplier", r.multiplier},
                                    {"failures_to_enter_recovery", r.failuresToEnterRecovery},
                                    {"failures_window_seconds", r.failuresWindowSeconds},
                                });
    }
    return json;
}

namespace {
QString describeValueLevers(const LeverSet& s)
{
    QStringList parts;
    parts << (s.sessionCommandTimeoutMs > 0
                  ? "cmd-timeout " + secondsText(s.sessionCommandTimeoutMs / 1000.0)
                  : QStringLiteral("cmd-timeout not sent"));
    const RecoveryConfig& r = s.recovery;
    if (!r.enabled) {
        parts << "recovery off";
    } else {
        QString handler = toString(r.failHandler);
        if (r.failHandler == RecoveryConfig::FailHandler::Windowed)
            handler += QString("(%1 in %2)")
                           .arg(r.failuresToEnterRecovery)
                           .arg(secondsText(r.failuresWindowSeconds));
        QString strategy = toString(r.strategy);
        if (r.strategy == RecoveryConfig::Strategy::Simple)
            strategy += "(" + secondsText(r.recoverySeconds) + ")";
        else if (r.strategy == RecoveryConfig::Strategy::Exponential)
            strategy += QString("(%1..%2 x%3)")
                            .arg(QString::number(r.initialSeconds, 'g', 6),
                                 secondsText(r.maxSeconds), QString::number(r.multiplier, 'g', 6));
        parts << "recovery " + handler + "/" + strategy;
    }
    return parts.join(", ");
}
} // namespace

QString describeLevers(const LeverSet& s)
{
    QStringList parts;
    for (const SwitchLever& lever : kSwitchLevers) {
        parts << QString::fromLatin1(lever.shortName) + (s.*lever.member ? " on" : " off");
        if (lever.group == LeverGroup::Lever2)
            parts << describeValueLevers(s);
    }
    return parts.join(", ");
}

std::optional<QString> presetNameOf(const LeverSet& levers)
{
    for (const auto& [name, set] : presets()) {
        if (set == levers)
            return name;
    }
    return std::nullopt;
}

} // namespace stormwatch
