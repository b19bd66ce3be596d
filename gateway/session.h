#pragma once
// One gateway session: its resolved command timeout, the capabilities it was opened with,
// its registered server handles, items (with their advise state) and event streams.

#include "gateway_types.h"
#include "mxaccess_gateway.pb.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace stormwatch::gateway {

struct Item {
    std::int32_t serverHandle = 0;
    std::string tag;
    AdviseState advise;
    bool initialPending = false; // advised since the last batch: its first value is due
    double value = 0;
};

struct Session {
    std::string id;
    std::string clientName;
    Duration commandTimeout{0};
    bool supervisoryBulk = false; // bulk-subscribe-supervisory was advertised at open
    bool open = true;             // false once closed or dropped by a restart

    std::int32_t nextServerHandle = 1;
    std::set<std::int32_t> serverHandles;
    std::int32_t nextItemHandle = 1;
    std::map<std::int32_t, Item> items; // by item handle; ordered so batches are deterministic
    std::unordered_map<std::string, std::int32_t> itemByKey; // serverHandle + '\n' + tag
    std::int32_t nextAlarmSubscription = 1;

    std::vector<std::uint64_t> streams;
    bool initialFlushPosted = false;
    // Items whose first value is owed (their initialPending flag; may hold handles since
    // removed or un-advised, and repeats): a flush visits these, not every item.
    std::vector<std::int32_t> initialPendingHandles;
    // Reused every tick so the data path allocates nothing — unless a shared-event receiver
    // (GatewayModel::streamEventsShared) still holds the last one: then a new one is made.
    std::shared_ptr<mxgateway::v1::MxEvent> batch = std::make_shared<mxgateway::v1::MxEvent>();
    // First values, kept apart so a flush of one item does not shrink (free) the tick's batch.
    std::shared_ptr<mxgateway::v1::MxEvent> initialBatch = std::make_shared<mxgateway::v1::MxEvent>();

    static std::string itemKey(std::int32_t serverHandle, const std::string& tag)
    {
        return std::to_string(serverHandle) + '\n' + tag;
    }
};

} // namespace stormwatch::gateway
