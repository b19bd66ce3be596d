#pragma once
// Helpers for model tests on the VirtualScheduler: build commands, open sessions, and
// capture each invoke's single answer with the virtual time it arrived.

#include "client/virtual_scheduler.h"
#include "gateway/gateway_model.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace testsupport {

using namespace stormwatch;
using namespace stormwatch::gateway;
using namespace std::chrono_literals;

struct Answer {
    int calls = 0;
    CallStatus status;
    mxgateway::v1::MxCommandReply reply;
    Time at{-1};
    bool answered() const { return calls > 0; }
};
using AnswerPtr = std::shared_ptr<Answer>;

std::vector<std::string> tagNames(int count, const std::string& prefix = "Z28061.Attr");

mxgateway::v1::MxCommand registerCommand();
mxgateway::v1::MxCommand addItem(int serverHandle, const std::string& tag);
mxgateway::v1::MxCommand addItemBulk(int serverHandle, const std::vector<std::string>& tags);
mxgateway::v1::MxCommand advise(int serverHandle, int itemHandle);
mxgateway::v1::MxCommand adviseSupervisory(int serverHandle, int itemHandle);
mxgateway::v1::MxCommand adviseItemBulk(int serverHandle, const std::vector<int>& itemHandles);
mxgateway::v1::MxCommand subscribeBulk(int serverHandle, const std::vector<std::string>& tags,
                                       bool supervisory);
mxgateway::v1::MxCommand write(int serverHandle, int itemHandle, double value, int userId);

// Sends one Invoke; the returned answer fills in when the model calls done.
AnswerPtr send(GatewayModel& model, const std::string& sessionId,
               const mxgateway::v1::MxCommand& command, const std::string& correlationId = {});

// Opens a session (running the scheduler until answered); empty id when refused.
struct Opened {
    CallStatus status;
    mxgateway::v1::OpenSessionReply reply;
    std::string id() const { return reply.session_id(); }
};
Opened open(GatewayModel& model, VirtualScheduler& scheduler,
            std::optional<Duration> commandTimeout = std::nullopt);

// Closes a session (running the scheduler until answered); the close's status.
CallStatus close(GatewayModel& model, VirtualScheduler& scheduler, const std::string& sessionId);

// Runs the scheduler until `answer` arrives (or `limit` of virtual time passes).
bool runUntilAnswered(VirtualScheduler& scheduler, const AnswerPtr& answer, Duration limit = 600s);

// register → server handle, run to completion. 0 on failure.
int registerClient(GatewayModel& model, VirtualScheduler& scheduler, const std::string& sessionId);

// Records every event and the stream's end.
struct StreamLog {
    std::vector<mxgateway::v1::MxEvent> events;
    std::vector<Time> times;
    int ends = 0;
    CallStatus endStatus;
    GatewayModel::StreamId id = 0;
    std::size_t changes() const;
    void clear()
    {
        events.clear();
        times.clear();
    }
};
std::shared_ptr<StreamLog> listen(GatewayModel& model, const std::string& sessionId);

} // namespace testsupport
