#include "gateway_connection.h"

#include "backoff.h"
#include "log_text.h"

#include <QLoggingCategory>
#include <algorithm>
#include <google/protobuf/descriptor.h>
#include <limits>
#include <sstream>
#include <utility>

Q_LOGGING_CATEGORY(lcConnection, "stormwatch.client")

namespace stormwatch {

using namespace mxgateway::v1;

namespace {

std::string kindOf(const MxCommand& command)
{
    const auto* field = MxCommand::descriptor()->FindFieldByNumber(command.kind_case());
    return field ? field->name() : std::string("unknown");
}

Duration fromProto(const google::protobuf::Duration& d)
{
    return Duration(std::clamp<std::int64_t>(d.seconds(), -315'576'000'000, 315'576'000'000) *
                        1'000'000 +
                    std::clamp(d.nanos(), -999'999'999, 999'999'999) /
                        1000); // google.protobuf.Duration's range: no overflow
}

std::string seconds(Duration d)
{
    std::ostringstream s;
    s << double(d.count()) / 1e6 << " s";
    return s.str();
}

} // namespace

const char* toString(ConnectionState state)
{
    switch (state) {
    case ConnectionState::Stopped:
        return "stopped";
    case ConnectionState::Connecting:
        return "connecting";
    case ConnectionState::Connected:
        return "connected";
    case ConnectionState::WaitingToReconnect:
        return "waiting to reconnect";
    case ConnectionState::Refused:
        return "refused";
    }
    return "?";
}

const char* toString(Teardown teardown)
{
    switch (teardown) {
    case Teardown::PerItemRemove:
        return "per_item_remove";
    case Teardown::None:
        return "none";
    }
    return "?";
}

std::optional<Teardown> teardownFromString(const std::string& name)
{
    for (Teardown t : {Teardown::PerItemRemove, Teardown::None})
        if (name == toString(t))
            return t;
    return std::nullopt;
}

const char* toString(Severity severity)
{
    switch (severity) {
    case Severity::Debug:
        return "debug";
    case Severity::Info:
        return "info";
    case Severity::Warning:
        return "warning";
    case Severity::Error:
        return "error";
    }
    return "?";
}

GatewayConnection::GatewayConnection(Scheduler& scheduler, GatewayPort& port,
                                     ConnectionConfig config, RecoveryGate* gate, JitterFn jitter)
    : m_scheduler(scheduler), m_port(port), m_config(std::move(config)), m_gate(gate),
      m_jitter(std::move(jitter)), m_reconnectInterval(m_config.reconnectFloor),
      m_retiring(
          m_unroutedBytes, kMaxUnroutedBytes, kMaxRetiring,
          [this](std::int32_t handle, const RetiringHandles::Entry& value, std::string text,
                 bool hasText) { keepReleasedValue(handle, value, std::move(text), hasText); })
{
}

GatewayConnection::~GatewayConnection()
{
    stop(); // closes the session so the gateway does not keep it until its own timeout
}

void GatewayConnection::log(Severity severity, const std::string& raw) const
{
    // Messages carry the gateway's own text (errors, notices, item results): one line each.
    const std::string message = escapeLogText(raw);
    const std::string text = m_config.name + ": " + message;
    switch (severity) {
    case Severity::Debug:
        qCDebug(lcConnection, "%s", text.c_str());
        break;
    case Severity::Info:
        qCInfo(lcConnection, "%s", text.c_str());
        break;
    case Severity::Warning:
    case Severity::Error:
        qCWarning(lcConnection, "%s", text.c_str());
        break;
    }
    if (m_log)
        m_log(severity, message);
}

void GatewayConnection::setState(ConnectionState state)
{
    if (state == m_state)
        return;
    m_state = state;
    if (m_stateObserver)
        m_stateObserver(state);
}

// stateText() changed while state() did not (unresponsive, or answering again): observers
// re-read it.
void GatewayConnection::notifyStateText()
{
    if (m_stateObserver)
        m_stateObserver(m_state);
}

void GatewayConnection::heard()
{
    m_lastHeard = m_scheduler.now();
    // While a new session is set up its tags' last values belong to the old one: onRegistered
    // subscribes them again instead of calling them Good.
    if (!m_unresponsiveSince || m_state != ConnectionState::Connected)
        return;
    log(Severity::Info, "responsive again after " +
                            seconds(m_scheduler.now() - *m_unresponsiveSince) +
                            ": its tags' last values stand until they change");
    endUnresponsive();
    notifyStateText();
    publishLiveness(true);
}

// A command unanswered past MxCommandTimeoutMs alone is a slow STA; with no event for as long
// either, nothing proves the gateway alive (MXAccess sends on change only, so a quiet stream
// alone proves nothing either way).
void GatewayConnection::checkLiveness()
{
    if (m_state != ConnectionState::Connected || m_unresponsiveSince)
        return;
    // The shorter of this client's deadline and the session's: either one expiring is a
    // command the gateway did not run in time.
    const Duration horizon = livenessHorizon();
    if (horizon.count() <= 0 || m_scheduler.now() - m_lastHeard < horizon)
        return;
    becomeUnresponsive(
        "a command went unanswered past its deadline and nothing else was heard for " +
        seconds(m_scheduler.now() - m_lastHeard) + "; the session is kept");
}

// One watch for every command awaiting its answer: it fires a horizon after the oldest was
// sent, or after the last thing heard if that came later, and checks the liveness rule then;
// otherwise it waits for the next such moment.
void GatewayConnection::watchLiveness()
{
    if (m_livenessWatch != kNoTimer || m_unanswered.empty() || m_unresponsiveSince)
        return;
    const Duration horizon = livenessHorizon();
    if (horizon.count() <= 0)
        return;
    const Time due = std::max(m_unanswered.begin()->second, m_lastHeard) + horizon;
    std::weak_ptr<int> life = m_life;
    m_livenessWatch = m_scheduler.callAt(std::max(due, m_scheduler.now()), [this, life] {
        if (life.expired())
            return;
        m_livenessWatch = kNoTimer;
        if (m_unanswered.empty() || m_unresponsiveSince)
            return;
        if (m_scheduler.now() >=
            std::max(m_unanswered.begin()->second, m_lastHeard) + livenessHorizon())
            return checkLiveness();
        watchLiveness();
    });
}

Duration GatewayConnection::livenessHorizon() const
{
    Duration horizon = m_config.commandTimeout;
    if (m_echoedTimeout && m_echoedTimeout->count() > 0 &&
        (horizon.count() <= 0 || *m_echoedTimeout < horizon))
        horizon = *m_echoedTimeout;
    return horizon;
}

void GatewayConnection::endUnresponsive()
{
    if (!m_unresponsiveSince)
        return;
    m_unresponsiveBefore += m_scheduler.now() - *m_unresponsiveSince;
    m_unresponsiveSince.reset();
}

Duration GatewayConnection::unresponsiveFor() const
{
    return m_unresponsiveBefore +
           (m_unresponsiveSince ? m_scheduler.now() - *m_unresponsiveSince : Duration{0});
}

void GatewayConnection::becomeUnresponsive(const std::string& why)
{
    if (m_unresponsiveSince)
        return;
    m_unresponsiveSince = m_scheduler.now();
    log(Severity::Warning,
        "unresponsive: " + why +
            "; its tags are Uncertain (last usable value) until the gateway answers");
    notifyStateText();
    publishLiveness(false);
}

// Each subscriber present when called and still there when its turn comes: a callback may
// add or remove subscribers.
void GatewayConnection::eachSubscriber(const std::function<void(Subscriber&)>& call)
{
    std::vector<SubscriberId> ids;
    for (const auto& [id, sub] : m_subscribers)
        ids.push_back(id);
    for (SubscriberId id : ids)
        if (auto it = m_subscribers.find(id); it != m_subscribers.end())
            call(it->second);
}

void GatewayConnection::publishLiveness(bool responsive)
{
    eachSubscriber([responsive](Subscriber& sub) {
        if (sub.onLiveness)
            sub.onLiveness(responsive);
    });
}

void GatewayConnection::publishQuality(bool good)
{
    eachSubscriber([good](Subscriber& sub) {
        if (sub.onQuality)
            sub.onQuality(good);
    });
}

bool GatewayConnection::supportsSupervisoryBulk() const
{
    return std::find(m_capabilities.begin(), m_capabilities.end(), "bulk-subscribe-supervisory") !=
           m_capabilities.end();
}

std::string_view GatewayConnection::adviseKind() const
{
    if (m_config.writeUserId != 0)
        return "plain (SubscribeBulk)";
    if (m_capabilities.empty() && !connected())
        return {}; // never had a session: nothing registered
    if (m_config.bulkSupervisory && supportsSupervisoryBulk())
        return "supervisory (SubscribeBulk)";
    return "supervisory (AddItemBulk + AdviseSupervisory)";
}

void GatewayConnection::start()
{
    if (m_state != ConnectionState::Stopped)
        return;
    if (!m_port.setupError().empty())
        return refuse();
    openSession();
}

// Not a failure to retry: nothing may leave for this gateway until the options change.
void GatewayConnection::refuse()
{
    const std::string& why = m_port.setupError();
    m_lastError = escapeLogText("refused: " + why);
    log(Severity::Error, "no command is sent to " + m_port.describe() + ": " + why);
    setState(ConnectionState::Refused);
}

void GatewayConnection::stop()
{
    if (m_state == ConnectionState::Stopped)
        return;
    ++m_epoch;
    if (m_reconnectTimer != kNoTimer)
        m_scheduler.cancel(m_reconnectTimer);
    m_reconnectTimer = kNoTimer;
    dropSession();
    // Callers waiting on a subscribe are not answered: their guards treat it as a lost
    // reply, exactly as when a bridge node stops mid-request.
    for (auto& op : m_running)
        op->aborted = true;
    m_running.clear();
    m_held.clear();
    m_heldAlarms.clear();
    m_nextAttemptAt.reset();
    endUnresponsive();
    setState(ConnectionState::Stopped);
}

std::string GatewayConnection::stateText() const
{
    if (m_unresponsiveSince && m_state != ConnectionState::Stopped &&
        m_state != ConnectionState::Refused)
        return "unresponsive";
    if (m_state == ConnectionState::WaitingToReconnect)
        return m_openFailed ? "unreachable" : "reconnecting";
    return toString(m_state);
}

void GatewayConnection::close(std::function<void()> closed)
{
    if (m_state == ConnectionState::Connecting && m_sessionId.empty()) {
        // OpenSession is in flight: the gateway may open the session after this. Its late
        // reply closes it (openSession()), and `closed` runs once that is answered.
        m_closeAfterOpen = {m_epoch, std::move(closed)};
        stop();
        return;
    }
    if (m_state == ConnectionState::Stopped || m_sessionId.empty()) {
        stop();
        m_scheduler.post(std::move(closed));
        return;
    }
    CloseSessionRequest request;
    request.set_session_id(m_sessionId);
    m_sessionId.clear(); // stop() must not send a second CloseSession
    stop();
    std::weak_ptr<int> life = m_life;
    m_port.closeSession(request, [life, closed = std::move(closed)](RpcStatus) {
        if (!life.expired())
            closed();
    });
}

void GatewayConnection::setConfig(const ConnectionConfig& config)
{
    if (config.sessionCommandTimeout != m_config.sessionCommandTimeout) {
        log(Severity::Info,
            "Lever 3: session command timeout " +
                (config.sessionCommandTimeout.count() > 0 ? seconds(config.sessionCommandTimeout)
                                                          : std::string("not sent")) +
                " applies at the next session open");
    }
    const std::string name = m_config.name;
    m_config = config;
    m_config.name = name;
}

void GatewayConnection::openSession()
{
    setState(ConnectionState::Connecting);
    OpenSessionRequest request;
    request.set_client_name(m_config.clientName + "/" + m_config.name);
    if (m_config.sessionCommandTimeout.count() > 0) {
        const auto us = m_config.sessionCommandTimeout.count();
        request.mutable_command_timeout()->set_seconds(us / 1000000);
        request.mutable_command_timeout()->set_nanos(int(us % 1000000) * 1000);
    }
    std::weak_ptr<int> life = m_life;
    const auto epoch = m_epoch;
    const Duration requested = m_config.sessionCommandTimeout;
    GatewayPort* port = &m_port; // it outlives its own completions; we may not
    m_port.openSession(request, [this, life, epoch, requested, port](RpcStatus status,
                                                                     OpenSessionReply reply) {
        if (life.expired() || epoch != m_epoch || m_state != ConnectionState::Connecting) {
            // Stopped, closed or gone while this was in flight: the session the gateway
            // opened is no one's. Close it rather than leave it to the gateway's timeout.
            std::function<void()> closed;
            if (!life.expired() && m_closeAfterOpen.epoch == epoch)
                closed = std::exchange(m_closeAfterOpen.closed, nullptr);
            if (!status.ok() || reply.session_id().empty()) {
                if (closed)
                    closed();
                return;
            }
            CloseSessionRequest close;
            close.set_session_id(reply.session_id());
            port->closeSession(close, [life, closed = std::move(closed)](RpcStatus) {
                if (closed && !life.expired())
                    closed();
            });
            return;
        }
        if (!status.ok() && !m_port.setupError().empty())
            return refuse(); // the contract the gateway described does not check
        if (!status.ok()) {
            m_lastError = escapeLogText("OpenSession failed: " + status.toString());
            m_openFailed = true;
            log(Severity::Warning, m_lastError);
            if (m_unresponsiveSince && !status.unanswered()) {
                // Refused or reset, not silent: the gateway is there and refusing, or gone.
                log(Severity::Warning,
                    "the gateway is unreachable, no longer unresponsive: its tags' last values "
                    "are not usable any more");
                endUnresponsive();
                publishQuality(false);
            }
            scheduleReconnect();
            return;
        }
        m_sessionId = reply.session_id();
        m_capabilities.assign(reply.capabilities().begin(), reply.capabilities().end());
        m_protocolVersion = reply.gateway_protocol_version();
        m_echoedTimeout = reply.has_default_command_timeout()
                              ? std::optional<Duration>(fromProto(reply.default_command_timeout()))
                              : std::nullopt;
        ++m_stats.sessionsOpened;
        std::string text =
            "session " + m_sessionId + " opened on " + m_port.describe() + ": protocol v" +
            std::to_string(m_protocolVersion) + ", " + std::to_string(m_capabilities.size()) +
            " capabilities (" +
            (supportsSupervisoryBulk() ? "bulk-subscribe-supervisory advertised"
                                       : "no bulk-subscribe-supervisory") +
            "), command timeout " +
            (m_echoedTimeout ? seconds(*m_echoedTimeout) : std::string("not echoed"));
        if (requested.count() > 0)
            text += " (Lever 3 requested " + seconds(requested) + ")";
        log(Severity::Info, text);
        if (requested.count() > 0 && m_echoedTimeout && *m_echoedTimeout != requested)
            log(Severity::Warning, "the gateway resolved the command timeout to " +
                                       seconds(*m_echoedTimeout) + " instead of the requested " +
                                       seconds(requested) + ": it clamps or ignores Lever 3");
        MxCommand command;
        command.mutable_register_()->set_client_name(m_config.clientName + "/" + m_config.name);
        invoke(
            command,
            [this](RpcStatus st, MxCommandReply reply) {
                if (!st.ok() || !reply.success()) {
                    m_openFailed = true;
                    connectionLost("Register failed: " +
                                   (st.ok() ? reply.error_message() : st.toString()));
                    return;
                }
                onRegistered(reply.register_().server_handle());
            },
            GateUse::RecordOnly);
    });
}

void GatewayConnection::onRegistered(std::int32_t serverHandle)
{
    if (m_unresponsiveSince)
        log(Severity::Info, "the gateway answers again after " +
                                seconds(m_scheduler.now() - *m_unresponsiveSince) +
                                ": a new session; its tags are subscribed again");
    m_serverHandle = serverHandle;
    for (const std::string& id : std::exchange(m_abandonedSessions, {})) {
        log(Severity::Info, "closing session " + id + ", given up while the gateway was silent");
        CloseSessionRequest request;
        request.set_session_id(id);
        m_port.closeSession(request, [](RpcStatus) {});
    }
    m_lastSequence = 0; // a new session numbers its events from its own start
    m_resumedWithoutEvent = false;
    openStream(0);
    m_reconnectInterval = m_config.reconnectFloor;
    m_openFailed = false;
    m_lastError.clear();
    m_lastHeard = m_scheduler.now();
    endUnresponsive();
    setState(ConnectionState::Connected);
    publishQuality(true);
    if (m_state != ConnectionState::Connected)
        return; // a quality observer stopped us
    // Pre-fix, the connection re-subscribes on its own, once; with resubscribe_guard the
    // subscribers' guards did so from the quality callback above, and keep at it.
    if (!m_config.guardedResubscribe)
        for (const auto& [id, subscribed] : m_everSubscribed)
            if (subscribed)
                ensureSubscribed(id);
    runHeld();
}

void GatewayConnection::openStream(std::uint64_t resumeAfter)
{
    StreamEventsRequest request;
    request.set_session_id(m_sessionId);
    std::weak_ptr<int> life = m_life;
    const auto epoch = m_epoch;
    GatewayPort::EventFn eventFn = [this, life, epoch](const MxEventBatch& event) {
        if (!life.expired() && epoch == m_epoch)
            onEvent(event);
    };
    GatewayPort::EndFn endFn = [this, life, epoch](RpcStatus status) {
        if (life.expired() || epoch != m_epoch)
            return;
        m_stream.reset();
        onStreamEnd(status);
    };
    m_stream = resumeAfter == 0 ? m_port.streamEvents(request, std::move(eventFn), std::move(endFn))
                                : m_port.resumeEvents(request, resumeAfter, std::move(eventFn),
                                                      std::move(endFn));
}

// A stream that ends while the session is valid is not a lost session: where the gateway
// keeps its events, the stream is reopened after the last sequence seen and nothing is
// subscribed again. A session the gateway no longer knows (NOT_FOUND, or one it faulted) is
// replaced: a new session, subscribed again through the guards. A stream whose transport
// stopped answering (keepalive) leaves the gateway unresponsive, not gone: its tags keep their
// last usable values while the session is resumed or replaced.
void GatewayConnection::onStreamEnd(const RpcStatus& status)
{
    if (status.code == grpc::StatusCode::NOT_FOUND)
        return connectionLost("the gateway no longer knows session " + m_sessionId + " (" +
                              status.toString() +
                              "): a new session is opened and its tags subscribed again");
    if (status.unanswered() && m_state == ConnectionState::Connected) {
        becomeUnresponsive("its event stream's transport stopped answering (" + status.toString() +
                           ")");
        if (m_state != ConnectionState::Connected)
            return; // a liveness observer stopped us
    }
    const bool resumable =
        m_state == ConnectionState::Connected && m_port.canResumeEvents() && m_lastSequence != 0;
    if (resumable && !m_resumedWithoutEvent) {
        ++m_stats.streamResumes;
        m_resumedWithoutEvent = true;
        log(Severity::Info,
            "event stream ended (" + status.toString() + "): resuming after worker_sequence " +
                std::to_string(m_lastSequence) + " on the same session, nothing subscribed again");
        return openStream(m_lastSequence);
    }
    if (m_unresponsiveSince && status.unanswered())
        return loseSession("event stream ended: " + status.toString(), SessionLoss::TagsLastUsable);
    connectionLost("event stream ended: " + status.toString());
}

void GatewayConnection::dropSession()
{
    m_unanswered.clear(); // their answers, if any come, belong to the session dropped
    if (m_livenessWatch != kNoTimer)
        m_scheduler.cancel(m_livenessWatch);
    m_livenessWatch = kNoTimer;
    if (m_stream)
        m_port.cancelStream(*m_stream);
    m_stream.reset();
    if (!m_sessionId.empty()) {
        CloseSessionRequest request; // best effort: the session may already be gone
        request.set_session_id(m_sessionId);
        // A silent gateway cannot hear it now; once it answers again (a new session is
        // registered) it is told, or the session would hold its items and queue until it
        // times out at the gateway.
        std::weak_ptr<int> life = m_life;
        m_port.closeSession(request, [this, life, id = m_sessionId](RpcStatus status) {
            if (!life.expired() && status.unanswered())
                m_abandonedSessions.push_back(id);
        });
    }
    m_sessionId.clear();
    m_routes.clear(); // item handles die with the session
    m_routeCache.clear();
    m_unrouted.clear();
    m_unroutedBytes = 0;
    m_routedWithKeptValue.clear();
    m_retiring.clear();
    m_removedTags.clear(); // handles die with the session (m_reusesHandles is the gateway's)
    m_removedTagLists.clear();
    m_toReadvise.clear();
    m_readviseQueue.clear();
    m_readvisesInFlight = 0; // their answers are dropped with the session
    for (auto& [id, sub] : m_subscribers)
        std::fill(sub.handles.begin(), sub.handles.end(), 0);
}

void GatewayConnection::connectionLost(const std::string& why)
{
    loseSession(why, SessionLoss::TagsBad);
}

void GatewayConnection::loseSession(const std::string& why, SessionLoss loss)
{
    if (m_state == ConnectionState::Stopped)
        return;
    const bool lastUsable = loss == SessionLoss::TagsLastUsable;
    log(Severity::Warning,
        (lastUsable ? "contact lost: " : "connection lost: ") + why +
            (lastUsable ? "; the session is given up, its tags keep their last usable values "
                          "until a new session is subscribed or the gateway refuses one"
                        : ""));
    m_lastError = escapeLogText((lastUsable ? "contact lost: " : "connection lost: ") + why);
    ++m_epoch;
    dropSession();
    // Subscribes in flight lose their replies with the session; they are held and run
    // again once connected, so their callers are answered then (as the DCL does).
    // The requeued copy carries the tags too: without them it would go out empty, be
    // answered with an empty success and confirm a subscription that advised nothing.
    std::vector<OpPtr> requeue;
    for (auto& op : m_running) {
        op->aborted = true;
        if (!op->waiters.empty()) {
            auto again = std::make_shared<SubscribeOp>();
            again->subscribers = op->subscribers;
            again->origin = op->origin;
            again->tags = op->tags;
            again->tagsHash = op->tagsHash;
            again->waiters = std::move(op->waiters);
            requeue.push_back(again);
        }
    }
    m_running.clear();
    m_held.insert(m_held.begin(), requeue.begin(), requeue.end());
    ++m_stats.reconnects;
    if (!lastUsable) {
        endUnresponsive(); // the tags go Bad: the session is gone
        publishQuality(false);
    }
    scheduleReconnect();
}

void GatewayConnection::scheduleReconnect()
{
    if (m_state == ConnectionState::Stopped)
        return;
    setState(ConnectionState::WaitingToReconnect);
    const Duration delay = m_reconnectInterval;
    m_reconnectInterval = Backoff::next(m_reconnectInterval, m_config.reconnectFloor,
                                        m_config.reconnectMax, m_jitter());
    log(Severity::Info, "reconnecting in " + seconds(delay));
    std::weak_ptr<int> life = m_life;
    m_nextAttemptAt = m_scheduler.now() + delay;
    m_reconnectTimer = m_scheduler.callAfter(delay, [this, life] {
        if (life.expired())
            return;
        m_reconnectTimer = kNoTimer;
        m_nextAttemptAt.reset();
        openSession();
    });
}

void GatewayConnection::invoke(MxCommand command, InvokeDone done, GateUse gateUse)
{
    MxCommandRequest request;
    *request.mutable_command() = std::move(command);
    send(request, std::move(done), gateUse);
}

void GatewayConnection::send(MxCommandRequest& request, InvokeDone done, GateUse gateUse)
{
    std::weak_ptr<int> life = m_life;
    const auto epoch = m_epoch;
    if (m_gate && gateUse == GateUse::CheckAndRecord) {
        const GateDecision decision = m_gate->check();
        if (!decision.allowed) {
            ++m_stats.suppressedCalls;
            RpcStatus refused{grpc::StatusCode::UNAVAILABLE, decision.message(), true};
            m_scheduler.post([this, life, epoch, done = std::move(done), refused] {
                if (!life.expired() && epoch == m_epoch)
                    done(refused, MxCommandReply{});
            });
            return;
        }
    }
    request.set_session_id(m_sessionId);
    request.set_client_correlation_id(m_config.name + "-" + std::to_string(++m_nextCorrelation));
    ++m_stats.invokes;
    ++m_stats.invokesByKind[kindOf(request.command())];

    // One answer per call: the gateway's, or this client's own deadline (MxCommandTimeoutMs),
    // whichever comes first; the other is dropped.
    struct Call {
        InvokeDone done;
        TimerId deadline = kNoTimer;
        Time sentAt;
    };
    auto call = std::make_shared<Call>(Call{std::move(done), kNoTimer, m_scheduler.now()});
    const std::uint64_t seq = m_nextCorrelation;
    auto complete = [this, life, epoch, gateUse, seq](const std::shared_ptr<Call>& c,
                                                      RpcStatus status, MxCommandReply reply,
                                                      bool fromGateway) {
        if (life.expired() || !c->done)
            return;
        InvokeDone done = std::move(c->done);
        c->done = nullptr;
        if (c->deadline != kNoTimer)
            m_scheduler.cancel(c->deadline);
        m_unanswered.erase(seq);
        if (fromGateway)
            m_stats.commandLatency.record(double((m_scheduler.now() - c->sentAt).count()) / 1e6);
        if (epoch != m_epoch)
            return; // the session is gone; its work was re-queued or dropped
        // A transport's failure proves nothing alive, and a DEADLINE_EXCEEDED is a command
        // the gateway did not run in time, whoever said so.
        if (fromGateway && !status.transient())
            heard();
        if (status.code == grpc::StatusCode::DEADLINE_EXCEEDED) {
            ++m_stats.deadlineExceeded;
            checkLiveness();
        }
        if (m_gate && gateUse != GateUse::Bypass) {
            if (status.transient())
                m_gate->recordFailure(status.toString());
            else if (status.ok())
                m_gate->recordSuccess();
        }
        if (status.code == grpc::StatusCode::NOT_FOUND) {
            connectionLost("the gateway no longer knows session " + m_sessionId);
            return;
        }
        if (status.ok())
            m_retiring.answered(seq); // the STA is one FIFO: what was sent before this has run
        done(status, std::move(reply));
    };
    if (m_config.commandTimeout.count() > 0) {
        std::weak_ptr<Call> weak = call;
        call->deadline =
            m_scheduler.callAfter(m_config.commandTimeout, [this, life, weak, complete] {
                auto c = weak.lock();
                if (!c || life.expired())
                    return;
                c->deadline = kNoTimer;
                ++m_stats.clientDeadlines;
                complete(c,
                         RpcStatus{grpc::StatusCode::DEADLINE_EXCEEDED,
                                   "no answer within MxCommandTimeoutMs (" +
                                       seconds(m_config.commandTimeout) + ")"},
                         MxCommandReply{}, false);
            });
    }
    // The session's deadline is the gateway's to answer, and a silent gateway never does: the
    // liveness rule is checked when it passes, answered or not. (This client's own deadline,
    // when it comes first, checks it by its DEADLINE_EXCEEDED.)
    const Duration horizon = livenessHorizon();
    if (horizon.count() > 0 &&
        (m_config.commandTimeout.count() <= 0 || horizon < m_config.commandTimeout)) {
        m_unanswered.emplace(seq, m_scheduler.now());
        watchLiveness();
    }
    m_port.invoke(request, [call, complete](RpcStatus status, MxCommandReply reply) {
        complete(call, std::move(status), std::move(reply), true);
    });
}

} // namespace stormwatch
