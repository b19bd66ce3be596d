#include "scenario/scenario_runner.h"

// The runner's gateways: describing them, aiming a timeline event at them, ending the
// faults injected into a shared one, and reading their counters and gates into the run's
// series (the sum under "gateway", each one's own under "gateway:NAME" when it has several).

#include "gateway/gateway_model.h"
#include "scenario/run_time.h"

#include <algorithm>

namespace stormwatch {

using run_time::toSeconds;

QString ScenarioRunner::gatewayDescription() const
{
    if (m_gateways.size() == 1 && m_gateways.front().name.isEmpty())
        return QString::fromStdString(m_gateways.front().port->describe());
    QStringList parts;
    for (const Gateway& g : m_gateways)
        parts << QStringLiteral("%1 %2").arg(g.name, QString::fromStdString(g.port->describe()));
    return parts.join(QStringLiteral(", "));
}

QStringList ScenarioRunner::gatewayNames() const
{
    QStringList names;
    for (const Gateway& g : m_gateways)
        names << g.name;
    return names;
}

gateway::GatewayModel* ScenarioRunner::model(const QString& name)
{
    for (Gateway& g : m_gateways)
        if (g.name == name)
            return g.model.get();
    return nullptr;
}

gateway::MockGatewayServer* ScenarioRunner::server(const QString& name)
{
    for (Gateway& g : m_gateways)
        if (g.name == name)
            return g.server;
    return nullptr;
}

GatewayAccess* ScenarioRunner::access(const QString& name)
{
    for (Gateway& g : m_gateways)
        if (g.name == name)
            return g.access.get();
    return nullptr;
}

std::vector<ScenarioRunner::GatewayNow> ScenarioRunner::gatewaysNow() const
{
    std::vector<GatewayNow> out;
    for (const Gateway& g : m_gateways) {
        GatewayNow n;
        n.name = g.name;
        n.staQueueDepth = g.last.staQueueDepth;
        n.invokes = g.last.rpcs;
        n.deadlineExceeded = g.last.deadlineExceeded;
        if (const RecoveryGate* gate = m_engine ? m_engine->gate(g.name.toStdString()) : nullptr) {
            n.suppressed = std::int64_t(gate->suppressedCalls());
            n.recoveryState = int(gate->state());
        }
        out.push_back(n);
    }
    return out;
}

QString ScenarioRunner::faultsUnavailableReason() const
{
    QStringList reasons;
    for (const Gateway& g : m_gateways)
        if (const QString why = g.access->unavailableReason(); !why.isEmpty())
            reasons << (m_gateways.size() > 1 ? QStringLiteral("%1: %2").arg(g.name, why) : why);
    return reasons.join(QStringLiteral("; "));
}

void ScenarioRunner::endFaults()
{
    // A shared gateway outlives the variant: a fault it injected (a 60 s wedge in a 10 s
    // run) must not carry over into the next variant. Every window fault is ended; an
    // embedded or virtual gateway goes with the run anyway.
    if (!m_live || !m_servers.empty())
        return;
    for (Gateway& g : m_gateways) {
        if (!g.injected)
            continue;
        mxgateway::mock::v1::FaultRequest f;
        QString ignored;
        f.mutable_wedge()->set_duration_s(0);
        g.access->inject(f, &ignored);
        f.mutable_slow()->set_factor(1);
        f.mutable_slow()->set_duration_s(0);
        g.access->inject(f, &ignored);
        f.mutable_drop_replies()->set_duration_s(0);
        g.access->inject(f, &ignored);
        f.mutable_refuse_sessions()->set_duration_s(0);
        g.access->inject(f, &ignored);
        if (g.sourceOutages > 0)
            g.access->inject(sourceOutageRequest(false), &ignored);
    }
}

std::optional<std::vector<ScenarioRunner::Gateway*>>
ScenarioRunner::targetsOf(const TimelineEvent& e)
{
    std::vector<Gateway*> targets;
    // One unnamed gateway serves every connection (a site scenario run live on one
    // gateway): a fault naming one of the site's gateways hits it.
    const bool one = m_gateways.size() == 1 && m_gateways.front().name.isEmpty();
    for (Gateway& g : m_gateways)
        if (one || e.gateway.isEmpty() || g.name == e.gateway)
            targets.push_back(&g);
    if (targets.empty())
        return std::nullopt;
    return targets;
}

ScenarioRunner::GatewayCounters ScenarioRunner::gatewayCounters()
{
    // The run's: every gateway's summed (the queues too: the work waiting at all of them),
    // the maxima the deepest one's. One gateway: its own, as ever.
    GatewayCounters c;
    for (Gateway& g : m_gateways) {
        const GatewayCounters one = countersOf(g);
        c.rpcs += one.rpcs;
        for (auto it = one.byKind.begin(); it != one.byKind.end(); ++it)
            c.byKind[it.key()] += it.value();
        c.deadlineExceeded += one.deadlineExceeded;
        if (one.staQueueDepth)
            c.staQueueDepth = c.staQueueDepth.value_or(0) + *one.staQueueDepth;
        c.maxStaQueueDepth = std::max(c.maxStaQueueDepth, one.maxStaQueueDepth);
        if (one.outstandingSubscribes)
            c.outstandingSubscribes =
                c.outstandingSubscribes.value_or(0) + *one.outstandingSubscribes;
        c.maxOutstandingSubscribes =
            std::max(c.maxOutstandingSubscribes, one.maxOutstandingSubscribes);
    }
    m_lastCounters = c;
    return c;
}

ScenarioRunner::GatewayCounters ScenarioRunner::countersOf(Gateway& g)
{
    GatewayCounters c;
    g.queueRead = false;
    if (m_countersFromGateway) {
        const auto stats = g.access->stats();
        if (!stats)
            return g.last; // it stopped answering: what it said last
        g.queueRead = g.access->statsCurrent();
        c.rpcs = stats->invoke_rpcs();
        for (const auto& [kind, n] : stats->invoke_rpcs_by_kind())
            c.byKind.insert(QString::fromStdString(kind), n);
        c.deadlineExceeded = stats->deadline_exceeded();
        c.staQueueDepth = stats->sta_queue_depth();
        c.maxStaQueueDepth = stats->max_sta_queue_depth();
        c.outstandingSubscribes = stats->outstanding_subscribes();
        c.maxOutstandingSubscribes = stats->max_outstanding_subscribes();
    } else {
        // A gateway without counters: the Invoke calls this client sent it and saw fail.
        const bool one = m_gateways.size() == 1;
        for (const auto& connection : m_engine->connections()) {
            if (!one && m_gatewayOf[connection->name()] != g.name.toStdString())
                continue;
            const ConnectionStats& s = connection->stats();
            c.rpcs += s.invokes;
            for (const auto& [kind, n] : s.invokesByKind)
                c.byKind[QString::fromStdString(kind)] += n;
            c.deadlineExceeded += s.deadlineExceeded;
        }
        // Only the gateway knows its queue: a site's mxgw-mock tells it through its control
        // service (a real gateway has none: unknown); one that stopped answering, as last told.
        if (const auto stats = g.access->stats()) {
            c.staQueueDepth = stats->sta_queue_depth();
            g.queueRead = g.access->statsCurrent();
        } else
            c.staQueueDepth = g.last.staQueueDepth;
    }
    g.last = c;
    return c;
}

void ScenarioRunner::recordRecoveryStates()
{
    // A gate changed: the run's series shows the most severe of them all, and with several
    // gateways each one's own.
    const double t = toSeconds(relNow());
    m_series.at(m_recoveryState).add(t, double(int(m_engine->recoveryState())));
    if (m_gateways.size() > 1)
        for (Gateway& g : m_gateways)
            if (const RecoveryGate* gate = m_engine->gate(g.name.toStdString()))
                m_series.at(g.recoveryState).add(t, double(int(gate->state())));
}

void ScenarioRunner::sampleGatewaySeries(double t, bool rates)
{
    // Each gateway's share of sampleGateway(), from the counters it just read.
    if (m_gateways.size() < 2)
        return;
    for (Gateway& g : m_gateways) {
        const GatewayCounters& c = g.last;
        if (c.staQueueDepth)
            m_series.at(g.staDepth).add(t, double(*c.staQueueDepth));
        const RecoveryGate* gate = m_engine->gate(g.name.toStdString());
        const auto suppressed = gate ? std::int64_t(gate->suppressedCalls()) : 0;
        if (rates) {
            m_series.at(g.rpcsPerS).add(t - 1, double(c.rpcs - g.lastRpcs));
            m_series.at(g.deadlinePerS).add(t - 1, double(c.deadlineExceeded - g.lastDeadline));
            m_series.at(g.suppressedPerS).add(t - 1, double(suppressed - g.lastSuppressed));
        }
        g.lastRpcs = c.rpcs;
        g.lastDeadline = c.deadlineExceeded;
        g.lastSuppressed = suppressed;
        m_series.at(g.suppressed).add(t, double(suppressed));
    }
}

std::optional<qint64> ScenarioRunner::deepestSampledQueue() const
{
    // With one gateway its series is the run's; with several, each one's own beside the sum.
    std::optional<qint64> deepest;
    for (const Gateway& g : m_gateways)
        if (const Series& s = m_series.at(m_gateways.size() < 2 ? m_staDepth : g.staDepth);
            !s.points().empty())
            deepest = std::max(deepest.value_or(0), qint64(s.maxValue()));
    return deepest;
}

void ScenarioRunner::reportQueueGaps(VariantMetrics& m) const
{
    // Whether a gateway has a queue to read comes from its access, not from its series: a
    // mock whose first read answered late, or that was down all run, has a control service.
    QList<StaQueueGap> gaps;
    for (const Gateway& g : m_gateways) {
        if (g.queueReads >= m_queueSamples)
            continue;
        StaQueueGap gap{g.name, StaQueueGap::Kind::Partly, g.queueReads, m_queueSamples};
        if (!g.access->hasControlService())
            gap.kind = StaQueueGap::Kind::NoControlService;
        else if (g.queueReads == 0)
            gap.kind = StaQueueGap::Kind::NeverRead;
        gaps << gap;
    }
    if (gaps.isEmpty())
        return;
    m.staQueueGaps = gaps;
    const std::optional<qint64> read = m.maxStaQueueDepth;
    m.maxStaQueueDepth.reset();
    // A real gateway alone: nothing was there to read, and the reports say so already.
    if (!read && m_gateways.size() == 1 && gaps.front().kind == StaQueueGap::Kind::NoControlService)
        return;
    m.maxStaQueueDepthAtLeast = read;
    QStringList why;
    for (const StaQueueGap& gap : gaps)
        why << staQueueGapText(gap);
    QString note =
        QStringLiteral("max_sta_queue_depth is unknown: %1").arg(why.join(QStringLiteral("; ")));
    if (read)
        note +=
            QStringLiteral("; the deepest queue read was %1 commands, a lower bound (\u2265 %1)")
                .arg(*read);
    m.notes << note;
}

void ScenarioRunner::sampleGateway()
{
    // Every second of the run: the queue as it stands, and the counters' growth over the
    // second that ends now, plotted over that second.
    const Time now = relNow();
    const double t = toSeconds(now);
    const GatewayCounters c = gatewayCounters();
    ++m_queueSamples;
    for (Gateway& g : m_gateways)
        g.queueReads += g.queueRead ? 1 : 0;
    if (c.staQueueDepth) {
        m_series.at(m_staDepth).add(t, double(*c.staQueueDepth));
        m_maxSampledDepth = std::max(m_maxSampledDepth, *c.staQueueDepth);
    }
    if (c.outstandingSubscribes)
        m_maxSampledOutstanding = std::max(m_maxSampledOutstanding, *c.outstandingSubscribes);
    checkOrphans(-1); // a backstop: a connection's own re-subscribe ends without a guard event
    if (now > Time{0}) {
        m_series.at(m_rpcsPerS).add(t - 1, double(c.rpcs - m_lastRpcs));
        m_series.at(m_deadlinePerS).add(t - 1, double(c.deadlineExceeded - m_lastDeadline));
    }
    const auto suppressed = std::int64_t(m_engine->suppressedCalls());
    if (now > Time{0})
        m_series.at(m_suppressedPerS).add(t - 1, double(suppressed - m_lastSuppressed));
    m_lastRpcs = c.rpcs;
    m_lastDeadline = c.deadlineExceeded;
    m_lastSuppressed = suppressed;
    m_series.at(m_suppressed).add(t, double(suppressed));
    sampleGatewaySeries(t, now > Time{0});
    const Time next = std::chrono::floor<std::chrono::seconds>(now) + std::chrono::seconds(1);
    if (next < end())
        m_scheduler->callAt(m_t0 + next, [this] { sampleGateway(); });
}

} // namespace stormwatch
