#pragma once
// gRPC front ends of the model, on the callback API: handlers never block; they post the
// work onto the model's scheduler thread and finish the call from there.

#include "gateway_model.h"
#include "mock_control.grpc.pb.h"
#include "mock_control.h"
#include "mxaccess_gateway.grpc.pb.h"

namespace stormwatch::gateway {

grpc::Status toGrpc(const CallStatus& status);

// A model event on the wire: each change's value by its kind, its source timestamp as
// seconds and nanoseconds. `wire` is overwritten. Only the changes [first, first + count)
// (clamped to the batch) when given.
void encodeEvent(const MxEventBatch& event, mxgateway::v1::MxEvent& wire, std::size_t first = 0,
                 std::size_t count = SIZE_MAX);

// The wire messages of one model event, in order: one, or a data batch in runs of
// kMaxChangesPerEvent changes.
template <typename Write> void writeEventMessages(const MxEventBatch& event, Write&& write)
{
    const std::size_t n = event.changes.size();
    std::size_t first = 0;
    do {
        mxgateway::v1::MxEvent wire;
        encodeEvent(event, wire, first, kMaxChangesPerEvent);
        write(std::move(wire));
        first += kMaxChangesPerEvent;
    } while (event.kind == MxEventBatch::Kind::DataChanges && first < n);
}

// Both services need the model and its scheduler to stay alive until the server has shut down.
class MxAccessGatewayService final : public mxgateway::v1::MxAccessGateway::CallbackService {
public:
    MxAccessGatewayService(Scheduler& scheduler, GatewayModel& model)
        : m_scheduler(scheduler), m_model(model)
    {
    }

    grpc::ServerUnaryReactor* OpenSession(grpc::CallbackServerContext* context,
                                          const mxgateway::v1::OpenSessionRequest* request,
                                          mxgateway::v1::OpenSessionReply* reply) override;
    grpc::ServerUnaryReactor* CloseSession(grpc::CallbackServerContext* context,
                                           const mxgateway::v1::CloseSessionRequest* request,
                                           mxgateway::v1::CloseSessionReply* reply) override;
    grpc::ServerUnaryReactor* Invoke(grpc::CallbackServerContext* context,
                                     const mxgateway::v1::MxCommandRequest* request,
                                     mxgateway::v1::MxCommandReply* reply) override;
    grpc::ServerWriteReactor<mxgateway::v1::MxEvent>*
    StreamEvents(grpc::CallbackServerContext* context,
                 const mxgateway::v1::StreamEventsRequest* request) override;

private:
    Scheduler& m_scheduler;
    GatewayModel& m_model;
};

class MockGatewayControlService final
    : public mxgateway::mock::v1::MockGatewayControl::CallbackService {
public:
    MockGatewayControlService(Scheduler& scheduler, GatewayModel& model,
                              FreezeProcessFn freezeProcess)
        : m_scheduler(scheduler), m_model(model), m_freezeProcess(std::move(freezeProcess))
    {
    }

    grpc::ServerUnaryReactor* GetConfig(grpc::CallbackServerContext* context,
                                        const mxgateway::mock::v1::GetConfigRequest* request,
                                        mxgateway::mock::v1::MockConfig* reply) override;
    grpc::ServerUnaryReactor* SetConfig(grpc::CallbackServerContext* context,
                                        const mxgateway::mock::v1::SetConfigRequest* request,
                                        mxgateway::mock::v1::MockConfig* reply) override;
    grpc::ServerUnaryReactor* InjectFault(grpc::CallbackServerContext* context,
                                          const mxgateway::mock::v1::FaultRequest* request,
                                          mxgateway::mock::v1::FaultReply* reply) override;
    grpc::ServerWriteReactor<mxgateway::mock::v1::GatewayStats>*
    WatchStats(grpc::CallbackServerContext* context,
               const mxgateway::mock::v1::WatchStatsRequest* request) override;

private:
    Scheduler& m_scheduler;
    GatewayModel& m_model;
    FreezeProcessFn m_freezeProcess; // null: refused (refuseFreeze)
};

} // namespace stormwatch::gateway
