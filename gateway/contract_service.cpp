#include "contract_service.h"

#include "grpc_services.h"
#include "logging.h"
#include "proto/grpc_bytes.h"
#include "server_reflection_service.h"
#include "stream_reactor.h"

#include <algorithm>
#include <deque>
#include <vector>

namespace stormwatch::gateway {

namespace v1 = mxgateway::v1;

namespace {

constexpr const char* kSupervisoryCapability = "bulk-subscribe-supervisory";

// A unary call: one request read, handed to the model on its thread, one reply written.
class UnaryReactor final : public grpc::ServerGenericBidiReactor {
public:
    enum class Method { Open, Close, Invoke };

    UnaryReactor(ContractGatewayService& service, Method method)
        : m_service(service), m_method(method)
    {
        StartRead(&m_request);
    }

    void OnReadDone(bool ok) override
    {
        if (!ok)
            return Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "no request message"));
        const std::string bytes = bytesOf(m_request);
        std::string error;
        const wire::WireCodec& codec = m_service.codec();
        bool decoded = false;
        switch (m_method) {
        case Method::Open:
            decoded = codec.decodeOpenRequest(bytes, m_open, error);
            break;
        case Method::Close:
            decoded = codec.decodeCloseRequest(bytes, m_close, error);
            break;
        case Method::Invoke:
            decoded = codec.decodeInvokeRequest(bytes, m_invoke, error);
            break;
        }
        if (!decoded)
            return Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, error));
        m_service.scheduler().post([this] { run(); });
    }

    void OnWriteDone(bool) override {}
    void OnDone() override { delete this; }

private:
    // Model thread. The model answers exactly once; the reactor lives until then.
    void run()
    {
        GatewayModel& model = m_service.model();
        switch (m_method) {
        case Method::Open:
            model.openSession(m_open, [this](CallStatus st, v1::OpenSessionReply reply) {
                if (!st.ok())
                    return Finish(toGrpc(st));
                if (!m_service.codec().hasSupervisoryFlag()) {
                    auto* caps = reply.mutable_capabilities();
                    caps->erase(std::remove(caps->begin(), caps->end(), kSupervisoryCapability),
                                caps->end());
                }
                std::string bytes, error;
                m_service.codec().encodeOpenReply(reply, bytes, error);
                reply_(bytes);
            });
            break;
        case Method::Close:
            model.closeSession(m_close, [this](CallStatus st) {
                if (!st.ok())
                    return Finish(toGrpc(st));
                reply_(std::string()); // CloseSessionReply: nothing the client reads
            });
            break;
        case Method::Invoke:
            model.invoke(m_invoke, [this](CallStatus st, v1::MxCommandReply reply) {
                if (!st.ok())
                    return Finish(toGrpc(st));
                std::string bytes, error;
                m_service.codec().encodeInvokeReply(reply, bytes, error);
                reply_(bytes);
            });
            break;
        }
    }

    void reply_(const std::string& bytes)
    {
        m_reply = toByteBuffer(bytes);
        StartWriteAndFinish(&m_reply, grpc::WriteOptions(), grpc::Status::OK);
    }

    ContractGatewayService& m_service;
    Method m_method;
    grpc::ByteBuffer m_request;
    grpc::ByteBuffer m_reply;
    v1::OpenSessionRequest m_open;
    v1::CloseSessionRequest m_close;
    v1::MxCommandRequest m_invoke;
};

// One model batch in the contract's wire form: its messages in order (one per change where
// the contract has no batch), encoded on the model thread.
struct ContractEvent {
    std::vector<grpc::ByteBuffer> wires;
    std::size_t changes = 0; // the model's events in it (its reader has taken them once written)
};

} // namespace

// Past the queue a contract stream holds whole batches, up to kStreamBacklogItems events;
// what comes after is dropped. Events keep the numbers the model gave them, so a client
// that reads on sees the dropped ones as a gap in the sequence: lost, and counted.
template <> class StreamOverflow<ContractEvent> {
public:
    bool empty() const { return m_held.empty(); }
    std::size_t items() const { return m_events; }
    void add(const ContractEvent& event, StreamBacklogCounters& counters)
    {
        if (m_events + event.wires.size() > kStreamBacklogItems) {
            counters.dropped.fetch_add(static_cast<std::int64_t>(event.wires.size()),
                                       std::memory_order_relaxed);
            return;
        }
        m_events += event.wires.size();
        m_held.push_back(event);
    }
    void takeInto(std::deque<ContractEvent>& queue)
    {
        for (auto& e : m_held)
            queue.push_back(std::move(e));
        clear();
    }
    void clear()
    {
        m_held.clear();
        m_held.shrink_to_fit();
        m_events = 0;
    }

private:
    std::vector<ContractEvent> m_held;
    std::size_t m_events = 0;
};

namespace {

// StreamEvents: the request read (a fresh stream, or a resume after a sequence), then the
// model's events through the same bounded channel as the compiled-in service, each batch
// written as the contract's messages.
class EventsReactor final : public grpc::ServerGenericBidiReactor {
public:
    using Channel = StreamChannel<ContractEvent, EventsReactor>;

    explicit EventsReactor(ContractGatewayService& service)
        : m_service(service),
          m_channel(std::make_shared<Channel>(this, service.model().streamBacklog()))
    {
        StartRead(&m_request);
    }

