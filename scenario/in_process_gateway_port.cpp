#include "in_process_gateway_port.h"

namespace stormwatch {

using namespace mxgateway::v1;

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
    // The command is shared with the model now, not copied into the delayed call: a storm
    // re-sends one tag list thousands of times, and every copy in flight or queued on the STA
    // is then the same immutable payload (GatewayModel::shareCommand). The lambda is mutable
    // so that its captures move on (a const capture would turn std::move into a copy).
    afterLatency([this, command = m_model.shareCommand(request.command()), sessionId = request.session_id(),
                  correlationId = request.client_correlation_id(), done = std::move(done)]() mutable {
        m_model.invoke(sessionId, std::move(correlationId), std::move(command),
                       [this, done = std::move(done)](gateway::CallStatus status, MxCommandReply reply) mutable {
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
        // The model's batch is shared, not copied: it stays as it is while the delivery
        // below holds it (copying every batch was most of a replay's time).
        it->second.modelId = m_model.streamEventsShared(
            request,
            [this, id, onEvent = std::make_shared<EventFn>(std::move(onEvent))](
                const std::shared_ptr<const MxEvent>& event) {
                afterLatency([this, id, onEvent, event] {
                    auto s = m_streams.find(id);
                    if (s != m_streams.end() && !s->second.cancelled)
                        (*onEvent)(*event);
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
