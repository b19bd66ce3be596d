#pragma once
// The command line of the watch service (docs/fleet.md; stormwatch_main.cpp wires it):
//   stormwatch --watch SITE.json [--variant PRESET] [--metrics-listen HOST:PORT]
//              [--allow-remote] [--record-dir DIR [--keep-days N]]
//              [--gateway-endpoint NAME=HOST:PORT ...]
// Runs until SIGTERM or SIGINT (every session closed, exit 0); SIGHUP re-reads the site file.
// Prints "metrics on http://HOST:PORT/metrics" on stdout once it serves; its log on stderr.
// Exit 2 on bad input (a site with errors, a bad flag), 1 when it cannot serve.

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <optional>

namespace stormwatch {

struct SiteCliOptions;

struct WatchCliOptions {
    QCommandLineOption watch{
        "watch",
        "Watch a site file's gateways headless until SIGTERM: every instance subscribed "
        "with --variant's levers (default all), Prometheus metrics on --metrics-listen; "
        "SIGHUP re-reads the file.",
        "FILE"};
    QCommandLineOption metricsListen{"metrics-listen",
                                     "--watch: serve /metrics here (default 127.0.0.1:9464; "
                                     "port 0 takes a free one).",
                                     "HOST:PORT", "127.0.0.1:9464"};
    QCommandLineOption allowRemote{"allow-remote",
                                   "--watch: serve metrics on an address other than loopback."};
    QCommandLineOption recordDir{
        "record-dir",
        "--watch: record to DIR, a file a day (SITE-DATE.sqlite), each openable in the "
        "console.",
        "DIR"};
    QCommandLineOption keepDays{"keep-days",
                                "--watch --record-dir: remove recordings older than N days "
                                "(default 7).",
                                "N", "7"};

    void addTo(QCommandLineParser& parser) const
    {
        parser.addOptions({watch, metricsListen, allowRemote, recordDir, keepDays});
    }
};

bool watchCommandRequested(int argc, char** argv);

// The exit code when the command line asks for the watch service (after it ran), else nullopt.
std::optional<int> runWatchCommand(const QCommandLineParser& parser, const WatchCliOptions& options,
                                   const SiteCliOptions& site);

} // namespace stormwatch
