#include "in_process_gateway_port.h"

#include <algorithm>

namespace stormwatch {

using namespace mxgateway::v1;

namespace {
// The two bulk subscribe commands, field by field; other kinds are never remembered.
bool sameBulk(const MxCommand& a, const MxCommand& b)
{
    if (a.kind_case() != b.kind_case())
        return false;
    if (a.has_add_item_bulk())
        return a.add_item_bulk().server_handle() == b.add_item_bulk().server_handle() &&
               std::ranges::equal(a.add_item_bulk().tag_addresses(),
                                  b.add_item_bulk().tag_addresses());
    if (a.has_subscribe_bulk())
        return a.subscribe_bulk().server_handle() == b.subscribe_bulk().server_handle() &&
               a.subscribe_bulk().supervisory() == b.subscribe_bulk().supervisory() &&
               std::ranges::equal(a.subscribe_bulk().tag_addresses(),
                                  b.subscribe_bulk().tag_addresses());
    return false;
}
} // namespace

gateway::GatewayModel::SharedCommand InProcessGatewayPort::share(const MxCommand& command)
{
    // A storm sends the same few tag lists again and again: comparing with the payloads
    // shared last is much cheaper than the model's hashing of the whole list. Only weak
    // references are kept, so a payload lives no longer than the jobs that carry it.
    if (command.has_add_item_bulk() || command.has_subscribe_bulk()) {
        for (auto& recent : m_recent)
            if (auto live = recent.lock(); live && sameBulk(command, *live))
                return live;
    }
    auto shared = m_model.shareCommand(command);
    if (command.has_add_item_bulk() || command.has_subscribe_bulk()) {
        m_recent[m_nextRecent] = shared;
        m_nextRecent = (m_nextRecent + 1) % m_recent.size();
    }
    return shared;
}

namespace {
// gRPC's first connection attempt deadline under the live port's channel arguments (its
// minimum reconnect backoff, 500 ms, bounds it): a frozen process's kernel accepts the TCP
// connection, and the attempt ends without a first frame unless the process continues first.
constexpr Duration kConnectAttempt = std::chrono::milliseconds(500);

RpcStatus transportTimedOut(const char* why)
{
    RpcStatus s{grpc::StatusCode::UNAVAILABLE, why};
    s.transportTimedOut = true;
    return s;
}
} // namespace

InProcessGatewayPort::InProcessGatewayPort(Scheduler& scheduler, gateway::GatewayModel& model,
                                           Duration latency)
    : m_scheduler(scheduler), m_model(model), m_latency(latency), m_lastFrame(scheduler.now())
{
    m_silenceListener = m_model.addSilenceListener([this] { onSilenceChanged(); });
}

void InProcessGatewayPort::setKeepalive(Duration time, Duration timeout)
{
    m_keepaliveTime = std::max(time, Duration(1));
    m_keepaliveTimeout = std::max(timeout, Duration(1));
}

InProcessGatewayPort::~InProcessGatewayPort()
{
    m_model.removeSilenceListener(m_silenceListener);
    for (auto& [id, stream] : m_streams)
        if (stream.modelId && !stream.cancelled)
            m_model.cancelStream(stream.modelId);
}

void InProcessGatewayPort::afterLatency(std::function<void()> task)
{
    std::weak_ptr<int> life = m_life;
    auto guarded = [life, task = std::move(task)] {
        if (!life.expired())
            task();
    };
    if (m_latency.count() > 0)
        m_scheduler.callAfter(m_latency, std::move(guarded));
    else
        m_scheduler.post(std::move(guarded));
}

void InProcessGatewayPort::onSilenceChanged()
{
    if (!m_model.frozen()) {
        // The attempts under way get their first frame now and go on, in the order made.
        m_transportDead = false;
        auto connecting = std::move(m_connecting);
        m_connecting.clear();
        for (auto& [id, attempt] : connecting)
            afterLatency(std::move(attempt.send));
        return;
    }
    // The next ping goes a keepalive time after the last frame (or after the last ping, on
    // a connection quiet for longer); it is given up on after the timeout.
    const std::uint64_t freeze = ++m_freeze;
    Time pingAt = m_lastFrame + m_keepaliveTime;
    const Time now = m_scheduler.now();
    if (pingAt < now)
        pingAt += ((now - pingAt) / m_keepaliveTime + 1) * m_keepaliveTime;
    std::weak_ptr<int> life = m_life;
    m_scheduler.callAt(pingAt + m_keepaliveTimeout, [this, life, freeze] {
        if (!life.expired())
            keepaliveUnanswered(freeze);
    });
}

void InProcessGatewayPort::keepaliveUnanswered(std::uint64_t freeze)
{
    if (freeze != m_freeze || !m_model.frozen() || m_transportDead)
        return;
    m_transportDead = true;
    const RpcStatus why = transportTimedOut("keepalive watchdog timeout");
    std::vector<StreamId> streams;
    for (const auto& [id, stream] : m_streams)
        if (!stream.cancelled)
            streams.push_back(id);
    std::sort(streams.begin(), streams.end());
    for (StreamId id : streams)
        endStream(id, why);
    auto calls = std::move(m_calls);
    m_calls.clear();
    std::vector<std::uint64_t> ids;
    for (const auto& [id, fail] : calls)
        ids.push_back(id);
    std::sort(ids.begin(), ids.end());
    for (std::uint64_t id : ids)
        calls[id](why);
}

// A call goes out after the network's latency; on a closed transport to a gateway still
// frozen it waits for the connection first: sent when the gateway continues, failed when the
// attempt times out before that.
void InProcessGatewayPort::whenConnected(std::function<void()> send,
                                         std::function<void(const RpcStatus&)> timedOut)
{
    if (!m_transportDead || !m_model.frozen())
        return afterLatency(std::move(send));
    const std::uint64_t id = m_nextConnect++;
    m_connecting.emplace(id, Connecting{std::move(send), std::move(timedOut)});
    std::weak_ptr<int> life = m_life;
    m_scheduler.callAfter(kConnectAttempt, [this, life, id] {
        if (life.expired())
            return;
        auto it = m_connecting.find(id);
        if (it == m_connecting.end())
            return;
        auto timedOut = std::move(it->second.timedOut);
        m_connecting.erase(it);
        timedOut(transportTimedOut("connection attempt timed out before receiving SETTINGS frame"));
    });
}

void InProcessGatewayPort::failCall(std::uint64_t call, const RpcStatus& status)
{
    auto it = m_calls.find(call);
    if (it == m_calls.end())
        return;
    auto fail = std::move(it->second);
    m_calls.erase(it);
    fail(status);
}

std::uint64_t InProcessGatewayPort::track(std::function<void(const RpcStatus&)> fail)
{
    const std::uint64_t id = m_nextCall++;
    m_calls.emplace(id, std::move(fail));
    return id;
}

bool InProcessGatewayPort::settle(std::uint64_t call)
{
    if (m_calls.erase(call) == 0)
        return false; // the transport failed it already: the gateway's late answer reaches nobody
    m_lastFrame = m_scheduler.now();
    return true;
}

void InProcessGatewayPort::openSession(const OpenSessionRequest& request, OpenDone done)
{
    auto shared = std::make_shared<OpenDone>(std::move(done));
    const std::uint64_t call = track([shared](const RpcStatus& s) { (*shared)(s, {}); });
    std::function<void()> send = [this, request, call, shared] {
        if (!m_calls.count(call))
            return; // sent on a connection that closed before it arrived
        m_model.openSession(request, [this, call, shared](gateway::CallStatus status,
                                                          OpenSessionReply reply) {
            afterLatency([this, call, shared, status = convert(status), reply = std::move(reply)] {
                if (settle(call))
                    (*shared)(status, reply);
            });
        });
    };
    whenConnected(std::move(send),
                  [this, call](const RpcStatus& status) { failCall(call, status); });
}

void InProcessGatewayPort::closeSession(const CloseSessionRequest& request, CloseDone done)
{
    auto shared = std::make_shared<CloseDone>(std::move(done));
    const std::uint64_t call = track([shared](const RpcStatus& s) { (*shared)(s); });
    std::function<void()> send = [this, request, call, shared] {
        if (!m_calls.count(call))
            return;
        m_model.closeSession(request, [this, call, shared](gateway::CallStatus status) {
            afterLatency([this, call, shared, status = convert(status)] {
                if (settle(call))
                    (*shared)(status);
            });
        });
    };
    whenConnected(std::move(send),
                  [this, call](const RpcStatus& status) { failCall(call, status); });
}

void InProcessGatewayPort::invoke(const MxCommandRequest& request, InvokeDone done)
{
    auto shared = std::make_shared<InvokeDone>(std::move(done));
    const std::uint64_t call = track([shared](const RpcStatus& s) { (*shared)(s, {}); });
    // The command is shared with the model now, not copied into the delayed call: a storm
    // re-sends one tag list thousands of times, and every copy in flight or queued on the STA
    // is then the same immutable payload (GatewayModel::shareCommand). The lambda is mutable
    // so that its captures move on (a const capture would turn std::move into a copy).
    std::function<void()> send =
        [this, command = share(request.command()), sessionId = request.session_id(),
         correlationId = request.client_correlation_id(), call, shared]() mutable {
            if (!m_calls.count(call))
                return;
            m_model.invoke(
                sessionId, std::move(correlationId), std::move(command),
                [this, call, shared](gateway::CallStatus status, MxCommandReply reply) mutable {
                    afterLatency(
                        [this, call, shared, status = convert(status), reply = std::move(reply)] {
                            if (settle(call))
                                (*shared)(status, reply);
                        });
                });
        };
    whenConnected(std::move(send),
                  [this, call](const RpcStatus& status) { failCall(call, status); });
}

GatewayPort::StreamId InProcessGatewayPort::streamEvents(const StreamEventsRequest& request,
                                                         EventFn onEvent, EndFn onEnd)
{
    return resumeEvents(request, 0, std::move(onEvent), std::move(onEnd));
}

GatewayPort::StreamId InProcessGatewayPort::resumeEvents(const StreamEventsRequest& request,
                                                         std::uint64_t afterSequence,
                                                         EventFn onEvent, EndFn onEnd)
{
    const StreamId id = m_nextStream++;
    Stream& stream = m_streams.emplace(id, Stream{}).first->second;
    stream.onEvent = std::make_shared<EventFn>(std::move(onEvent));
    stream.onEnd = std::move(onEnd);
    // The gateway bounds how far this reader may fall behind only where it has an event queue.
    if (m_model.config().eventQueueCapacity > 0)
        stream.reader = std::make_shared<gateway::GatewayModel::EventReader>();
    std::function<void()> open = [this, id, request, afterSequence]() mutable {
        auto it = m_streams.find(id);
        if (it == m_streams.end() || it->second.cancelled) {
            m_streams.erase(id);
            return;
        }
        // The model's native batch is shared, not copied nor encoded: it stays as it is while
        // the delivery below holds it, and the client reads it as it is (copying every batch
        // was most of a replay's time; the protobuf form was ~4x the memory).
        it->second.modelId = m_model.streamEventsShared(
            request,
            [this, id](const std::shared_ptr<const MxEventBatch>& event) {
                afterLatency([this, id, event] { arrive(id, event); });
            },
            [this, id](gateway::CallStatus status) {
                afterLatency([this, id, status = convert(status)] { arriveEnd(id, status); });
            },
            gateway::GatewayModel::StreamOptions{afterSequence, it->second.reader});
    };
    whenConnected(std::move(open), [this, id](const RpcStatus& status) {
        auto it = m_streams.find(id);
        if (it == m_streams.end())
            return;
        if (it->second.cancelled) {
            m_streams.erase(it);
            return;
        }
        EndFn onEnd = std::move(it->second.onEnd);
        m_streams.erase(it);
        onEnd(status);
    });
    return id;
}

// An event reaches the client's side of the connection: its reader takes it, unless it is
// stalled (or still has older ones to take), in which case it waits, in order.
void InProcessGatewayPort::endStream(StreamId id, const RpcStatus& status)
{
    auto it = m_streams.find(id);
    if (it == m_streams.end() || it->second.cancelled)
        return;
    EndFn onEnd = std::move(it->second.onEnd);
    if (it->second.modelId) {
        m_model.cancelStream(it->second.modelId);
        m_streams.erase(it);
    } else {
        it->second.cancelled = true; // erased when the delayed open arrives
    }
    onEnd(status);
}

void InProcessGatewayPort::arrive(StreamId id, const std::shared_ptr<const MxEventBatch>& event)
{
    auto s = m_streams.find(id);
    if (s == m_streams.end() || s->second.cancelled)
        return;
    m_lastFrame = m_scheduler.now();
    if (m_scheduler.now() < m_readerStalledUntil || !s->second.held.empty()) {
        s->second.held.push_back(event);
        return;
    }
    take(s->second, *event);
}

void InProcessGatewayPort::take(Stream& stream, const MxEventBatch& event)
{
    if (stream.reader)
        stream.reader->taken.fetch_add(event.changes.size(), std::memory_order_relaxed);
    const std::shared_ptr<EventFn> onEvent = stream.onEvent; // the callback may end the stream
    (*onEvent)(event);
}

// The end comes after every event before it: a stalled reader reads it last.
void InProcessGatewayPort::arriveEnd(StreamId id, const RpcStatus& status)
{
    auto s = m_streams.find(id);
    if (s == m_streams.end() || s->second.cancelled)
        return;
    if (!s->second.held.empty()) {
        s->second.heldEnd = status;
        return;
    }
    EndFn onEnd = std::move(s->second.onEnd);
    m_streams.erase(s);
    onEnd(status);
}

void InProcessGatewayPort::stallReader(Duration duration)
{
    const Time until = m_scheduler.now() + std::max(duration, Duration::zero());
    if (until <= m_readerStalledUntil)
        return;
    m_readerStalledUntil = until;
    std::weak_ptr<int> life = m_life;
    m_scheduler.callAt(until, [this, life] {
        if (!life.expired())
            readHeld();
    });
}

void InProcessGatewayPort::readHeld()
{
    if (m_scheduler.now() < m_readerStalledUntil)
        return; // stalled again since: that stall's end reads them
    std::vector<StreamId> ids;
    for (const auto& [id, stream] : m_streams)
        if (!stream.held.empty())
            ids.push_back(id);
    std::sort(ids.begin(), ids.end());
    for (StreamId id : ids) {
        for (;;) {
            auto s = m_streams.find(id);
            if (s == m_streams.end() || s->second.cancelled)
                break;
            if (s->second.held.empty()) {
                if (auto end = s->second.heldEnd) {
                    s->second.heldEnd.reset();
                    arriveEnd(id, *end);
                }
                break;
            }
            const std::shared_ptr<const MxEventBatch> event = std::move(s->second.held.front());
            s->second.held.pop_front();
            take(s->second, *event);
        }
    }
}

void InProcessGatewayPort::cancelStream(StreamId id)
{
    auto it = m_streams.find(id);
    if (it == m_streams.end())
        return;
    if (it->second.modelId)
        m_model.cancelStream(it->second.modelId);
    if (it->second.modelId)
        m_streams.erase(it);
    else
        it->second.cancelled = true; // erased when the delayed open arrives
}

} // namespace stormwatch
