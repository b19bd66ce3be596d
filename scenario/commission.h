#pragma once

// Commissioning a site: connect every gateway of a site file, subscribe every instance's
// real tags with the chosen levers, wait until every tag is Good or rejected by its
// gateway (or a timeout), and report per gateway, instance and tag (report.json, .csv,
// .md). The client is the one ClientEngine, with one GrpcGatewayPort per gateway
// (docs/sites.md says why), on a QtScheduler of the calling thread.

#include "scenario/site.h"

#include <QString>
#include <QStringList>
#include <functional>
#include <map>
#include <optional>
#include <vector>

namespace stormwatch {

struct CommissionOptions {
    QString variant = QStringLiteral("lever1+2"); // a lever preset name
    double timeoutS = 60;
    std::map<QString, QString> endpoints; // gateway name -> host:port, over the site's own
};
inline constexpr double kMaxCommissionTimeoutS = 86400;

enum class TagOutcome { Good, Failed, NoValue };
const char* toString(TagOutcome outcome); // "good", "failed", "no_value"

struct CommissionTag {
    QString gateway, instance, address, kind;
    TagOutcome outcome = TagOutcome::NoValue;
    QString reason; // the gateway's per-item error (escaped), or why it is not Good
    std::optional<double> firstValueS; // since the run started
    int quality = 0;
    double value = 0;
};

// Time to first value over the tags that got one (seconds); nullopt when none did.
struct FirstValueStats {
    std::optional<double> p50, p95, max;
};

struct CommissionCounts {
    int tags = 0, good = 0, failed = 0, noValue = 0;
    FirstValueStats firstValue;
};

struct CommissionInstance {
    QString name, gateway;
    CommissionCounts counts;
};

struct CommissionGateway {
    QString name, endpoint;
    QString state;     // the connection's state at the end ("connected", "unreachable", ...)
    QString lastError; // why its last session attempt failed, escaped ("" when none did)
    QStringList capabilities;
    std::optional<double> echoedTimeoutS; // the session timeout the gateway echoed
    QString adviseKind;       // what the client registered: "supervisory (SubscribeBulk)", ...
    qint64 subscribeRpcs = 0; // add_item_bulk, subscribe_bulk and advise Invokes
    qint64 invokes = 0;
    CommissionCounts counts;
};

struct CommissionReport {
    QString site, siteFile, variant;
    double timeoutS = 0;
    double durationS = 0;
    bool timedOut = false;
    QList<CommissionGateway> gateways;
    QList<CommissionInstance> instances;
    QList<CommissionTag> tags; // in site order
    CommissionCounts counts;
    bool allGood() const { return counts.tags > 0 && counts.good == counts.tags; }
    QString verdict() const; // one line: "PASS: ..." or "FAIL: ..."
};

// Percentiles of `seconds` (nearest rank); empty input gives nullopts.
FirstValueStats firstValueStats(std::vector<double> seconds);

// Runs the commissioning on the calling thread's event loop (it spins one until done).
// `progress` gets a line about once a second. On a setup error (an unknown lever preset, an
// endpoint override naming no gateway) returns nullopt with `error` set.
std::optional<CommissionReport> commissionSite(const Site& site, const CommissionOptions& options,
                                               const std::function<void(const QString&)>& progress,
                                               QString* error);

// report.json, report.csv (one row per tag) and report.md into `dir` (created). False with
// `error` when a file cannot be written.
bool writeCommissionReport(const CommissionReport& report, const QString& dir, QString* error);
QByteArray commissionJson(const CommissionReport& report);
QByteArray commissionCsv(const CommissionReport& report);
QByteArray commissionMarkdown(const CommissionReport& report);

} // namespace stormwatch
