#include "item_routes.h"

namespace stormwatch {

void ItemRoutes::add(std::int32_t handle, Route route)
{
    const auto [it, added] = m_first.try_emplace(handle, route);
    if (!added)
        m_more.emplace(handle, route);
}

bool ItemRoutes::erase(std::int32_t handle, std::uint64_t subscriber, std::optional<int> index)
{
    const auto first = m_first.find(handle);
    if (first == m_first.end())
        return false;
    const auto matches = [&](const Route& r) {
        return r.subscriber == subscriber && (!index || r.index == *index);
    };
    bool erased = false;
    if (!m_more.empty()) {
        auto [it, end] = m_more.equal_range(handle);
        while (it != end) {
            if (matches(it->second)) {
                it = m_more.erase(it);
                erased = true;
            } else {
                ++it;
            }
        }
    }
    if (!matches(first->second))
        return erased;
    // The first route goes: a further one, if any, takes its place.
    if (const auto next = m_more.find(handle); next != m_more.end()) {
        first->second = next->second;
        m_more.erase(next);
    } else {
        m_first.erase(first);
    }
    return true;
}

void ItemRoutes::clear()
{
    m_first.clear();
    m_more.clear();
}

std::size_t ItemRoutes::count(std::int32_t handle) const
{
    if (!contains(handle))
        return 0;
    return 1 + (m_more.empty() ? 0 : m_more.count(handle));
}

const ItemRoutes::Route* ItemRoutes::single(std::int32_t handle) const
{
    const auto first = m_first.find(handle);
    if (first == m_first.end() || (!m_more.empty() && m_more.count(handle) != 0))
        return nullptr;
    return &first->second;
}

std::vector<ItemRoutes::Route> ItemRoutes::routesOf(std::int32_t handle) const
{
    std::vector<Route> routes;
    forEach(handle, [&](const Route& r) { routes.push_back(r); });
    return routes;
}

} // namespace stormwatch
