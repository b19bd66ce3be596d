// GatewayConnection's data path (split from gateway_connection.cpp by responsibility):
// routing each data change of an event to its subscribers' batches, keeping values of items
// not routed yet, and handing the batches over. It runs once per data change, so it is
// written for site scale: a route cache by position, batches reused event to event.
#include "gateway_connection.h"

#include <algorithm>
#include <deque>

namespace stormwatch {

GatewayConnection::RouteHit GatewayConnection::resolveRoute(std::int32_t handle)
{
    RouteHit hit;
    hit.handle = handle;
    const Route* single = m_routes.single(handle);
    if (!single) {
        if (m_routes.contains(handle)) {
            hit.kind = RouteHit::Several;
            return hit;
        }
        if (RetiringHandles::Entry* retired = m_retiring.find(handle)) {
            hit.kind = RouteHit::Retired;
            hit.retired = retired;
        } else {
            hit.kind = RouteHit::None;
            hit.kept = nullptr;
        }
        return hit;
    }
    const Route& route = *single;
    auto sub = m_subscribers.find(route.subscriber);
    if (sub == m_subscribers.end()) {
        hit.kind = RouteHit::None;
        hit.kept = nullptr;
        return hit;
    }
    hit.kind = RouteHit::One;
    hit.subscriber = &sub->second;
    hit.index = route.index;
    return hit;
}

// Inlined into onEvent's loop: they run once per data change.
[[gnu::always_inline]] inline TagUpdate&
GatewayConnection::nextUpdate(SubscriberId id, Subscriber& sub, std::vector<SubscriberId>& touched)
{
    if (sub.batchUsed == 0) {
        touched.push_back(id);
        if (sub.batch.capacity() == 0 && !m_spareBatches.empty()) {
            sub.batch = std::move(m_spareBatches.back());
            m_spareBatches.pop_back();
        }
    }
    // A spare batch's elements are overwritten, not cleared: every field is set.
    if (sub.batchUsed == sub.batch.size())
        sub.batch.emplace_back();
    return sub.batch[sub.batchUsed++];
}

[[gnu::always_inline]] inline void
GatewayConnection::decode(const MxChange& change, const MxEventBatch& event, TagUpdate& u)
{
    u.quality = change.quality;
    u.itemHandle = change.itemHandle;
    u.value = change.numeric();
    u.text = change.kind == MxValueKind::String ? &event.textOf(change) : nullptr;
    u.sourceTimestampUs = change.sourceTimestampUs; // clamped by the decoder
}

[[gnu::always_inline]] inline void GatewayConnection::addUpdate(SubscriberId id, Subscriber& sub,
                                                                int index, const MxChange& change,
                                                                const MxEventBatch& event,
                                                                std::vector<SubscriberId>& touched)
{
    TagUpdate& u = nextUpdate(id, sub, touched);
    u.index = index;
    decode(change, event, u);
}

void GatewayConnection::onEvent(const MxEventBatch& event)
{
    heard();
    if (event.sequence != 0) {
        const std::uint64_t first = event.firstSequence != 0 ? event.firstSequence : event.sequence;
        if (m_lastSequence != 0 && first > m_lastSequence + 1) {
            const std::uint64_t lost = first - m_lastSequence - 1;
            m_stats.eventsLost += std::int64_t(lost);
            log(Severity::Warning, "events lost: worker_sequence went from " +
                                       std::to_string(m_lastSequence) + " to " +
                                       std::to_string(first) + " (" + std::to_string(lost) +
                                       " events this client never received)");
        }
        m_lastSequence = std::max(m_lastSequence, event.sequence);
        m_resumedWithoutEvent = false;
    }
    if (event.kind == MxEventBatch::Kind::Notice) {
        log(Severity::Info, "gateway notice: " + event.noticeKind + " " + event.noticeMessage);
        return;
    }
    if (event.kind != MxEventBatch::Kind::DataChanges)
        return;
    std::vector<SubscriberId> touched;
    const auto& changes = event.changes;
    m_stats.dataChanges += changes.size();
    // A gateway sends the same items in the same order tick after tick: what the change at
    // a position was routed to last time is checked first (no hash lookup). When items went
    // away upstream (a redeploy's removes run a few per tick for minutes), the rest moved
    // forward: the entry is then a little further on, and `cursor` follows the shift. The
    // entries are rewritten in place; one is used only for its own handle, so an entry that
    // is overwritten or out of date costs a lookup, never a wrong route.
    const std::size_t known = m_routeCache.size(); // entries of the last event
    const auto count = std::size_t(changes.size());
    if (known < count)
        m_routeCache.resize(count);
    RouteHit* const hits = m_routeCache.data();
    std::vector<std::int32_t>& unretired = m_retiring.left();
    std::sort(unretired.begin(), unretired.end()); // a few a tick while removes run
    const std::uint64_t newestOp = reuseWindow();  // 0 (nearly always): retired values just go
    std::size_t cursor = 0;
    for (std::size_t position = 0; position < count; ++position) {
        const MxChange& change = changes[position];
        const std::int32_t handle = change.itemHandle;
        std::size_t j = cursor > position ? cursor : position;
        std::size_t end = j + 1;
        if (j >= known || hits[j].handle != handle || hits[j].kind == RouteHit::Unknown) {
            end = std::min(known, j + kRouteLookahead);
            ++j;
            while (j < end && (hits[j].handle != handle || hits[j].kind == RouteHit::Unknown))
                ++j;
        }
        RouteHit& hit = hits[position];
        if (j < end) {
            if (j != position)
                hit = hits[j];
            cursor = j + 1;
        } else {
            hit = resolveRoute(handle);
        }
        if (hit.kind == RouteHit::Retired) {
            if (unretired.empty() ||
                !std::binary_search(unretired.begin(), unretired.end(), handle)) {
                // The item is being removed: its value goes nowhere, unless its handle may
                // have been handed out again to a subscribe still running (see m_retiring).
                if (newestOp != 0)
                    m_retiring.keep(change, event, *hit.retired, newestOp);
                continue;
            }
            hit = resolveRoute(handle);
        }
        if (hit.kind == RouteHit::None) {
            keepUnrouted(change, event, hit);
            continue;
        }
        if (hit.kind == RouteHit::One) {
            addUpdate(hit.subscriber->id, *hit.subscriber, hit.index, change, event, touched);
            continue;
        }
        m_routes.forEach(handle, [&](const Route& route) { // several subscribers share the item
            auto sub = m_subscribers.find(route.subscriber);
            if (sub != m_subscribers.end())
                addUpdate(route.subscriber, sub->second, route.index, change, event, touched);
        });
    }
    if (m_routeCache.size() > count)
        m_routeCache.resize(count); // the next event is compared with this one
    unretired.clear();              // every entry the next event can reuse was checked above
    flushBatches(touched);
}

void GatewayConnection::flushBatches(const std::vector<SubscriberId>& touched)
{
    for (SubscriberId id : touched) {
        auto sub = m_subscribers.find(id);
        if (sub == m_subscribers.end())
            continue;
        sub->second.batch.resize(sub->second.batchUsed); // a smaller event than the last
        sub->second.batchUsed = 0;
        if (sub->second.onData)
            sub->second.onData(sub->second.batch);
        sub = m_subscribers.find(id); // the call may have removed it
        if (sub == m_subscribers.end())
            continue;
        if (m_spareBatches.size() < kMaxSpareBatches)
            m_spareBatches.push_back(std::move(sub->second.batch));
        sub->second.batch = {};
    }
}

std::uint64_t GatewayConnection::reuseWindow() const
{
    if (!m_reusesHandles || m_retiring.empty())
        return 0;
    std::uint64_t newest = 0;
    for (const auto& op : m_running)
        newest = std::max(newest, op->sentAfter);
    return newest;
}

void GatewayConnection::keepReleasedValue(std::int32_t handle, const RetiringHandles::Entry& value,
                                          std::string text, bool hasText)
{
    auto kept = m_unrouted.find(handle);
    if (kept == m_unrouted.end()) {
        if (m_unrouted.size() >= kMaxUnroutedValues)
            return;
        kept = m_unrouted.emplace(handle, KeptValue{}).first;
    } else {
        m_unroutedBytes -= keptBytes(kept->second.text.size()); // the released value is newer
    }
    m_unroutedBytes += keptBytes(text.size());
    TagUpdate& u = kept->second.update;
    u.index = 0;
    u.itemHandle = handle;
    u.quality = value.quality;
    u.value = value.value;
    u.sourceTimestampUs = value.sourceTimestampUs;
    kept->second.text = std::move(text);
    u.text = hasText ? &kept->second.text : nullptr;
}

void GatewayConnection::keepUnrouted(const MxChange& change, const MxEventBatch& event,
                                     RouteHit& hit)
{
    if (m_running.empty())
        return; // no reply is on its way that could route it
    const std::size_t bytes =
        keptBytes(change.kind == MxValueKind::String ? event.textOf(change).size() : 0);
    KeptValue* kept = hit.kept;
    if (!kept) {
        if (auto it = m_unrouted.find(change.itemHandle); it != m_unrouted.end())
            kept = &it->second;
    }
    if (kept) {
        const std::size_t old = keptBytes(kept->text.size());
        if (m_unroutedBytes - old + bytes > kMaxUnroutedBytes)
            return;
        m_unroutedBytes = m_unroutedBytes - old + bytes;
    } else if (m_unrouted.size() < kMaxUnroutedValues &&
               m_unroutedBytes + bytes <= kMaxUnroutedBytes) {
        m_unroutedBytes += bytes;
        kept = &m_unrouted[change.itemHandle];
    } else {
        return;
    }
    decode(change, event, kept->update); // the latest value is the one to deliver
    if (kept->update.text) {             // the event goes away: the text is copied
        kept->text = *kept->update.text;
        kept->update.text = &kept->text;
    } else {
        kept->text.clear();
    }
    hit.kept = kept;
}

void GatewayConnection::deliverKeptValues()
{
    std::vector<SubscriberId> touched;
    std::deque<std::string> texts; // the delivered values' texts, until flushBatches is done
    for (std::int32_t handle : m_routedWithKeptValue) {
        auto kept = m_unrouted.find(handle);
        if (kept == m_unrouted.end() || !m_routes.contains(handle))
            continue;
        m_unroutedBytes -= keptBytes(kept->second.text.size());
        const std::string* text = nullptr;
        if (kept->second.update.text) {
            texts.push_back(std::move(kept->second.text));
            text = &texts.back();
        }
        m_routes.forEach(handle, [&](const Route& route) {
            if (auto sub = m_subscribers.find(route.subscriber); sub != m_subscribers.end()) {
                TagUpdate& u = nextUpdate(route.subscriber, sub->second, touched);
                u = kept->second.update;
                u.index = route.index;
                u.text = text;
            }
        });
        m_unrouted.erase(kept);
        m_routeCache.clear(); // it may point at the erased value
    }
    m_routedWithKeptValue.clear();
    if (m_running.empty())
        pruneRemovedTags();
    if (m_running.empty() && (!m_unrouted.empty() || m_retiring.values() != 0)) {
        // The window is closed: what is left has nobody to go to.
        m_retiring.dropValues();
        m_unrouted.clear();
        m_unroutedBytes = 0;
        m_routeCache.clear();
    }
    flushBatches(touched);
}

} // namespace stormwatch
