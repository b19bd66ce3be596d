#pragma once
// What integration.connection_routing and integration.handle_reuse share: a recording
// subscriber, the gateway's item for a tag, ports that delay replies or events or turn values
// into text, and the reused-handle run (a gateway handing a removed item's handle out again).
#include "support_virtual_gateway.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace stormwatch::testing::routing {

using namespace std::chrono_literals;

inline gateway::GatewayConfig config(bool advertise)
{
    gateway::GatewayConfig c;
    c.advertiseBulkSupervisory = advertise;
    c.commandMs = 2;
    c.perItemMs = 0.1;
    c.dataHz = 1;
    return c;
}

// What a subscriber received, per tag index: how many updates, the last item handle and value.
struct Received {
    std::map<int, int> count;
    std::map<int, std::int32_t> handle;
    std::map<int, double> value;
    std::map<int, std::string> text;           // a string value's text, the latest
    std::map<int, std::int64_t> oldestStampUs; // the oldest source timestamp it was given
    std::vector<int> lost; // indices the connection said lost their item (LostFn)
    int batches = 0;
    int updates() const
    {
        int n = 0;
        for (const auto& [index, c] : count)
            n += c;
        return n;
    }
};

inline GatewayConnection::SubscriberId
addRecorded(GatewayConnection& c, std::vector<std::string> tags, std::shared_ptr<Received> into)
{
    return c.addSubscriber(
        std::move(tags),
        [into](const std::vector<TagUpdate>& updates) {
            ++into->batches;
            for (const TagUpdate& u : updates) {
                ++into->count[u.index];
                into->handle[u.index] = u.itemHandle;
                into->value[u.index] = u.value;
                auto [oldest, first] =
                    into->oldestStampUs.try_emplace(u.index, u.sourceTimestampUs);
                if (!first)
                    oldest->second = std::min(oldest->second, u.sourceTimestampUs);
                if (u.text)
                    into->text[u.index] = *u.text;
            }
        },
        [](bool) {}, {},
        [into](const std::vector<int>& indices, const std::string&) {
            into->lost.insert(into->lost.end(), indices.begin(), indices.end());
        });
}

// The gateway's item for `tag` on the connection's session: its handle and current value.
inline std::optional<std::pair<std::int32_t, double>>
gatewayItem(VirtualGateway& gw, const GatewayConnection& c, const std::string& tag)
{
    const auto* s = gw.model.session(c.sessionId());
    if (!s)
        return std::nullopt;
    for (const auto& [handle, item] : s->items)
        if (item.tag == tag)
            return std::make_pair(handle, s->items.value(handle));
    return std::nullopt;
}

// The in-process port with every reply 50 ms late (values as they are): an item's first
// value comes before the reply that routes it.
class LateReplyPort : public GatewayPort {
public:
    LateReplyPort(GatewayPort& inner, Scheduler& scheduler) : m_inner(inner), m_scheduler(scheduler)
    {
    }
    void openSession(const mxgateway::v1::OpenSessionRequest& r, OpenDone d) override
    {
        m_inner.openSession(r, std::move(d));
    }
    void closeSession(const mxgateway::v1::CloseSessionRequest& r, CloseDone d) override
    {
        m_inner.closeSession(r, std::move(d));
    }
    void invoke(const mxgateway::v1::MxCommandRequest& r, InvokeDone d) override
    {
        m_inner.invoke(
            r, [this, d = std::move(d)](RpcStatus status, mxgateway::v1::MxCommandReply reply) {
                m_scheduler.callAfter(std::chrono::milliseconds(50),
                                      [d, status, reply] { d(status, reply); });
            });
    }
    StreamId streamEvents(const mxgateway::v1::StreamEventsRequest& r, EventFn onEvent,
                          EndFn onEnd) override
    {
        return m_inner.streamEvents(r, std::move(onEvent), std::move(onEnd));
    }
    void cancelStream(StreamId id) override { m_inner.cancelStream(id); }
    std::string describe() const override { return "late replies over " + m_inner.describe(); }

protected:
    GatewayPort& m_inner;

private:
    Scheduler& m_scheduler;
};

