#include "engine_batcher.h"

#include <algorithm>

namespace stormwatch {

namespace {
QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}
} // namespace

void ChangedTags::mark(int instance, int tag)
{
    if (std::size_t(instance) >= m_marked.size())
        m_marked.resize(std::size_t(instance) + 1);
    std::vector<bool>& marked = m_marked[std::size_t(instance)];
    if (std::size_t(tag) >= marked.size())
        marked.resize(std::size_t(tag) + 1);
    if (marked[std::size_t(tag)])
        return;
    marked[std::size_t(tag)] = true;
    m_order.emplace_back(instance, tag);
}

std::vector<std::pair<int, int>> ChangedTags::take(std::size_t n)
{
    const std::size_t count = std::min(n, size());
    std::vector<std::pair<int, int>> taken(m_order.begin() + std::ptrdiff_t(m_head),
                                           m_order.begin() + std::ptrdiff_t(m_head + count));
    for (const auto& [instance, tag] : taken)
        m_marked[std::size_t(instance)][std::size_t(tag)] = false;
    m_head += count;
    // The taken front is dropped once it is most of the list: each key moves at most once more.
    if (m_head == m_order.size()) {
        m_order.clear();
        m_head = 0;
    } else if (m_head > m_order.size() / 2) {
        m_order.erase(m_order.begin(), m_order.begin() + std::ptrdiff_t(m_head));
        m_head = 0;
    }
    return taken;
}

double EngineBatcher::seconds() const
{
    return double(m_engine.scheduler().now().count()) / 1e6;
}

void EngineBatcher::onGuardEvent(const Instance& instance, const GatewayConnection&,
                                 const GuardEvent&, bool alarm)
{
    m_dirtySubscriptions.insert(subscriptionKey(m_engine.instanceIndex(instance), alarm));
}

void EngineBatcher::onTagsChanged(const Instance&, int instance, const std::vector<int>& tags)
{
    for (int t : tags)
        m_changedTags.mark(instance, t);
    m_dirtySubscriptions.insert(subscriptionKey(instance, false));
}

void EngineBatcher::onConnectionState(const GatewayConnection&, ConnectionState)
{
    m_connectionsDirty = true;
    // Whether a tag is orphaned depends on the connection too (down = a reconnect is coming).
    for (std::size_t i = 0; i < m_engine.instances().size(); ++i)
        m_dirtySubscriptions.insert(subscriptionKey(int(i), false));
}

int EngineBatcher::orphanedTags(int index) const
{
    const Instance& instance = *m_engine.instances()[std::size_t(index)];
    int n = 0;
    for (std::size_t g = 0; g < instance.groupCount(); ++g)
        n += instance.orphanedTags(g);
    return n;
}

void EngineBatcher::recheckOrphans(int index)
{
    if (m_orphans.size() != m_engine.instances().size())
        m_orphans.assign(m_engine.instances().size(), 0);
    const int n = orphanedTags(index);
    if (n == m_orphans[std::size_t(index)])
        return;
    m_orphans[std::size_t(index)] = n;
    m_dirtySubscriptions.insert(subscriptionKey(index, false));
    const std::size_t tags = m_engine.instances()[std::size_t(index)]->tags().size();
    for (std::size_t t = 0; t < tags; ++t)
        m_changedTags.mark(index, int(t));
}

void EngineBatcher::onLog(Severity severity, const std::string& subject, const std::string& message)
{
    if (m_maxLogLines > 0 && m_logs.size() >= m_maxLogLines)
        ++m_suppressedLogLines;
    else
        m_logs.push_back(LogEntry{seconds(), QDateTime::currentDateTime(), int(severity),
                                  qs(subject), qs(message)});
    // Session details (capabilities, echoed timeout) change with these lines.
    if (message.rfind("session ", 0) == 0 || message.rfind("connection lost", 0) == 0)
        m_connectionsDirty = true;
}

