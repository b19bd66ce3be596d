#pragma once
// Which subscribers' tags each gateway item feeds, by item handle: the connection's reverse
// index, asked once per data change that misses the route cache. Nearly every item feeds one
// tag, so that route is held in the map's own entry; the rare further ones (subscribers that
// share an item) are kept apart.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

namespace stormwatch {

class ItemRoutes {
public:
    struct Route {
        std::uint64_t subscriber = 0;
        int index = 0; // into the subscriber's tag list
        bool operator==(const Route&) const = default;
    };

    void add(std::int32_t handle, Route route);
    // Erases the handle's routes to `subscriber` (to its tag `index` only, when given); whether
    // any went.
    bool erase(std::int32_t handle, std::uint64_t subscriber, std::optional<int> index);
    void clear();

    bool contains(std::int32_t handle) const { return m_first.count(handle) != 0; }
    // How many tags the item feeds.
    std::size_t count(std::int32_t handle) const;
    // The item's route when it feeds exactly one tag, else null.
    const Route* single(std::int32_t handle) const;
    // Every route of the item, the first one first.
    std::vector<Route> routesOf(std::int32_t handle) const;
    template <typename Fn> void forEach(std::int32_t handle, Fn&& fn) const
    {
        const auto first = m_first.find(handle);
        if (first == m_first.end())
            return;
        fn(first->second);
        if (m_more.empty())
            return;
        const auto [begin, end] = m_more.equal_range(handle);
        for (auto it = begin; it != end; ++it)
            fn(it->second);
    }
    std::size_t items() const { return m_first.size(); }

private:
    std::unordered_map<std::int32_t, Route> m_first;     // every routed item: its first route
    std::unordered_multimap<std::int32_t, Route> m_more; // the routes beyond the first
};

} // namespace stormwatch
