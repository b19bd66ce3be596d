#pragma once
// Turns the engine's observer calls into batches for the console: it only remembers what
// changed (subscriptions, tags, connections) and builds plain values when take() is called
// — at most 20 times a second in live mode, once per paced step in virtual playback — so a
// flood of tag updates costs one set insert each, not a signal each. A batch carries at most
// a bounded number of tag changes, oldest first; the rest wait for the next one, so a site's
// deployment (every tag changing at once) never puts all of them in flight together.

#include "client_engine.h"
#include "engine_samples.h"

#include <QSet>
#include <QStringList>
#include <QVector>
#include <map>
#include <string>
#include <string_view>
#include <utility>

namespace stormwatch {

struct EngineBatch {
    QVector<SubscriptionSample> samples;
    QVector<TagChange> tags;
    QVector<LogEntry> logs;
    QVector<ConnectionInfo> connections; // filled only when connectionsChanged
    bool connectionsChanged = false;
    GatewaySample gateway;
    QVector<ConnectionCounters> counters; // every connection, every batch
};

// The tags changed since they were last sent, in the order they first changed: a tag is in it
// once however often it changes, and the oldest leave first, so none waits behind tags that
// keep changing.
class ChangedTags {
public:
    void mark(int instance, int tag);
    std::size_t size() const { return m_order.size() - m_head; }
    // Up to `n` of them, oldest first, no longer marked.
    std::vector<std::pair<int, int>> take(std::size_t n);

private:
    std::vector<std::vector<bool>> m_marked; // per instance, per tag
    std::vector<std::pair<int, int>> m_order;
    std::size_t m_head = 0; // m_order before it is taken
};

class EngineBatcher : public EngineObserver {
public:
    // The default bound on a batch's tag changes: 20 batches a second carry 200,000 changes,
    // twice what 100,000 tags changing every second need, in batches of about 2 MB.
    static constexpr std::size_t kMaxTagsPerBatch = 10000;

    explicit EngineBatcher(const ClientEngine& engine) : m_engine(engine) {}
    // The instance's tag names as the caller already holds them, the engine's names in its
    // order: shared instead of converted again (at a site, a second copy of every name).
    // Ignored unless there is one per tag.
    void shareTagNames(int instance, const QStringList& names);

    // Builds a batch from what changed since the last take(): every subscription, at most
    // `maxTags` tags (the ones that changed first; the rest stay for the next batch).
    EngineBatch take(std::size_t maxTags = kMaxTagsPerBatch);
    // Every subscription and tag, as a first batch for a view that just attached (its tags
    // bounded as take()'s).
    EngineBatch snapshot(std::size_t maxTags = kMaxTagsPerBatch);
    // Tag changes not sent yet.
    std::size_t pendingTags() const { return m_changedTags.size(); }
    // At most `lines` log lines per batch (0 = no cap), so a storm of engine lines cannot
    // flood a view; the lines over the cap are only counted.
    void setMaxLogLines(int lines) { m_maxLogLines = lines; }
    // Lines dropped by the cap since the last call.
    qint64 takeSuppressedLogLines() { return std::exchange(m_suppressedLogLines, 0); }

    void onGuardEvent(const Instance& instance, const GatewayConnection&, const GuardEvent&,
                      bool alarm) override;
    void onTagsChanged(const Instance&, int instance, const std::vector<int>& tags) override;
    void onConnectionState(const GatewayConnection&, ConnectionState) override;
    void onLog(Severity severity, const std::string& subject, const std::string& message) override;

private:
    static qint64 subscriptionKey(int instance, bool alarm)
    {
        return (qint64(instance) << 1) | (alarm ? 1 : 0);
    }
    double seconds() const;
    SubscriptionSample sample(int instance, bool alarm) const;
    TagChange tagChange(int instance, int tag) const;
    QVector<ConnectionInfo> connectionInfos() const;
    GatewaySample gatewaySample() const;
    QVector<ConnectionCounters> connectionCounters() const;
    int orphanedTags(int instance) const;
    // An instance whose orphan count moved has every tag re-sent (their flag changed).
    void recheckOrphans(int instance);

    const ClientEngine& m_engine;
    QSet<qint64> m_dirtySubscriptions;
    ChangedTags m_changedTags;
    QVector<LogEntry> m_logs;
    int m_maxLogLines = 0;
    qint64 m_suppressedLogLines = 0;
    bool m_connectionsDirty = true;
    std::vector<int> m_orphans; // per instance, as last sent
    int m_takes = 0;
    // Names as QStrings, converted once: every change of a tag then shares them (with the tag
    // table's rows too) instead of allocating its instance's and tag's names again.
    const QString& instanceNameOf(int instance) const;
    const QString& tagNameOf(int instance, int tag) const;
    const QString& adviseNameOf(std::string_view kind) const;
    mutable std::vector<QString> m_instanceNames;
    mutable std::vector<QStringList> m_tagNames;
    mutable std::map<std::string, QString, std::less<>> m_adviseNames;
};

} // namespace stormwatch
