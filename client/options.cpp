#include "client/options.h"

#include "client/log_text.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonValue>
#include <algorithm>
#include <climits>
#include <cmath>
#include <variant>

namespace stormwatch {

namespace {

using Field = std::variant<int ClientOptions::*, double ClientOptions::*>;

struct Key {
    const char* name;
    Field field;
};

// One row per option, in the bridge's own order: the single list that parsing, printing and the
// "valid keys" message all read.
const Key kKeys[] = {
    {"TagSubscribeRetryIntervalMs", &ClientOptions::tagSubscribeRetryIntervalMs},
    {"TagSubscribeRetryMaxIntervalMs", &ClientOptions::tagSubscribeRetryMaxIntervalMs},
    {"TagSubscribeInFlightCeilingMs", &ClientOptions::tagSubscribeInFlightCeilingMs},
    {"TagSubscribeInFlightCeilingMarginMs", &ClientOptions::tagSubscribeInFlightCeilingMarginMs},
    {"MxCommandTimeoutMs", &ClientOptions::mxCommandTimeoutMs},
    {"MxSupervisoryAdviseParallelism", &ClientOptions::mxSupervisoryAdviseParallelism},
    {"ReconnectBackoffFloorMs", &ClientOptions::reconnectBackoffFloorMs},
    {"ReconnectBackoffMaxMs", &ClientOptions::reconnectBackoffMaxMs},
    {"AlarmSubscribeRetryIntervalMs", &ClientOptions::alarmSubscribeRetryIntervalMs},
};

const Key* findKey(const QString& name)
{
    for (const Key& k : kKeys) {
        if (name == QLatin1String(k.name))
            return &k;
    }
    return nullptr;
}

QString fullJsonText(const QJsonValue& v);

QString number(double v)
{
    return QString::number(v, 'g', 12);
}

// A value as an error quotes it, cut to a bounded length (a hostile file may hold a
// megabyte where a number belongs).
QString jsonText(const QJsonValue& v)
{
    constexpr qsizetype kMaxChars = 64;
    QString text = fullJsonText(v);
    if (text.size() > kMaxChars)
        text = text.left(kMaxChars) + QStringLiteral("…");
    return text;
}

QString fullJsonText(const QJsonValue& v)
{
    switch (v.type()) {
    case QJsonValue::Double:
        return number(v.toDouble());
    case QJsonValue::String:
        return '"' + v.toString() + '"';
    case QJsonValue::Bool:
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    case QJsonValue::Null:
        return QStringLiteral("null");
    case QJsonValue::Array:
        return QString::fromUtf8(QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact));
    case QJsonValue::Object:
        return QString::fromUtf8(QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact));
    case QJsonValue::Undefined:
        break;
    }
    return QStringLiteral("undefined");
}

// Keys that once were options: their values belong to the recovery lever now (one source).
const char* const kMovedToRecoveryLever[][2] = {
    {"RecoverySeconds", "recovery_seconds"},
    {"FailuresToEnterRecovery", "failures_to_enter_recovery"},
    {"FailuresWindowSeconds", "failures_window_seconds"},
};

OptionError unknownKey(const QString& key, const QString& value)
{
    for (const auto& moved : kMovedToRecoveryLever)
        if (key == QLatin1String(moved[0]))
            return {key, value,
                    QString("not an option: set it on the recovery lever, e.g. \"levers\": "
                            "{\"preset\": \"all\", \"recovery\": {\"%1\": ...}}")
                        .arg(moved[1])};
    return {key, value, "unknown option; valid keys: " + optionKeys().join(", ")};
}

const char* typeRule(const Field& f)
{
    return std::holds_alternative<int ClientOptions::*>(f) ? "must be a whole number"
                                                           : "must be a number";
}

// Stores `v` into the field when it has the field's type; false otherwise.
bool store(ClientOptions& o, const Field& f, double v)
{
    if (!std::isfinite(v))
        return false;
    if (auto p = std::get_if<int ClientOptions::*>(&f)) {
        if (v != std::floor(v) || v < INT_MIN || v > INT_MAX)
            return false;
        o.*(*p) = static_cast<int>(v);
    } else {
        o.*std::get<double ClientOptions::*>(f) = v;
    }
    return true;
}

} // namespace

namespace {

// What the user chose, as it may appear in a log line or a dialog: cut, then escaped.
QString shown(const QString& text)
{
    constexpr qsizetype kMaxChars = 200;
    if (text.size() <= kMaxChars)
        return escapeLogText(text);
    const qsizetype keep = text.at(kMaxChars - 1).isHighSurrogate() ? kMaxChars - 1 : kMaxChars;
    return escapeLogText(text.left(keep)) + QString("…(+%1 chars)").arg(text.size() - keep);
}

} // namespace

