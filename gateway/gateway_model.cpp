#include "gateway_model.h"

#include "client/log_text.h"
#include "logging.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <google/protobuf/duration.pb.h>

namespace stormwatch::gateway {

using namespace mxgateway::v1;
using grpc::StatusCode;

namespace {
std::string seconds(Duration d)
{
    const double s = std::chrono::duration<double>(d).count();
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g s", s);
    return buf;
}
} // namespace

GatewayModel::GatewayModel(Scheduler& scheduler, GatewayConfig config)
    : m_scheduler(scheduler), m_config(config), m_rng(config.seed), m_valueState(config.seed),
      m_sta(scheduler, [this](const StaJobPtr& job) { runCommand(job); })
{
    m_sta.setCost(m_config.commandMs, m_config.perItemMs);
    m_upSince = m_scheduler.now();
    m_nextTick = m_scheduler.now();
    armDataTick();
}

GatewayModel::~GatewayModel()
{
    for (auto& [timeout, queue] : m_deadlines)
        m_scheduler.cancel(queue.timer);
    for (Window* w : {&m_wedge, &m_slow, &m_drop, &m_refuse})
        m_scheduler.cancel(w->timer);
    for (auto& [id, w] : m_watches)
        m_scheduler.cancel(w.timer);
    m_scheduler.cancel(m_downTimer);
    m_scheduler.cancel(m_tickTimer);
}

Session* GatewayModel::findSession(const std::string& id)
{
    auto it = m_sessions.find(id);
    return it == m_sessions.end() ? nullptr : it->second.get();
}

const Session* GatewayModel::session(const std::string& id) const
{
    auto it = m_sessions.find(id);
    return it == m_sessions.end() ? nullptr : it->second.get();
}

std::optional<AdviseState> GatewayModel::adviseState(const std::string& sessionId,
                                                     std::int32_t itemHandle) const
{
    const Session* s = session(sessionId);
    if (!s)
        return std::nullopt;
    auto it = s->items.find(itemHandle);
    if (it == s->items.end())
        return std::nullopt;
    return it->second.advise;
}

std::string GatewayModel::setConfig(const GatewayConfig& config)
{
    if (auto error = validateConfig(config); !error.empty())
        return error;
    const bool rateChanged = config.dataHz != m_config.dataHz;
    m_config = config;
    m_sta.setCost(config.commandMs, config.perItemMs);
    if (rateChanged) {
        m_nextTick = m_scheduler.now();
        armDataTick();
    }
    return {};
}

// ---------------------------------------------------------------- sessions

void GatewayModel::openSession(const OpenSessionRequest& request, OpenDone done)
{
    auto fail = [&](StatusCode code, std::string message) {
        post([done = std::move(done), st = CallStatus::error(code, std::move(message))] {
            done(st, {});
        });
    };
    if (m_down)
        return fail(StatusCode::UNAVAILABLE,
                    m_shutdown ? "gateway shut down" : "gateway restarting");
    if (active(m_refuse))
        return fail(StatusCode::UNAVAILABLE, "gateway refusing sessions");

    // Validated by google.protobuf.Duration's rules, then clamped to kMaxCommandTimeout
    // (24 h): the echo below tells the client what it got.
    Duration timeout = m_config.defaultCommandTimeout;
    if (request.has_command_timeout()) {
        if (auto rule = commandTimeoutFromProto(request.command_timeout(), timeout); !rule.empty())
            return fail(StatusCode::INVALID_ARGUMENT, std::move(rule));
    }

    auto s = std::make_shared<Session>();
    s->id = "session-" + std::to_string(m_nextSession++);
    s->clientName = request.client_name();
    s->commandTimeout = timeout;
    s->supervisoryBulk = m_config.advertiseBulkSupervisory;

    OpenSessionReply reply;
    reply.set_session_id(s->id);
    for (auto cap : kBaseCapabilities)
        reply.add_capabilities(std::string(cap));
    if (s->supervisoryBulk)
        reply.add_capabilities(std::string(kCapabilityBulkSupervisory));
    const auto us = timeout.count();
    reply.mutable_default_command_timeout()->set_seconds(us / 1'000'000);
    reply.mutable_default_command_timeout()->set_nanos(static_cast<std::int32_t>(us % 1'000'000) *
                                                       1000);
    reply.set_gateway_protocol_version(kGatewayProtocolVersion);

    // The client name is the peer's: escaped (and capped) so it cannot forge a line.
    qCDebug(lcGateway) << "session" << s->id.c_str() << "opened by"
                       << escapeLogText(s->clientName, 256).c_str() << "command timeout"
                       << seconds(timeout).c_str();
    m_sessions.emplace(s->id, std::move(s));
    post([done = std::move(done), reply = std::move(reply)] { done({}, reply); });
}

void GatewayModel::closeSession(const CloseSessionRequest& request, CloseDone done)
{
    CallStatus status;
    if (m_down) {
        status = CallStatus::error(StatusCode::UNAVAILABLE, "gateway restarting");
    } else if (auto it = m_sessions.find(request.session_id()); it == m_sessions.end()) {
        status =
            CallStatus::error(StatusCode::NOT_FOUND, "unknown session " + request.session_id());
    } else {
        // Its commands still waiting for the STA would only be wasted work now.
        retireSession(request.session_id(), m_config.closeDropsQueuedCommands,
                      CallStatus::error(StatusCode::CANCELLED, "session closed"), {});
    }
    post([done = std::move(done), status] { done(status); });
}

void GatewayModel::retireSession(const std::string& sessionId, bool dropQueued,
                                 const CallStatus& why, const CallStatus& streamStatus)
{
    auto it = m_sessions.find(sessionId);
    if (it == m_sessions.end())
        return;
    const std::shared_ptr<Session> closing = it->second;
    const auto streams = closing->streams;
    if (dropQueued) {
        const auto dropped = m_sta.removeQueued(
            [&closing](const StaJob& job) { return job.session.lock() == closing; });
        for (const auto& job : dropped)
            if (auto done = takeDone(job))
                post([done = std::move(done), why] { done(why, {}); });
    }
    closing->open = false;
    m_sessions.erase(it);
    endStreams(streams, streamStatus);
}

// ---------------------------------------------------------------- invoke and the STA

void GatewayModel::invoke(const MxCommandRequest& request, InvokeDone done)
{
    invoke(request.session_id(), request.client_correlation_id(), shareCommand(request.command()),
           std::move(done));
}

void GatewayModel::invoke(MxCommandRequest&& request, InvokeDone done)
{
    SharedCommand command = shareCommand(std::move(*request.mutable_command()));
    invoke(request.session_id(), std::move(*request.mutable_client_correlation_id()),
           std::move(command), std::move(done));
}

namespace {
const google::protobuf::RepeatedPtrField<std::string>* bulkTags(CommandKind kind,
                                                                const MxCommand& command)
{
    if (kind == CommandKind::AddItemBulk)
        return &command.add_item_bulk().tag_addresses();
    if (kind == CommandKind::SubscribeBulk)
        return &command.subscribe_bulk().tag_addresses();
    return nullptr;
}

// Every field of the two bulk commands (add one here when the contract grows one).
bool sameBulkPayload(CommandKind kind, const MxCommand& a, const MxCommand& b)
{
    if (commandKind(b) != kind)
        return false;
    if (kind == CommandKind::AddItemBulk)
        return a.add_item_bulk().server_handle() == b.add_item_bulk().server_handle() &&
               std::ranges::equal(a.add_item_bulk().tag_addresses(),
                                  b.add_item_bulk().tag_addresses());
    const auto& x = a.subscribe_bulk();
    const auto& y = b.subscribe_bulk();
    return x.server_handle() == y.server_handle() && x.supervisory() == y.supervisory() &&
           std::ranges::equal(x.tag_addresses(), y.tag_addresses());
}
} // namespace

GatewayModel::SharedCommand GatewayModel::shareCommand(const MxCommand& command)
{
    return intern(command, nullptr);
}

GatewayModel::SharedCommand GatewayModel::shareCommand(MxCommand&& command)
{
    return intern(command, &command);
}

GatewayModel::SharedCommand GatewayModel::intern(const MxCommand& command, MxCommand* owned)
{
    auto make = [&] {
        return owned ? std::make_shared<const MxCommand>(std::move(*owned))
                     : std::make_shared<const MxCommand>(command);
    };
    const CommandKind kind = commandKind(command);
    const auto* tags = bulkTags(kind, command);
    if (!tags)
        return make();
    std::string head(commandKindName(kind));
    if (kind == CommandKind::AddItemBulk)
        head += '/' + std::to_string(command.add_item_bulk().server_handle());
    else
        head += '/' + std::to_string(command.subscribe_bulk().server_handle()) +
                (command.subscribe_bulk().supervisory() ? "/s" : "/p");
    const std::uint64_t key = subscribeKey(head, *tags);
    auto& slot = m_payloads[key];
    if (SharedCommand live = slot.lock(); live && sameBulkPayload(kind, command, *live))
        return live;
    SharedCommand fresh = make();
    slot = fresh; // a hash collision only replaces the older entry: never a wrong share
    if (m_payloads.size() >= m_payloadsSweepAt) {
        std::erase_if(m_payloads, [](const auto& entry) { return entry.second.expired(); });
        m_payloadsSweepAt = std::max<std::size_t>(64, 2 * m_payloads.size());
    }
    return fresh;
}

std::size_t GatewayModel::sharedPayloads()
{
    std::erase_if(m_payloads, [](const auto& entry) { return entry.second.expired(); });
    return m_payloads.size();
}

void GatewayModel::invoke(const std::string& sessionId, std::string correlationId,
                          SharedCommand command, InvokeDone done)
{
    auto fail = [&](StatusCode code, std::string message) {
        post([done = std::move(done), st = CallStatus::error(code, std::move(message))] {
            done(st, {});
        });
    };
    if (m_down)
        return fail(StatusCode::UNAVAILABLE,
                    m_shutdown ? "gateway shut down" : "gateway restarting");
    const CommandKind kind = command ? commandKind(*command) : CommandKind::None;
    if (kind == CommandKind::None)
        return fail(StatusCode::INVALID_ARGUMENT, "command has no kind");
    ++m_invokeTotal;
    ++m_invokeRpcs[index(kind)];
    auto it = m_sessions.find(sessionId);
    if (it == m_sessions.end())
        return fail(StatusCode::NOT_FOUND, "unknown session " + sessionId);

    auto job = std::make_shared<StaJob>();
    job->session = it->second;
    job->kind = kind;
    job->items = commandItemCount(*command);
    job->command = std::move(command);
    job->correlationId = std::move(correlationId);
    job->arrived = m_scheduler.now();
    job->timeout = it->second->commandTimeout;
    job->deadline = job->arrived + job->timeout;
    job->done = std::move(done);
    if (isSubscribeKind(kind)) {
        const auto& tags = kind == CommandKind::SubscribeBulk
                               ? job->command->subscribe_bulk().tag_addresses()
                               : job->command->add_item_bulk().tag_addresses();
        // A storm re-sends one shared payload: its key is hashed once per session and payload.
        auto& memo = it->second->subscribeKeys[job->command.get()];
        if (memo.payload.lock() != job->command) {
            memo = {job->command, subscribeKey(it->first, tags)};
            it->second->sweepSubscribeKeys();
        }
        job->subscribeKey = memo.key;
        const std::int64_t n = ++m_outstandingSubscribes[job->subscribeKey];
        m_maxOutstandingSubscribes = std::max(m_maxOutstandingSubscribes, n);
    }
    auto& queue = m_deadlines[job->timeout];
    queue.jobs.push_back(job);
    if (queue.timer == kNoTimer)
        armDeadlines(queue, job->timeout);
    m_sta.enqueue(std::move(job));
}

void GatewayModel::armDeadlines(DeadlineQueue& queue, Duration timeout)
{
    while (!queue.jobs.empty() && !queue.jobs.front()->done)
        queue.jobs.pop_front();
    if (queue.jobs.empty() ||
        (queue.timer != kNoTimer && queue.armedAt <= queue.jobs.front()->deadline))
        return;
    m_scheduler.cancel(queue.timer);
    queue.armedAt = queue.jobs.front()->deadline;
    queue.timer = m_scheduler.callAt(queue.armedAt, [this, timeout] { onDeadlines(timeout); });
}

void GatewayModel::onDeadlines(Duration timeout)
{
    auto& queue = m_deadlines[timeout];
    queue.timer = kNoTimer;
    const Time now = m_scheduler.now();
    // Expire what is due; answers may invoke again (appending here), so re-read the front.
    std::vector<StaJobPtr> expired;
    while (!queue.jobs.empty() &&
           (!queue.jobs.front()->done || queue.jobs.front()->deadline <= now)) {
        if (queue.jobs.front()->done)
            expired.push_back(queue.jobs.front());
        queue.jobs.pop_front();
    }
    armDeadlines(queue, timeout);
    for (const auto& job : expired) {
        if (!job->done)
            continue;
        ++m_deadlineExceeded;
        if (!job->ran)
            ++m_commandsExpired[index(job->kind)];
        answer(job,
               CallStatus::error(StatusCode::DEADLINE_EXCEEDED,
                                 std::string(commandKindName(job->kind)) +
                                     " not answered within the session command timeout of " +
                                     seconds(job->timeout)),
               {});
    }
}

GatewayModel::InvokeDone GatewayModel::takeDone(const StaJobPtr& job)
{
    InvokeDone done = std::move(job->done);
    job->done = nullptr;
    if (done && isSubscribeKind(job->kind)) {
        auto it = m_outstandingSubscribes.find(job->subscribeKey);
        if (it != m_outstandingSubscribes.end() && --it->second <= 0)
            m_outstandingSubscribes.erase(it);
    }
    return done;
}

std::int64_t GatewayModel::outstandingSubscribes(const std::string& sessionId,
                                                 const std::vector<std::string>& tags) const
{
    auto it = m_outstandingSubscribes.find(subscribeKey(sessionId, tags));
    return it == m_outstandingSubscribes.end() ? 0 : it->second;
}

std::int64_t GatewayModel::outstandingSubscribes() const
{
    std::int64_t most = 0;
    for (const auto& [key, n] : m_outstandingSubscribes)
        most = std::max(most, n);
    return most;
}

void GatewayModel::answer(const StaJobPtr& job, CallStatus status, MxCommandReply reply)
{
    auto done = takeDone(job);
    if (silent()) { // sent when the silence ends, in order with everything else held
        m_heldWhileSilent.push_back(
            [done = std::move(done), status = std::move(status),
             reply = std::move(reply)]() mutable { done(std::move(status), std::move(reply)); });
        return;
    }
    // Answered in order (the usual case): drop it from the front of its deadline queue now,
    // so queues stay short; otherwise it is skipped when it reaches the front.
    auto& queue = m_deadlines[job->timeout];
    while (!queue.jobs.empty() && !queue.jobs.front()->done)
        queue.jobs.pop_front();
    done(std::move(status), std::move(reply));
}

void GatewayModel::runCommand(const StaJobPtr& job)
{
    ++m_commandsRun[index(job->kind)];
    MxCommandReply reply;
    if (!job->correlationId.empty())
        reply.set_client_correlation_id(job->correlationId);
    if (auto s = job->session.lock(); s && s->open) {
        reply.set_success(true);
        execute(*s, *job->command, reply);
    } else {
        reply.set_success(false);
        reply.set_error_message("the session was closed");
    }
    if (!job->done)
        return; // expired: the caller already has DEADLINE_EXCEEDED, the work was wasted
    if (active(m_drop) && unitRandom() < m_dropProbability) {
        job->dropped = true; // its deadline answers it
        return;
    }
    answer(job, {}, std::move(reply));
}

void GatewayModel::dropEverything(const CallStatus& why, EndOrder order)
{
    m_sta.clear();
    std::vector<StaJobPtr> unanswered;
    for (auto& [timeout, queue] : m_deadlines) {
        m_scheduler.cancel(queue.timer);
        queue.timer = kNoTimer;
        for (auto& job : queue.jobs)
            if (job->done)
                unanswered.push_back(std::move(job));
        queue.jobs.clear();
    }
    std::stable_sort(
        unanswered.begin(), unanswered.end(),
        [](const StaJobPtr& a, const StaJobPtr& b) { return a->arrived < b->arrived; });
    auto failInvokes = [&] {
        for (auto& job : unanswered)
            post([done = takeDone(job), why] { done(why, {}); });
    };
    if (order == EndOrder::InvokesFirst)
        failInvokes();
    std::vector<StreamId> streams;
    streams.reserve(m_streams.size());
    for (auto& [id, stream] : m_streams)
        streams.push_back(id);
    std::sort(streams.begin(), streams.end());
    for (auto& [id, s] : m_sessions)
        s->open = false;
    m_sessions.clear();
    endStreams(streams, why);
    if (order == EndOrder::StreamsFirst)
        failInvokes();
}

// ---------------------------------------------------------------- statistics

mxgateway::mock::v1::GatewayStats GatewayModel::stats() const
{
    mxgateway::mock::v1::GatewayStats st;
    st.set_uptime_s(m_down ? 0.0
                           : std::chrono::duration<double>(m_scheduler.now() - m_upSince).count());
    st.set_sta_queue_depth(static_cast<std::int64_t>(m_sta.depth()));
    st.set_max_sta_queue_depth(static_cast<std::int64_t>(m_sta.maxDepth()));
    {
        const auto& b = *m_streamBacklog;
        st.set_stream_backlog_messages(b.queued.load(std::memory_order_relaxed));
        st.set_max_stream_backlog_messages(b.maxQueued.load(std::memory_order_relaxed));
        st.set_stream_backlog_items(b.heldItems.load(std::memory_order_relaxed));
        st.set_max_stream_backlog_items(b.maxHeldItems.load(std::memory_order_relaxed));
        st.set_stream_overflows(b.overflows.load(std::memory_order_relaxed));
        st.set_stream_updates_coalesced(b.coalesced.load(std::memory_order_relaxed));
        st.set_stream_updates_dropped(b.dropped.load(std::memory_order_relaxed));
    }
    st.set_invoke_rpcs(m_invokeTotal);
    for (std::size_t i = 0; i < kCommandKindCount; ++i) {
        const std::string name(commandKindName(static_cast<CommandKind>(i)));
        if (m_invokeRpcs[i])
            (*st.mutable_invoke_rpcs_by_kind())[name] = m_invokeRpcs[i];
        if (m_commandsRun[i])
            (*st.mutable_commands_run_by_kind())[name] = m_commandsRun[i];
        if (m_commandsExpired[i])
            (*st.mutable_commands_expired_by_kind())[name] = m_commandsExpired[i];
    }
    st.set_deadline_exceeded(m_deadlineExceeded);
    st.set_sessions(static_cast<std::int32_t>(m_sessions.size()));
    st.set_data_changes_sent(m_dataChangesSent);
    st.set_events_dropped(m_eventsDropped);
    st.set_streams_resumed(m_streamsResumed);
    st.set_sessions_faulted(m_sessionsFaulted);
    st.set_subscribers_disconnected(m_subscribersDisconnected);
    st.set_wedged(m_sta.wedged());
    st.set_slow_factor(m_sta.slowFactor());
    st.set_source_outage(m_sourceOutage);
    st.set_advertise_bulk_supervisory(m_config.advertiseBulkSupervisory);
    st.set_max_outstanding_subscribes(m_maxOutstandingSubscribes);
    st.set_outstanding_subscribes(outstandingSubscribes());
    return st;
}

GatewayModel::WatchId GatewayModel::watchStats(Duration interval, StatsFn onStats, EndFn onEnd)
{
    const WatchId id = m_nextWatch++;
    if (m_shutdown) {
        post([onEnd = std::move(onEnd)] {
            onEnd(CallStatus::error(StatusCode::UNAVAILABLE, "gateway shut down"));
        });
        return id;
    }
    if (interval <= Duration::zero())
        interval = std::chrono::milliseconds(250);
    m_watches.emplace(id, Watch{interval, std::move(onStats), std::move(onEnd)});
    auto& w = m_watches.at(id);
    w.timer = m_scheduler.callAfter(Duration::zero(), [this, id] { armStatsWatch(id); });
    return id;
}

void GatewayModel::armStatsWatch(WatchId id)
{
    auto it = m_watches.find(id);
    if (it == m_watches.end())
        return;
    it->second.timer =
        m_scheduler.callAfter(it->second.interval, [this, id] { armStatsWatch(id); });
    auto onStats = it->second.onStats; // the callback may cancel the watch
    onStats(stats());
}

void GatewayModel::cancelWatch(WatchId id)
{
    auto it = m_watches.find(id);
    if (it == m_watches.end())
        return;
    m_scheduler.cancel(it->second.timer);
    m_watches.erase(it);
}

} // namespace stormwatch::gateway
