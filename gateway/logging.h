#pragma once
#include <QLoggingCategory>

namespace stormwatch::gateway {
Q_DECLARE_LOGGING_CATEGORY(lcGateway)
}
