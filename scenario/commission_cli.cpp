#include "scenario/commission_cli.h"

#include "scenario/commission.h"
#include "scenario/site.h"
#include "scenario/site_live.h"

#include <QTextStream>
#include <cstdio>

namespace stormwatch {

namespace {
constexpr int kOk = 0, kFailure = 1, kBadInput = 2;

QTextStream& out()
{
    static QTextStream s(stdout);
    return s;
}
QTextStream& err()
{
    static QTextStream s(stderr);
    return s;
}

std::optional<Site> load(const QString& file)
{
    QList<ScenarioError> errors;
    auto site = loadSiteFile(file, &errors);
    for (const ScenarioError& e : errors)
        err() << e.toString() << '\n';
    err().flush();
    return site;
}

int validate(const QString& file)
{
    const auto site = load(file);
    if (!site)
        return kBadInput;
    out() << file << ": OK (" << site->gateways.size() << " gateways, " << site->instances.size()
          << " instances, " << site->tagCount() << " tags)\n";
    out().flush();
    return kOk;
}

int commission(const QCommandLineParser& parser, const SiteCliOptions& o)
{
    if (!parser.isSet(o.site) || !parser.isSet(QStringLiteral("report"))) {
        err() << "--commission needs --site FILE and --report DIR\n";
        return kBadInput;
    }
    CommissionOptions options;
    options.variant = parser.value(o.variant);
    bool ok = false;
    options.timeoutS = parser.value(o.timeoutS).toDouble(&ok);
    if (!ok || !(options.timeoutS > 0 && options.timeoutS <= kMaxCommissionTimeoutS)) {
        err() << "--timeout-s " << parser.value(o.timeoutS)
              << ": must be a number > 0 and <= " << kMaxCommissionTimeoutS << '\n';
        return kBadInput;
    }
    QString bad;
    const auto endpoints = parseGatewayEndpoints(parser.values(o.gatewayEndpoint), &bad);
    if (!endpoints) {
        err() << bad << '\n';
        return kBadInput;
    }
    options.endpoints = *endpoints;
    const auto site = load(parser.value(o.site));
    if (!site)
        return kBadInput;
    QString error;
    const auto report = commissionSite(
        *site, options,
        [](const QString& line) {
            err() << line << '\n';
            err().flush();
        },
        &error);
    if (!report) {
        err() << error << '\n';
        return kBadInput;
    }
    const QString dir = parser.value(QStringLiteral("report"));
    if (!writeCommissionReport(*report, dir, &error)) {
        err() << error << '\n';
        return kFailure;
    }
    err() << report->verdict() << '\n' << "report: " << dir << "/report.md\n";
    err().flush();
    return report->allGood() ? kOk : kFailure;
}
} // namespace

void SiteCliOptions::addTo(QCommandLineParser& parser) const
{
    parser.addOptions({site, validateSite, commission, timeoutS, variant, gatewayEndpoint});
}

bool siteCommandRequested(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i) {
        const QByteArray a(argv[i]);
        for (const char* flag : {"--validate-site", "--commission"})
            if (a == flag || a.startsWith(QByteArray(flag) + '='))
                return true;
    }
    return false;
}

namespace {
std::optional<int> siteCommand(const QCommandLineParser& parser, const SiteCliOptions& o);
} // namespace

// The caller may leave without running destructors (a process that used gRPC): what was
// written is flushed first.
std::optional<int> runSiteCommand(const QCommandLineParser& parser, const SiteCliOptions& o)
{
    const std::optional<int> code = siteCommand(parser, o);
    out().flush();
    err().flush();
    return code;
}

namespace {
std::optional<int> siteCommand(const QCommandLineParser& parser, const SiteCliOptions& o)
{
    if (parser.isSet(o.validateSite))
        return validate(parser.value(o.validateSite));
    if (parser.isSet(o.commission))
        return commission(parser, o);
    // Without --headless, --site (and its --gateway-endpoint) opens the console on the site.
    const bool headless = parser.isSet(QStringLiteral("headless"));
    if (parser.isSet(o.site) && headless) {
        err() << "--site with --headless is for --commission (without --headless it opens the "
                 "console)\n";
        err().flush();
        return kBadInput;
    }
    if (parser.isSet(o.gatewayEndpoint) && !parser.isSet(o.site)) {
        err() << "--gateway-endpoint needs --site\n";
        err().flush();
        return kBadInput;
    }
    for (const QCommandLineOption* only : {&o.timeoutS, &o.variant})
        if (parser.isSet(*only)) {
            err() << "--" << only->names().first() << " is for --commission\n";
            err().flush();
            return kBadInput;
        }
    return std::nullopt;
}

} // namespace

} // namespace stormwatch
