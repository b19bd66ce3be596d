// The watch loop's memory over hours: the example site (two gateways, 1,000 tags) watched as
// `stormwatch --watch` does — the open-ended run on the run host, levers `all`, FleetMetrics
// following every step — but in virtual time on the in-process gateways, as fast as the
// machine goes, with each gateway killed for 30 s once an hour. Every virtual 10 minutes the
// metrics are serialized as a scrape would (so the exporter's path runs too) and VmRSS is
// printed. Target: RSS flat within 10 % after the first 10 minutes.
//
//   bench_watch_soak [--hours H] [--site FILE]   (default: the tree's example site)

#include "scenario/run_host.h"
#include "scenario/site_live.h"
#include "watch/fleet_metrics.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QLoggingCategory>
#include <cstdio>

using namespace stormwatch;

namespace {

double rssMb()
{
    QFile f(QStringLiteral("/proc/self/status"));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray& line : f.readAll().split('\n'))
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').value(0).toDouble() / 1024.0;
    return -1;
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QLoggingCategory::setFilterRules(QStringLiteral("stormwatch.*=false"));
    double hours = 4;
    // The bench sits in <tree>/build/tests/bench; the tree's example site is the default.
    QString siteFile =
        app.applicationDirPath() + QStringLiteral("/../../../resources/sites/example-site.json");
    const QStringList args = app.arguments();
    for (qsizetype i = 1; i + 1 < args.size(); i += 2) {
        if (args[i] == QLatin1String("--hours"))
            hours = args[i + 1].toDouble();
        else if (args[i] == QLatin1String("--site"))
            siteFile = args[i + 1];
    }
    QList<ScenarioError> errors;
    const auto site = loadSiteFile(siteFile, &errors);
    if (!site || !(hours > 0)) {
        for (const ScenarioError& e : errors)
            std::fprintf(stderr, "%s\n", qPrintable(e.toString()));
        std::fprintf(stderr, "usage: bench_watch_soak [--hours H > 0] [--site FILE]\n");
        return 2;
    }
    QString error;
    Scenario scenario = RunHost::openEndedLive(siteScenario(*site), *leverPreset("all", &error));
    for (int h = 0; h < int(hours) + 1; ++h)
        for (const SiteGateway& g : site->gateways) {
            TimelineEvent kill;
            kill.atS = h * 3600.0 + 1800;
            kill.action = TimelineAction::KillGateway;
            kill.downtimeS = 30;
            kill.gateway = g.name;
            scenario.timeline.push_back(kill);
        }

    auto metrics = std::make_shared<FleetMetrics>(QStringLiteral("bench"), 0);
    metrics->setRun(scenario);
    RunHost host;
    FleetMetrics::follow(metrics, host, &app);
    std::printf("bench_watch_soak: %s, %lld tags, levers all, a kill of each gateway (30 s) "
                "every hour, %.1f virtual hours\n",
                qPrintable(site->name), static_cast<long long>(site->tagCount()), hours);
    std::printf("  %10s %9s %9s %12s\n", "virtual_min", "wall_s", "rss_mb", "scrape_bytes");
    QElapsedTimer wall;
    wall.start();
    double nextMark = 0;
    double rssAt10 = -1, rssMax = 0;
    QObject::connect(&host, &RunHost::progress, &app, [&](double virtualS, double) {
        if (virtualS < nextMark)
            return;
        nextMark += 600;
        const std::size_t scrape = metrics->text().size();
        const double rss = rssMb();
        if (virtualS >= 600 && rssAt10 < 0)
            rssAt10 = rss;
        if (virtualS >= 600)
            rssMax = std::max(rssMax, rss);
        std::printf("  %10.0f %9.1f %9.1f %12zu\n", virtualS / 60, double(wall.elapsed()) / 1000,
                    rss, scrape);
        std::fflush(stdout);
        if (virtualS >= hours * 3600)
            QCoreApplication::quit();
    });
    if (!host.start(scenario, QStringLiteral("live"), RunHost::kMaxSpeed, &error)) {
        std::fprintf(stderr, "bench_watch_soak: %s\n", qPrintable(error));
        return 1;
    }
    app.exec();
    host.stop();
    std::printf("RSS at 10 min %.1f MB, highest after it %.1f MB: %+.1f %% (target within 10 %%)\n",
                rssAt10, rssMax, rssAt10 > 0 ? (rssMax / rssAt10 - 1) * 100 : 0.0);
    return 0;
}