// The late-reply port with every data change's value turned into the string
// "v<item handle>@<value>": string values reach a subscriber's tag with their own text.
class TextPort final : public LateReplyPort {
public:
    using LateReplyPort::LateReplyPort;
    StreamId streamEvents(const mxgateway::v1::StreamEventsRequest& r, EventFn onEvent,
                          EndFn onEnd) override
    {
        return m_inner.streamEvents(
            r,
            [onEvent = std::move(onEvent)](const MxEventBatch& event) {
                MxEventBatch copy = event;
                for (auto& change : copy.changes) {
                    const std::string text = textFor(change.itemHandle, change.number);
                    change.kind = MxValueKind::String;
                    change.text = copy.texts.size();
                    copy.texts.push_back(text);
                }
                onEvent(copy); // the copy is gone once this returns, as a gRPC event is
            },
            std::move(onEnd));
    }
    std::string describe() const override { return "text over " + m_inner.describe(); }

    static std::string textFor(std::int32_t handle, double value)
    {
        return "v" + std::to_string(handle) + "@" + std::to_string(value);
    }
};

// The in-process port with every event 50 ms late (replies as they are): a new item's first
// value comes after the reply that routes it, and what was kept before is older.
class LateEventPort final : public GatewayPort {
public:
    LateEventPort(GatewayPort& inner, Scheduler& scheduler) : m_inner(inner), m_scheduler(scheduler)
    {
    }
    void openSession(const mxgateway::v1::OpenSessionRequest& r, OpenDone d) override
    {
        m_inner.openSession(r, std::move(d));
    }
    void closeSession(const mxgateway::v1::CloseSessionRequest& r, CloseDone d) override
    {
        m_inner.closeSession(r, std::move(d));
    }
    void invoke(const mxgateway::v1::MxCommandRequest& r, InvokeDone d) override
    {
        m_inner.invoke(r, std::move(d));
    }
    StreamId streamEvents(const mxgateway::v1::StreamEventsRequest& r, EventFn onEvent,
                          EndFn onEnd) override
    {
        auto deliver = std::make_shared<EventFn>(std::move(onEvent));
        return m_inner.streamEvents(
            r,
            [this, deliver](const MxEventBatch& event) {
                m_scheduler.callAfter(std::chrono::milliseconds(50),
                                      [deliver, copy = event] { (*deliver)(copy); });
            },
            std::move(onEnd));
    }
    void cancelStream(StreamId id) override { m_inner.cancelStream(id); }
    std::string describe() const override { return "late events over " + m_inner.describe(); }

private:
    GatewayPort& m_inner;
    Scheduler& m_scheduler;
};

// The late-reply port recording each command it forwards: its kind, when it was sent and
// when its reply came.
class OrderPort final : public LateReplyPort {
public:
    OrderPort(GatewayPort& inner, Scheduler& scheduler)
        : LateReplyPort(inner, scheduler), m_clock(scheduler)
    {
    }
    struct Sent {
        std::string kind;
        Time sentAt{};
        std::optional<Time> answeredAt;
    };
    void invoke(const mxgateway::v1::MxCommandRequest& r, InvokeDone d) override
    {
        const std::size_t i = sent.size();
        std::string kind = "other";
        if (r.command().kind_case() == mxgateway::v1::MxCommand::kUnAdvise)
            kind = "un_advise";
        else if (r.command().kind_case() == mxgateway::v1::MxCommand::kAdviseSupervisory)
            kind = "advise_supervisory";
        sent.push_back(Sent{kind, m_clock.now(), std::nullopt});
        LateReplyPort::invoke(
            r, [this, i, d = std::move(d)](RpcStatus status, mxgateway::v1::MxCommandReply reply) {
                sent[i].answeredAt = m_clock.now();
                d(status, std::move(reply));
            });
    }
    std::optional<Sent> first(const std::string& kind) const
    {
        for (const Sent& s : sent)
            if (s.kind == kind)
                return s;
        return std::nullopt;
    }
    std::vector<Sent> sent;

private:
    Scheduler& m_clock;
};

// A gateway that reuses handles (mxgw-mock --reuse-handles) and sends only first values
// (a supervisory tag that never changes), a 1 s client command timeout, replies 50 ms late.
// Tag A is subscribed, then removed while the STA is slow: the RemoveItem times out on the
// client (the STA still runs it). Then tag B is subscribed; the gateway hands it A's freed
// handle, and B's only value arrives before the subscribe's reply.
// The late-reply port refusing every AdviseSupervisory (success=false), as a gateway refuses an
// item it cannot advise; the subscribes (SubscribeBulk) pass.
class RefusingAdvisePort final : public LateReplyPort {
public:
    using LateReplyPort::LateReplyPort;
    void invoke(const mxgateway::v1::MxCommandRequest& r, InvokeDone d) override
    {
        if (!r.command().has_advise_supervisory())
            return LateReplyPort::invoke(r, std::move(d));
        ++refused;
        mxgateway::v1::MxCommandReply reply;
        reply.set_success(false);
        reply.set_error_message("item cannot be advised");
        d(RpcStatus{}, reply);
    }
    int refused = 0;
};

