// Injectable faults. Each is a window (active until a time) or a switch; a new request of
// the same kind replaces the previous one, and a zero duration ends it at once.
#include "gateway_model.h"
#include "logging.h"

#include <algorithm>

namespace stormwatch::gateway {

using grpc::StatusCode;

void GatewayModel::setWindow(Window& w, Duration duration, std::function<void()> onEnd)
{
    m_scheduler.cancel(w.timer);
    w.timer = kNoTimer;
    w.until = m_scheduler.now() + std::max(duration, Duration::zero());
    if (duration > Duration::zero())
        w.timer = m_scheduler.callAt(w.until, [&w, onEnd = std::move(onEnd)] {
            w.timer = kNoTimer;
            if (onEnd)
                onEnd();
        });
    else if (onEnd)
        onEnd();
}

void GatewayModel::wedge(Duration duration)
{
    qCInfo(lcGateway) << "fault: STA wedged for" << duration.count() / 1000 << "ms";
    setWindow(m_wedge, duration, nullptr);
    m_sta.wedgeUntil(std::max(m_wedge.until, m_silence.until));
}

void GatewayModel::silence(Duration duration, bool transportAnswers)
{
    qCInfo(lcGateway) << "fault:" << (transportAnswers ? "half-open" : "frozen") << "for"
                      << duration.count() / 1000 << "ms";
    m_silenceAnswersPings = transportAnswers;
    setWindow(m_silence, duration, [this] { endSilence(); });
    m_sta.wedgeUntil(std::max(m_wedge.until, m_silence.until));
    for (const auto& [id, listener] : std::map(m_silenceListeners))
        listener();
}

void GatewayModel::endSilence()
{
    if (!m_heldWhileSilent.empty())
        qCInfo(lcGateway) << "silence over:" << m_heldWhileSilent.size()
                          << "held answers and events go";
    std::vector<std::function<void()>> held;
    held.swap(m_heldWhileSilent);
    for (auto& task : held)
        m_scheduler.post(std::move(task));
    for (const auto& [id, listener] : std::map(m_silenceListeners))
        listener();
}

void GatewayModel::post(std::function<void()> task)
{
    if (silent())
        m_heldWhileSilent.push_back(std::move(task));
    else
        m_scheduler.post(std::move(task));
}

int GatewayModel::addSilenceListener(SilenceListener listener)
{
    const int id = m_nextSilenceListener++;
    m_silenceListeners.emplace(id, std::move(listener));
    return id;
}

void GatewayModel::removeSilenceListener(int id)
{
    m_silenceListeners.erase(id);
}

void GatewayModel::resetPeer()
{
    if (m_down)
        return;
    qCInfo(lcGateway) << "fault: every connection reset;" << m_sessions.size() << "sessions stay";
    const CallStatus why = CallStatus::error(StatusCode::UNAVAILABLE, "connection reset by peer");
    // As the client's transport sees it: the streams break first, then each call in flight.
    std::vector<StreamId> streams;
    streams.reserve(m_streams.size());
    for (auto& [id, stream] : m_streams)
        streams.push_back(id);
    std::sort(streams.begin(), streams.end());
    endStreams(streams, why);
    std::vector<StaJobPtr> inFlight;
    for (auto& [timeout, queue] : m_deadlines)
        for (const auto& job : queue.jobs)
            if (job->done)
                inFlight.push_back(job);
    std::stable_sort(inFlight.begin(), inFlight.end(), [](const StaJobPtr& a, const StaJobPtr& b) {
        return a->arrived < b->arrived;
    });
    for (const auto& job : inFlight)
        post([done = takeDone(job), why] { done(why, {}); });
}

void GatewayModel::slow(double factor, Duration duration)
{
    qCInfo(lcGateway) << "fault: STA slowed x" << factor << "for" << duration.count() / 1000
                      << "ms";
    m_sta.setSlowFactor(duration > Duration::zero() ? std::max(factor, 0.0) : 1.0);
    setWindow(m_slow, duration, [this] { m_sta.setSlowFactor(1.0); });
}

void GatewayModel::dropReplies(double probability, Duration duration)
{
    qCInfo(lcGateway) << "fault: dropping replies with p =" << probability << "for"
                      << duration.count() / 1000 << "ms";
    m_dropProbability = std::clamp(probability, 0.0, 1.0);
    setWindow(m_drop, duration, nullptr);
}

void GatewayModel::refuseSessions(Duration duration)
{
    qCInfo(lcGateway) << "fault: refusing sessions for" << duration.count() / 1000 << "ms";
    setWindow(m_refuse, duration, nullptr);
}

// The gateway's backpressure: a subscriber past the event queue is never silently dropped
// events; FailFast faults its session (the single-subscriber case), DisconnectSubscriber ends
// its stream only.
void GatewayModel::onSubscriberOverflow(StreamId id, std::uint64_t behind)
{
    auto it = m_streams.find(id);
    if (it == m_streams.end())
        return;
    const std::string why = std::string(kEventQueueOverflow) + ": the subscriber fell " +
                            std::to_string(behind) + " events behind (event queue " +
                            std::to_string(m_config.eventQueueCapacity) + ")";
    Session* s = findSession(it->second.sessionId);
    if (m_config.backpressure == BackpressurePolicy::FailFast && s && s->streams.size() == 1) {
        ++m_sessionsFaulted;
        qCInfo(lcGateway) << "session" << s->id.c_str() << "faulted:" << why.c_str();
        const std::string sessionId = s->id;
        retireSession(sessionId, true,
                      CallStatus::error(StatusCode::ABORTED, "session faulted (" + why + ")"),
                      CallStatus::error(StatusCode::RESOURCE_EXHAUSTED, why + ": session faulted"));
        return;
    }
    ++m_subscribersDisconnected;
    qCInfo(lcGateway) << "event subscriber disconnected:" << why.c_str();
    endStreams(
        {id}, CallStatus::error(StatusCode::RESOURCE_EXHAUSTED, why + ": subscriber disconnected"));
}

void GatewayModel::loseEvents(Duration duration)
{
    qCInfo(lcGateway) << "fault: losing events for" << duration.count() / 1000 << "ms";
    setWindow(m_lose, duration, nullptr);
}

void GatewayModel::setAdvertiseBulkSupervisory(bool advertise)
{
    qCInfo(lcGateway) << "capability bulk-subscribe-supervisory"
                      << (advertise ? "advertised" : "withdrawn");
    m_config.advertiseBulkSupervisory = advertise;
}

void GatewayModel::restart(Duration downtime)
{
    if (m_shutdown)
        return;
    qCInfo(lcGateway) << "fault: restart, down for" << downtime.count() / 1000 << "ms";
    goDown(downtime, CallStatus::error(StatusCode::UNAVAILABLE, "gateway restarted"),
           EndOrder::InvokesFirst);
}

void GatewayModel::kill(Duration downtime)
{
    if (m_shutdown)
        return;
    qCInfo(lcGateway) << "fault: kill, down for" << downtime.count() / 1000 << "ms";
    // The connections drop at once: a client sees its streams break before its calls fail.
    goDown(downtime, CallStatus::error(StatusCode::UNAVAILABLE, "connection reset: gateway killed"),
           EndOrder::StreamsFirst);
}

void GatewayModel::goDown(Duration downtime, const CallStatus& why, EndOrder order)
{
    m_down = true;
    // A restarted process has no wedge, slowness or reply loss left.
    setWindow(m_wedge, Duration::zero(), nullptr);
    const bool wasSilent = silent();
    m_scheduler.cancel(m_silence.timer);
    m_silence = Window{};
    m_sta.wedgeUntil(m_wedge.until);
    m_sta.setSlowFactor(1.0);
    setWindow(m_slow, Duration::zero(), nullptr);
    setWindow(m_drop, Duration::zero(), nullptr);
    if (wasSilent)
        endSilence(); // what it held was sent before the process went
    dropEverything(why, order);
    m_scheduler.cancel(m_downTimer);
    m_downTimer = m_scheduler.callAfter(std::max(downtime, Duration::zero()), [this] {
        m_downTimer = kNoTimer;
        m_down = false;
        m_upSince = m_scheduler.now();
        qCInfo(lcGateway) << "gateway back up";
    });
}

void GatewayModel::shutdown()
{
    if (m_shutdown)
        return;
    m_shutdown = true;
    m_down = true;
    m_scheduler.cancel(m_downTimer);
    m_downTimer = kNoTimer;
    const CallStatus why = CallStatus::error(StatusCode::UNAVAILABLE, "gateway shut down");
    dropEverything(why);
    for (auto& [id, w] : m_watches) {
        m_scheduler.cancel(w.timer);
        post([onEnd = std::move(w.onEnd), why] { onEnd(why); });
    }
    m_watches.clear();
    armDataTick(); // disarms: nothing ticks after shutdown
}

void GatewayModel::endEventStreams()
{
    qCInfo(lcGateway) << "fault: ending" << m_streams.size() << "event streams gracefully";
    std::vector<StreamId> ids;
    ids.reserve(m_streams.size());
    for (auto& [id, stream] : m_streams)
        ids.push_back(id);
    std::sort(ids.begin(), ids.end());
    endStreams(ids, {});
}

void GatewayModel::setSourceOutage(bool active)
{
    if (active == m_sourceOutage)
        return;
    qCInfo(lcGateway) << "fault: source outage" << (active ? "on" : "off");
    m_sourceOutage = active;
    // Every advised item reports its new quality at once (next turn, not from inside this call).
    post([this] {
        std::vector<std::shared_ptr<Session>> sessions;
        for (auto& [id, s] : m_sessions)
            sessions.push_back(s);
        for (auto& s : sessions)
            if (findSession(s->id) == s.get())
                emitBatch(*s, true);
    });
}

} // namespace stormwatch::gateway
