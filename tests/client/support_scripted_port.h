#pragma once
// A GatewayPort the test scripts: it opens sessions (or fails them with `openFails`), answers
// every command with success (Register's server handle 1), and keeps the event stream's
// callbacks so the test sends events and ends the stream itself. Runs on a VirtualScheduler.
#include "client/gateway_port.h"

#include <optional>
#include <string>
#include <vector>

namespace testsupport {

using namespace mxgateway::v1;
using stormwatch::GatewayPort;
using stormwatch::MxChange;
using stormwatch::MxEventBatch;
using stormwatch::RpcStatus;
using stormwatch::Scheduler;

// Opens sessions, answers Register, and keeps the event stream's callbacks for the test.
class ScriptedPort final : public GatewayPort {
public:
    explicit ScriptedPort(Scheduler& s) : m_s(s) {}

    void openSession(const OpenSessionRequest&, OpenDone done) override
    {
        ++opens;
        m_s.post([this, done] {
            if (openFails)
                return done(*openFails, OpenSessionReply{});
            OpenSessionReply r;
            r.set_session_id("s-" + std::to_string(++sessions));
            done(RpcStatus{}, r);
        });
    }
    void closeSession(const CloseSessionRequest&, CloseDone done) override
    {
        m_s.post([done] { done(RpcStatus{}); });
    }
    void invoke(const MxCommandRequest&, InvokeDone done) override
    {
        ++invokes;
        m_s.post([done] {
            MxCommandReply r;
            r.set_success(true);
            r.mutable_register_()->set_server_handle(1);
            done(RpcStatus{}, r);
        });
    }
    StreamId streamEvents(const StreamEventsRequest&, EventFn onEvent, EndFn onEnd) override
    {
        event = std::move(onEvent);
        end = std::move(onEnd);
        return ++streams;
    }
    void cancelStream(StreamId) override {}
    bool canResumeEvents() const override { return resumable; }
    StreamId resumeEvents(const StreamEventsRequest& r, std::uint64_t after, EventFn onEvent,
                          EndFn onEnd) override
    {
        resumedAfter.push_back(after);
        return streamEvents(r, std::move(onEvent), std::move(onEnd));
    }
    std::string describe() const override { return "scripted"; }

    void send(std::uint64_t sequence)
    {
        MxEventBatch b;
        b.kind = MxEventBatch::Kind::DataChanges;
        b.sequence = sequence;
        MxChange c;
        c.serverHandle = 1;
        c.itemHandle = 99;
        b.changes.push_back(c);
        event(b);
    }

    // Ends the stream (through a copy: the end may open the next stream, which replaces it).
    void finish(RpcStatus status)
    {
        EndFn e = end;
        e(std::move(status));
    }

    int sessions = 0;
    int opens = 0;
    std::optional<RpcStatus> openFails; // every OpenSession fails with it while set
    int invokes = 0;
    bool resumable = false;
    std::vector<std::uint64_t> resumedAfter;
    StreamId streams = 0;
    EventFn event;
    EndFn end;

private:
    Scheduler& m_s;
};

} // namespace testsupport