// The late-reply port counting the re-advise commands (UnAdvise, AdviseSupervisory) in flight.
class ReadviseCountingPort final : public LateReplyPort {
public:
    using LateReplyPort::LateReplyPort;
    void invoke(const mxgateway::v1::MxCommandRequest& r, InvokeDone d) override
    {
        if (!r.command().has_un_advise() && !r.command().has_advise_supervisory())
            return LateReplyPort::invoke(r, std::move(d));
        maxInFlight = std::max(maxInFlight, ++inFlight);
        LateReplyPort::invoke(
            r, [this, d = std::move(d)](RpcStatus status, mxgateway::v1::MxCommandReply reply) {
                --inFlight;
                d(std::move(status), std::move(reply));
            });
    }
    int inFlight = 0;
    int maxInFlight = 0;
};

// Port: LateReplyPort, TextPort for string values, RefusingAdvisePort or ReadviseCountingPort.
template <class Port> struct ReusedHandleRunOver {
    explicit ReusedHandleRunOver(bool reuse)
        : ReusedHandleRunOver([reuse] {
              gateway::GatewayConfig c = config(true);
              c.dataHz = 0; // first values only
              c.reuseHandles = reuse;
              return c;
          }())
    {
    }
    explicit ReusedHandleRunOver(const gateway::GatewayConfig& gateway)
        : gw(gateway), port(gw.port, gw.sched),
          c(gw.sched, port, connectionConfig(), nullptr, [] { return 0.5; })
    {
    }
    static ConnectionConfig connectionConfig()
    {
        ConnectionConfig cc;
        cc.commandTimeout = 1s;
        return cc;
    }
    // Returns A's handle; leaves B's subscribe answered.
    std::int32_t run()
    {
        c.start();
        return round("A", a, "B", b, bDone);
    }
    // `oldTag` is subscribed, then removed while the STA is slow (the remove times out on the
    // client at 1 s; the STA still runs it, for 2 s); then `newTag` is subscribed. Returns the
    // old tag's handle; `removeSentAt` is when its remove was sent.
    std::int32_t round(const std::string& oldTag, const std::shared_ptr<Received>& oldGot,
                       const std::string& newTag, const std::shared_ptr<Received>& newGot,
                       bool& newDone)
    {
        const auto subOld = addRecorded(c, {oldTag}, oldGot);
        c.subscribe(subOld, [](const SubscribeOutcome&) {});
        gw.sched.runFor(1s);
        const std::int32_t oldHandle = oldGot->handle[0];
        gateway::GatewayConfig slow = gw.model.config();
        const double commandMs = slow.commandMs;
        slow.commandMs = 2000; // the RemoveItem holds the STA for 2 s
        gw.model.setConfig(slow);
        removeSentAt = gw.sched.now();
        c.removeItems(subOld);
        c.removeSubscriber(subOld);
        gw.sched.runFor(1500ms); // the client gave up on it at 1 s: DEADLINE_EXCEEDED
        timedOut = c.stats().deadlineExceeded;
        retiredAfterTimeout = c.retiringHandles();
        slow.commandMs = commandMs;
        gw.model.setConfig(slow);
        const auto subNew = addRecorded(c, {newTag}, newGot);
        lastNew = subNew;
        c.subscribe(subNew, [&newDone](const SubscribeOutcome& o) { newDone = o.success; });
        gw.sched.runFor(2s);
        return oldHandle;
    }
    std::int64_t stampUs(Time t) const { return gw.model.config().timestampEpochUs + t.count(); }
    VirtualGateway gw;
    Port port;
    GatewayConnection c;
    std::shared_ptr<Received> a = std::make_shared<Received>();
    std::shared_ptr<Received> b = std::make_shared<Received>();
    std::int64_t timedOut = 0;
    std::size_t retiredAfterTimeout = 0;
    bool bDone = false;
    Time removeSentAt{};
    GatewayConnection::SubscriberId lastNew = 0; // the new tag's subscriber of the last round
};
using ReusedHandleRun = ReusedHandleRunOver<LateReplyPort>;

} // namespace stormwatch::testing::routing
