#pragma once
// Turns the engine's observer calls into batches for the console: it only remembers what
// changed (subscriptions, tags, connections) and builds plain values when take() is called
// — at most 20 times a second in live mode, once per paced step in virtual playback — so a
// flood of tag updates costs one set insert each, not a signal each.

#include "client_engine.h"
#include "engine_samples.h"

#include <QSet>
#include <QVector>
#include <map>
#include <string>
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

class EngineBatcher : public EngineObserver {
public:
    explicit EngineBatcher(const ClientEngine& engine) : m_engine(engine) {}

    // Builds a batch from everything that changed since the last take().
    EngineBatch take();
    // Every subscription and tag, as a first batch for a view that just attached.
    EngineBatch snapshot();
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
    QSet<qint64> m_dirtyTags;
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
    const QString& adviseNameOf(const std::string& kind) const;
    mutable std::vector<QString> m_instanceNames;
    mutable std::vector<std::vector<QString>> m_tagNames;
    mutable std::map<std::string, QString, std::less<>> m_adviseNames;
};

} // namespace stormwatch
