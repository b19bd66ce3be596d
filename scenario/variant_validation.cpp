#include "scenario/variant_validation.h"

#include "client/lever_set.h"

namespace stormwatch {

bool validateVariant(const QJsonValue& levers, QString* error)
{
    return leverSetFromJson(levers, error).has_value();
}

} // namespace stormwatch
