#pragma once
// The client's GatewayPort straight onto the mock gateway model on the same scheduler
// (virtual replay, A/B comparison, tests), with a modelled one-way network latency on
// every request, reply and event. The connection logic above it is the live one.

#include "client/gateway_port.h"
#include "gateway/gateway_model.h"

#include <array>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>

namespace stormwatch {

class InProcessGatewayPort final : public GatewayPort {
public:
    InProcessGatewayPort(Scheduler& scheduler, gateway::GatewayModel& model, Duration latency);
    ~InProcessGatewayPort() override;

    void openSession(const mxgateway::v1::OpenSessionRequest& request, OpenDone done) override;
    void closeSession(const mxgateway::v1::CloseSessionRequest& request, CloseDone done) override;
    void invoke(const mxgateway::v1::MxCommandRequest& request, InvokeDone done) override;
    StreamId streamEvents(const mxgateway::v1::StreamEventsRequest& request, EventFn onEvent,
                          EndFn onEnd) override;
    void cancelStream(StreamId id) override;
    bool canResumeEvents() const override { return m_model.config().replayCapacity > 0; }
    StreamId resumeEvents(const mxgateway::v1::StreamEventsRequest& request,
                          std::uint64_t afterSequence, EventFn onEvent, EndFn onEnd) override;
    void stallReader(Duration duration) override;
    std::string describe() const override { return "in-process mock"; }

    void setLatency(Duration latency) { m_latency = latency; }
    // The HTTP/2 keepalive the live transport uses (GrpcPortOptions): a ping this long after
    // the last frame from the gateway, given up on after the timeout.
    void setKeepalive(Duration time, Duration timeout);

private:
    struct Stream {
        gateway::GatewayModel::StreamId modelId = 0; // 0 until the request reached the model
        bool cancelled = false;
        std::shared_ptr<EventFn> onEvent;
        EndFn onEnd;
        std::shared_ptr<gateway::GatewayModel::EventReader> reader; // where the gateway counts
        // Arrived while the reader was stalled, in order, and the end behind them.
        std::deque<std::shared_ptr<const MxEventBatch>> held;
        std::optional<RpcStatus> heldEnd;
    };
    // The transport's side of a frozen gateway: a keepalive ping unanswered past its timeout
    // closes the connection, failing every call and stream on it. A new connection attempt
    // meanwhile waits for the gateway's first frame: it goes on when the gateway continues,
    // or times out first.
    void onSilenceChanged();
    void keepaliveUnanswered(std::uint64_t freeze);
    void whenConnected(std::function<void()> send, std::function<void(const RpcStatus&)> timedOut);
    void failCall(std::uint64_t call, const RpcStatus& status);
    std::uint64_t track(std::function<void(const RpcStatus&)> fail);
    bool settle(std::uint64_t call); // true: it was still in flight, and the frame is heard
    void endStream(StreamId id, const RpcStatus& status);
    void arrive(StreamId id, const std::shared_ptr<const MxEventBatch>& event);
    void arriveEnd(StreamId id, const RpcStatus& status);
    void take(Stream& stream, const MxEventBatch& event);
    void readHeld();
    static RpcStatus convert(const gateway::CallStatus& s) { return RpcStatus{s.code, s.message}; }
    void afterLatency(std::function<void()> task);
    gateway::GatewayModel::SharedCommand share(const mxgateway::v1::MxCommand& command);

    Scheduler& m_scheduler;
    gateway::GatewayModel& m_model;
    Duration m_latency;
    StreamId m_nextStream = 1;
    std::unordered_map<StreamId, Stream> m_streams;
    Time m_readerStalledUntil{0};
    std::array<std::weak_ptr<const mxgateway::v1::MxCommand>, 8>
        m_recent; // bulk payloads shared last
    std::size_t m_nextRecent = 0;
    Duration m_keepaliveTime = std::chrono::seconds(10);
    Duration m_keepaliveTimeout = std::chrono::seconds(5);
    Time m_lastFrame{0};
    std::uint64_t m_freeze = 0; // counts the freezes begun, so a check knows its own
    bool m_transportDead = false;
    std::uint64_t m_nextCall = 1;
    std::unordered_map<std::uint64_t, std::function<void(const RpcStatus&)>> m_calls; // in flight
    struct Connecting {
        std::function<void()> send;
        std::function<void(const RpcStatus&)> timedOut;
    };
    std::uint64_t m_nextConnect = 1;
    std::map<std::uint64_t, Connecting> m_connecting; // attempts waiting for a frozen gateway
    int m_silenceListener = 0;
    std::shared_ptr<int> m_life = std::make_shared<int>(0);
};

} // namespace stormwatch
