#include "instance.h"

#include <algorithm>
#include <utility>

namespace stormwatch {

namespace {

int& bucket(QualityCounts& counts, int quality)
{
    if (quality == kQualityGood)
        return counts.good;
    if (quality == kQualityBad)
        return counts.bad;
    return counts.uncertain; // anything else is not Good and not plainly Bad
}

int normalised(int quality)
{
    // OPC quality: the top two bits say Good (0xC0), Uncertain (0x40) or Bad (0x00).
    switch (quality & 0xC0) {
    case 0xC0:
        return kQualityGood;
    case 0x40:
        return quality == kQualityUncertainLastUsable ? quality : kQualityUncertain;
    default:
        return kQualityBad;
    }
}

} // namespace

Instance::Instance(Scheduler& scheduler, std::string name, std::vector<std::string> tags,
                   std::vector<Group> groups, bool alarms, InstanceSettings settings,
                   std::function<double()> jitter, InstanceCallbacks callbacks,
                   std::vector<Duration> staleLimits)
    : m_scheduler(scheduler), m_name(std::move(name)),
      m_tagNames(std::make_shared<const std::vector<std::string>>(std::move(tags))),
      m_tags(m_tagNames->size()), m_alarms(alarms), m_settings(settings),
      m_jitter(std::move(jitter)), m_callbacks(std::move(callbacks)),
      m_ages(scheduler, std::move(staleLimits), [this](const std::vector<int>& t) { onStale(t); })
{
    for (auto& g : groups) {
        GroupState& state = m_groups.emplace_back();
        state.connection = g.connection;
        state.tagIndices = std::move(g.tagIndices);
    }
    m_counts.uncertain = int(m_tags.size());
    m_placeOf.assign(m_tags.size(), {-1, -1});
    for (std::size_t g = 0; g < m_groups.size(); ++g)
        for (std::size_t i = 0; i < m_groups[g].tagIndices.size(); ++i)
            m_placeOf[std::size_t(m_groups[g].tagIndices[i])] = {int(g), int(i)};
}

Instance::~Instance()
{
    m_deployment.reset();
    for (auto& g : m_groups)
        if (g.subscriber)
            g.connection->removeSubscriber(g.subscriber);
}

void Instance::log(Severity severity, const std::string& message)
{
    if (m_callbacks.onLog)
        m_callbacks.onLog(*this, severity, message);
}

const TagSubscribeGuard* Instance::guard(std::size_t group) const
{
    return m_groups[group].guard.get();
}

namespace {
GuardTiming withSessionCeiling(GuardTiming timing, const GatewayConnection& connection,
                               Duration margin)
{
    // A gateway may echo up to a Duration's range; no real timeout is longer than a day
    // (the mock clamps there too), and a timer cannot wait years.
    constexpr Duration kLongestTimeout = std::chrono::hours(24);
    if (const auto echoed = connection.echoedCommandTimeout())
        timing.ceiling = std::max(timing.ceiling, std::min(*echoed, kLongestTimeout) + margin);
    return timing;
}
} // namespace

GuardTiming Instance::tagTimingFor(std::size_t g) const
{
    return withSessionCeiling(m_settings.tagTiming, *m_groups[g].connection,
                              m_settings.ceilingMargin);
}

GuardTiming Instance::alarmTimingFor() const
{
    if (m_groups.empty())
        return m_settings.alarmTiming;
    return withSessionCeiling(m_settings.alarmTiming, *m_groups.front().connection,
                              m_settings.ceilingMargin);
}

bool Instance::subscribePending(std::size_t group) const
{
    const GroupState& g = m_groups[group];
    if (!g.guard)
        return false;
    if (g.guard->running() && (g.guard->inFlight() || g.guard->retryScheduled()))
        return true;
    return g.subscriber && g.connection->subscribePending(g.subscriber);
}

const TagFailure* Instance::tagFailure(int tag) const
{
    if (m_failures.empty())
        return nullptr;
    const auto it = m_failures.find(tag);
    return it != m_failures.end() ? &it->second : nullptr;
}

bool Instance::tagOrphaned(int tag) const
{
    const auto [g, i] = m_placeOf[std::size_t(tag)];
    if (g < 0 || !m_deployed)
        return false;
    const TagState& state = m_tags[std::size_t(tag)];
    const GroupState& group = m_groups[std::size_t(g)];
    return state.quality != kQualityGood && !tagRejected(tag) &&
           !group.connection->routed(group.subscriber, i) && !subscribePending(std::size_t(g));
}

int Instance::orphanedTags(std::size_t group) const
{
    // All Good (the steady state) is known without walking every tag.
    if (!m_deployed || m_counts.notGood() == 0 || subscribePending(group))
        return 0;
    const GroupState& g = m_groups[group];
    int orphaned = 0;
    for (std::size_t i = 0; i < g.tagIndices.size(); ++i) {
        const TagState& tag = m_tags[std::size_t(g.tagIndices[i])];
        if (tag.quality != kQualityGood && !tagRejected(g.tagIndices[i]) &&
            !g.connection->routed(g.subscriber, int(i)))
            ++orphaned;
    }
    return orphaned;
}

int Instance::frozenTags(std::size_t group) const
{
    const GroupState& g = m_groups[group];
    if (!m_deployed || !g.connection->unresponsiveSince())
        return 0;
    int frozen = 0;
    for (int t : g.tagIndices)
        if (m_tags[std::size_t(t)].quality == kQualityGood)
            ++frozen;
    return frozen;
}

QualityCounts Instance::counts(std::size_t group) const
{
    QualityCounts c;
    for (int t : m_groups[group].tagIndices) {
        const int quality = m_tags[std::size_t(t)].quality;
        ++bucket(c, quality);
        c.stale += int(quality == kQualityGood && m_ages.stale(t));
    }
    return c;
}

void Instance::setQuality(int tag, int quality, std::vector<int>& changed)
{
    TagState& state = m_tags[std::size_t(tag)];
    quality = normalised(quality);
    if (state.quality != quality) {
        --bucket(m_counts, state.quality);
        ++bucket(m_counts, quality);
        if (m_ages.stale(tag)) // a stale tag counts as stale while it shows Good
            m_counts.stale += int(quality == kQualityGood) - int(state.quality == kQualityGood);
        state.quality = quality;
    }
    changed.push_back(tag);
}

// A Good value that is older than its kind allows is suspect: counted and shown as stale until
// the tag's next update.
void Instance::onStale(const std::vector<int>& tags)
{
    for (int t : tags)
        m_counts.stale += int(m_tags[std::size_t(t)].quality == kQualityGood);
    if (m_callbacks.onTagsChanged)
        m_callbacks.onTagsChanged(*this, tags);
}

void Instance::start()
{
    if (m_deployed)
        return;
    m_deployed = true;
    m_deployment = std::make_shared<int>(0);
    for (auto& tag : m_tags)
        tag = TagState{};
    m_counts = QualityCounts{0, int(m_tags.size()), 0};
    m_ages.start();
    log(Severity::Info, "deployed with " + std::to_string(m_tags.size()) + " tags");
    if (m_callbacks.onTagsChanged) { // every tag starts over, waiting for its first value
        std::vector<int> all(m_tags.size());
        for (std::size_t t = 0; t < all.size(); ++t)
            all[t] = int(t);
        m_callbacks.onTagsChanged(*this, all);
    }
    for (std::size_t g = 0; g < m_groups.size(); ++g)
        deployGroup(g);

    if (m_alarms && !m_groups.empty() && !m_groups.front().connection->canSubscribeAlarms()) {
        // Not a failure to retry: the gateway's contract has no such command (the published
        // gateway's alarms are a session-less feed). Said once, never sent.
        log(Severity::Warning, "alarm subscription not sent: the contract of " +
                                   m_groups.front().connection->name() +
                                   " has no SubscribeAlarms command");
    } else if (m_alarms && !m_groups.empty()) {
        GatewayConnection* connection = m_groups.front().connection;
        std::weak_ptr<int> life = m_deployment;
        m_alarmGuard = std::make_unique<TagSubscribeGuard>(
            m_scheduler, alarmTimingFor(), m_settings.alarmPolicy,
            [this, connection, life](std::uint64_t id) {
                connection->subscribeAlarms(m_name,
                                            [this, life, id](bool ok, const std::string& error) {
                                                if (!life.expired() && m_alarmGuard)
                                                    m_alarmGuard->onReply(id, ok, error);
                                            });
            },
            m_jitter);
        m_alarmGuard->setRetryBudget(&connection->retryBudget());
        m_alarmGuard->setObserver([this, connection](const GuardEvent& e) {
            if (e.kind == GuardEventKind::Sent)
                ++m_alarmRequestsSent;
            if (m_callbacks.onGuardEvent)
                m_callbacks.onGuardEvent(*this, *connection, e, true);
        });
        m_alarmGuard->start();
    }
}

void Instance::deployGroup(std::size_t g)
{
    GroupState& group = m_groups[g];
    // A group of every tag in order shares the instance's list; any other gets its own.
    bool everyTag = group.tagIndices.size() == m_tagNames->size();
    for (std::size_t i = 0; everyTag && i < group.tagIndices.size(); ++i)
        everyTag = group.tagIndices[i] == int(i);
    GatewayConnection::TagList tags = m_tagNames;
    if (!everyTag) {
        std::vector<std::string> own;
        own.reserve(group.tagIndices.size());
        for (int t : group.tagIndices)
            own.push_back((*m_tagNames)[std::size_t(t)]);
        tags = std::make_shared<const std::vector<std::string>>(std::move(own));
    }
    std::weak_ptr<int> life = m_deployment;
    group.subscriber = group.connection->addSubscriber(
        std::move(tags),
        [this, g, life](const std::vector<TagUpdate>& updates) {
            if (!life.expired())
                onData(g, updates);
        },
        [this, g, life](bool good) {
            if (!life.expired())
                onQuality(g, good);
        },
        [this, g, life](bool responsive) {
            if (!life.expired())
                onLiveness(g, responsive);
        },
        [this, g, life](const std::vector<int>& indices, const std::string& why) {
            if (!life.expired())
                onLost(g, indices, why);
        });
    GatewayConnection* connection = group.connection;
    const auto subscriber = group.subscriber;
    group.guard = std::make_unique<TagSubscribeGuard>(
        m_scheduler, tagTimingFor(g), m_settings.tagPolicy,
        [this, g, connection, subscriber, life](std::uint64_t id) {
            connection->subscribe(subscriber, [this, g, id, life](const SubscribeOutcome& outcome) {
                if (!life.expired())
                    onSubscribeOutcome(g, id, outcome);
            });
        },
        m_jitter);
    group.guard->setRetryBudget(&connection->retryBudget());
    group.guard->setObserver([this, g](const GuardEvent& e) {
        if (e.kind == GuardEventKind::Sent)
            ++m_groups[g].requestsSent;
        if (m_callbacks.onGuardEvent)
            m_callbacks.onGuardEvent(*this, *m_groups[g].connection, e, false);
    });
    group.guard->start();
}

void Instance::onSubscribeOutcome(std::size_t g, std::uint64_t id, const SubscribeOutcome& outcome)
{
    GroupState& group = m_groups[g];
    if (outcome.superseded) {
        if (group.guard)
            group.guard->onSuperseded(id);
        return;
    }
    std::vector<int> changed;
    for (const TagResult& r : outcome.tags) {
        const int tag = group.tagIndices[std::size_t(r.index)];
        TagState& state = m_tags[std::size_t(tag)];
        if (r.ok) {
            state.itemHandle = r.itemHandle;
            m_failures.erase(tag);
            changed.push_back(tag);
        } else {
            TagFailure& failure = m_failures[tag];
            failure.error = r.error;
            failure.rejected = r.definitive;
            // A failure never downgrades a tag whose data says Good (an older request
            // may have advised it); a tag still waiting goes Bad with the reason.
            if (state.quality != kQualityGood)
                setQuality(tag, kQualityBad, changed);
            else
                changed.push_back(tag);
        }
    }
    if (!outcome.success)
        log(Severity::Warning,
            "tag subscribe on " + group.connection->name() + " failed: " + outcome.error);
    if (!changed.empty() && m_callbacks.onTagsChanged)
        m_callbacks.onTagsChanged(*this, changed);
    if (!group.guard)
        return;
    if (outcome.suppressed)
        group.guard->onRefused(id, outcome.error);
    else
        group.guard->onReply(id, outcome.success, outcome.error);
}

void Instance::onData(std::size_t g, const std::vector<TagUpdate>& updates)
{
    const GroupState& group = m_groups[g];
    std::vector<int> changed;
    changed.reserve(updates.size());
    const std::int64_t now = m_scheduler.now().count();
    for (const TagUpdate& u : updates) {
        const int tag = group.tagIndices[std::size_t(u.index)];
        TagState& state = m_tags[std::size_t(tag)];
        if (m_ages.updated(tag) && state.quality == kQualityGood)
            --m_counts.stale;
        state.receivedUs = now;
        state.value = u.value;
        if (u.text)
            state.text = *u.text;
        else if (!state.text.empty()) // numbers carry no text
            state.text.clear();
        state.sourceTimestampUs = u.sourceTimestampUs;
        state.itemHandle = u.itemHandle;
        // The usual update keeps the tag's quality: only the tag is reported changed.
        if (u.quality == state.quality)
            changed.push_back(tag);
        else
            setQuality(tag, u.quality, changed);
    }
    if (m_callbacks.onTagsChanged)
        m_callbacks.onTagsChanged(*this, changed);
}

// The session lives, the gateway does not answer: a Good tag's value is only the last usable
// one. When it answers again, what was Good is Good again (MXAccess sends on change only: an
// unchanged value is still the value); a tag that changed meanwhile has its new quality.
void Instance::onLiveness(std::size_t g, bool responsive)
{
    GroupState& group = m_groups[g];
    std::vector<int> changed;
    if (!responsive) {
        for (int t : group.tagIndices)
            if (m_tags[std::size_t(t)].quality == kQualityGood) {
                setQuality(t, kQualityUncertainLastUsable, changed);
                group.lastUsable.push_back(t);
            }
    } else {
        for (int t : std::exchange(group.lastUsable, {}))
            if (m_tags[std::size_t(t)].quality == kQualityUncertainLastUsable)
                setQuality(t, kQualityGood, changed);
    }
    if (!changed.empty() && m_callbacks.onTagsChanged)
        m_callbacks.onTagsChanged(*this, changed);
}

// Tags whose item stopped being advised on a live session have no value coming: Bad until
// their guard has subscribed them again.
void Instance::onLost(std::size_t g, const std::vector<int>& indices, const std::string& why)
{
    GroupState& group = m_groups[g];
    log(Severity::Warning, std::to_string(indices.size()) + " tag(s) lost their item: " + why);
    std::vector<int> changed;
    for (int i : indices)
        setQuality(group.tagIndices[std::size_t(i)], kQualityBad, changed);
    if (!changed.empty() && m_callbacks.onTagsChanged)
        m_callbacks.onTagsChanged(*this, changed);
    if (group.guard)
        group.guard->onSubscriptionLost();
}

void Instance::onQuality(std::size_t g, bool good)
{
    GroupState& group = m_groups[g];
    group.lastUsable.clear(); // a new session, or none: no value is the last usable one now
    // A new session may have echoed another command timeout: the ceiling follows it.
    if (good && group.guard)
        group.guard->setTiming(tagTimingFor(g));
    if (good && g == 0 && m_alarmGuard)
        m_alarmGuard->setTiming(alarmTimingFor());
    if (group.guard)
        group.guard->onConnectionQuality(good);
    if (g == 0 && m_alarmGuard)
        m_alarmGuard->onConnectionQuality(good);
    if (good)
        return;
    std::vector<int> changed;
    for (int t : group.tagIndices)
        setQuality(t, kQualityBad, changed);
    if (m_callbacks.onTagsChanged)
        m_callbacks.onTagsChanged(*this, changed);
}

void Instance::stop(bool teardown)
{
    if (!m_deployed)
        return;
    m_deployed = false;
    m_deployment.reset();
    m_ages.stop();
    m_counts.stale = 0;
    for (auto& group : m_groups) {
        if (group.guard)
            group.guard->stop();
        if (teardown)
            group.connection->removeItems(group.subscriber);
        group.connection->removeSubscriber(group.subscriber);
        group.subscriber = 0;
    }
    if (m_alarmGuard)
        m_alarmGuard->stop();
    log(Severity::Info, "stopped");
}

void Instance::redeploy()
{
    stop();
    start();
}

void Instance::setSettings(const InstanceSettings& settings)
{
    m_settings = settings;
    for (std::size_t g = 0; g < m_groups.size(); ++g)
        if (m_groups[g].guard) {
            m_groups[g].guard->setPolicy(settings.tagPolicy);
            m_groups[g].guard->setTiming(tagTimingFor(g));
        }
    if (m_alarmGuard) {
        m_alarmGuard->setPolicy(settings.alarmPolicy);
        m_alarmGuard->setTiming(alarmTimingFor());
    }
}

} // namespace stormwatch
