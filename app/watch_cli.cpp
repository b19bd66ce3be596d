#include "app/watch_cli.h"

#include "app/cli_streams.h"
#include "client/unix_signals.h"
#include "scenario/commission_cli.h"
#include "scenario/site_live.h"
#include "watch/watch_service.h"

#include <QCoreApplication>
#include <QDateTime>
#include <csignal>

namespace stormwatch {

using cli::err;
using cli::out;

namespace {
constexpr int kOk = 0, kFailure = 1, kBadInput = 2;

int badInput(const QString& why)
{
    err() << why << '\n';
    err().flush();
    return kBadInput;
}
} // namespace

bool watchCommandRequested(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i) {
        const QByteArray a(argv[i]);
        if (a == "--watch" || a.startsWith("--watch="))
            return true;
    }
    return false;
}

std::optional<int> runWatchCommand(const QCommandLineParser& parser, const WatchCliOptions& o,
                                   const SiteCliOptions& site)
{
    if (!parser.isSet(o.watch)) {
        for (const QCommandLineOption* only :
             {&o.metricsListen, &o.allowRemote, &o.recordDir, &o.keepDays})
            if (parser.isSet(*only))
                return badInput("--" + only->names().first() + " is for --watch");
        return std::nullopt;
    }
    for (const QCommandLineOption* other : {&site.site, &site.commission, &site.timeoutS})
        if (parser.isSet(*other))
            return badInput("--" + other->names().first() +
                            " is not for --watch (the file of --watch is the site)");
    if (parser.isSet(o.keepDays) && !parser.isSet(o.recordDir))
        return badInput(QStringLiteral("--keep-days is for --record-dir"));

    WatchOptions options;
    options.siteFile = parser.value(o.watch);
    if (parser.isSet(site.variant))
        options.variant = parser.value(site.variant);
    options.metricsListen = parser.value(o.metricsListen);
    options.allowRemote = parser.isSet(o.allowRemote);
    options.recordDir = parser.value(o.recordDir);
    bool ok = false;
    options.keepDays = parser.value(o.keepDays).toInt(&ok);
    if (!ok || options.keepDays < 1 || options.keepDays > kMaxKeepDays)
        return badInput(QStringLiteral("--keep-days %1: must be a whole number from 1 to %2")
                            .arg(parser.value(o.keepDays))
                            .arg(kMaxKeepDays));
    QString bad;
    const auto endpoints = parseGatewayEndpoints(parser.values(site.gatewayEndpoint), &bad);
    if (!endpoints)
        return badInput(bad);
    options.endpoints = *endpoints;
    // Checked before anything starts: a wrong address is bad input, not a failure to serve.
    if (!WatchService::bindAddress(options.metricsListen, options.allowRemote, &bad))
        return badInput(bad);

    WatchService service(options);
    QObject::connect(&service, &WatchService::line, [](const QString& line) {
        err() << QDateTime::currentDateTime().toString(Qt::ISODateWithMs) << ' ' << line << '\n';
        err().flush();
    });
    UnixSignals unixSignals{SIGTERM, SIGINT, SIGHUP};
    QObject::connect(&unixSignals, &UnixSignals::received, &service, [&service](int signal) {
        if (signal == SIGHUP) {
            service.reload();
            return;
        }
        emit service.line(QStringLiteral("stopping: closing every gateway session"));
        service.stop();
        QCoreApplication::exit(kOk);
    });
    QString error;
    bool badStart = false;
    if (!service.start(&error, &badStart)) {
        err() << error << '\n';
        err().flush();
        return badStart ? kBadInput : kFailure;
    }
    const QString host = options.metricsListen.left(options.metricsListen.lastIndexOf(':'));
    out() << "metrics on http://" << host << ':' << service.metricsPort() << "/metrics\n";
    out().flush();
    return QCoreApplication::exec();
}

} // namespace stormwatch