QString OptionError::message() const
{
    return shown(key) + " = " + shown(value) + " is invalid: " + rule;
}

QStringList optionKeys()
{
    QStringList keys;
    for (const Key& k : kKeys)
        keys << QString::fromLatin1(k.name);
    return keys;
}

QList<OptionError> validate(const ClientOptions& o)
{
    using namespace option_limits;
    QList<OptionError> errors;
    auto atLeast = [&](const char* key, double v, const char* otherKey, double other) {
        if (!(v >= other))
            errors.append(
                {key, number(v), QString("must be >= %1 (%2)").arg(otherKey, number(other))});
    };
    auto atMost = [&](const char* key, int v, int hi) {
        if (v > hi)
            errors.append({key, QString::number(v), QString("must be <= %1").arg(hi)});
    };
    auto between = [&](const char* key, int v, int lo, int hi) {
        if (v < lo || v > hi)
            errors.append({key, QString::number(v), QString("must be %1..%2").arg(lo).arg(hi)});
    };

    between("TagSubscribeRetryIntervalMs", o.tagSubscribeRetryIntervalMs, kMinRetryIntervalMs,
            kMaxIntervalMs);
    const qsizetype before = errors.size();
    atLeast("TagSubscribeRetryMaxIntervalMs", o.tagSubscribeRetryMaxIntervalMs,
            "TagSubscribeRetryIntervalMs", o.tagSubscribeRetryIntervalMs);
    if (errors.size() == before)
        atMost("TagSubscribeRetryMaxIntervalMs", o.tagSubscribeRetryMaxIntervalMs, kMaxIntervalMs);
    between("TagSubscribeInFlightCeilingMs", o.tagSubscribeInFlightCeilingMs, 1, kMaxTimeoutMs);
    between("TagSubscribeInFlightCeilingMarginMs", o.tagSubscribeInFlightCeilingMarginMs, 0,
            kMaxIntervalMs);
    between("MxCommandTimeoutMs", o.mxCommandTimeoutMs, 1, kMaxTimeoutMs);
    between("MxSupervisoryAdviseParallelism", o.mxSupervisoryAdviseParallelism, 1,
            kMaxAdviseParallelism);
    between("ReconnectBackoffFloorMs", o.reconnectBackoffFloorMs, kMinRetryIntervalMs,
            kMaxIntervalMs);
    const qsizetype beforeMax = errors.size();
    atLeast("ReconnectBackoffMaxMs", o.reconnectBackoffMaxMs, "ReconnectBackoffFloorMs",
            o.reconnectBackoffFloorMs);
    if (errors.size() == beforeMax)
        atMost("ReconnectBackoffMaxMs", o.reconnectBackoffMaxMs, kMaxIntervalMs);
    between("AlarmSubscribeRetryIntervalMs", o.alarmSubscribeRetryIntervalMs, kMinRetryIntervalMs,
            kMaxIntervalMs);
    return errors;
}

std::optional<ClientOptions> optionsFromJson(const QJsonObject& json, QList<OptionError>* errors)
{
    ClientOptions o;
    QList<OptionError> found;
    for (auto it = json.begin(); it != json.end(); ++it) {
        const Key* k = findKey(it.key());
        if (!k) {
            found.append(unknownKey(it.key(), jsonText(it.value())));
            continue;
        }
        if (!it.value().isDouble() || !store(o, k->field, it.value().toDouble()))
            found.append({it.key(), jsonText(it.value()), typeRule(k->field)});
    }
    // Rules too, except for keys already reported: their value was not taken.
    for (const OptionError& e : validate(o)) {
        const auto sameKey = [&](const OptionError& f) { return f.key == e.key; };
        if (std::none_of(found.begin(), found.end(), sameKey))
            found.append(e);
    }
    if (errors)
        errors->append(found);
    if (!found.isEmpty())
        return std::nullopt;
    return o;
}

bool setOption(ClientOptions& options, const QString& key, const QString& value, OptionError* error)
{
    const Key* k = findKey(key);
    if (!k) {
        if (error)
            *error = unknownKey(key, value);
        return false;
    }
    bool ok = false;
    const double v = value.trimmed().toDouble(&ok);
    if (!ok || !store(options, k->field, v)) {
        if (error)
            *error = {key, value, typeRule(k->field)};
        return false;
    }
    return true;
}

QJsonObject optionsToJson(const ClientOptions& options)
{
    QJsonObject json;
    for (const Key& k : kKeys) {
        if (auto p = std::get_if<int ClientOptions::*>(&k.field))
            json.insert(k.name, options.*(*p));
        else
            json.insert(k.name, options.*std::get<double ClientOptions::*>(k.field));
    }
    return json;
}

} // namespace stormwatch
