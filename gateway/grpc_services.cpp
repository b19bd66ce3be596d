#include "grpc_services.h"

#include "mock_control.h"
#include "stream_reactor.h"

namespace stormwatch::gateway {

using namespace mxgateway::v1;
namespace mock = mxgateway::mock::v1;

grpc::Status toGrpc(const CallStatus& status)
{
    return status.ok() ? grpc::Status::OK : grpc::Status(status.code, status.message);
}

void encodeEvent(const MxEventBatch& event, MxEvent& wire, std::size_t first, std::size_t count)
{
    wire.Clear();
    if (event.kind == MxEventBatch::Kind::Notice) {
        wire.mutable_notice()->set_kind(event.noticeKind);
        wire.mutable_notice()->set_message(event.noticeMessage);
        return;
    }
    if (event.kind != MxEventBatch::Kind::DataChanges)
        return;
    const std::size_t begin = std::min(first, event.changes.size());
    const std::size_t end = begin + std::min(count, event.changes.size() - begin);
    auto* changes = wire.mutable_data_changes()->mutable_changes();
    changes->Reserve(static_cast<int>(end - begin));
    for (std::size_t i = begin; i < end; ++i) {
        const MxChange& c = event.changes[i];
        DataChange* d = changes->Add();
        d->set_server_handle(c.serverHandle);
        d->set_item_handle(c.itemHandle);
        d->set_quality(c.quality);
        switch (c.kind) {
        case MxValueKind::Double:
            d->mutable_value()->set_double_value(c.number);
            break;
        case MxValueKind::Int:
            d->mutable_value()->set_int_value(c.integer);
            break;
        case MxValueKind::Bool:
            d->mutable_value()->set_bool_value(c.integer != 0);
            break;
        case MxValueKind::String:
            d->mutable_value()->set_string_value(event.textOf(c));
            break;
        case MxValueKind::None:
            d->mutable_value();
            break;
        }
        // Floor division: a time before 1970 keeps its nanoseconds in [0, 1e9).
        std::int64_t seconds = c.sourceTimestampUs / 1'000'000;
        std::int64_t micros = c.sourceTimestampUs % 1'000'000;
        if (micros < 0) {
            --seconds;
            micros += 1'000'000;
        }
        auto* ts = d->mutable_source_timestamp();
        ts->set_seconds(seconds);
        ts->set_nanos(static_cast<std::int32_t>(micros * 1000));
    }
}

// ------------------------------------------------------------ MxAccessGateway

grpc::ServerUnaryReactor* MxAccessGatewayService::OpenSession(grpc::CallbackServerContext* context,
                                                              const OpenSessionRequest* request,
                                                              OpenSessionReply* reply)
{
    auto* reactor = context->DefaultReactor();
    m_scheduler.post([this, request, reply, reactor] {
        m_model.openSession(*request, [reply, reactor](CallStatus st, OpenSessionReply r) {
            if (st.ok())
                *reply = std::move(r);
            reactor->Finish(toGrpc(st));
        });
    });
    return reactor;
}

grpc::ServerUnaryReactor* MxAccessGatewayService::CloseSession(grpc::CallbackServerContext* context,
                                                               const CloseSessionRequest* request,
                                                               CloseSessionReply*)
{
    auto* reactor = context->DefaultReactor();
    m_scheduler.post([this, request, reactor] {
        m_model.closeSession(*request, [reactor](CallStatus st) { reactor->Finish(toGrpc(st)); });
    });
    return reactor;
}

grpc::ServerUnaryReactor* MxAccessGatewayService::Invoke(grpc::CallbackServerContext* context,
                                                         const MxCommandRequest* request,
                                                         MxCommandReply* reply)
{
    // The model answers exactly once (DEADLINE_EXCEEDED at the session deadline even for
    // a dropped reply), so the reactor always finishes; the request lives until then.
    auto* reactor = context->DefaultReactor();
    m_scheduler.post([this, request, reply, reactor] {
        m_model.invoke(*request, [reply, reactor](CallStatus st, MxCommandReply r) {
            if (st.ok())
                *reply = std::move(r);
            reactor->Finish(toGrpc(st));
        });
    });
    return reactor;
}

grpc::ServerWriteReactor<MxEvent>*
MxAccessGatewayService::StreamEvents(grpc::CallbackServerContext*,
                                     const StreamEventsRequest* request)
{
    using Channel = StreamChannel<MxEvent>;
    auto* reactor = new StreamReactor<MxEvent>(
        [this](const std::shared_ptr<Channel>& ch) {
            m_scheduler.post([this, ch] {
                if (ch->id())
                    m_model.cancelStream(ch->id());
            });
        },
        m_model.streamBacklog());
    m_scheduler.post([this, ch = reactor->channel(), req = *request] {
        if (ch->cancelled())
            return;
        ch->setId(m_model.streamEvents(
            req,
            [ch](const MxEventBatch& e) {
                writeEventMessages(e, [&](MxEvent&& wire) { ch->write(std::move(wire)); });
            },
            [ch](CallStatus st) { ch->finish(toGrpc(st)); }));
    });
    return reactor;
}

// ------------------------------------------------------------ MockGatewayControl

grpc::ServerUnaryReactor* MockGatewayControlService::GetConfig(grpc::CallbackServerContext* context,
                                                               const mock::GetConfigRequest*,
                                                               mock::MockConfig* reply)
{
    auto* reactor = context->DefaultReactor();
    m_scheduler.post([this, reply, reactor] {
        *reply = toProto(m_model.config());
        reactor->Finish(grpc::Status::OK);
    });
    return reactor;
}

grpc::ServerUnaryReactor*
MockGatewayControlService::SetConfig(grpc::CallbackServerContext* context,
                                     const mock::SetConfigRequest* request, mock::MockConfig* reply)
{
    auto* reactor = context->DefaultReactor();
    m_scheduler.post([this, request, reply, reactor] {
        const auto error = m_model.setConfig(applied(m_model.config(), *request));
        if (!error.empty())
            return reactor->Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, error));
        *reply = toProto(m_model.config());
        reactor->Finish(grpc::Status::OK);
    });
    return reactor;
}

