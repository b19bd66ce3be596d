#include "in_process_gateway_port.h"

#include <google/protobuf/arena.h>

#include <vector>

namespace stormwatch {

using namespace mxgateway::v1;

// Arenas with their own first block: Reset() keeps the block, so a recycled arena copies
// the next event without touching the heap (a batch of ~500 changes fits the block).
struct InProcessGatewayPort::EventPool {
    static constexpr std::size_t kBlockBytes = 128 * 1024;
    struct Slot {
        std::vector<char> block = std::vector<char>(kBlockBytes);
        google::protobuf::Arena arena{block.data(), block.size()};
    };
    std::vector<std::unique_ptr<Slot>> free;
};

std::shared_ptr<const MxEvent> InProcessGatewayPort::copyEvent(const MxEvent& event)
{
    if (!m_eventPool)
        m_eventPool = std::make_shared<EventPool>();
    std::unique_ptr<EventPool::Slot> slot;
    if (m_eventPool->free.empty()) {
        slot = std::make_unique<EventPool::Slot>();
    } else {
        slot = std::move(m_eventPool->free.back());
        m_eventPool->free.pop_back();
    }
    MxEvent* copy = google::protobuf::Arena::CreateMessage<MxEvent>(&slot->arena);
    copy->CopyFrom(event);
    std::weak_ptr<EventPool> pool = m_eventPool;
    return std::shared_ptr<const MxEvent>(copy, [pool, raw = slot.release()](const MxEvent*) {
        std::unique_ptr<EventPool::Slot> back(raw);
        back->arena.Reset();
        if (auto p = pool.lock())
            p->free.push_back(std::move(back));
    });
}

InProcessGatewayPort::InProcessGatewayPort(Scheduler& scheduler, gateway::GatewayModel& model,
                                           Duration latency)
    : m_scheduler(scheduler), m_model(model), m_latency(latency)
{
}

InProcessGatewayPort::~InProcessGatewayPort()
{
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

void InProcessGatewayPort::openSession(const OpenSessionRequest& request, OpenDone done)
{
    afterLatency([this, request, done = std::move(done)]() mutable {
        m_model.openSession(request, [this, done = std::move(done)](gateway::CallStatus status,
                                                                    OpenSessionReply reply) mutable {
            afterLatency([done = std::move(done), status = convert(status),
                          reply = std::move(reply)] { done(status, reply); });
        });
    });
}

void InProcessGatewayPort::closeSession(const CloseSessionRequest& request, CloseDone done)
{
    afterLatency([this, request, done = std::move(done)]() mutable {
        m_model.closeSession(request, [this, done = std::move(done)](gateway::CallStatus status) mutable {
            afterLatency([done = std::move(done), status = convert(status)] { done(status); });
        });
    });
}

void InProcessGatewayPort::invoke(const MxCommandRequest& request, InvokeDone done)
{
    afterLatency([this, request, done = std::move(done)]() mutable {
        m_model.invoke(request, [this, done = std::move(done)](gateway::CallStatus status,
                                                               MxCommandReply reply) mutable {
            afterLatency([done = std::move(done), status = convert(status),
                          reply = std::move(reply)] { done(status, reply); });
        });
    });
}

GatewayPort::StreamId InProcessGatewayPort::streamEvents(const StreamEventsRequest& request,
                                                         EventFn onEvent, EndFn onEnd)
{
    const StreamId id = m_nextStream++;
    m_streams.emplace(id, Stream{});
    afterLatency([this, id, request, onEvent = std::move(onEvent), onEnd = std::move(onEnd)]() mutable {
        auto it = m_streams.find(id);
        if (it == m_streams.end() || it->second.cancelled) {
            m_streams.erase(id);
            return;
        }
        it->second.modelId = m_model.streamEvents(
            request,
            [this, id, onEvent = std::make_shared<EventFn>(std::move(onEvent))](const MxEvent& event) {
                afterLatency([this, id, onEvent, copy = copyEvent(event)] {
                    auto s = m_streams.find(id);
                    if (s != m_streams.end() && !s->second.cancelled)
                        (*onEvent)(*copy);
                });
            },
            [this, id, onEnd](gateway::CallStatus status) {
                afterLatency([this, id, onEnd, status = convert(status)] {
                    auto s = m_streams.find(id);
                    if (s == m_streams.end() || s->second.cancelled)
                        return;
                    m_streams.erase(s);
                    onEnd(status);
                });
            });
    });
    return id;
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
