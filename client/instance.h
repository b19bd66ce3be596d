#pragma once
// An instance (the bridge's InstanceActor): tags grouped by connection, one Lever 1 guard
// per (instance, connection), and optionally an alarm subscription guarded the same way
// (lever alarm_guard; off = the pre-fix alarm retry). Redeploy = stop and start with a
// fresh guard, removing and then re-adding its items.

#include "gateway_connection.h"
#include "tag_age_watch.h"
#include "tag_subscribe_guard.h"

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace stormwatch {

// What each data change reads and writes, in one cache line (the text's std::string
// included), and a state starts one (at site scale an instance's states outgrow the cache;
// unaligned, a change could touch two lines of its tag). A failed subscribe's reason is rare
// and kept apart (Instance::tagFailure).
struct alignas(64) TagState {
    int quality = kQualityUncertain; // no value yet
    std::int32_t itemHandle = 0;
    double value = 0;
    std::int64_t sourceTimestampUs = 0;
    std::int64_t receivedUs = -1; // scheduler time its last value arrived; -1: none yet
    std::string text;
};
static_assert(sizeof(TagState) == 64);

// Why a tag's last subscribe failed.
struct TagFailure {
    std::string error;
    bool rejected = false; // the gateway itself refused the tag (e.g. unknown address)
};

struct QualityCounts {
    int good = 0;
    int uncertain = 0;
    int bad = 0;
    int stale = 0; // of the Good ones: no update for longer than their limit (TagAgeWatch)
    int notGood() const { return uncertain + bad; }
    bool operator==(const QualityCounts&) const = default;
};

struct InstanceSettings {
    GuardTiming tagTiming; // its ceiling is the lowest; see ceilingMargin
    GuardPolicy tagPolicy;
    GuardTiming alarmTiming;
    GuardPolicy alarmPolicy;
    // Once a session echoed its command timeout, a guard's ceiling is at least that timeout
    // plus this margin: a request is never presumed lost while the gateway may still answer
    // it within its deadline (Lever 3 raises the timeout, and so the ceiling).
    Duration ceilingMargin =
        std::chrono::milliseconds(defaults::kTagSubscribeInFlightCeilingMarginMs);
    bool operator==(const InstanceSettings&) const = default;
};

class Instance;

struct InstanceCallbacks {
    std::function<void(Instance&, GatewayConnection&, const GuardEvent&, bool alarm)> onGuardEvent;
    // After the tag states changed (value or quality); `indices` are into tags().
    std::function<void(Instance&, const std::vector<int>& indices)> onTagsChanged;
    std::function<void(Instance&, Severity, const std::string&)> onLog;
};

class Instance {
public:
    struct Group { // the tags of this instance on one connection
        GatewayConnection* connection = nullptr;
        std::vector<int> tagIndices;
    };

    Instance(Scheduler& scheduler, std::string name, std::vector<std::string> tags,
             std::vector<Group> groups, bool alarms, InstanceSettings settings,
             std::function<double()> jitter, InstanceCallbacks callbacks,
             std::vector<Duration> staleLimits = {});
    ~Instance();
    Instance(const Instance&) = delete;
    Instance& operator=(const Instance&) = delete;

    void start();
    // teardown: remove the items on the gateway (a redeploy); false at the end of a run,
    // where closing the session frees them.
    void stop(bool teardown = true);
    void redeploy();
    void setSettings(const InstanceSettings& settings);

    const std::string& name() const { return m_name; }
    bool deployed() const { return m_deployed; }
    const std::vector<std::string>& tagNames() const { return *m_tagNames; }
    const std::vector<TagState>& tags() const { return m_tags; }
    // Why the tag's last subscribe failed; null when it succeeded or none was answered yet.
    const TagFailure* tagFailure(int tag) const;
    // The gateway itself refused the tag at its last subscribe.
    bool tagRejected(int tag) const
    {
        const TagFailure* failure = tagFailure(tag);
        return failure && failure->rejected;
    }
    // Which tags are stale, and each one's limit.
    const TagAgeWatch& ages() const { return m_ages; }
    QualityCounts counts() const { return m_counts; }
    QualityCounts counts(std::size_t group) const;
    std::size_t groupCount() const { return m_groups.size(); }
    GatewayConnection& connection(std::size_t group) const { return *m_groups[group].connection; }
    // The connection a tag (an index into tags()) is subscribed through.
    const GatewayConnection& connectionOf(int tag) const
    {
        return *m_groups[std::size_t(m_placeOf[std::size_t(tag)].first)].connection;
    }
    const TagSubscribeGuard* guard(std::size_t group) const;
    const TagSubscribeGuard* alarmGuard() const { return m_alarmGuard.get(); }
    // Tags of the group that nobody will ever fix: deployed, not Good, no live route, not
    // rejected by the gateway, and nothing in flight or scheduled that would subscribe them.
    int orphanedTags(std::size_t group) const;
    // Deployed tags of the group that show Good while its connection is unresponsive: frozen,
    // a value shown as current that the gateway may have changed long ago (0 while it answers).
    int frozenTags(std::size_t group) const;
    // Whether anything (guard, held or running subscribe, reconnect) will still subscribe.
    bool subscribePending(std::size_t group) const;
    // The same test for one tag (an index into tags()).
    bool tagOrphaned(int tag) const;
    // Tag-subscribe requests sent over the instance's lifetime, across redeploys.
    std::int64_t requestsSent(std::size_t group) const { return m_groups[group].requestsSent; }
    std::int64_t alarmRequestsSent() const { return m_alarmRequestsSent; }

private:
    struct GroupState {
        GatewayConnection* connection = nullptr;
        std::vector<int> tagIndices;
        GatewayConnection::SubscriberId subscriber = 0;
        std::unique_ptr<TagSubscribeGuard> guard;
        std::int64_t requestsSent = 0;
        std::vector<int> lastUsable; // tags made Uncertain (last usable value) while unresponsive
    };

    void deployGroup(std::size_t g);
    void setQuality(int tag, int quality, std::vector<int>& changed);
    void onStale(const std::vector<int>& tags);
    void onData(std::size_t g, const std::vector<TagUpdate>& updates);
    void onQuality(std::size_t g, bool good);
    void onLiveness(std::size_t g, bool responsive);
    void onLost(std::size_t g, const std::vector<int>& indices, const std::string& why);
    void onSubscribeOutcome(std::size_t g, std::uint64_t id, const SubscribeOutcome& outcome);
    GuardTiming tagTimingFor(std::size_t g) const;
    GuardTiming alarmTimingFor() const;
    void log(Severity severity, const std::string& message);

    Scheduler& m_scheduler;
    std::string m_name;
    // Shared with the subscriber of a group that holds every tag, the usual case.
    std::shared_ptr<const std::vector<std::string>> m_tagNames;
    std::vector<TagState> m_tags;
    std::unordered_map<int, TagFailure> m_failures; // by tag: see tagFailure
    QualityCounts m_counts;
    std::vector<GroupState> m_groups;
    std::vector<std::pair<int, int>> m_placeOf; // per tag: its group and index in that group
    bool m_alarms;
    InstanceSettings m_settings;
    std::function<double()> m_jitter;
    InstanceCallbacks m_callbacks;
    bool m_deployed = false;
    std::unique_ptr<TagSubscribeGuard> m_alarmGuard;
    std::int64_t m_alarmRequestsSent = 0;
    std::shared_ptr<int> m_deployment; // replies from an earlier deployment are dropped
    TagAgeWatch m_ages;
};

} // namespace stormwatch
