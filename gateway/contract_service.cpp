#include "contract_service.h"

#include "grpc_services.h"
#include "logging.h"
#include "stream_reactor.h"

#include "proto/grpc_bytes.h"

#include <algorithm>
#include <vector>

namespace stormwatch::gateway {

namespace v1 = mxgateway::v1;

namespace {

constexpr const char* kSupervisoryCapability = "bulk-subscribe-supervisory";

// A unary call: one request read, handed to the model on its thread, one reply written.
class UnaryReactor final : public grpc::ServerGenericBidiReactor {
public:
    enum class Method { Open, Close, Invoke };

    UnaryReactor(ContractGatewayService& service, Method method) : m_service(service), m_method(method)
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
        case Method::Open: decoded = codec.decodeOpenRequest(bytes, m_open, error); break;
        case Method::Close: decoded = codec.decodeCloseRequest(bytes, m_close, error); break;
        case Method::Invoke: decoded = codec.decodeInvokeRequest(bytes, m_invoke, error); break;
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
                    caps->erase(std::remove(caps->begin(), caps->end(), kSupervisoryCapability), caps->end());
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

// StreamEvents: the request read, then the model's events through the same bounded,
// coalescing channel as the compiled-in service; each queued event goes out as the
// contract's messages (one per change where the contract has no batch).
class EventsReactor final : public grpc::ServerGenericBidiReactor {
public:
    using Channel = StreamChannel<v1::MxEvent, EventsReactor>;

    explicit EventsReactor(ContractGatewayService& service)
        : m_service(service), m_channel(std::make_shared<Channel>(this, service.model().streamBacklog()))
    {
        StartRead(&m_request);
    }

    void OnReadDone(bool ok) override
    {
        if (!ok)
            return m_channel->finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "no request message"));
        std::uint64_t resumeAfter = 0;
        std::string error;
        v1::StreamEventsRequest request;
        if (!m_service.codec().decodeStreamRequest(bytesOf(m_request), request, resumeAfter, error))
            return m_channel->finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, error));
        if (resumeAfter != 0)
            return m_channel->finish(grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                                                  "this mock does not resume event streams from a sequence yet"));
        m_service.scheduler().post([service = &m_service, ch = m_channel, request] {
            if (ch->cancelled())
                return;
            ch->setId(service->model().streamEvents(
                request,
                [ch](const MxEventBatch& e) {
                    v1::MxEvent internal;
                    encodeEvent(e, internal);
                    ch->write(std::move(internal));
                },
                [ch](CallStatus st) { ch->finish(toGrpc(st)); }));
        });
    }

    // The channel's writer (under its lock): one queued event as the contract's messages.
    void StartWrite(const v1::MxEvent* event)
    {
        MxEventBatch batch;
        wire::EventMeta meta;
        m_wires.clear();
        m_next = 0;
        if (wire::WireCodec::compiled()->decodeEvent(event->SerializeAsString(), batch, meta)) {
            std::vector<std::string> bytes;
            m_service.codec().encodeEvents(batch, m_sequence, bytes);
            for (const auto& b : bytes)
                m_wires.push_back(toByteBuffer(b));
        }
        if (m_wires.empty())
            return m_channel->onWriteDone(true); // nothing this contract carries (a notice)
        writeNext();
    }
    void Finish(grpc::Status status) { grpc::ServerGenericBidiReactor::Finish(std::move(status)); }

    void OnWriteDone(bool ok) override
    {
        if (ok && m_next < m_wires.size())
            return writeNext();
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
        if (m_next + 1 < m_wires.size())
            options.set_buffer_hint();
        grpc::ServerGenericBidiReactor::StartWrite(&m_wires[m_next++], options);
    }

    ContractGatewayService& m_service;
    std::shared_ptr<Channel> m_channel;
    grpc::ByteBuffer m_request;
    std::vector<grpc::ByteBuffer> m_wires;
    std::size_t m_next = 0;
    std::uint64_t m_sequence = 0;
};

class UnimplementedReactor final : public grpc::ServerGenericBidiReactor {
public:
    explicit UnimplementedReactor(const std::string& method)
    {
        Finish(grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "no method " + method + " on this gateway"));
    }
    void OnDone() override { delete this; }
};

} // namespace

ContractGatewayService::ContractGatewayService(Scheduler& scheduler, GatewayModel& model,
                                               std::shared_ptr<const wire::WireCodec> codec)
    : m_scheduler(scheduler), m_model(model), m_codec(std::move(codec))
{
}

grpc::ServerGenericBidiReactor* ContractGatewayService::CreateReactor(grpc::GenericCallbackServerContext* context)
{
    const std::string& method = context->method();
    if (method == m_codec->openPath())
        return new UnaryReactor(*this, UnaryReactor::Method::Open);
    if (method == m_codec->closePath())
        return new UnaryReactor(*this, UnaryReactor::Method::Close);
    if (method == m_codec->invokePath())
        return new UnaryReactor(*this, UnaryReactor::Method::Invoke);
    if (method == m_codec->eventsPath())
        return new EventsReactor(*this);
    return new UnimplementedReactor(method);
}

} // namespace stormwatch::gateway
