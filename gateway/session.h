#pragma once
// One gateway session: its resolved command timeout, the capabilities it was opened with,
// its registered server handles, items (with their advise state) and event streams.

#include "gateway_types.h"
#include "mxaccess_gateway.pb.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace stormwatch::gateway {

// What the data tick reads and writes comes first: one cache line of the map node, not two
// (at 5,000 items per session a tick's working set outgrows the L2 cache).
struct Item {
    std::int32_t serverHandle = 0;
    AdviseState advise;
    bool initialPending = false; // advised since the last batch: its first value is due
    double value = 0;
    std::string tag;
};

// A session's items by item handle: an ordered map (stable addresses, batches in handle
// order) plus a flat list of (handle, item) in the same order for the data tick, so a tick
// walks a vector instead of a tree (issue 14: at 5,000 items the tree walk was a tenth of a
// replay). New handles are increasing, so adding items appends; an erased item's entry is
// cleared and the list compacted at the next flat() (a redeploy removes 5,000 items one
// RemoveItem at a time, between ticks: rebuilding from the tree each time was most of a
// tick); only an out-of-order insert rebuilds it from the tree.
class ItemTable {
public:
    using Map = std::map<std::int32_t, Item>;
    using iterator = Map::iterator;
    using const_iterator = Map::const_iterator;
    using Flat = std::vector<std::pair<std::int32_t, Item*>>;

    std::pair<iterator, bool> emplace(std::int32_t handle, Item item)
    {
        auto result = m_map.emplace(handle, std::move(item));
        if (result.second && !m_stale) {
            if (m_flat.empty() || m_flat.back().first < handle)
                m_flat.emplace_back(handle, &result.first->second);
            else
                m_stale = true;
        }
        return result;
    }
    std::size_t erase(std::int32_t handle)
    {
        auto it = m_map.find(handle);
        if (it == m_map.end())
            return 0;
        erase(it);
        return 1;
    }
    iterator erase(iterator it)
    {
        forget(it->first);
        return m_map.erase(it);
    }
    void clear()
    {
        m_map.clear();
        m_flat.clear();
        m_stale = false;
        m_erased = 0;
    }
    iterator find(std::int32_t handle) { return m_map.find(handle); }
    const_iterator find(std::int32_t handle) const { return m_map.find(handle); }
    Item& at(std::int32_t handle) { return m_map.at(handle); }
    const Item& at(std::int32_t handle) const { return m_map.at(handle); }
    bool contains(std::int32_t handle) const { return m_map.contains(handle); }
    std::size_t size() const { return m_map.size(); }
    bool empty() const { return m_map.empty(); }
    iterator begin() { return m_map.begin(); }
    iterator end() { return m_map.end(); }
    const_iterator begin() const { return m_map.begin(); }
    const_iterator end() const { return m_map.end(); }

    // Every item in handle order; valid until the next emplace or erase.
    const Flat& flat()
    {
        if (m_stale) {
            m_flat.clear();
            m_flat.reserve(m_map.size());
            for (auto& [handle, item] : m_map)
                m_flat.emplace_back(handle, &item);
            m_stale = false;
            m_erased = 0;
        } else if (m_erased != 0) {
            std::erase_if(m_flat, [](const auto& entry) { return entry.second == nullptr; });
            m_erased = 0;
        }
        return m_flat;
    }

private:
    // Clears the entry of `handle` (the list is in handle order: a binary search).
    void forget(std::int32_t handle)
    {
        if (m_stale)
            return;
        auto it = std::lower_bound(m_flat.begin(), m_flat.end(), handle,
                                   [](const auto& entry, std::int32_t h) { return entry.first < h; });
        if (it != m_flat.end() && it->first == handle && it->second) {
            it->second = nullptr;
            ++m_erased;
        }
    }

    Map m_map;
    Flat m_flat;
    bool m_stale = false;
    std::size_t m_erased = 0; // cleared entries in m_flat
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
    ItemTable items; // by item handle; ordered so batches are deterministic
    std::unordered_map<std::string, std::int32_t> itemByKey; // serverHandle + '\n' + tag
    std::int32_t nextAlarmSubscription = 1;

    std::vector<std::uint64_t> streams;
    bool initialFlushPosted = false;
    // Items whose first value is owed (their initialPending flag; may hold handles since
    // removed or un-advised, and repeats): a flush visits these, not every item.
    std::vector<std::int32_t> initialPendingHandles;
    // Reused every tick so the data path allocates nothing — unless a shared-event receiver
    // (GatewayModel::streamEventsShared) still holds the last one: then a new one is made.
    // Made on an arena (emitBatch); null until the first tick.
    std::shared_ptr<mxgateway::v1::MxEvent> batch;
    // Changes dropped from `batch` since it was made: their arena memory stays until the
    // batch is made anew, which happens once they outnumber the live ones.
    std::size_t batchWaste = 0;
    // First values, kept apart so a flush of one item does not shrink (free) the tick's batch.
    std::shared_ptr<mxgateway::v1::MxEvent> initialBatch = std::make_shared<mxgateway::v1::MxEvent>();

    // The outstanding-subscribe key (subscribeKey) of each shared bulk payload invoked on
    // this session, so a storm's thousandth duplicate is not hashed again. Entries of
    // payloads no job holds any more are swept once they outnumber the live ones.
    struct SubscribeKeyMemo {
        std::weak_ptr<const mxgateway::v1::MxCommand> payload;
        std::uint64_t key = 0;
    };
    std::unordered_map<const mxgateway::v1::MxCommand*, SubscribeKeyMemo> subscribeKeys;
    std::size_t subscribeKeysSweepAt = 64;
    void sweepSubscribeKeys()
    {
        if (subscribeKeys.size() < subscribeKeysSweepAt)
            return;
        std::erase_if(subscribeKeys, [](const auto& entry) { return entry.second.payload.expired(); });
        subscribeKeysSweepAt = std::max<std::size_t>(64, 2 * subscribeKeys.size());
    }

    static std::string itemKey(std::int32_t serverHandle, const std::string& tag)
    {
        return std::to_string(serverHandle) + '\n' + tag;
    }
};

// The next handle of a per-session int32 counter (item handles, server handles, alarm
// subscription ids: int32 on the wire), or nullopt once every positive one was handed out.
inline std::optional<std::int32_t> takeHandle(std::int32_t& counter)
{
    if (counter <= 0 || counter == std::numeric_limits<std::int32_t>::max())
        return std::nullopt;
    return counter++;
}

} // namespace stormwatch::gateway
