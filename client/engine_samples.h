#pragma once
// What the engine reports to the console, as plain values that cross threads in batches.

#include <QDateTime>
#include <QMetaType>
#include <QPointF>
#include <QString>
#include <QStringList>
#include <QVector>
#include <limits>

namespace stormwatch {

// Per subscription (instance × connection, or an instance's alarm subscription).
struct SubscriptionSample {
    double tS = 0; // scheduler time, seconds
    int instance = -1;
    int group = 0;
    bool alarm = false;
    QString instanceName;
    QString connection;
    int outstanding = 0;
    double intervalMs = 0;
    int good = 0;
    int uncertain = 0;
    int bad = 0;
    int stale = 0; // of the Good ones: older than their kind allows
    qint64 requestsSent = 0;
    bool confirmed = false;
    double ceilingMs = 0; // the effective in-flight ceiling (follows the session's timeout)
    int orphaned = 0;     // tags nobody will ever re-subscribe (see Instance::orphanedTags)
    int frozen = 0;       // Good while the connection is unresponsive (see Instance::frozenTags)
    double maxIntervalMs = 0; // the guard's longest retry interval under the current levers
};

struct TagChange {
    int instance = -1;
    int tag = -1;
    QString instanceName;
    QString tagName;
    double value = 0;
    QString text;
    int quality = 0;
    qint64 sourceTimestampUs = 0;
    int itemHandle = 0;
    QString error;
    bool orphaned = false; // not Good, no live item, nothing in flight, no retry scheduled
    QString advise; // the advise registered for its live item (GatewayConnection::adviseKind); ""
                    // without one
    bool rejected =
        false; // the gateway answered and refused the item (a per-item error), not a failed call
    qint64 receivedUs = -1; // scheduler time its last value arrived (-1: none yet)
    bool stale = false;     // no update for longer than its kind allows
    double staleAfterS = 0; // that limit (0: none, the tag sends on change only)
};

// "Failed to add": refused by the gateway itself and not Good since. A call that failed
// (a timeout, the gateway unreachable) is not: the client retries it. The tag table's
// filter and the commissioning report's failed tags both count this one definition.
inline bool failedToAdd(bool rejected, int quality)
{
    return rejected && (quality & 0xC0) != 0xC0; // OPC: the top two bits 11 are Good
}

struct LogEntry {
    double tS = 0;
    QDateTime wall;
    int severity = 1; // stormwatch::Severity
    QString subject;
    QString message;
};

struct ConnectionInfo {
    QString name;
    QString state; // "connected", "connecting", "reconnecting", "unreachable", "refused", "stopped"
    QString error; // why the last attempt or session failed ("" when none did)
    double retryInS = -1; // seconds until the next attempt, when waiting; else -1
    QString address;
    QString sessionId;
    QStringList capabilities;
    int protocolVersion = 0;
    double echoedCommandTimeoutS = -1; // -1: not echoed yet
    // Lever 1's in-flight ceiling on this connection: max(TagSubscribeInFlightCeilingMs,
    // echoed timeout + TagSubscribeInFlightCeilingMarginMs); -1 when no guard uses it.
    double inFlightCeilingS = -1;
    bool supportsSupervisoryBulk = false;
};

// One connection's running totals, sent every step: what a long-running watch exports. They
// only grow while the run lasts.
struct ConnectionCounters {
    QString connection;
    QString gateway; // the gateway it reaches ("": the run's only one)
    qint64 invokes = 0;
    qint64 deadlineExceeded = 0;
    qint64 suppressedCalls = 0;
    qint64 throttledRetries = 0;
    qint64 eventsReceived = 0; // data changes
    qint64 eventsLost = 0;
    qint64 sessionRestarts = 0; // sessions opened after the first
    QString recoveryState;      // its gateway's recovery gate: "normal", "recovering", "closed"
    // Invoke round trips the gateway answered: per bucket of CommandLatency::kBoundsS (the
    // last above them all), not cumulative; their sum and count.
    QVector<qint64> latencyCounts;
    double latencySumS = 0;
    qint64 latencyCount = 0;
};

// Client-side view of the gateway, for live runs against a gateway without mock control.
struct GatewaySample {
    double tS = 0;
    qint64 invokes = 0;
    qint64 deadlineExceeded = 0;
    qint64 suppressedCalls = 0;
    QString recoveryState; // "normal", "recovering", "closed"
};

// New points of one series a run recorded (the runner's metrics recorder, scenario/series.h):
// what a view appends, so the plots show exactly what the report is made of. Names are
// the series names the reports use; times are run times in seconds.
struct SeriesUpdate {
    int instance = -1; // the subscription's instance; -1: the gateway
    // "Z28061 × gw1" (subscriptions); a gateway's: "" for the run's (every gateway's
    // together), "gateway:NAME" for one gateway's own (a run on several gateways).
    QString label;
    QString metric;          // "outstanding", "interval_ms", "sta_queue_depth", ...
    QVector<QPointF> points; // in time order; the first may restate the last one sent
};

// What a recorded series' subject names, and the label its SeriesUpdate carries: the one
// mapping between the runner's subjects (scenario/series.h: "gateway", "gateway:NAME",
// "<instance>/<connection>") and the plots' labels, used by the run host, the report PNGs,
// the recordings, the series store and the compare view alike.
struct SeriesSubject {
    enum class Kind {
        RunGateway,   // "gateway": the run's (every gateway's together); label ""
        Gateway,      // "gateway:NAME": one gateway's own (a run on several); label = subject
        Subscription, // "inst/conn": label "inst × conn"
    };
    Kind kind = Kind::RunGateway;
    QString gateway;    // Gateway: its NAME
    QString instance;   // Subscription: its instance
    QString connection; // Subscription: the connection it subscribes through ("" if none)
    QString label;      // SeriesUpdate::label

