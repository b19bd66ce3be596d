#include "scenario/scenario_runner.h"

// Running a variant: starting it (the timeline, connections and deploys scheduled), advancing
// it in virtual or wall time, applying the timeline's events (and the console's, at "now")
// through each gateway's access, and finishing it into its metrics, or abandoning it; either
// way its sessions are closed.

#include "client/lever_set.h"
#include "client/log_text.h"
#include "client/virtual_scheduler.h"
#include "scenario/run_time.h"

#include <QEventLoop>
#include <QLoggingCategory>
#include <QTimer>
#include <algorithm>
#include <chrono>

namespace stormwatch {

Q_LOGGING_CATEGORY(lcScenario, "stormwatch.scenario")

using run_time::fromSeconds;
using run_time::toSeconds;

namespace {

constexpr int kProgressSteps = 50;

// How long a run waits, for all its gateways together, for their counters to be read: one
// read's deadline.
constexpr std::chrono::milliseconds kReadBound{2500};

std::chrono::milliseconds untilThen(std::chrono::steady_clock::time_point then)
{
    return std::max(std::chrono::milliseconds(0),
                    std::chrono::duration_cast<std::chrono::milliseconds>(
                        then - std::chrono::steady_clock::now()));
}

} // namespace

Time ScenarioRunner::end() const
{
    return fromSeconds(m_scenario.durationS);
}

Time ScenarioRunner::sinceStart(Time at) const
{
    // Live, a callback can land a little after the run's end (or, before start(), ahead
    // of it); its effect is counted at the edge.
    return std::clamp(at - m_t0, Time{0}, end());
}

double ScenarioRunner::elapsedS() const
{
    return m_started ? toSeconds(relNow()) : 0.0;
}

void ScenarioRunner::start()
{
    if (!ok() || m_started)
        return;
    m_started = true;
    // Counted from here on, from the gateways themselves when every one exposes its
    // counters (virtual, embedded, an mxgw-mock). A live site's are the client's own, per
    // gateway: its gateways are shared, their counters count others' work too.
    // A polled gateway (a live site's) is read on a thread of its own: the first sample
    // waits for that first read, bounded by a read's deadline (one for all of them), rather
    // than racing it and counting the gateway's queue unread at 0 s. The run starts after
    // that wait, so it takes nothing from the run's time.
    const auto readBy = std::chrono::steady_clock::now() + kReadBound;
    for (Gateway& g : m_gateways)
        g.access->awaitFirstRead(untilThen(readBy));
    m_t0 = m_scheduler->now();
    m_countersFromGateway =
        !m_sharedGateways && std::all_of(m_gateways.begin(), m_gateways.end(),
                                         [](Gateway& g) { return g.access->stats().has_value(); });
    m_baseline = m_lastCounters = gatewayCounters();
    recordRecoveryStates();
    // Same-instant order: the timeline (the environment) first, then connections, then
    // deploys — so a fault "at 0" is in force when the first session is asked for.
    const auto at = [this](double s) { return m_t0 + fromSeconds(s); };
    for (const TimelineEvent& event : m_scenario.timeline)
        if (fromSeconds(event.atS) < end())
            m_scheduler->callAt(at(event.atS), [this, event] { applyTimeline(event); });
    m_scheduler->callAt(m_t0, [this] { m_engine->startConnections(); });
    for (int i = 0; i < m_scenario.instances.size(); ++i)
        if (const double startAt = m_scenario.instances[i].startAtS; fromSeconds(startAt) < end())
            m_scheduler->callAt(at(startAt), [this, i] { deploy(i); });
    m_scheduler->callAt(m_t0, [this] { sampleGateway(); });
}

void ScenarioRunner::advanceTo(double s)
{
    if (!m_started || m_finished)
        return;
    const Time until = m_t0 + std::min(fromSeconds(s), end()) - Duration(1);
    if (m_virtualScheduler) {
        if (until >= m_virtualScheduler->now())
            m_virtualScheduler->runUntil(until);
        return;
    }
    // Live: the scheduler's timers and the gRPC completions it is posted run in this loop.
    while (m_scheduler->now() < until) {
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(until - m_scheduler->now());
        QEventLoop loop;
        QTimer::singleShot(left, Qt::PreciseTimer, &loop, &QEventLoop::quit);
        loop.exec();
    }
}

VariantRun ScenarioRunner::run(const ProgressFn& progress, const std::function<bool()>& cancelled)
{
    start();
    if (!ok())
        return {};
    const double d = m_scenario.durationS;
    const auto step = [&](double s) {
        if (cancelled && cancelled())
            return false;
        advanceTo(s);
        if (progress)
            progress(s / d);
        return true;
    };
    bool going = true;
    if (m_live) {
        // Every whole second of wall time, then the end.
        for (double s = 1; s < d && going; s += 1)
            going = step(s);
        going = going && step(d);
    } else {
        for (int k = 1; k <= kProgressSteps && going; ++k)
            going = step(d * k / kProgressSteps);
    }
    if (!going) {
        abandon();
        return {};
    }
    return finish();
}

VariantRun ScenarioRunner::finish()
{
    VariantRun result;
    if (!ok() || m_finished)
        return result;
    start();
    advanceTo(m_scenario.durationS);

    m_badTagUs += std::int64_t(m_notGood) * (end() - m_lastChange).count();
    m_lastChange = end();
    m_orphanCheckAll = true;
    countOrphans();
    m_orphanUs += std::int64_t(m_orphaned) * (end() - m_lastOrphanChange).count();
    m_lastOrphanChange = end();
    m_frozenUs += std::int64_t(m_frozen) * (end() - m_lastFrozenChange).count();
    m_lastFrozenChange = end();
    m_staleUs += std::int64_t(m_stale) * (end() - m_lastStaleChange).count();
    m_lastStaleChange = end();

    VariantMetrics& m = result.metrics;
    m.name = m_variant.name;
    m.levers = leverSetToJson(m_levers);
    m.subscribeRequests = m_subscribeRequests;
    m.maxOutstanding = m_maxOutstanding;
    // The counters as the run ends, not as a polled gateway last told them.
    const auto readBy = std::chrono::steady_clock::now() + kReadBound;
    for (Gateway& g : m_gateways)
        g.access->awaitFreshRead(untilThen(readBy));
    const GatewayCounters counters = gatewayCounters();
    m.gatewayRpcs = counters.rpcs - m_baseline.rpcs;
    for (auto it = counters.byKind.begin(); it != counters.byKind.end(); ++it)
        if (const qint64 n = it.value() - m_baseline.byKind.value(it.key(), 0))
            m.gatewayRpcsByKind.insert(it.key(), n);
    m.deadlineExceeded = counters.deadlineExceeded - m_baseline.deadlineExceeded;
    // A gateway's maximum since its own start says nothing about this run unless the run
    // raised it; otherwise the largest value sampled during the run is what is known. A
    // gateway without counters has no queue to report: unknown, not 0.
    if (m_countersFromGateway) {
        m.maxStaQueueDepth = counters.maxStaQueueDepth > m_baseline.maxStaQueueDepth
                                 ? counters.maxStaQueueDepth
                                 : m_maxSampledDepth;
        if (counters.outstandingSubscribes)
            m.maxGatewayOutstandingSubscribes =
                counters.maxOutstandingSubscribes > m_baseline.maxOutstandingSubscribes
                    ? counters.maxOutstandingSubscribes
                    : m_maxSampledOutstanding;
    } else {
        // A live site's gateways are shared, so their own maxima count others' work; but
        // their queues were sampled for the series all along: the deepest one's maximum there.
        m.maxStaQueueDepth = deepestSampledQueue();
    }
    reportQueueGaps(m);
    m.badTagSeconds = double(m_badTagUs) / 1e6;
    m.orphanedTagSeconds = double(m_orphanUs) / 1e6;
    m.frozenTagSeconds = double(m_frozenUs) / 1e6;
    m.staleTagSeconds = double(m_staleUs) / 1e6;
    m.unresponsiveSeconds = m_engine->unresponsiveSeconds();
    m.connectedAfterS = m_connectedAfterS;
    // Measured from the faults that happened: a fault the gateway could not apply (a real
    // gateway has no control service) disturbed nothing.
    const double faultEnd = m_lastAppliedFaultEndS.value_or(0.0);
    m.timeToAllGoodFrom =
        m_lastAppliedFaultEndS ? QStringLiteral("last fault") : QStringLiteral("start");
    if (!m_lastAppliedFaultEndS && m_scenario.lastFaultEndS())
        m.notes << QStringLiteral(
            "time_to_all_good_s is measured from the start: the gateway applied "
            "none of the timeline's faults");
    if (m_notGood == 0 && m_allGoodSince)
        m.timeToAllGoodS = std::max(0.0, toSeconds(*m_allGoodSince) - faultEnd);
    m.suppressedCalls = qint64(m_engine->suppressedCalls());
    m.throttledRetries = qint64(m_engine->throttledRetries());
    m.eventsLost = qint64(m_engine->eventsLost());
    m.skippedActions = m_skipped;
    if (m_live)
        m.gatewayMetricsSource =
            m_countersFromGateway ? QStringLiteral("gateway") : QStringLiteral("client");
    m_finished = true;

    closeSessions();
    endFaults();
    m.wallMs = m_wall.elapsed();
    result.series = std::move(m_series);
    return result;
}

void ScenarioRunner::abandon()
{
    if (!ok() || !m_started || m_finished)
        return;
    m_finished = true;
    closeSessions();
    endFaults();
}

QString ScenarioRunner::applyNow(TimelineEvent event, bool* applied)
{
    if (applied)
        *applied = false;
    if (!m_started || m_finished)
        return QStringLiteral("the run is not running");
    event.atS = elapsedS();
    const auto skippedBefore = m_skipped.size();
    const bool took = applyTimeline(event);
    if (applied)
        *applied = took;
    return m_skipped.size() > skippedBefore ? m_skipped.last() : QString();
}

bool ScenarioRunner::applyTimeline(const TimelineEvent& e)
{
    qCDebug(lcScenario) << "t =" << e.atS << "s:" << timelineActionName(e.action);
    const bool applied = applyTimelineEvent(e);
    // time_to_all_good_s counts from the faults that happened, not from skipped ones.
    if (e.isFault() && applied)
        m_lastAppliedFaultEndS =
            std::max(m_lastAppliedFaultEndS.value_or(0.0), e.endS(m_scenario.durationS));
    return applied;
}

bool ScenarioRunner::applyTimelineEvent(const TimelineEvent& e)
{
    if (auto fault = faultRequestFor(e)) {
        const auto targets = targetsOf(e);
        if (!targets) {
            skip(e, QStringLiteral("the run has no gateway \"%1\"").arg(e.gateway));
            return false;
        }
        // Each gateway on its own: one that cannot take it (no control service, gone) does
        // not keep the fault from the others; those that could not are recorded as skipped.
        QStringList failed;
        for (Gateway* g : *targets) {
            QString outcome;
            bool applied = true;
            if (e.action == TimelineAction::SourceOutage) {
                // Overlapping outages: on with the first, off when the last one ends.
                if (g->sourceOutages == 0)
                    applied = g->access->inject(*fault, &outcome);
                if (applied) {
                    ++g->sourceOutages;
                    const std::size_t index = std::size_t(g - m_gateways.data());
                    m_scheduler->callAfter(fromSeconds(e.durationS), [this, e, index] {
                        Gateway& at = m_gateways[index];
                        QString why;
                        if (--at.sourceOutages == 0 &&
                            !at.access->inject(sourceOutageRequest(false), &why))
                            skip(e, QStringLiteral("ending it: ") + why);
                    });
                }
            } else {
                applied = g->access->inject(*fault, &outcome);
            }
            if (applied)
                g->injected = true;
            else
                failed << (m_gateways.size() > 1 ? QStringLiteral("%1: %2").arg(g->name, outcome)
                                                 : outcome);
        }
        if (!failed.isEmpty())
            skip(e, failed.join(QStringLiteral("; ")));
        return std::size_t(failed.size()) < targets->size();
    }
    QString outcome;
    switch (e.action) {
    case TimelineAction::Redeploy:
        redeploy(e.instance);
        break;
    case TimelineAction::SetLevers: {
        QString error;
        // The report keeps naming the variant's own levers: that is what it is compared by.
        if (auto levers = leverSetFromJson(e.levers, &error)) {
            m_engine->applyLevers(*levers);
        } else {
            qCWarning(lcScenario) << "set_levers at" << e.atS << "s ignored:" << error;
        }
        break;
    }
    case TimelineAction::SetCapability: {
        const auto targets = targetsOf(e);
        if (!targets) {
            skip(e, QStringLiteral("the run has no gateway \"%1\"").arg(e.gateway));
            return false;
        }
        QStringList failed;
        for (Gateway* g : *targets)
            if (!g->access->setAdvertiseBulkSupervisory(e.advertiseBulkSupervisory, &outcome))
                failed << (m_gateways.size() > 1 ? QStringLiteral("%1: %2").arg(g->name, outcome)
                                                 : outcome);
        if (!failed.isEmpty())
            skip(e, failed.join(QStringLiteral("; ")));
        return std::size_t(failed.size()) < targets->size();
    }
    case TimelineAction::StallReader: {
        const auto targets = targetsOf(e);
        if (!targets) {
            skip(e, QStringLiteral("the run has no gateway \"%1\"").arg(e.gateway));
            return false;
        }
        for (Gateway* g : *targets)
            g->port->stallReader(fromSeconds(e.durationS));
        break;
    }
    default: // the gateway's faults, above
        break;
    }
    return true;
}

void ScenarioRunner::skip(const TimelineEvent& e, const QString& why)
{
    // `why` may carry a gateway's own error text: one escaped line.
    const QString line =
        QStringLiteral("%1 at %2 s skipped: %3")
            .arg(timelineActionName(e.action), QString::number(e.atS), escapeLogText(why));
    qCWarning(lcScenario).noquote() << line;
    m_skipped << line;
}

void ScenarioRunner::deploy(int instance)
{
    m_engine->deploy(instance);
    resyncCounts();
}

void ScenarioRunner::redeploy(const QString& instance)
{
    m_engine->redeploy(instance.toStdString());
    resyncCounts(); // a fresh deployment starts every tag over, with no tag-change callback
}

} // namespace stormwatch
