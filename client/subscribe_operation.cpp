// The subscribe paths of GatewayConnection: Lever 2's single SubscribeBulk{supervisory},
// plain SubscribeBulk for a write user, and the legacy AddItemBulk + N × AdviseSupervisory
// fan-out (bounded in flight). Handle bookkeeping is shared by all paths.
#include "gateway_connection.h"

#include <algorithm>
#include <iterator>

namespace stormwatch {

using namespace mxgateway::v1;

void GatewayConnection::subscribe(SubscriberId id, SubscribeDone done)
{
    auto sub = m_subscribers.find(id);
    if (sub == m_subscribers.end()) {
        std::weak_ptr<int> life = m_life;
        m_scheduler.post([life, done = std::move(done)] {
            if (!life.expired())
                done(SubscribeOutcome{false, false, false, "unknown subscriber", {}});
        });
        return;
    }
    if (m_config.coalesce) {
        // An identical subscribe already running or held answers this caller too.
        auto join = [&](auto& ops) {
            for (auto& op : ops) {
                if (op->aborted || !sameTags(*op, sub->second))
                    continue;
                if (op->started && removedSince(op->tagsHash, op->sentAfter))
                    continue; // it may be answered with the items being removed: a fresh op
                if (std::find(op->subscribers.begin(), op->subscribers.end(), id) ==
                    op->subscribers.end())
                    op->subscribers.push_back(id);
                op->waiters.push_back(Waiter{id, std::move(done)});
                ++m_stats.coalescedSubscribes;
                return true;
            }
            return false;
        };
        if (join(m_running) || join(m_held))
            return;
    }
    if (m_config.dropSuperseded && !connected())
        dropSupersededHeld(id);
    auto op = newOp(id);
    op->waiters.push_back(Waiter{id, std::move(done)});
    if (connected()) {
        startOp(op);
    } else {
        m_held.push_back(op);
        log(Severity::Debug, "subscribe held while " + std::string(toString(m_state)) + " (" +
                                 std::to_string(m_held.size()) + " held)");
    }
}

void GatewayConnection::dropSupersededHeld(SubscriberId id)
{
    // The subscriber asks again while its earlier request waits unsent: that one can only
    // add a duplicate on reconnect. Its caller is told it was superseded.
    std::vector<Waiter> dropped;
    for (auto& op : m_held) {
        auto mine = std::stable_partition(op->waiters.begin(), op->waiters.end(),
                                          [id](const Waiter& w) { return w.subscriber != id; });
        std::move(mine, op->waiters.end(), std::back_inserter(dropped));
        op->waiters.erase(mine, op->waiters.end());
        if (op->waiters.empty())
            std::erase(op->subscribers, id);
    }
    std::erase_if(m_held, [](const OpPtr& op) { return op->subscribers.empty(); });
    if (dropped.empty())
        return;
    m_stats.supersededDropped += std::int64_t(dropped.size());
    log(Severity::Debug, "dropped " + std::to_string(dropped.size()) +
                             " held subscribe(s) superseded by a newer one");
    std::weak_ptr<int> life = m_life;
    for (auto& w : dropped)
        m_scheduler.post([life, done = std::move(w.done)] {
            if (!life.expired())
                done(SubscribeOutcome{false, false, true, "superseded while held", {}});
        });
}

bool GatewayConnection::subscribePending(SubscriberId id) const
{
    auto has = [id](const auto& ops) {
        for (const auto& op : ops)
            if (!op->aborted && std::find(op->subscribers.begin(), op->subscribers.end(), id) !=
                                    op->subscribers.end())
                return true;
        return false;
    };
    if (has(m_held) || has(m_running))
        return true;
    // Down but coming back: the reconnect re-subscribes what was subscribed before.
    const auto ever = m_everSubscribed.find(id);
    return m_state != ConnectionState::Stopped && !connected() && ever != m_everSubscribed.end() &&
           ever->second;
}

bool GatewayConnection::routed(SubscriberId id, int index) const
{
    const auto it = m_subscribers.find(id);
    return it != m_subscribers.end() && index >= 0 &&
           std::size_t(index) < it->second.handles.size() &&
           it->second.handles[std::size_t(index)] != 0;
}

void GatewayConnection::ensureSubscribed(SubscriberId id)
{
    for (const auto& op : m_held)
        if (std::find(op->subscribers.begin(), op->subscribers.end(), id) != op->subscribers.end())
            return; // a held request for it runs anyway
    startOp(newOp(id));
}

void GatewayConnection::runHeld()
{
    std::deque<OpPtr> held;
    held.swap(m_held);
    for (auto& op : held) {
        if (!connected()) {
            m_held.push_back(op);
            continue;
        }
        startOp(op);
    }
    auto alarms = std::move(m_heldAlarms);
    m_heldAlarms.clear();
    for (auto& [area, done] : alarms)
        subscribeAlarms(area, std::move(done));
}

GatewayConnection::OpPtr GatewayConnection::newOp(SubscriberId id) const
{
    auto op = std::make_shared<SubscribeOp>();
    const Subscriber& sub = m_subscribers.at(id);
    op->subscribers.push_back(id);
    op->origin = id;
    op->tags = sub.tags;
    op->tagsHash = sub.tagsHash;
    return op;
}

void GatewayConnection::startOp(const OpPtr& op)
{
    // The results of its subscriber's last op are reused: their error strings keep their
    // storage, so a storm of failing subscribes does not allocate one error per tag each time.
    if (auto sub = m_subscribers.find(op->origin);
        sub != m_subscribers.end() && op->results.empty())
        op->results = std::move(sub->second.spareResults);
    op->results.resize(op->tags->size());
    for (std::size_t i = 0; i < op->results.size(); ++i) {
        TagResult& t = op->results[i];
        t.index = int(i);
        t.ok = false;
        t.itemHandle = 0;
        t.error.clear();
        t.definitive = false;
    }
    op->sentAfter = m_nextCorrelation;
    op->started = true;
    m_running.push_back(op);
    ++m_stats.subscribeOperations;
    if (m_config.writeUserId != 0)
        runBulk(op, false); // a write user needs only plain advises
    else if (m_config.bulkSupervisory && supportsSupervisoryBulk())
        runBulk(op, true); // Lever 2: never sent without the capability
    else
        runFanOut(op);
}

namespace {

// Bulk replies list one result per tag in request order; fall back to matching by
// address in case a gateway reorders them.
void mapBulkResults(const BulkItemReply& reply, const std::vector<std::string>& tags,
                    std::vector<TagResult>& results)
{
    const bool inOrder = reply.results_size() == int(tags.size());
    for (int r = 0; r < reply.results_size(); ++r) {
        const ItemResult& item = reply.results(r);
        int index = -1;
        if (inOrder && item.tag_address() == tags[std::size_t(r)])
            index = r;
        else
            for (std::size_t i = 0; i < tags.size(); ++i)
                if (tags[i] == item.tag_address()) {
                    index = int(i);
                    break;
                }
        if (index < 0)
            continue;
        TagResult& t = results[std::size_t(index)];
        t.ok = item.ok();
        t.itemHandle = item.ok() ? item.item_handle() : 0;
        t.error = item.ok() ? std::string() : item.error();
        t.definitive = !item.ok();
    }
    for (TagResult& t : results)
        if (!t.ok && t.error.empty())
            t.error = "no result from the gateway";
}

} // namespace

bool GatewayConnection::failedAsAWhole(SubscribeOp& op, const RpcStatus& status,
                                       const MxCommandReply& reply)
{
    if (status.ok() && reply.success())
        return false;
    op.failed = true;
    op.suppressed = status.suppressed;
    op.error = status.ok() ? reply.error_message() : status.toString();
    return true;
}

MxCommandRequest& GatewayConnection::bulkRequest(const OpPtr& op, bool subscribeBulk,
                                                 bool supervisory, MxCommandRequest& scratch)
{
    auto sub = m_subscribers.find(op->origin);
    const bool reuse =
        sub != m_subscribers.end() && sub->second.tags == op->tags; // the same list, not a copy
    if (reuse && !sub->second.bulkRequest)
        sub->second.bulkRequest = std::make_unique<MxCommandRequest>();
    MxCommandRequest& request = reuse ? *sub->second.bulkRequest : scratch;
    MxCommand& command = *request.mutable_command();
    if (subscribeBulk) {
        const bool same = command.has_subscribe_bulk() &&
                          command.subscribe_bulk().server_handle() == m_serverHandle &&
                          command.subscribe_bulk().supervisory() == supervisory;
        if (!same) {
            auto* bulk = command.mutable_subscribe_bulk();
            bulk->set_server_handle(m_serverHandle);
            bulk->mutable_tag_addresses()->Assign(op->tags->begin(), op->tags->end());
            bulk->set_supervisory(supervisory);
        }
    } else if (!command.has_add_item_bulk() ||
               command.add_item_bulk().server_handle() != m_serverHandle) {
        auto* add = command.mutable_add_item_bulk();
        add->set_server_handle(m_serverHandle);
        add->mutable_tag_addresses()->Assign(op->tags->begin(), op->tags->end());
    }
    return request;
}

void GatewayConnection::runBulk(const OpPtr& op, bool supervisory)
{
    MxCommandRequest scratch;
    send(bulkRequest(op, true, supervisory, scratch),
         [this, op](RpcStatus status, MxCommandReply reply) {
             if (op->aborted)
                 return;
             if (!failedAsAWhole(*op, status, reply))
                 mapBulkResults(reply.subscribe_bulk(), *op->tags, op->results);
             finishOp(op);
         });
}

void GatewayConnection::runFanOut(const OpPtr& op)
{
    MxCommandRequest scratch;
    send(bulkRequest(op, false, false, scratch),
         [this, op](RpcStatus status, MxCommandReply reply) {
             if (op->aborted)
                 return;
             if (failedAsAWhole(*op, status, reply)) {
                 finishOp(op);
                 return;
             }
             mapBulkResults(reply.add_item_bulk(), *op->tags, op->results);
             for (TagResult& t : op->results)
                 if (t.ok) {
                     t.ok = false; // not subscribed until its advise succeeds
                     op->toAdvise.push_back(t.index);
                 }
             pumpAdvises(op);
         });
}

void GatewayConnection::pumpAdvises(const OpPtr& op)
{
    while (op->advisesInFlight < std::max(1, m_config.adviseParallelism) && !op->toAdvise.empty()) {
        const int index = op->toAdvise.front();
        op->toAdvise.pop_front();
        ++op->advisesInFlight;
        m_stats.maxAdviseInFlight = std::max(m_stats.maxAdviseInFlight, op->advisesInFlight);
        MxCommand command;
        auto* advise = command.mutable_advise_supervisory();
        advise->set_server_handle(m_serverHandle);
        advise->set_item_handle(op->results[std::size_t(index)].itemHandle);
        invoke(std::move(command), [this, op, index](RpcStatus status, MxCommandReply reply) {
            if (op->aborted)
                return;
            --op->advisesInFlight;
            TagResult& t = op->results[std::size_t(index)];
            if (!status.ok()) {
                t.error = status.toString();
                op->transientFailure = op->transientFailure || status.transient();
                op->suppressed = op->suppressed || status.suppressed;
                if (op->error.empty())
                    op->error = "AdviseSupervisory: " + status.toString();
            } else if (!reply.success()) {
                t.error = reply.error_message();
                t.definitive = true;
            } else {
                t.ok = true;
                t.error.clear();
            }
            pumpAdvises(op);
        });
    }
    if (op->toAdvise.empty() && op->advisesInFlight == 0)
        finishOp(op);
}

void GatewayConnection::eraseRoute(std::int32_t handle, SubscriberId id, std::optional<int> index)
{
    if (m_routes.erase(handle, id, index))
        m_routeCache.clear(); // it may point at the route
}

void GatewayConnection::applyResult(SubscriberId id, TagResult& result, std::uint64_t sentAfter)
{
    auto& sub = m_subscribers.at(id);
    std::int32_t& handle = sub.handles[std::size_t(result.index)];
    if (result.ok && handle == result.itemHandle)
        return; // a repeated subscribe of an item already routed
    // A failed item evicts its handle so a later retry re-adds it cleanly.
    if (handle != 0)
        eraseRoute(handle, id, result.index);
    handle = result.ok ? result.itemHandle : 0;
    if (result.ok) {
        onHandedOut(handle, (*sub.tags)[std::size_t(result.index)], sentAfter);
        m_retiring.handedOut(handle);
        m_routes.add(handle, Route{id, result.index});
        m_routeCache.clear();
        if (m_unrouted.count(handle))
            m_routedWithKeptValue.push_back(handle);
    }
}

bool GatewayConnection::removedSince(std::size_t tagsHash, std::uint64_t sentAfter) const
{
    const auto it = m_removedTagLists.find(tagsHash);
    return it != m_removedTagLists.end() && it->second > sentAfter;
}

std::size_t GatewayConnection::hashTags(const std::vector<std::string>& tags)
{
    std::size_t hash = tags.size();
    for (const std::string& tag : tags) // boost's hash_combine
        hash ^= std::hash<std::string>{}(tag) + 0x9e3779b97f4a7c15ULL + (hash << 6) + (hash >> 2);
    return hash;
}

bool GatewayConnection::sameTags(const SubscribeOp& op, const Subscriber& sub)
{
    return op.tagsHash == sub.tagsHash && (op.tags == sub.tags || *op.tags == *sub.tags);
}

// A subscribe sent before a RemoveItem of one of its items is answered with that item's
// handle (a gateway adds a tag once per server handle), and the item is deleted right after:
// routed there, the tag would wait for data that never comes. Such a tag failed, and not for
// good: its guard subscribes it again, after the remove.
void GatewayConnection::failItemsRemovedAfter(SubscribeOp& op)
{
    if (m_retiring.empty() && m_removedTags.empty())
        return;
    const auto removedAfter = [&](std::int32_t handle) {
        if (const RetiringHandles::Entry* r = m_retiring.find(handle);
            r && r->removeSeq > op.sentAfter)
            return true;
        const auto m = m_removedTags.find(handle);
        return m != m_removedTags.end() && m->second.removeSeq > op.sentAfter;
    };
    for (TagResult& t : op.results) {
        if (t.itemHandle == 0 || !removedAfter(t.itemHandle))
            continue;
        t.error = "item " + std::to_string(t.itemHandle) +
                  " is being removed: its RemoveItem was sent after this subscribe; subscribed "
                  "again after it";
        t.ok = false;
        t.definitive = false;
        t.itemHandle = 0;
        op.transientFailure = true;
        if (op.error.empty())
            op.error = t.error;
    }
}

void GatewayConnection::onHandedOut(std::int32_t handle, const std::string& tag,
                                    std::uint64_t sentAfter)
{
    auto removed = m_removedTags.find(handle);
    if (removed == m_removedTags.end())
        return; // a handle this connection never removed (or one removed long before)
    if (sentAfter < removed->second.removeSeq)
        return; // the op ran before the remove: the item's own handle, not a reuse
    const RemovedItem item = removed->second;
    m_removedTags.erase(removed);
    const bool sameTag = item.tagHash == std::hash<std::string>{}(tag);
    if (!m_reusesHandles) {
        m_reusesHandles = true;
        log(Severity::Info,
            "the gateway hands out removed item handles again (item " + std::to_string(handle) +
                " went to " + tag +
                "): values of items being removed are kept from now on "
                "while a subscribe runs, and items removed before are advised again");
    }
    if (item.keptSinceRemove && (sameTag || !hasKeptValue(handle)))
        return; // what was kept is this tag's, or its first value is still to come
    dropKeptValue(handle);
    m_toReadvise.push_back(handle);
}

bool GatewayConnection::hasKeptValue(std::int32_t handle) const
{
    const RetiringHandles::Entry* retired = m_retiring.find(handle);
    return (retired && retired->hasValue) || m_unrouted.count(handle) != 0;
}

void GatewayConnection::dropKeptValue(std::int32_t handle)
{
    m_retiring.releaseValue(handle); // one place to drop it from
    if (auto kept = m_unrouted.find(handle); kept != m_unrouted.end()) {
        m_unroutedBytes -= keptBytes(kept->second.text.size());
        m_unrouted.erase(kept);
        m_routeCache.clear(); // it may point at the erased value
    }
}

// When reuse is first learned every item removed before may need it at once: they go at
// most adviseParallelism at a time (each is two commands on the STA), like a fan-out's advises.
void GatewayConnection::pumpReadvises()
{
    const int parallel = std::max(1, m_config.adviseParallelism);
    while (m_readvisesInFlight < parallel && !m_readviseQueue.empty()) {
        const std::int32_t handle = m_readviseQueue.front();
        m_readviseQueue.pop_front();
        if (!m_routes.contains(handle))
            continue; // removed or lost meanwhile: nothing to restore
        ++m_readvisesInFlight;
        m_stats.maxReadvisesInFlight = std::max(m_stats.maxReadvisesInFlight, m_readvisesInFlight);
        readvise(handle);
    }
}

void GatewayConnection::readvise(std::int32_t handle)
{
    ++m_stats.readvises;
    MxCommand unadvise;
    unadvise.mutable_un_advise()->set_server_handle(m_serverHandle);
    unadvise.mutable_un_advise()->set_item_handle(handle);
    const auto finished = [this] {
        --m_readvisesInFlight;
        pumpReadvises();
    };
    // The advise goes once the UnAdvise is answered: two calls can reach the STA in either
    // order, and an UnAdvise run after the advise would leave the item silent. Neither is
    // refused by a recovering gate (they only feed it): they restore a value, not load.
    // A session lost meanwhile answers neither (dropSession forgets the count).
    invoke(
        std::move(unadvise),
        [this, handle, finished](RpcStatus, MxCommandReply) {
            MxCommand advise; // as the subscribe advised it
            if (m_config.writeUserId == 0) {
                advise.mutable_advise_supervisory()->set_server_handle(m_serverHandle);
                advise.mutable_advise_supervisory()->set_item_handle(handle);
            } else {
                advise.mutable_advise()->set_server_handle(m_serverHandle);
                advise.mutable_advise()->set_item_handle(handle);
            }
            invoke(
                std::move(advise),
                [this, handle, finished](RpcStatus status, MxCommandReply reply) {
                    if (!status.ok() || !reply.success()) {
                        const std::string why =
                            "advising item " + std::to_string(handle) + " again failed (" +
                            (status.ok() ? reply.error_message() : status.toString()) + ")";
                        log(Severity::Warning, why + ": its tag is subscribed again");
                        loseItem(handle, why);
                    }
                    finished();
                },
                GateUse::RecordOnly);
        },
        GateUse::RecordOnly);
}

void GatewayConnection::loseItem(std::int32_t handle, const std::string& why)
{
    std::map<SubscriberId, std::vector<int>> lost;
    m_routes.forEach(handle, [&](const Route& r) { lost[r.subscriber].push_back(r.index); });
    if (lost.empty())
        return; // no longer routed (removed, or the session is gone): nothing to repair
    for (const auto& [id, indices] : lost)
        for (int index : indices) {
            eraseRoute(handle, id, index);
            m_subscribers.at(id).handles[std::size_t(index)] = 0;
        }
    for (const auto& [id, indices] : lost)
        if (auto sub = m_subscribers.find(id); sub != m_subscribers.end() && sub->second.onLost)
            sub->second.onLost(indices, why);
}

void GatewayConnection::pruneRemovedTags()
{
    std::erase_if(m_removedTags,
                  [this](const auto& entry) { return !m_retiring.contains(entry.first); });
}

void GatewayConnection::finishOp(const OpPtr& op)
{
    std::erase(m_running, op);
    if (op->aborted)
        return;
    if (!op->failed)
        failItemsRemovedAfter(*op);
    if (m_running.empty())
        m_removedTagLists.clear(); // no op left that started before those removes
    SubscribeOutcome outcome;
    outcome.success = !op->failed && !op->transientFailure;
    outcome.suppressed = op->suppressed;
    outcome.error = op->error;
    if (op->failed)
        for (TagResult& t : op->results) {
            t.ok = false;
            t.itemHandle = 0;
            t.error = op->error;
            t.definitive = false;
        }
    for (SubscriberId id : op->subscribers) {
        auto sub = m_subscribers.find(id);
        if (sub == m_subscribers.end())
            continue;
        for (TagResult& t : op->results)
            applyResult(id, t, op->sentAfter);
        sub->second.lastSucceeded = outcome.success;
        if (outcome.success) {
            m_everSubscribed[id] = true;
            if (!sub->second.inSettled) {
                sub->second.inSettled = true;
                m_settled.push_back(id);
            }
        }
    }
    m_readviseQueue.insert(m_readviseQueue.end(), m_toReadvise.begin(), m_toReadvise.end());
    m_toReadvise.clear();
    pumpReadvises();
    deliverKeptValues(); // an item's initial value may have come before this reply
    outcome.tags = std::move(op->results);
    if (!outcome.success)
        log(Severity::Warning, "subscribe failed: " + outcome.error);
    for (auto& w : op->waiters)
        w.done(outcome);
    if (auto sub = m_subscribers.find(op->origin); sub != m_subscribers.end()) {
        sub->second.spareResults = std::move(outcome.tags);
        // A site's deployment runs every subscription's subscribe at once: each one's request
        // and results go as soon as it is settled, not when the last one is.
        if (outcome.success && !hasOpOf(op->origin))
            release(sub->second);
    }
    if (m_running.empty())
        releaseSettled();
}

bool GatewayConnection::hasOpOf(SubscriberId id) const
{
    const auto of = [id](const OpPtr& op) { return op->origin == id; };
    return std::any_of(m_running.begin(), m_running.end(), of) ||
           std::any_of(m_held.begin(), m_held.end(), of);
}

void GatewayConnection::release(Subscriber& sub)
{
    sub.bulkRequest.reset();
    sub.spareResults = {};
}

std::size_t GatewayConnection::keptRequests() const
{
    return std::size_t(
        std::count_if(m_subscribers.begin(), m_subscribers.end(),
                      [](const auto& entry) { return entry.second.bulkRequest != nullptr; }));
}

void GatewayConnection::releaseSettled()
{
    for (SubscriberId id : m_settled) {
        auto sub = m_subscribers.find(id);
        if (sub == m_subscribers.end())
            continue;
        sub->second.inSettled = false;
        if (!sub->second.lastSucceeded)
            continue; // failed since: its guard will send the same list again
        release(sub->second);
    }
    m_settled.clear();
}

GatewayConnection::SubscriberId GatewayConnection::addSubscriber(TagList tags, DataFn onData,
                                                                 QualityFn onQuality,
                                                                 LivenessFn onLiveness,
                                                                 LostFn onLost)
{
    const SubscriberId id = m_nextSubscriber++;
    Subscriber sub;
    sub.id = id;
    sub.tagsHash = hashTags(*tags);
    sub.handles.assign(tags->size(), 0);
    sub.tags = std::move(tags);
    sub.onData = std::move(onData);
    sub.onQuality = std::move(onQuality);
    sub.onLiveness = std::move(onLiveness);
    sub.onLost = std::move(onLost);
    m_subscribers.emplace(id, std::move(sub));
    return id;
}

void GatewayConnection::removeSubscriber(SubscriberId id)
{
    auto it = m_subscribers.find(id);
    if (it == m_subscribers.end())
        return;
    for (std::int32_t handle : it->second.handles)
        if (handle != 0)
            eraseRoute(handle, id, std::nullopt);
    m_routeCache.clear(); // it may point at the subscriber
    m_subscribers.erase(it);
    m_everSubscribed.erase(id);
    for (auto& op : m_held)
        std::erase(op->subscribers, id);
    std::erase_if(m_held, [](const OpPtr& op) { return op->subscribers.empty(); });
    for (auto& op : m_running) // still answered, but no longer routed to the subscriber
        std::erase(op->subscribers, id);
}

void GatewayConnection::removeItems(SubscriberId id)
{
    auto it = m_subscribers.find(id);
    if (it == m_subscribers.end())
        return;
    m_everSubscribed.erase(id);
    if (connected() && !m_running.empty())
        m_removedTagLists[it->second.tagsHash] = m_nextCorrelation + 1;
    const std::vector<std::string>& tags = *it->second.tags;
    if (m_removedTags.size() + tags.size() > kMaxRetiring)
        pruneRemovedTags(); // once, not per handle: what is left may all be retiring
    for (std::size_t i = 0; i < it->second.handles.size(); ++i) {
        std::int32_t& handle = it->second.handles[i];
        if (handle == 0)
            continue;
        if (connected() && m_config.teardown == Teardown::PerItemRemove) {
            if (m_removedTags.size() < kMaxRetiring)
                m_removedTags[handle] = RemovedItem{std::hash<std::string>{}(tags[i]),
                                                    m_nextCorrelation + 1, m_reusesHandles};
            MxCommand command;
            command.mutable_remove_item()->set_server_handle(m_serverHandle);
            command.mutable_remove_item()->set_item_handle(handle);
            if (m_retiring.retire(handle, m_nextCorrelation + 1)) // the remove's number once sent
                m_routeCache.clear(); // it may point at the replaced entry
            // Called only while this session lives. After a DEADLINE_EXCEEDED the STA still
            // runs the remove later: the item stays retired until something sent after it is
            // answered; any other answer ends it.
            invoke(
                std::move(command),
                [this, handle](RpcStatus status, MxCommandReply) {
                    if (status.code != grpc::StatusCode::DEADLINE_EXCEEDED)
                        m_retiring.removeAnswered(handle);
                    else
                        m_retiring.removeTimedOut(handle);
                },
                m_config.teardownGated ? GateUse::CheckAndRecord : GateUse::Bypass);
        }
        eraseRoute(handle, id, std::nullopt);
        handle = 0;
    }
}

void GatewayConnection::subscribeAlarms(const std::string& area, AlarmDone done)
{
    if (!connected()) {
        m_heldAlarms.emplace_back(area, std::move(done));
        return;
    }
    MxCommand command;
    command.mutable_subscribe_alarms()->set_server_handle(m_serverHandle);
    command.mutable_subscribe_alarms()->set_area(area);
    invoke(std::move(command), [done = std::move(done)](RpcStatus status, MxCommandReply reply) {
        if (!status.ok())
            done(false, status.toString());
        else
            done(reply.success(), reply.error_message());
    });
}

} // namespace stormwatch