SubscriptionSample EngineBatcher::sample(int index, bool alarm) const
{
    const Instance& instance = *m_engine.instances()[std::size_t(index)];
    SubscriptionSample s;
    s.tS = seconds();
    s.instance = index;
    s.alarm = alarm;
    s.instanceName = qs(instance.name());
    if (instance.groupCount() > 0)
        s.connection = qs(instance.connection(0).name());
    const TagSubscribeGuard* guard =
        alarm ? instance.alarmGuard() : (instance.groupCount() ? instance.guard(0) : nullptr);
    if (guard) {
        s.outstanding = guard->outstanding();
        s.intervalMs = double(guard->interval().count()) / 1000.0;
        s.confirmed = guard->confirmed();
        s.ceilingMs = double(guard->timing().ceiling.count()) / 1000.0;
        s.maxIntervalMs = double(guard->timing().max.count()) / 1000.0;
    }
    if (!alarm) {
        s.orphaned = orphanedTags(index);
        for (std::size_t g = 0; g < instance.groupCount(); ++g)
            s.frozen += instance.frozenTags(g);
    }
    if (alarm) {
        s.requestsSent = instance.alarmRequestsSent();
    } else if (instance.groupCount() > 0) {
        const QualityCounts c = instance.counts(0);
        s.good = c.good;
        s.uncertain = c.uncertain;
        s.bad = c.bad;
        s.stale = c.stale;
        s.requestsSent = instance.requestsSent(0);
    }
    return s;
}

const QString& EngineBatcher::instanceNameOf(int i) const
{
    if (std::size_t(i) >= m_instanceNames.size()) {
        const auto& instances = m_engine.instances();
        m_instanceNames.resize(instances.size());
        m_tagNames.resize(instances.size());
    }
    QString& name = m_instanceNames[std::size_t(i)];
    if (name.isNull())
        name = qs(m_engine.instances()[std::size_t(i)]->name());
    return name;
}

void EngineBatcher::shareTagNames(int i, const QStringList& names)
{
    if (i < 0 || std::size_t(i) >= m_engine.instances().size() ||
        std::size_t(names.size()) != m_engine.instances()[std::size_t(i)]->tagNames().size())
        return;
    instanceNameOf(i); // sizes the tables
    m_tagNames[std::size_t(i)] = names;
}

const QString& EngineBatcher::tagNameOf(int i, int t) const
{
    instanceNameOf(i); // sizes the tables
    QStringList& names = m_tagNames[std::size_t(i)];
    if (names.empty()) {
        const auto& all = m_engine.instances()[std::size_t(i)]->tagNames();
        names.reserve(all.size());
        for (const std::string& n : all)
            names.push_back(qs(n));
    }
    return names.at(t); // const: the list may be shared with the host, and must stay so
}

const QString& EngineBatcher::adviseNameOf(std::string_view kind) const
{
    auto it = m_adviseNames.find(kind);
    if (it == m_adviseNames.end())
        it = m_adviseNames
                 .emplace(std::string(kind), QString::fromUtf8(kind.data(), qsizetype(kind.size())))
                 .first;
    return it->second;
}

TagChange EngineBatcher::tagChange(int i, int t) const
{
    const Instance& instance = *m_engine.instances()[std::size_t(i)];
    const TagState& tag = instance.tags()[std::size_t(t)];
    const TagFailure* failure = instance.tagFailure(t);
    return TagChange{i,
                     t,
                     instanceNameOf(i),
                     tagNameOf(i, t),
                     tag.value,
                     qs(tag.text),
                     tag.quality,
                     tag.sourceTimestampUs,
                     tag.itemHandle,
                     failure ? qs(failure->error) : QString(),
                     instance.tagOrphaned(t),
                     tag.itemHandle != 0 ? adviseNameOf(instance.connectionOf(t).adviseKind())
                                         : QString(),
                     failure && failure->rejected,
                     tag.receivedUs,
                     instance.ages().stale(t),
                     double(instance.ages().limit(t).count()) / 1e6};
}

QVector<ConnectionInfo> EngineBatcher::connectionInfos() const
{
    QVector<ConnectionInfo> infos;
    for (const auto& c : m_engine.connections()) {
        ConnectionInfo info;
        info.name = qs(c->name());
        info.state = QString::fromStdString(c->stateText());
        info.error = QString::fromStdString(c->lastError());
        if (const auto next = c->nextAttemptAt())
            info.retryInS =
                std::max(0.0, double((*next - m_engine.scheduler().now()).count()) / 1e6);
        info.address = qs(c->describePort());
        info.sessionId = qs(c->sessionId());
        for (const auto& cap : c->capabilities())
            info.capabilities << qs(cap);
        info.protocolVersion = c->protocolVersion();
        if (c->echoedCommandTimeout())
            info.echoedCommandTimeoutS = double(c->echoedCommandTimeout()->count()) / 1e6;
        info.supportsSupervisoryBulk = c->supportsSupervisoryBulk();
        for (const auto& instance : m_engine.instances())
            for (std::size_t g = 0; g < instance->groupCount(); ++g)
                if (&instance->connection(g) == c.get() && instance->guard(g))
                    info.inFlightCeilingS =
                        double(instance->guard(g)->timing().ceiling.count()) / 1e6;
        infos.push_back(info);
    }
    return infos;
}