grpc::ServerUnaryReactor*
MockGatewayControlService::InjectFault(grpc::CallbackServerContext* context,
                                       const mock::FaultRequest* request, mock::FaultReply* reply)
{
    auto* reactor = context->DefaultReactor();
    m_scheduler.post([this, request, reply, reactor] {
        std::string description;
        const auto st =
            injectFault(m_model, *request, description,
                        m_freezeProcess ? m_freezeProcess : FreezeProcessFn(refuseFreeze));
        reply->set_description(description);
        reactor->Finish(toGrpc(st));
    });
    return reactor;
}

grpc::ServerWriteReactor<mock::GatewayStats>*
MockGatewayControlService::WatchStats(grpc::CallbackServerContext*,
                                      const mock::WatchStatsRequest* request)
{
    using Channel = StreamChannel<mock::GatewayStats>;
    auto* reactor = new StreamReactor<mock::GatewayStats>(
        [this](const std::shared_ptr<Channel>& ch) {
            m_scheduler.post([this, ch] {
                if (ch->id())
                    m_model.cancelWatch(ch->id());
            });
        },
        m_model.streamBacklog());
    const double interval = request->interval_s();
    m_scheduler.post([this, ch = reactor->channel(), interval] {
        if (ch->cancelled())
            return;
        const Duration every =
            interval > 0 && interval < 1e6 ? secondsToDuration(interval) : Duration::zero();
        ch->setId(m_model.watchStats(
            every, [ch](const mock::GatewayStats& st) { ch->write(st); },
            [ch](CallStatus st) { ch->finish(toGrpc(st)); }));
    });
    return reactor;
}

} // namespace stormwatch::gateway
