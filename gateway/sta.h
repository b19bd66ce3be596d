#pragma once
// The gateway's single-threaded apartment: one command at a time, FIFO, each command
// holding the STA for command_ms + per_item_ms × items (× the slow factor). A wedge stops
// the STA from starting anything until it ends; queued commands wait (and may expire).

#include "gateway_types.h"
#include "mxaccess_gateway.pb.h"

#include <deque>
#include <functional>
#include <memory>
#include <vector>

namespace stormwatch::gateway {

struct Session;

// One Invoke on its way through the STA. It outlives its reply when the caller's deadline
// passes first: the STA still runs it later (wasted work).
struct StaJob {
    using Done = std::function<void(CallStatus, mxgateway::v1::MxCommandReply)>;

    std::weak_ptr<Session> session; // expired when the session closed or the gateway restarted
    // Immutable and shared: every queued job carrying an equal bulk payload holds the same
    // one (GatewayModel::shareCommand), so a storm's stacked subscribes share one tag list.
    std::shared_ptr<const mxgateway::v1::MxCommand> command;
    std::string correlationId;
    CommandKind kind = CommandKind::None;
    int items = 0;
    Time arrived{0};
    Duration timeout{0}; // the session's command timeout
    Time deadline{0};
    std::uint64_t subscribeKey = 0; // subscribe-type commands: key of the outstanding counter
    Done done;                      // empty once the caller has been answered
    bool ran = false;               // the STA finished it
    bool dropped = false;           // ran, but its reply was dropped (fault)
};
using StaJobPtr = std::shared_ptr<StaJob>;

class Sta {
public:
    // `run` executes a finished command's effects and answers its caller.
    Sta(Scheduler& scheduler, std::function<void(const StaJobPtr&)> run);
    ~Sta();
    Sta(const Sta&) = delete;
    Sta& operator=(const Sta&) = delete;

    void setCost(double commandMs, double perItemMs);
    Duration cost(int items) const; // at the current slow factor

    void enqueue(StaJobPtr job);

    // Nothing starts before `until` (a command already running finishes).
    void wedgeUntil(Time until);
    bool wedged() const { return m_scheduler.now() < m_wedgedUntil; }
    void setSlowFactor(double factor) { m_slowFactor = factor; }
    double slowFactor() const { return m_slowFactor; }

    // Drops every queued command and the running one (gateway restart); returns them.
    std::deque<StaJobPtr> clear();
    // Drops the queued commands (not the running one) for which `drop` is true, in queue
    // order; returns them.
    std::vector<StaJobPtr> removeQueued(const std::function<bool(const StaJob&)>& drop);

    // Commands not yet finished: queued plus the running one.
    std::size_t depth() const { return m_queue.size() + (m_running ? 1 : 0); }
    std::size_t maxDepth() const { return m_maxDepth; }
    bool busy() const { return m_running != nullptr; }

private:
    void startNext();
    void finishRunning();

    Scheduler& m_scheduler;
    std::function<void(const StaJobPtr&)> m_run;
    double m_commandMs = 0;
    double m_perItemMs = 0;
    double m_slowFactor = 1;
    Time m_wedgedUntil{0};
    TimerId m_wedgeTimer = kNoTimer;
    std::deque<StaJobPtr> m_queue;
    StaJobPtr m_running;
    TimerId m_runningTimer = kNoTimer;
    Time m_freeAt{0};         // when the running command ends on the STA's schedule
    bool m_finishing = false; // in finishRunning(): a command started now follows on
    static constexpr Duration kTimerLateness{2000}; // how late a live timer may fire
    std::uint64_t m_generation = 0;
    std::size_t m_maxDepth = 0;
};

} // namespace stormwatch::gateway