    void OnReadDone(bool ok) override
    {
        if (!ok)
            return m_channel->finish(
                grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "no request message"));
        std::uint64_t resumeAfter = 0;
        std::string error;
        v1::StreamEventsRequest request;
        if (!m_service.codec().decodeStreamRequest(bytesOf(m_request), request, resumeAfter, error))
            return m_channel->finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, error));
        m_service.scheduler().post([service = &m_service, ch = m_channel, request, resumeAfter,
                                    reader = m_reader] {
            if (ch->cancelled())
                return;
            // Numbers the model did not give (a contract numbered, a model not) count on
            // from this stream's start.
            auto sequence = std::make_shared<std::uint64_t>(0);
            ch->setId(service->model().streamEvents(
                request,
                [ch, service, sequence](const MxEventBatch& e) {
                    std::vector<std::string> bytes;
                    if (!service->codec().encodeEvents(e, *sequence, bytes) || bytes.empty())
                        return; // nothing this contract carries (a notice)
                    ContractEvent event;
                    event.changes = e.changes.size();
                    event.wires.reserve(bytes.size());
                    for (const auto& b : bytes)
                        event.wires.push_back(toByteBuffer(b));
                    ch->write(std::move(event));
                },
                // An overflowed subscriber is cut off: what it has not read is dropped, not sent.
                [ch](CallStatus st) {
                    const bool overflow = st.message.starts_with(kEventQueueOverflow);
                    ch->finish(toGrpc(st), !overflow);
                },
                GatewayModel::StreamOptions{resumeAfter, reader}));
        });
    }

    // The channel's writer (under its lock): one queued batch, message by message.
    void StartWrite(const ContractEvent* event)
    {
        m_current = event;
        m_next = 0;
        writeNext();
    }
    void Finish(grpc::Status status) { grpc::ServerGenericBidiReactor::Finish(std::move(status)); }

    void OnWriteDone(bool ok) override
    {
        if (ok && m_next < m_current->wires.size())
            return writeNext();
        if (ok)
            m_reader->taken.fetch_add(m_current->changes, std::memory_order_relaxed);
        m_channel->onWriteDone(ok);
    }
    void OnCancel() override
    {
        m_channel->onCancel();
        m_service.scheduler().post([service = &m_service, ch = m_channel] {
            if (ch->id())
                service->model().cancelStream(ch->id());
        });
    }
    void OnDone() override
    {
        m_channel->onDone();
        delete this;
    }

private:
    // The messages of one batch but the last are corked: gRPC sends them together rather
    // than one write each.
    void writeNext()
    {
        grpc::WriteOptions options;
        if (m_next + 1 < m_current->wires.size())
            options.set_buffer_hint();
        grpc::ServerGenericBidiReactor::StartWrite(&m_current->wires[m_next++], options);
    }

    ContractGatewayService& m_service;
    std::shared_ptr<Channel> m_channel;
    grpc::ByteBuffer m_request;
    const ContractEvent* m_current = nullptr; // the channel's front: alive until its write is done
    std::size_t m_next = 0;
    // Written is taken: gRPC's flow control holds writes back from a reader that does not read.
    std::shared_ptr<GatewayModel::EventReader> m_reader =
        std::make_shared<GatewayModel::EventReader>();
};

} // namespace

GatewayConfig configForContract(const wire::WireCodec& codec, GatewayConfig config)
{
    if (const wire::ContractProfile* profile = codec.check().profile)
        applyContractFamily(profile->name, config);
    config.numberEvents = codec.hasEventSequence();
    if (!codec.canResumeEvents() || !config.numberEvents)
        config.replayCapacity = 0;
    if (!codec.hasSupervisoryFlag())
        config.advertiseBulkSupervisory = false;
    return config;
}

ContractGatewayService::ContractGatewayService(Scheduler& scheduler, GatewayModel& model,
                                               std::shared_ptr<const wire::WireCodec> codec)
    : m_scheduler(scheduler), m_model(model), m_codec(std::move(codec))
{
}

grpc::ServerGenericBidiReactor*
ContractGatewayService::CreateReactor(grpc::GenericCallbackServerContext* context)
{
    const std::string& method = context->method();
    // The key's scope for the method (the published gateway's authorization), before anything.
    const auto authorized = [&](std::string_view name) {
        if (!m_keys)
            return CallStatus{};
        const auto& metadata = context->client_metadata();
        const auto header = metadata.find("authorization");
        const std::string_view value =
            header == metadata.end()
                ? std::string_view{}
                : std::string_view(header->second.data(), header->second.size());
        return m_keys->authorize(value, ApiKeys::scopeFor(name));
    };
    const char* name = method == m_codec->openPath()     ? "OpenSession"
                       : method == m_codec->closePath()  ? "CloseSession"
                       : method == m_codec->invokePath() ? "Invoke"
                       : method == m_codec->eventsPath() ? "StreamEvents"
                                                         : nullptr;
    if (!name)
        return refuseCall(grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                                       "no method " + method + " on this gateway"));
    if (const CallStatus refusal = authorized(name); !refusal.ok())
        return refuseCall(toGrpc(refusal));
    if (method == m_codec->openPath())
        return new UnaryReactor(*this, UnaryReactor::Method::Open);
    if (method == m_codec->closePath())
        return new UnaryReactor(*this, UnaryReactor::Method::Close);
    if (method == m_codec->invokePath())
        return new UnaryReactor(*this, UnaryReactor::Method::Invoke);
    return new EventsReactor(*this);
}

} // namespace stormwatch::gateway
