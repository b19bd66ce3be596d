#include "support_model.h"

#include "gateway/grpc_services.h"

namespace testsupport {

using namespace mxgateway::v1;

std::vector<std::string> tagNames(int count, const std::string& prefix)
{
    std::vector<std::string> tags;
    for (int i = 0; i < count; ++i)
        tags.push_back(prefix + std::to_string(i));
    return tags;
}

MxCommand registerCommand()
{
    MxCommand c;
    c.mutable_register_()->set_client_name("test");
    return c;
}

MxCommand addItem(int serverHandle, const std::string& tag)
{
    MxCommand c;
    c.mutable_add_item()->set_server_handle(serverHandle);
    c.mutable_add_item()->set_tag_address(tag);
    return c;
}

MxCommand addItemBulk(int serverHandle, const std::vector<std::string>& tags)
{
    MxCommand c;
    c.mutable_add_item_bulk()->set_server_handle(serverHandle);
    for (const auto& t : tags)
        c.mutable_add_item_bulk()->add_tag_addresses(t);
    return c;
}

MxCommand advise(int serverHandle, int itemHandle)
{
    MxCommand c;
    c.mutable_advise()->set_server_handle(serverHandle);
    c.mutable_advise()->set_item_handle(itemHandle);
    return c;
}

MxCommand adviseSupervisory(int serverHandle, int itemHandle)
{
    MxCommand c;
    c.mutable_advise_supervisory()->set_server_handle(serverHandle);
    c.mutable_advise_supervisory()->set_item_handle(itemHandle);
    return c;
}

MxCommand adviseItemBulk(int serverHandle, const std::vector<int>& itemHandles)
{
    MxCommand c;
    c.mutable_advise_item_bulk()->set_server_handle(serverHandle);
    for (int h : itemHandles)
        c.mutable_advise_item_bulk()->add_item_handles(h);
    return c;
}

MxCommand subscribeBulk(int serverHandle, const std::vector<std::string>& tags, bool supervisory)
{
    MxCommand c;
    auto* s = c.mutable_subscribe_bulk();
    s->set_server_handle(serverHandle);
    for (const auto& t : tags)
        s->add_tag_addresses(t);
    s->set_supervisory(supervisory);
    return c;
}

MxCommand write(int serverHandle, int itemHandle, double value, int userId)
{
    MxCommand c;
    auto* w = c.mutable_write();
    w->set_server_handle(serverHandle);
    w->set_item_handle(itemHandle);
    w->mutable_value()->set_double_value(value);
    w->set_user_id(userId);
    return c;
}

AnswerPtr send(GatewayModel& model, const std::string& sessionId, const MxCommand& command,
               const std::string& correlationId)
{
    auto answer = std::make_shared<Answer>();
    MxCommandRequest request;
    request.set_session_id(sessionId);
    request.set_client_correlation_id(correlationId);
    *request.mutable_command() = command;
    Scheduler* scheduler = &model.scheduler();
    model.invoke(request, [answer, scheduler](CallStatus status, MxCommandReply reply) {
        ++answer->calls;
        answer->status = std::move(status);
        answer->reply = std::move(reply);
        answer->at = scheduler->now();
    });
    return answer;
}

Opened open(GatewayModel& model, VirtualScheduler& scheduler,
            std::optional<Duration> commandTimeout)
{
    OpenSessionRequest request;
    request.set_client_name("test");
    if (commandTimeout) {
        request.mutable_command_timeout()->set_seconds(commandTimeout->count() / 1'000'000);
        request.mutable_command_timeout()->set_nanos(
            static_cast<int>(commandTimeout->count() % 1'000'000) * 1000);
    }
    auto result = std::make_shared<std::optional<Opened>>();
    model.openSession(request, [result](CallStatus st, OpenSessionReply reply) {
        *result = Opened{std::move(st), std::move(reply)};
    });
    while (!*result && scheduler.runNext()) {
    }
    return result->value_or(
        Opened{CallStatus::error(grpc::StatusCode::INTERNAL, "never answered"), {}});
}

CallStatus close(GatewayModel& model, VirtualScheduler& scheduler, const std::string& sessionId)
{
    CloseSessionRequest request;
    request.set_session_id(sessionId);
    auto result = std::make_shared<std::optional<CallStatus>>();
    model.closeSession(request, [result](CallStatus st) { *result = std::move(st); });
    while (!*result && scheduler.runNext()) {
    }
    return result->value_or(CallStatus::error(grpc::StatusCode::INTERNAL, "never answered"));
}

bool runUntilAnswered(VirtualScheduler& scheduler, const AnswerPtr& answer, Duration limit)
{
    const Time end = scheduler.now() + limit;
    while (!answer->answered() && scheduler.nextDue() <= end)
        scheduler.runNext();
    return answer->answered();
}

int registerClient(GatewayModel& model, VirtualScheduler& scheduler, const std::string& sessionId)
{
    auto a = send(model, sessionId, registerCommand());
    if (!runUntilAnswered(scheduler, a) || !a->status.ok() || !a->reply.success())
        return 0;
    return a->reply.register_().server_handle();
}

std::size_t StreamLog::changes() const
{
    std::size_t n = 0;
    for (const auto& e : events)
        n += static_cast<std::size_t>(e.data_changes().changes_size());
    return n;
}

std::shared_ptr<StreamLog> listen(GatewayModel& model, const std::string& sessionId)
{
    auto log = std::make_shared<StreamLog>();
    StreamEventsRequest request;
    request.set_session_id(sessionId);
    Scheduler* scheduler = &model.scheduler();
    log->id = model.streamEvents(
        request,
        [log, scheduler](const MxEventBatch& e) {
            encodeEvent(e, log->events.emplace_back()); // as the gRPC service puts it on the wire
            log->times.push_back(scheduler->now());
        },
        [log](CallStatus st) {
            ++log->ends;
            log->endStatus = std::move(st);
        });
    return log;
}

} // namespace testsupport
