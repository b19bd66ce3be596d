#pragma once

// The command line of site files (docs/sites.md), kept beside the code it drives so
// app/stormwatch_main.cpp only registers and dispatches:
//   stormwatch --validate-site FILE
//   stormwatch --site FILE [--gateway-endpoint NAME=HOST:PORT ...]   (the console, app/console.cpp)
//   stormwatch --headless --site FILE --commission --report DIR [--timeout-s N]
//              [--variant PRESET] [--gateway-endpoint NAME=HOST:PORT ...]
// (The value is named SPEC in --help: a longer name would widen --help's option column.)
// Exit codes: 0 every tag Good (or the file is valid), 1 not every tag Good or a report
// that cannot be written, 2 bad input.

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <optional>

namespace stormwatch {

struct SiteCliOptions {
    QCommandLineOption site{
        "site",
        "A site file (docs/sites.md): the console opens live on its gateways and real tags.",
        "FILE"};
    QCommandLineOption validateSite{
        "validate-site", "Check a site file (and its tag CSV) and exit (2 when it has errors).",
        "FILE"};
    QCommandLineOption commission{
        "commission",
        "With --headless --site and --report DIR: subscribe every tag of the site and "
        "write report.json/csv/md; exit 0 when every tag is Good, 1 otherwise."};
    QCommandLineOption timeoutS{
        "timeout-s", "--commission: seconds to wait for every tag (default 60).", "N", "60"};
    QCommandLineOption variant{"variant",
                               "--commission, --watch: the lever preset (default lever1+2 to "
                               "commission, all to watch).",
                               "PRESET", "lever1+2"};
    QCommandLineOption gatewayEndpoint{
        "gateway-endpoint",
        "--site, --watch: SPEC is NAME=HOST:PORT: reach the site's gateway NAME at "
        "HOST:PORT instead of its endpoint (repeatable).",
        "SPEC"};
    void addTo(QCommandLineParser& parser) const;
};

// Before the application exists: a site command runs without the window.
bool siteCommandRequested(int argc, char** argv);

// The exit code when the command line asks for a site command, else nullopt.
std::optional<int> runSiteCommand(const QCommandLineParser& parser, const SiteCliOptions& options);

} // namespace stormwatch