    bool isGateway() const { return kind != Kind::Subscription; }

    static QString gatewayPrefix() { return QStringLiteral("gateway:"); }
    // The subjects and labels, made only here: "gateway" (name "") or "gateway:NAME";
    // "inst/conn" and its label "inst × conn".
    static QString gatewaySubject(const QString& name = {})
    {
        return name.isEmpty() ? QStringLiteral("gateway") : gatewayPrefix() + name;
    }
    static QString subscriptionSubject(const QString& instance, const QString& connection)
    {
        return instance + QLatin1Char('/') + connection;
    }
    static QString subscriptionLabel(const QString& instance, const QString& connection)
    {
        return connection.isEmpty() ? instance : instance + QStringLiteral(" × ") + connection;
    }

    static SeriesSubject of(const QString& subject)
    {
        SeriesSubject s;
        if (subject == QLatin1String("gateway"))
            return s;
        if (subject.startsWith(gatewayPrefix())) {
            s.kind = Kind::Gateway;
            s.gateway = subject.mid(gatewayPrefix().size());
            s.label = subject;
            return s;
        }
        s.kind = Kind::Subscription;
        const qsizetype slash = subject.indexOf(QLatin1Char('/'));
        s.instance = subject.left(slash);
        s.connection = slash < 0 ? QString() : subject.mid(slash + 1);
        s.label = subscriptionLabel(s.instance, s.connection);
        return s;
    }

    // The subject back from an update (a reopened recording): instance < 0 is a gateway's.
    static QString subjectOf(const SeriesUpdate& u)
    {
        if (u.instance < 0)
            return u.label.isEmpty() ? QStringLiteral("gateway") : u.label;
        QString subject = u.label;
        subject.replace(QStringLiteral(" × "), QStringLiteral("/"));
        return subject;
    }

    // The gateway a gateway update's label names: "" (or "gateway") for the run's sum,
    // "gateway:NAME" (or a bare NAME) for that gateway's own.
    static QString gatewayOfLabel(const QString& label)
    {
        if (label.startsWith(gatewayPrefix()))
            return label.mid(gatewayPrefix().size());
        return label == QLatin1String("gateway") ? QString() : label;
    }
};

// One point of the gateway plots: the client's view, with the gateway's own counters (STA
// queue, Invokes received) when the gateway exposes them.
struct GatewayPoint {
    QString gateway; // "": the run's (every gateway's together); else that gateway's own
    double tS = 0;
    double staQueueDepth = std::numeric_limits<double>::quiet_NaN(); // unknown on a real gateway
    qint64 invokesTotal = 0;
    qint64 deadlineExceededTotal = 0;
    qint64 suppressedTotal = 0;
    int recoveryState = 0;

    // "recovering" 1, "closed" 2, else 0
    static int recoveryStateCode(const QString& name)
    {
        if (name == QLatin1String("recovering"))
            return 1;
        if (name == QLatin1String("closed"))
            return 2;
        return 0;
    }
    // The client-side view alone (no STA queue depth).
    static GatewayPoint fromSample(const GatewaySample& s)
    {
        GatewayPoint p;
        p.tS = s.tS;
        p.invokesTotal = s.invokes;
        p.deadlineExceededTotal = s.deadlineExceeded;
        p.suppressedTotal = s.suppressedCalls;
        p.recoveryState = recoveryStateCode(s.recoveryState);
        return p;
    }
};

} // namespace stormwatch

Q_DECLARE_METATYPE(stormwatch::SubscriptionSample)
Q_DECLARE_METATYPE(stormwatch::TagChange)
Q_DECLARE_METATYPE(stormwatch::LogEntry)
Q_DECLARE_METATYPE(stormwatch::ConnectionInfo)
Q_DECLARE_METATYPE(stormwatch::ConnectionCounters)
Q_DECLARE_METATYPE(stormwatch::GatewaySample)
Q_DECLARE_METATYPE(stormwatch::GatewayPoint)
Q_DECLARE_METATYPE(stormwatch::SeriesUpdate)
