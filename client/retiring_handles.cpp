#include "retiring_handles.h"

#include <algorithm>

namespace stormwatch {

RetiringHandles::RetiringHandles(std::size_t& keptBytes, std::size_t maxKeptBytes,
                                 std::size_t maxEntries, ReleaseFn release)
    : m_keptBytes(keptBytes), m_maxKeptBytes(maxKeptBytes), m_maxEntries(maxEntries),
      m_release(std::move(release))
{
}

bool RetiringHandles::retire(std::int32_t handle, std::uint64_t removeSeq)
{
    while (m_entries.size() >= m_maxEntries && !m_timedOutRemoves.empty()) {
        const auto [oldest, seq] = m_timedOutRemoves.front(); // the likeliest to have run
        m_timedOutRemoves.pop_front();
        if (auto it = m_entries.find(oldest);
            it != m_entries.end() && it->second.timedOut && it->second.removeSeq == seq)
            unretire(oldest);
    }
    if (m_entries.size() >= m_maxEntries)
        return false; // only removes in flight: their answers will make room
    const bool replaced = forget(handle);
    m_entries.try_emplace(handle).first->second.removeSeq = removeSeq;
    return replaced;
}

void RetiringHandles::removeAnswered(std::int32_t handle)
{
    unretire(handle);
}

void RetiringHandles::removeTimedOut(std::int32_t handle)
{
    auto it = m_entries.find(handle);
    if (it == m_entries.end() || it->second.timedOut)
        return;
    if (it->second.removeSeq < m_answeredSeq) { // a later command was answered: it has run
        unretire(handle);
        return;
    }
    it->second.timedOut = true;
    ++m_timedOut;
    m_timedOutRemoves.emplace_back(handle, it->second.removeSeq);
}

void RetiringHandles::answered(std::uint64_t seq)
{
    m_answeredSeq = std::max(m_answeredSeq, seq);
    while (!m_timedOutRemoves.empty() && m_timedOutRemoves.front().second < seq) {
        const auto [handle, removeSeq] = m_timedOutRemoves.front();
        m_timedOutRemoves.pop_front();
        if (auto it = m_entries.find(handle);
            it != m_entries.end() && it->second.timedOut && it->second.removeSeq == removeSeq)
            unretire(handle);
    }
    if (m_timedOut == 0)
        m_timedOutRemoves.clear(); // only stale entries were left
}

void RetiringHandles::handedOut(std::int32_t handle)
{
    releaseValue(handle); // kept in case it was handed out again, as it was
    forget(handle);       // its values are the new item's now
}

void RetiringHandles::unretire(std::int32_t handle)
{
    releaseValue(handle); // no longer retiring: a value it kept is kept as any unrouted one
    if (forget(handle))
        m_left.push_back(handle);
}

bool RetiringHandles::forget(std::int32_t handle)
{
    auto it = m_entries.find(handle);
    if (it == m_entries.end())
        return false;
    if (it->second.timedOut)
        --m_timedOut;
    if (it->second.hasValue)
        --m_values;
    if (it->second.hasText) {
        auto t = m_texts.find(handle);
        m_keptBytes -= t->second.size();
        m_texts.erase(t);
    }
    m_entries.erase(it);
    return true;
}

void RetiringHandles::releaseValue(std::int32_t handle)
{
    auto it = m_entries.find(handle);
    if (it == m_entries.end() || !it->second.hasValue)
        return;
    Entry& entry = it->second;
    entry.hasValue = false;
    --m_values;
    std::string text;
    const bool hasText = entry.hasText;
    if (hasText) {
        auto t = m_texts.find(handle);
        text = std::move(t->second);
        m_texts.erase(t);
        m_keptBytes -= text.size();
        entry.hasText = false;
    }
    if (m_release)
        m_release(handle, entry, std::move(text), hasText);
}

void RetiringHandles::keep(const MxChange& change, const MxEventBatch& event, Entry& entry,
                           std::uint64_t newestOp)
{
    if (newestOp < entry.removeSeq)
        return; // the subscribe runs before the remove: the value is the old item's
    if ((change.kind == MxValueKind::String || entry.hasText) && !keepText(change, event, entry))
        return;
    entry.value = change.numeric(); // the latest value is the one to deliver
    entry.quality = change.quality;
    entry.sourceTimestampUs = change.sourceTimestampUs;
    if (!entry.hasValue) {
        entry.hasValue = true;
        ++m_values;
    }
}

bool RetiringHandles::keepText(const MxChange& change, const MxEventBatch& event, Entry& entry)
{
    const bool isText = change.kind == MxValueKind::String;
    const std::size_t bytes = isText ? event.textOf(change).size() : 0;
    auto it = m_texts.find(change.itemHandle);
    const std::size_t old = it != m_texts.end() ? it->second.size() : 0;
    if (m_keptBytes - old + bytes > m_maxKeptBytes)
        return false;
    m_keptBytes = m_keptBytes - old + bytes;
    if (isText) {
        if (it == m_texts.end())
            it = m_texts.emplace(change.itemHandle, std::string()).first;
        it->second = event.textOf(change); // the event goes away: the text is copied
    } else if (it != m_texts.end()) {
        m_texts.erase(it);
    }
    entry.hasText = isText;
    return true;
}

void RetiringHandles::dropValues()
{
    for (auto& [handle, entry] : m_entries) {
        if (m_values == 0)
            break;
        if (entry.hasValue) {
            entry.hasValue = false;
            entry.hasText = false;
            --m_values;
        }
    }
    m_values = 0;
    m_texts.clear();
}

void RetiringHandles::clear()
{
    m_entries.clear();
    m_texts.clear();
    m_timedOut = 0;
    m_values = 0;
    m_timedOutRemoves.clear();
    m_answeredSeq = 0;
    m_left.clear();
}

RetiringHandles::Entry* RetiringHandles::find(std::int32_t handle)
{
    const auto it = m_entries.find(handle);
    return it != m_entries.end() ? &it->second : nullptr;
}

const RetiringHandles::Entry* RetiringHandles::find(std::int32_t handle) const
{
    const auto it = m_entries.find(handle);
    return it != m_entries.end() ? &it->second : nullptr;
}

} // namespace stormwatch
