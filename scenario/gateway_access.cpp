#include "scenario/gateway_access.h"

#include "gateway/gateway_model.h"
#include "gateway/mock_control.h"
#include "gateway/mock_gateway_server.h"
#include "mock_control.grpc.pb.h"

#include <chrono>
#include <condition_variable>
#include <grpcpp/grpcpp.h>
#include <mutex>
#include <thread>

namespace stormwatch {

namespace mock = mxgateway::mock::v1;

std::optional<mock::FaultRequest> faultRequestFor(const TimelineEvent& e)
{
    mock::FaultRequest f;
    switch (e.action) {
    case TimelineAction::Wedge:
        f.mutable_wedge()->set_duration_s(e.durationS);
        break;
    case TimelineAction::Slow:
        f.mutable_slow()->set_factor(e.factor);
        f.mutable_slow()->set_duration_s(e.durationS);
        break;
    case TimelineAction::DropReplies:
        f.mutable_drop_replies()->set_probability(e.probability);
        f.mutable_drop_replies()->set_duration_s(e.durationS);
        break;
    case TimelineAction::RestartGateway:
        f.mutable_restart()->set_downtime_s(e.downtimeS);
        break;
    case TimelineAction::KillGateway:
        f.mutable_kill()->set_downtime_s(e.downtimeS);
        break;
    case TimelineAction::EndEventStreams:
        f.mutable_end_event_streams();
        break;
    case TimelineAction::SourceOutage:
        f.mutable_source_outage()->set_active(true);
        break;
    case TimelineAction::RefuseSessions:
        f.mutable_refuse_sessions()->set_duration_s(e.durationS);
        break;
    case TimelineAction::LoseEvents:
        f.mutable_lose_events()->set_duration_s(e.durationS);
        break;
    case TimelineAction::Freeze:
        f.mutable_freeze()->set_duration_s(e.durationS);
        break;
    case TimelineAction::HalfOpen:
        f.mutable_half_open()->set_duration_s(e.durationS);
        break;
    case TimelineAction::ResetPeer:
        f.mutable_reset_peer();
        break;
    case TimelineAction::StallReader: // the client's side: the run's port stalls its reader
    case TimelineAction::Redeploy:
    case TimelineAction::SetLevers:
    case TimelineAction::SetCapability:
        return std::nullopt;
    }
    return f;
}

mock::FaultRequest sourceOutageRequest(bool active)
{
    mock::FaultRequest f;
    f.mutable_source_outage()->set_active(active);
    return f;
}

namespace {

bool injectInto(gateway::GatewayModel& model, const mock::FaultRequest& fault, QString* outcome,
                const gateway::FreezeProcessFn& freezeProcess = nullptr)
{
    std::string description;
    const gateway::CallStatus status =
        gateway::injectFault(model, fault, description, freezeProcess);
    if (outcome)
        *outcome = QString::fromStdString(status.ok() ? description : status.message);
    return status.ok();
}

class ModelAccess final : public GatewayAccess {
public:
    explicit ModelAccess(gateway::GatewayModel& model) : m_model(model) {}
    bool inject(const mock::FaultRequest& fault, QString* outcome) override
    {
        return injectInto(m_model, fault, outcome);
    }
    bool setAdvertiseBulkSupervisory(bool advertise, QString* outcome) override
    {
        m_model.setAdvertiseBulkSupervisory(advertise);
        if (outcome)
            *outcome = advertise ? "bulk-subscribe-supervisory advertised to new sessions"
                                 : "bulk-subscribe-supervisory withdrawn for new sessions";
        return true;
    }
    std::optional<mock::GatewayStats> stats() override { return m_model.stats(); }

private:
    gateway::GatewayModel& m_model;
};

class EmbeddedServerAccess final : public GatewayAccess {
public:
    explicit EmbeddedServerAccess(gateway::MockGatewayServer& server) : m_server(server) {}
    QString unavailableReason() const override
    {
        return m_server.running() ? QString()
                                  : QStringLiteral("the embedded mock gateway is not running");
    }
    bool inject(const mock::FaultRequest& fault, QString* outcome) override
    {
        if (!m_server.running())
            return fail(outcome);
        // Freezing this process would freeze the program that embeds the gateway.
        return m_server.runOnModel([&](gateway::GatewayModel& m) {
            return injectInto(m, fault, outcome, gateway::refuseFreeze);
        });
    }
    bool setAdvertiseBulkSupervisory(bool advertise, QString* outcome) override
    {
        if (!m_server.running())
            return fail(outcome);
        return m_server.runOnModel([&](gateway::GatewayModel& m) {
            return ModelAccess(m).setAdvertiseBulkSupervisory(advertise, outcome);
        });
    }
    std::optional<mock::GatewayStats> stats() override
    {
        if (!m_server.running())
            return std::nullopt;
        return m_server.runOnModel([](gateway::GatewayModel& m) { return m.stats(); });
    }

private:
    bool fail(QString* outcome) const
    {
        if (outcome)
            *outcome = unavailableReason();
        return false;
    }
    gateway::MockGatewayServer& m_server;
};

// Unary calls with a short deadline on the caller's thread: a scenario action or a stats
// read on loopback takes a millisecond, and a gateway that does not answer in two seconds
// is reported, not waited for.
class RemoteControlAccess final : public GatewayAccess {
public:
    explicit RemoteControlAccess(const std::string& address)
        : m_stub(mock::MockGatewayControl::NewStub(
              grpc::CreateChannel(address, grpc::InsecureChannelCredentials())))
    {
        grpc::ClientContext context;
        deadline(context);
        mock::GetConfigRequest request;
        mock::MockConfig config;
        const grpc::Status status = m_stub->GetConfig(&context, request, &config);
        m_hasService = status.error_code() != grpc::StatusCode::UNIMPLEMENTED;
        if (!m_hasService)
            m_unavailable = QStringLiteral("the gateway at %1 has no mock control service: "
                                           "faults are skipped")
                                .arg(QString::fromStdString(address));
        else if (!status.ok())
            m_unavailable = QStringLiteral("the mock control service at %1 did not answer (%2): "
                                           "faults are skipped")
                                .arg(QString::fromStdString(address),
                                     QString::fromStdString(status.error_message()));
    }
    QString unavailableReason() const override { return m_unavailable; }
    bool hasControlService() const override { return m_hasService; }
    bool inject(const mock::FaultRequest& fault, QString* outcome) override
    {
        if (!m_unavailable.isEmpty())
            return report(outcome, m_unavailable);
        grpc::ClientContext context;
        deadline(context);
        mock::FaultReply reply;
        const grpc::Status status = m_stub->InjectFault(&context, fault, &reply);
        return report(
            outcome,
            QString::fromStdString(status.ok() ? reply.description() : status.error_message()),
            status.ok());
    }
    bool setAdvertiseBulkSupervisory(bool advertise, QString* outcome) override
    {
        if (!m_unavailable.isEmpty())
            return report(outcome, m_unavailable);
        grpc::ClientContext context;
        deadline(context);
        mock::SetConfigRequest request;
        request.set_advertise_bulk_supervisory(advertise);
        mock::MockConfig config;
        const grpc::Status status = m_stub->SetConfig(&context, request, &config);
        return report(outcome,
                      status.ok() ? QStringLiteral("capability set")
                                  : QString::fromStdString(status.error_message()),
                      status.ok());
    }
    std::optional<mock::GatewayStats> stats() override
    {
        if (!m_unavailable.isEmpty())
            return std::nullopt;
        // WatchStats is a stream; one message is the current snapshot.
        grpc::ClientContext context;
        deadline(context);
        mock::WatchStatsRequest request;
        auto reader = m_stub->WatchStats(&context, request);
        mock::GatewayStats stats;
        const bool got = reader->Read(&stats);
        context.TryCancel();
        reader->Finish();
        return got ? std::optional<mock::GatewayStats>(stats) : std::nullopt;
    }

private:
    static void deadline(grpc::ClientContext& context)
    {
        context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
    }
    static bool report(QString* outcome, const QString& text, bool ok = false)
    {
        if (outcome)
            *outcome = text;
        return ok;
    }
    std::unique_ptr<mock::MockGatewayControl::Stub> m_stub;
    QString m_unavailable;
    bool m_hasService = true;
};

} // namespace

std::unique_ptr<GatewayAccess> modelAccess(gateway::GatewayModel& model)
{
    return std::make_unique<ModelAccess>(model);
}

std::unique_ptr<GatewayAccess> embeddedServerAccess(gateway::MockGatewayServer& server)
{
    return std::make_unique<EmbeddedServerAccess>(server);
}

std::unique_ptr<GatewayAccess> remoteControlAccess(const std::string& address)
{
    return std::make_unique<RemoteControlAccess>(address);
}

namespace {

class PolledStatsAccess final : public GatewayAccess {
public:
    PolledStatsAccess(std::unique_ptr<GatewayAccess> inner, std::chrono::milliseconds period)
        : m_inner(std::move(inner)), m_period(period), m_thread([this] { poll(); })
    {
    }
    ~PolledStatsAccess() override
    {
        {
            const std::lock_guard lock(m_mutex);
            m_stop = true;
        }
        m_wake.notify_all();
        m_thread.join(); // at most one read's deadline, when the gateway hangs
    }
    QString unavailableReason() const override { return m_inner->unavailableReason(); }
    bool hasControlService() const override { return m_inner->hasControlService(); }
    bool inject(const mock::FaultRequest& fault, QString* outcome) override
    {
        return m_inner->inject(fault, outcome);
    }
    bool setAdvertiseBulkSupervisory(bool advertise, QString* outcome) override
    {
        return m_inner->setAdvertiseBulkSupervisory(advertise, outcome);
    }
    std::optional<mock::GatewayStats> stats() override
    {
        const std::lock_guard lock(m_mutex);
        return m_latest;
    }
    bool statsCurrent() override
    {
        const std::lock_guard lock(m_mutex);
        return m_latest && m_current;
    }
    void awaitFirstRead(std::chrono::milliseconds bound) override
    {
        std::unique_lock lock(m_mutex);
        m_readDone.wait_for(lock, bound, [this] { return m_tried; });
    }
    void awaitFreshRead(std::chrono::milliseconds bound) override
    {
        std::unique_lock lock(m_mutex);
        const std::uint64_t wanted = m_readsStarted + 1;
        m_hurry = true;
        m_wake.notify_all();
        m_readDone.wait_for(lock, bound, [&] { return m_readsFinished >= wanted || m_stop; });
    }

private:
    void poll()
    {
        std::unique_lock lock(m_mutex);
        while (!m_stop) {
            const std::uint64_t read = ++m_readsStarted;
            m_hurry = false;
            lock.unlock();
            std::optional<mock::GatewayStats> answer = m_inner->stats(); // may block: unlocked
            lock.lock();
            m_current = answer.has_value();
            if (answer) // one that stopped answering: what it said last
                m_latest = std::move(answer);
            m_tried = true;
            m_readsFinished = read;
            m_readDone.notify_all();
            m_wake.wait_for(lock, m_period, [this] { return m_stop || m_hurry; });
        }
    }

    const std::unique_ptr<GatewayAccess> m_inner;
    const std::chrono::milliseconds m_period;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_readDone;
    bool m_tried = false; // the first read returned
    bool m_stop = false;
    bool m_hurry = false;              // someone awaits a fresh read: read now
    std::uint64_t m_readsStarted = 0;  // reads are numbered from 1
    std::uint64_t m_readsFinished = 0; // the number of the latest read that returned
    std::optional<mock::GatewayStats> m_latest;
    bool m_current = false; // the latest read answered m_latest
    std::thread m_thread;   // last: started once the members above exist
};

} // namespace

std::unique_ptr<GatewayAccess> polledStatsAccess(std::unique_ptr<GatewayAccess> inner,
                                                 std::chrono::milliseconds period)
{
    return std::make_unique<PolledStatsAccess>(std::move(inner), period);
}

} // namespace stormwatch
