// The data source: every advised item changes at data_hz, batched per session per tick
// into one event (an MxEventBatch: flat 32-byte changes, proto/mx_event_batch.h) on the
// session's event streams. The tick path reuses each session's batch, so a long virtual
// replay stays cheap and a 10,000-change tick is 320 KB, not the ~1.3 MB of protobuf
// messages it was (it no longer outgrows the L2 before the client reads it).
#include "gateway_model.h"

#include <algorithm>
#include <cmath>

namespace stormwatch::gateway {

using namespace mxgateway::v1;
using grpc::StatusCode;

GatewayModel::StreamId GatewayModel::streamEvents(const StreamEventsRequest& request,
                                                  EventFn onEvent, EndFn onEnd,
                                                  StreamOptions options)
{
    Stream stream;
    stream.onEvent = std::move(onEvent);
    return openStream(request, std::move(stream), std::move(onEnd), std::move(options));
}

GatewayModel::StreamId GatewayModel::streamEventsShared(const StreamEventsRequest& request,
                                                        SharedEventFn onEvent, EndFn onEnd,
                                                        StreamOptions options)
{
    Stream stream;
    stream.onShared = std::move(onEvent);
    return openStream(request, std::move(stream), std::move(onEnd), std::move(options));
}

GatewayModel::StreamId GatewayModel::openStream(const StreamEventsRequest& request, Stream stream,
                                                EndFn onEnd, StreamOptions options)
{
    stream.sessionId = request.session_id();
    stream.onEnd = std::move(onEnd);
    stream.reader = std::move(options.reader);
    const std::uint64_t resumeAfter = options.resumeAfter;
    const StreamId id = m_nextStream++;
    m_streams.emplace(id, std::move(stream));
    CallStatus refused;
    Session* s = findSession(request.session_id());
    if (m_down)
        refused = CallStatus::error(StatusCode::UNAVAILABLE,
                                    m_shutdown ? "gateway shut down" : "gateway restarting");
    else if (!s)
        refused =
            CallStatus::error(StatusCode::NOT_FOUND, "unknown session " + request.session_id());
    else if (m_config.singleEventSubscriber && !s->streams.empty())
        refused = CallStatus::error(StatusCode::FAILED_PRECONDITION,
                                    "EventSubscriberAlreadyActive: session " + s->id +
                                        " already has an event subscriber");
    else if (resumeAfter != 0 && m_config.replayCapacity == 0)
        refused = CallStatus::error(StatusCode::FAILED_PRECONDITION,
                                    "this gateway does not resume event streams");
    else if (resumeAfter > s->lastSequence)
        refused = CallStatus::error(StatusCode::OUT_OF_RANGE, "resume after " +
                                                                  std::to_string(resumeAfter) +
                                                                  ": the session's last event is " +
                                                                  std::to_string(s->lastSequence));
    if (!refused.ok()) {
        // Ended on the next turn (not from inside this call); cancelStream before then wins.
        post([this, id, refused] {
            auto it = m_streams.find(id);
            if (it == m_streams.end())
                return;
            auto onEnd = std::move(it->second.onEnd);
            m_streams.erase(it);
            onEnd(refused);
        });
        return id;
    }
    s->hadSubscriber = true;
    if (resumeAfter != 0) {
        ++m_streamsResumed;
        m_streams.at(id).replayPending = true;
        post([this, id, resumeAfter] { replayTo(id, resumeAfter); });
    }
    s->streams.push_back(id);
    // Values advised while nobody listened are still owed as first values.
    if (!s->initialFlushPosted) {
        const bool owed = std::any_of(s->initialPendingHandles.begin(),
                                      s->initialPendingHandles.end(), [s](std::int32_t handle) {
                                          auto it = s->items.find(handle);
                                          return it != s->items.end() && it->second.initialPending;
                                      });
        if (owed) {
            s->initialFlushPosted = true;
            post([this, sid = s->id] { flushInitialValues(sid); });
        }
    }
    return id;
}

// A resumed stream's first batch: what the session still holds after `after`, within the
// retention (held events past it are forgotten first). Numbers the client does not get here
// show as a gap before the first one it does.
void GatewayModel::replayTo(StreamId id, std::uint64_t after)
{
    auto it = m_streams.find(id);
    if (it == m_streams.end())
        return;
    it->second.replayPending = false;
    Session* s = findSession(it->second.sessionId);
    if (!s)
        return;
    const Time oldest = m_scheduler.now() - m_config.replayRetention;
    while (!s->replay.empty() && s->replay.front().at < oldest)
        s->replay.pop_front();
    // One batch per run of consecutive numbers (events lost meanwhile left holes): a batch
    // covers firstSequence..sequence with no gap inside it.
    std::vector<std::shared_ptr<MxEventBatch>> batches;
    for (const Session::Held& held : s->replay) {
        if (held.sequence <= after)
            continue;
        if (batches.empty() || held.sequence != batches.back()->sequence + 1) {
            batches.push_back(std::make_shared<MxEventBatch>());
            batches.back()->kind = MxEventBatch::Kind::DataChanges;
            batches.back()->firstSequence = held.sequence;
        }
        batches.back()->sequence = held.sequence;
        batches.back()->changes.push_back(held.change);
    }
    for (const auto& batch : batches) {
        auto stream = m_streams.find(id); // a delivery may end the stream
        if (stream == m_streams.end())
            return;
        m_dataChangesSent += static_cast<std::int64_t>(batch->changes.size());
        deliver(id, stream->second, batch);
    }
}

void GatewayModel::deliver(StreamId id, Stream& stream, const std::shared_ptr<MxEventBatch>& batch)
{
    if (stream.onShared)
        stream.onShared(batch);
    else
        stream.onEvent(*batch);
    if (m_config.eventQueueCapacity == 0 || !stream.reader)
        return;
    stream.delivered += batch->changes.size();
    const std::uint64_t taken = stream.reader->taken.load(std::memory_order_relaxed);
    const std::uint64_t behind = stream.delivered > taken ? stream.delivered - taken : 0;
    if (behind > m_config.eventQueueCapacity)
        onSubscriberOverflow(id, behind);
}

void GatewayModel::cancelStream(StreamId id)
{
    auto it = m_streams.find(id);
    if (it == m_streams.end())
        return;
    if (Session* s = findSession(it->second.sessionId))
        std::erase(s->streams, id);
    m_streams.erase(it);
}

void GatewayModel::endStreams(const std::vector<StreamId>& ids, const CallStatus& status)
{
    for (StreamId id : ids) {
        auto it = m_streams.find(id);
        if (it == m_streams.end())
            continue;
        if (Session* s = findSession(it->second.sessionId))
            std::erase(s->streams, id);
        post([onEnd = std::move(it->second.onEnd), status] { onEnd(status); });
        m_streams.erase(it);
    }
}

void GatewayModel::armDataTick()
{
    m_scheduler.cancel(m_tickTimer);
    m_tickTimer = kNoTimer;
    if (m_config.dataHz <= 0 || m_shutdown)
        return;
    m_tickTimer = m_scheduler.callAt(m_nextTick, [this] { onDataTick(); });
}

void GatewayModel::onDataTick()
{
    m_tickTimer = kNoTimer;
    const auto period = Duration(std::max<std::int64_t>(1, std::llround(1e6 / m_config.dataHz)));
    m_nextTick += period;
    armDataTick();
    if (m_down || silent()) // a stopped or hung gateway sees no change
        return;
    // Snapshot: a stream callback may open or close sessions while we emit.
    std::vector<std::shared_ptr<Session>> sessions;
    sessions.reserve(m_sessions.size());
    for (auto& [id, s] : m_sessions)
        if (!s->streams.empty() || (holdsEvents() && s->hadSubscriber))
            sessions.push_back(s);
    for (auto& s : sessions)
        if (findSession(s->id) == s.get())
            emitBatch(*s, true);
}

void GatewayModel::flushInitialValues(const std::string& sessionId)
{
    auto it = m_sessions.find(sessionId);
    if (it == m_sessions.end())
        return;
    const std::shared_ptr<Session> s = it->second; // kept alive while its callbacks run
    s->initialFlushPosted = false;
    emitBatch(*s, false);
}

void GatewayModel::emitBatch(Session& s, bool allAdvised)
{
    if (s.streams.empty() && !(holdsEvents() && s.hadSubscriber)) {
        // Nobody listens: nothing is sent, and a value first seen later counts as initial.
        // (A gateway with a replay buffer numbers and holds them for a subscriber's return.)
        return;
    }
    const int quality = m_sourceOutage ? kQualityBad : kQualityGood;
    const auto stampUs = m_config.timestampEpochUs + m_scheduler.now().count();
    std::shared_ptr<MxEventBatch>& slot = allAdvised ? s.batch : s.initialBatch;
    if (!slot || slot.use_count() > 1) {
        // The last one is still held by a receiver: a new one (the tick's sized for every item).
        slot = std::make_shared<MxEventBatch>();
        if (allAdvised)
            slot->changes.reserve(s.items.size());
    }
    MxEventBatch& batch = *slot;
    batch.kind = MxEventBatch::Kind::DataChanges; // the model's batches carry no texts nor notices
    std::vector<MxChange>& changes = batch.changes;
    // Sized for every change this batch can hold, then cut to those written: a tick's batch
    // keeps its size from tick to tick, so this neither allocates nor initialises anything
    // (an emplace_back per change was a tenth of the model's time).
    const std::size_t bound = allAdvised ? s.items.flat().size() : s.initialPendingHandles.size();
    if (changes.size() < bound)
        changes.resize(bound);
    std::size_t used = 0;
    // What every change of this batch shares is computed once (the per-change work is most
    // of a replay at site scale).
    std::uint64_t valueState = m_valueState; // a local: kept in a register through the loop
    // Reads and writes only the item's entry in the flat list (ItemTable::Hot), not its node.
    auto emit = [&](ItemTable::Hot & item) __attribute__((always_inline))
    {
        // A bounded random walk: enough to make every change a new value. (min/max, not
        // std::clamp: the same for any number, without its branches.)
        const double step = static_cast<double>(splitMix64(valueState) >> 11) * 0x1.0p-53 - 0.5;
        item.value = std::max(-1000.0, std::min(item.value + step, 1000.0));
        MxChange& c = changes[used++];
        c.serverHandle = item.serverHandle;
        c.itemHandle = item.handle;
        c.quality = quality;
        c.kind = MxValueKind::Double;
        c.number = item.value;
        c.sourceTimestampUs = stampUs;
    };
    if (allAdvised) {
        for (ItemTable::Hot& item : s.items.flat())
            if (item.advised)
                emit(item);
        // Every owed first value went out with this batch (un-advised ones are no longer owed;
        // only adviseItem sets the flag, and it lists the handle here).
        for (std::int32_t handle : s.initialPendingHandles)
            if (auto it = s.items.find(handle); it != s.items.end())
                it->second.initialPending = false;
        s.initialPendingHandles.clear();
    } else {
        // In handle order, as the tick batch is: batches stay deterministic.
        std::vector<std::int32_t> owed;
        owed.swap(s.initialPendingHandles);
        std::sort(owed.begin(), owed.end());
        for (std::int32_t handle : owed) {
            auto it = s.items.find(handle);
            if (it != s.items.end() && it->second.initialPending && it->second.advise.any()) {
                it->second.initialPending = false;
                if (ItemTable::Hot* hot = s.items.hot(handle))
                    emit(*hot);
            }
        }
    }
    m_valueState = valueState;
    changes.resize(used);
    if (used == 0)
        return;
    if (m_config.numberEvents) {
        batch.firstSequence = s.lastSequence + 1;
        s.lastSequence += used;
        batch.sequence = s.lastSequence;
        if (active(m_lose)) {
            m_eventsDropped += static_cast<std::int64_t>(used);
            return; // numbered, never sent nor held: the client sees the gap
        }
        if (m_config.replayCapacity > 0) {
            const Time now = m_scheduler.now();
            const std::size_t keep = std::min(used, m_config.replayCapacity);
            for (std::size_t i = used - keep; i < used; ++i)
                s.replay.push_back(Session::Held{batch.firstSequence + i, now, changes[i]});
            while (s.replay.size() > m_config.replayCapacity)
                s.replay.pop_front();
        }
    }
    // A stream's callback may cancel streams: walk a copy of the ids.
    const auto streams = s.streams;
    for (StreamId id : streams) {
        auto it = m_streams.find(id);
        if (it == m_streams.end() || it->second.replayPending)
            continue; // a resume's replay (posted) holds this batch already
        m_dataChangesSent += static_cast<std::int64_t>(changes.size());
        deliver(id, it->second, slot);
    }
}

} // namespace stormwatch::gateway