GatewaySample EngineBatcher::gatewaySample() const
{
    GatewaySample g;
    g.tS = seconds();
    for (const auto& c : m_engine.connections()) {
        g.invokes += c->stats().invokes;
        g.deadlineExceeded += c->stats().deadlineExceeded;
    }
    g.suppressedCalls = qint64(m_engine.suppressedCalls());
    g.recoveryState = toString(m_engine.recoveryState());
    return g;
}

QVector<ConnectionCounters> EngineBatcher::connectionCounters() const
{
    QVector<ConnectionCounters> all;
    const auto& connections = m_engine.connections();
    all.reserve(qsizetype(connections.size()));
    for (std::size_t i = 0; i < connections.size(); ++i) {
        const GatewayConnection& c = *connections[i];
        const ConnectionStats& stats = c.stats();
        ConnectionCounters n;
        n.connection = qs(c.name());
        for (const ConnectionSpec& spec : m_engine.config().connections)
            if (spec.name == c.name())
                n.gateway = qs(spec.gateway);
        n.invokes = stats.invokes;
        n.deadlineExceeded = stats.deadlineExceeded;
        n.suppressedCalls = stats.suppressedCalls;
        n.throttledRetries = c.retryBudget().throttledRetries();
        n.eventsReceived = stats.dataChanges;
        n.eventsLost = stats.eventsLost;
        n.sessionRestarts = std::max<qint64>(0, stats.sessionsOpened - 1);
        const RecoveryGate* gate = m_engine.gate(n.gateway.toStdString());
        n.recoveryState =
            QString::fromLatin1(toString(gate ? gate->state() : RecoveryGate::State::Normal));
        n.latencyCounts.reserve(qsizetype(stats.commandLatency.counts.size()));
        for (const std::int64_t count : stats.commandLatency.counts)
            n.latencyCounts.push_back(count);
        n.latencySumS = stats.commandLatency.sumS;
        n.latencyCount = stats.commandLatency.count;
        all.push_back(std::move(n));
    }
    return all;
}

EngineBatch EngineBatcher::take(std::size_t maxTags)
{
    // Orphan counts of what changed now; of everything about once a second, since a
    // connection's own re-subscribe can end without an event of the instance.
    if (++m_takes % 20 == 0) {
        for (std::size_t i = 0; i < m_engine.instances().size(); ++i)
            recheckOrphans(int(i));
    } else {
        const QList<qint64> dirty = m_dirtySubscriptions.values();
        for (qint64 k : dirty)
            if (!(k & 1) && (k >> 1) >= 0)
                recheckOrphans(int(k >> 1));
    }
    EngineBatch batch;
    batch.samples.reserve(m_dirtySubscriptions.size());
    for (qint64 k : std::as_const(m_dirtySubscriptions))
        if ((k >> 1) >= 0)
            batch.samples.push_back(sample(int(k >> 1), k & 1));
    m_dirtySubscriptions.clear();
    const std::vector<std::pair<int, int>> tags = m_changedTags.take(maxTags);
    batch.tags.reserve(qsizetype(tags.size()));
    for (const auto& [instance, tag] : tags)
        batch.tags.push_back(tagChange(instance, tag));
    batch.logs.swap(m_logs);
    if (m_connectionsDirty) {
        m_connectionsDirty = false;
        batch.connectionsChanged = true;
        batch.connections = connectionInfos();
    }
    batch.gateway = gatewaySample();
    batch.counters = connectionCounters();
    return batch;
}

EngineBatch EngineBatcher::snapshot(std::size_t maxTags)
{
    const auto& instances = m_engine.instances();
    for (std::size_t i = 0; i < instances.size(); ++i) {
        m_dirtySubscriptions.insert(subscriptionKey(int(i), false));
        if (instances[i]->alarmGuard())
            m_dirtySubscriptions.insert(subscriptionKey(int(i), true));
        for (std::size_t t = 0; t < instances[i]->tags().size(); ++t)
            m_changedTags.mark(int(i), int(t));
    }
    m_connectionsDirty = true;
    return take(maxTags);
}

} // namespace stormwatch
