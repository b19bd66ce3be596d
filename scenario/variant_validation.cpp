#include "scenario/variant_validation.h"

#include <QJsonObject>
#include <QStringList>

namespace stormwatch {

// Interim check until client/lever_set.h lands: the preset names and the inline keys
// of DESIGN.md "Levers". Replace the body with leverSetFromJson() when it exists.
namespace {
const QStringList kPresets = {QStringLiteral("levers-off"), QStringLiteral("lever1"),
                              QStringLiteral("lever1+2"), QStringLiteral("all")};
const QStringList kBoolKeys = {QStringLiteral("inflight_guard"), QStringLiteral("backoff"),
                               QStringLiteral("confirmed_flag"), QStringLiteral("bulk_supervisory"),
                               QStringLiteral("alarm_guard"), QStringLiteral("coalesce")};
const QString kTimeoutKey = QStringLiteral("session_command_timeout_ms");
const QString kRecoveryKey = QStringLiteral("recovery");
}  // namespace

bool validateVariant(const QJsonValue& levers, QString* error) {
    auto fail = [error](const QString& why) {
        if (error) *error = why;
        return false;
    };
    if (levers.isString()) {
        if (kPresets.contains(levers.toString())) return true;
        return fail(QStringLiteral("unknown lever preset \"%1\" (valid: %2)")
                        .arg(levers.toString(), kPresets.join(QStringLiteral(", "))));
    }
    if (!levers.isObject())
        return fail(QStringLiteral("expected a lever preset name or a lever object"));
    const QJsonObject o = levers.toObject();
    const QStringList valid = kBoolKeys + QStringList{kTimeoutKey, kRecoveryKey};
    for (auto it = o.begin(); it != o.end(); ++it) {
        const QString& key = it.key();
        const QJsonValue v = it.value();
        if (kBoolKeys.contains(key)) {
            if (!v.isBool()) return fail(QStringLiteral("%1: expected bool").arg(key));
        } else if (key == kTimeoutKey) {
            if (!v.isDouble() || v.toDouble() < 0)
                return fail(QStringLiteral("%1: expected a number >= 0").arg(key));
        } else if (key == kRecoveryKey) {
            if (!v.isObject() && !v.isBool())
                return fail(QStringLiteral("%1: expected an object or bool").arg(key));
        } else {
            return fail(QStringLiteral("unknown lever \"%1\" (valid: %2)")
                            .arg(key, valid.join(QStringLiteral(", "))));
        }
    }
    return true;
}

}  // namespace stormwatch
