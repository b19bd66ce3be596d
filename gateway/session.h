#pragma once
// One gateway session: its resolved command timeout, the capabilities it was opened with,
// its registered server handles, items (with their advise state) and event streams.

#include "gateway_types.h"
#include "mxaccess_gateway.pb.h"
#include "proto/mx_event_batch.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace stormwatch::gateway {

// An item's state but its value and advised flag, which the data tick walks in the table's
// flat list instead (ItemTable::Hot).
struct Item {
    std::int32_t serverHandle = 0;
    AdviseState advise;          // after changing it, ItemTable::adviseChanged
    bool initialPending = false; // advised since the last batch: its first value is due
    std::string tag;
};

// A session's items by item handle: an ordered map (stable addresses, batches in handle
// order) plus a flat list in the same order that the data tick walks. The list holds what
// a tick reads and writes — handle, server handle, advised, the value — in 24 bytes an item
// (at thousands of items a session, reading each item through its map node costs a cache
// miss or two a change; the list is read in order). The value lives only there.
// New handles are increasing, so adding items appends (an out-of-order one is inserted);
// an erased item's entry is cleared and the list compacted at the next flat() (a redeploy
// removes 5,000 items one RemoveItem at a time, between ticks).
class ItemTable {
public:
    using Map = std::map<std::int32_t, Item>;
    using iterator = Map::iterator;
    using const_iterator = Map::const_iterator;
    struct Hot {
        std::int32_t handle = 0;
        std::int32_t serverHandle = 0;
        double value = 0;
        bool advised = false; // item->advise.any(); false once erased
        bool live = true;     // false once erased (compacted away at the next flat())
    };
    using Flat = std::vector<Hot>;

    std::pair<iterator, bool> emplace(std::int32_t handle, Item item, double value = 0)
    {
        auto result = m_map.emplace(handle, std::move(item));
        if (result.second) {
            const Item& added = result.first->second;
            const Hot hot{handle, added.serverHandle, value, added.advise.any(), true};
            if (m_flat.empty() || m_flat.back().handle < handle)
                m_flat.push_back(hot);
            else
                m_flat.insert(lowerBound(handle),
                              hot); // before any cleared entry of the same handle
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
        if (Hot* hot = entryOf(it->first, m_flat)) {
            hot->live = false;
            hot->advised = false;
            ++m_erased;
        }
        return m_map.erase(it);
    }
    void clear()
    {
        m_map.clear();
        m_flat.clear();
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

    // The tick's entry of a live item (null for an unknown handle): its value, read or written.
    Hot* hot(std::int32_t handle) { return entryOf(handle, m_flat); }
    const Hot* hot(std::int32_t handle) const { return entryOf(handle, m_flat); }
    // The item's current value (0 for an unknown handle).
    double value(std::int32_t handle) const
    {
        const Hot* h = hot(handle);
        return h ? h->value : 0;
    }
    // The item's advise state changed: the tick's copy of whether it is advised follows.
    void adviseChanged(std::int32_t handle)
    {
        auto it = m_map.find(handle);
        if (Hot* h = hot(handle); h && it != m_map.end())
            h->advised = it->second.advise.any();
    }

    // Every live item in handle order; valid until the next emplace or erase.
    Flat& flat()
    {
        if (m_erased != 0) {
            std::erase_if(m_flat, [](const Hot& entry) { return !entry.live; });
            m_erased = 0;
        }
        return m_flat;
    }

private:
    Flat::iterator lowerBound(std::int32_t handle)
    {
        return std::lower_bound(m_flat.begin(), m_flat.end(), handle,
                                [](const Hot& entry, std::int32_t h) { return entry.handle < h; });
    }
    // The live entry of `handle` (the list is in handle order: a binary search; cleared
    // entries of the same handle may sit before it).
    template <typename F> static auto entryOf(std::int32_t handle, F& flat) -> decltype(flat.data())
    {
        auto it =
            std::lower_bound(flat.begin(), flat.end(), handle,
                             [](const Hot& entry, std::int32_t h) { return entry.handle < h; });
        for (; it != flat.end() && it->handle == handle; ++it)
            if (it->live)
                return &*it;
        return nullptr;
    }

    Map m_map;
    Flat m_flat;
    std::size_t m_erased = 0; // cleared entries in m_flat
};

// An item's identity within a session: its server handle and tag address. Looked up with
// an ItemKeyView (no copy of the tag): a subscribe storm asks once per tag per command, and
// building a key string each time was a tenth of a levers-off replay.
struct ItemKey {
    std::int32_t serverHandle = 0;
    std::string tag;
};
struct ItemKeyView {
    std::int32_t serverHandle = 0;
    std::string_view tag;
};
struct ItemKeyHash {
    using is_transparent = void;
    std::size_t operator()(const ItemKeyView& k) const
    {
        return std::hash<std::string_view>{}(k.tag) ^
               (std::size_t(std::uint32_t(k.serverHandle)) * 0x9e3779b97f4a7c15ULL);
    }
    std::size_t operator()(const ItemKey& k) const
    {
        return (*this)(ItemKeyView{k.serverHandle, k.tag});
    }
};
struct ItemKeyEqual {
    using is_transparent = void;
    static ItemKeyView view(const ItemKey& k) { return {k.serverHandle, k.tag}; }
    static ItemKeyView view(const ItemKeyView& k) { return k; }
    template <class A, class B> bool operator()(const A& a, const B& b) const
    {
        const ItemKeyView x = view(a), y = view(b);
        return x.serverHandle == y.serverHandle && x.tag == y.tag;
    }
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
    std::set<std::int32_t> freedItemHandles; // removed items' handles (GatewayConfig::reuseHandles)
    ItemTable items;                         // by item handle; ordered so batches are deterministic
    std::unordered_map<ItemKey, std::int32_t, ItemKeyHash, ItemKeyEqual> itemByKey;
    std::int32_t nextAlarmSubscription = 1;

    std::vector<std::uint64_t> streams;
    // The last event number given (GatewayConfig::numberEvents) and the events held for a
    // resume, oldest first (GatewayConfig::replayCapacity).
    std::uint64_t lastSequence = 0;
    bool hadSubscriber = false; // a stream was opened once: events are held for its return
    struct Held {
        std::uint64_t sequence = 0;
        Time at{0};
        MxChange change;
    };
    std::deque<Held> replay;
    bool initialFlushPosted = false;
    // Items whose first value is owed (their initialPending flag; may hold handles since
    // removed or un-advised, and repeats): a flush visits these, not every item.
    std::vector<std::int32_t> initialPendingHandles;
    // Reused every tick so the data path allocates nothing — unless a shared-event receiver
    // (GatewayModel::streamEventsShared) still holds the last one: then a new one is made.
    // Null until the first tick.
    std::shared_ptr<MxEventBatch> batch;
    // First values, kept apart so a flush of one item does not shrink the tick's batch.
    std::shared_ptr<MxEventBatch> initialBatch = std::make_shared<MxEventBatch>();

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
        std::erase_if(subscribeKeys,
                      [](const auto& entry) { return entry.second.payload.expired(); });
        subscribeKeysSweepAt = std::max<std::size_t>(64, 2 * subscribeKeys.size());
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
