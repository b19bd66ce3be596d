#pragma once

// The one place the scenario layer asks "is this a lever set?". Variants and
// set_levers events keep the file's JSON (a preset name or an inline lever object) and
// are checked here by the client's own LeverSet parser, so a file and the console accept
// exactly the same lever sets.

#include <QJsonValue>
#include <QString>

namespace stormwatch {

// True when `levers` names a preset or is a valid inline lever object; otherwise false
// with a one-line reason in *error (no JSON path: the caller knows where it stands).
bool validateVariant(const QJsonValue& levers, QString* error);

} // namespace stormwatch
