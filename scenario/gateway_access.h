#pragma once
// What a scenario run needs of the gateway besides the client's port: inject the
// timeline's faults and read the gateway's own counters. Three ways in, one interface:
// the model itself on the run's scheduler (virtual), the embedded mock server's model on
// its thread (live), and the mock's MockGatewayControl service over gRPC (an external
// mxgw-mock). A real gateway has no control service: faults are then skipped, and said so.

#include "mock_control.pb.h"
#include "scenario/scenario.h"

#include <QString>
#include <chrono>
#include <memory>
#include <optional>
#include <string>

namespace stormwatch {

namespace gateway {
class GatewayModel;
class MockGatewayServer;
} // namespace gateway

class GatewayAccess {
public:
    virtual ~GatewayAccess() = default;
    // Empty when faults can be injected, else why not (shown to the user, per skipped action).
    virtual QString unavailableReason() const { return {}; }
    // Injects one fault; false with *outcome saying why when it could not.
    virtual bool inject(const mxgateway::mock::v1::FaultRequest& fault, QString* outcome) = 0;
    virtual bool setAdvertiseBulkSupervisory(bool advertise, QString* outcome) = 0;
    // The gateway's counters, or nullopt when it does not expose them.
    virtual std::optional<mxgateway::mock::v1::GatewayStats> stats() = 0;
    // False for a gateway without a control service (a real one): its counters are never
    // there to read. A mock whose service did not answer has one; it could not be read.
    virtual bool hasControlService() const { return true; }
    // Whether what stats() answers came from the latest read: false while a polled access
    // repeats what the gateway said last because its latest read failed.
    virtual bool statsCurrent() { return true; }
    // Returns once the first read of the counters was tried, or after `bound`: a polled
    // access reads on a thread of its own, and a run's first sample must not race that read
    // (it would count the gateway unread at the start). The others read when asked.
    virtual void awaitFirstRead(std::chrono::milliseconds bound) { (void)bound; }
    // Returns once a read started after this call has finished, or after `bound`: a run's
    // last counters must be the gateway's at its end, not a poll's from up to a period ago.
    virtual void awaitFreshRead(std::chrono::milliseconds bound) { (void)bound; }
};

// The fault a timeline action asks of the gateway (nullopt for client-side actions:
// redeploy, set_levers, and set_capability which has its own call). A source outage is
// switched on by its event; the run switches it off after duration_s.
std::optional<mxgateway::mock::v1::FaultRequest> faultRequestFor(const TimelineEvent& event);
mxgateway::mock::v1::FaultRequest sourceOutageRequest(bool active);

// The model on the caller's own thread and scheduler (virtual runs, tests).
std::unique_ptr<GatewayAccess> modelAccess(gateway::GatewayModel& model);
// The embedded mock server's model, reached on its thread (blocking hop, microseconds).
std::unique_ptr<GatewayAccess> embeddedServerAccess(gateway::MockGatewayServer& server);
// MockGatewayControl at `address` (insecure, as mxgw-mock serves it). Probed once at
// construction: a gateway without the service is reported unavailable, never retried.
std::unique_ptr<GatewayAccess> remoteControlAccess(const std::string& address);
// `inner` whose stats() is read every `period` on a thread of its own: stats() answers at
// once with the last snapshot read (nullopt before the first), so a gateway that stops
// answering without refusing (a paused host, SIGSTOP) never holds the run's thread for
// the read's deadline. For counters that may lag a period (a live site's STA queue), not
// for a run's own Invoke counts, which must be read when asked. Faults pass straight on.
std::unique_ptr<GatewayAccess> polledStatsAccess(std::unique_ptr<GatewayAccess> inner,
                                                 std::chrono::milliseconds period);

} // namespace stormwatch
