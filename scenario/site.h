#pragma once

// A site: the real gateways a bridge reaches and the instances with their real tag
// addresses (inline, or from a CSV exported by the engineers' configuration tools), plus
// the bridge's client options. Parsed and validated by loadSiteFile (site_parser.cpp) in
// the scenarios' error style; this header is plain data. docs/sites.md is the format.

#include "scenario/scenario_parser.h"

#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>
#include <optional>

namespace stormwatch {

// The bounds a site file is held to (docs/sites.md lists them).
namespace site_limits {
inline constexpr qsizetype kMaxGateways = 64;
inline constexpr qsizetype kMaxInstances = 50000;
inline constexpr qsizetype kMaxTagsPerInstance = 10000; // as a scenario's `tags`
inline constexpr qsizetype kMaxTags = 1'000'000;        // over the whole site
inline constexpr qsizetype kMaxTagAddressLength = 256;
inline constexpr qsizetype kMaxKindLength = 32;
inline constexpr qsizetype kMaxPathLength = 4096;    // TLS, token and CSV file names
inline constexpr qsizetype kMaxEndpointLength = 300; // a DNS name (253) and a port
// keepalive_s, keepalive_timeout_s: gRPC answers pings no more often than every 0.1 s.
inline constexpr NumberRange kKeepaliveS{0.1, 3600, false, "s"};
} // namespace site_limits

struct SiteGateway {
    QString name;
    QString endpoint; // "host:port"
    bool tls = false; // a "tls" block: a TLS channel (an empty CA trusts the system roots)
    // Absolute paths (the file's relative ones resolved against the site file); empty: unset.
    QString tlsCa, tlsCert, tlsKey, tokenFile;
    QString contractFile; // "contract": the gateway's .proto or .protoset; empty = stormwatch's own
    qint64 writeUserId = 0; // 0 = supervisory advise
    // HTTP/2 keepalive (GrpcPortOptions): ping after this long without a frame, unresponsive
    // when the ack takes longer than the timeout; 0 = the port's default.
    double keepaliveS = 0, keepaliveTimeoutS = 0;
    bool operator==(const SiteGateway&) const = default;
};

struct SiteTag {
    QString address;
    QString kind; // free label from the CSV's third column ("analog", "discrete", ...), or empty
    bool operator==(const SiteTag&) const = default;
};

struct SiteInstance {
    QString name;
    QString gateway;
    bool alarms = false;
    QList<SiteTag> tags; // inline ones first, then the CSV's rows in file order
    bool operator==(const SiteInstance&) const = default;
};

struct Site {
    QString name;
    QString description;
    QString file;        // the site file as given
    QString tagsCsv;     // the CSV's absolute path, or empty
    QJsonObject options; // client options, as in a scenario (checked by optionsFromJson)
    // How often a tag of each kind is expected to change (seconds, by CSV kind); a Good tag is
    // stale once staleFactor times that passed without an update. Kinds not listed: never stale.
    QMap<QString, double> expectedUpdateS;
    double staleFactor = 5;
    QList<SiteGateway> gateways;
    QList<SiteInstance> instances;
    qsizetype tagCount() const;
    const SiteGateway* gateway(const QString& name) const;
    bool operator==(const Site&) const = default;
};

// Parses and validates `json` as the site file `fileName` (relative paths resolve against
// its folder); on any error returns nullopt and appends every error found: "file: $.path:
// rule"; a CSV row's error is "file: $.tags_csv: file.csv:LINE: rule".
std::optional<Site> parseSite(const QByteArray& json, const QString& fileName,
                              QList<ScenarioError>* errors);
std::optional<Site> loadSiteFile(const QString& path, QList<ScenarioError>* errors);

// A tag address's rule (1 … 256 characters, no control characters, no blanks around it);
// empty when valid. Shared with a scenario's "tag_addresses".
QString checkTagAddress(const QString& address);

// "host:port" with a non-empty host (a name, IPv4 or [IPv6]) and a port 1..65535; empty when
// valid, else the rule.
QString checkEndpoint(const QString& endpoint);

} // namespace stormwatch
