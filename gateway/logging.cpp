#include "logging.h"

namespace stormwatch::gateway {
Q_LOGGING_CATEGORY(lcGateway, "stormwatch.gateway")
}
