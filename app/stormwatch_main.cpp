// stormwatch: the console (window) and its headless command line.
//
//   stormwatch --headless --scenario NAME|FILE [--variants a,b] [--seed N] [--json] [--report DIR]
//              [--live [--gateway HOST:PORT [--tls-ca F] [--tls-cert F --tls-key F] [--token-file
//              F [--allow-insecure-token]]]]
//   stormwatch --list-scenarios
//   stormwatch --validate-scenario FILE
//   stormwatch --recording-info FILE | --export-skeleton FILE [--run N]
//   stormwatch --check-contract FILE [--profile NAME]   (exit 0 usable, 1 with limits, 2 not
//   usable)
//   stormwatch --watch SITE.json [--metrics-listen HOST:PORT] ...   (docs/fleet.md)
//   (--record FILE: a headless run, or the console's runs, recorded; docs/recordings.md)
//
// Exit codes: 0 ok, 1 runtime failure (also: a live run's connection to --gateway never
// opened a session, the cause named in one line), 2 bad input (the message names the problem).

#ifdef STORMWATCH_CONSOLE
#include "app/console.h"
#include "scenario/run_host.h"
#include "ui/report_png.h"

#include <QApplication>
#endif
#include "app/cli_streams.h"
#include "app/contract_cli.h"
#include "app/recording_cli.h"
#include "app/watch_cli.h"
#include "client/qt_scheduler.h"
#include "proto/grpc_lifetime.h"
#include "recording/record_scenario.h"
#include "scenario/commission_cli.h"
#include "scenario/process_memory.h"
#include "scenario/report.h"
#include "scenario/report_writers.h"
#include "scenario/scenario_parser.h"
#include "scenario/scenario_runner.h"
#include "scenario/site_live.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QEventLoop>
#include <QFileInfo>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QMap>
#include <QTextStream>
#include <QTimer>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <grpc/grpc.h>
#include <grpc/support/log.h>
#include <memory>
#include <optional>
#include <unistd.h>

using namespace stormwatch;

namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitBadInput = 2;

using cli::err;
using cli::out;

struct Options {
    QCommandLineOption headless{"headless",
                                "Run a scenario without the window and print its report."};
    QCommandLineOption scenario{
        "scenario", "Scenario to run: a bundled name (see --list-scenarios) or a JSON file.",
        "NAME|FILE"};
    QCommandLineOption variants{
        "variants",
        "Comma-separated variants to run, in this order (default: all of the "
        "scenario's variants, in file order).",
        "a,b"};
    QCommandLineOption seed{"seed", "Seed for the run (default: the scenario's seed).", "N"};
    QCommandLineOption json{"json", "Print the report as JSON instead of a table."};
    QCommandLineOption report{
        "report",
#ifdef STORMWATCH_CONSOLE
        "Also write report.json, report.csv, report.md and a PNG of the plots "
        "per variant (<variant>.png) into DIR.",
#else
        "Also write report.json, report.csv and report.md into DIR.",
#endif
        "DIR"};
    QCommandLineOption progress{
        "progress", "Show a progress bar on stderr (default: only when stderr is a terminal)."};
    QCommandLineOption verbose{
        "verbose", "Log the client's, the mock gateway's and gRPC's messages to stderr."};
    QCommandLineOption listScenarios{"list-scenarios", "List the bundled scenarios and exit."};
    QCommandLineOption validateScenario{
        "validate-scenario",
        "Check a scenario file, print every error (file: path: rule) "
        "and exit (2 when it has errors).",
        "FILE"};
    QCommandLineOption live{"live",
                            "Run in real time over gRPC instead of in virtual time: against an "
                            "embedded mock gateway on 127.0.0.1 (each variant gets its own), or "
                            "against --gateway. Implies --headless; progress is shown on stderr."};
    QCommandLineOption gateway{
        "gateway",
        "Gateway address for --live or the console window (default: an "
        "embedded mock gateway on 127.0.0.1, a free port). Fault actions need "
        "its MockGatewayControl service; without it they are skipped and listed "
        "in the report (--live) or disabled (console).",
        "HOST:PORT"};
    QCommandLineOption tlsCa{"tls-ca", "TLS to --gateway, trusting this CA (PEM).", "FILE"};
    QCommandLineOption tlsCert{
        "tls-cert", "Client certificate for TLS to --gateway (PEM; with --tls-key).", "FILE"};
    QCommandLineOption tlsKey{"tls-key", "Client key for TLS to --gateway (PEM; with --tls-cert).",
                              "FILE"};
    QCommandLineOption tokenFile{
        "token-file",
        "Bearer token for --gateway, read from FILE (never shown). Needs TLS (--tls-ca) "
        "unless --allow-insecure-token is given.",
        "FILE"};
    QCommandLineOption gatewayContract{"gateway-contract",
                                       "The contract of --gateway (its .proto or .protoset, e.g. a "
                                       "site's mxaccess_gateway.proto): "
                                       "checked before the first command; one that does not check "
                                       "gets none (see --check-contract). "
                                       "Default: read from the gateway's gRPC server reflection "
                                       "and checked the same (stormwatch's own "
                                       "contract when it serves none).",
                                       "FILE"};
    QCommandLineOption keepaliveS{"keepalive-s",
                                  "HTTP/2 keepalive to --gateway: a ping after SECONDS without a "
                                  "frame from it (default 10). A gateway "
                                  "that does not acknowledge one within --keepalive-timeout-s is "
                                  "unresponsive: its tags show their last "
                                  "usable values (Uncertain) until it answers again.",
                                  "SECONDS"};
    QCommandLineOption keepaliveTimeoutS{
        "keepalive-timeout-s",
        "How long --gateway has to acknowledge a keepalive ping (default 5).", "SECONDS"};
    QCommandLineOption allowInsecureToken{"allow-insecure-token",
                                          "Send --token-file's bearer token without TLS, in clear "
                                          "text: only over a network you trust "
                                          "(an SSH tunnel, a gateway on this machine)."};
    // Recordings (docs/recordings.md).
    QCommandLineOption record{
        "record",
        "Record to FILE (SQLite, replaced if it exists): headless, every variant "
        "run is a run of the file; the console records its live run and every "
        "playback.",
        "FILE"};
    QCommandLineOption recordingInfo{"recording-info", "List the runs of a recording and exit.",
                                     "FILE"};
    QCommandLineOption exportSkeleton{"export-skeleton",
                                      "Print a run of a recording (--run N, default the last) as a "
                                      "scenario file skeleton and exit.",
                                      "FILE"};
    QCommandLineOption run{"run", "The run of --export-skeleton (see --recording-info).", "N"};
    QCommandLineOption openRecording{
        "open-recording",
        "Open the console on a recording's last run, read-only (Back to "
        "live starts the live run).",
        "FILE"};
    // The console window's own options.
    QCommandLineOption levers{
        "levers",
        "Console: lever preset the live client starts with: levers-off, lever1, "
        "lever1+2, all (default: the last one used).",
        "PRESET"};
    QCommandLineOption settings{
        "settings", "Console: settings file to use instead of the user's (INI).", "FILE"};
    QCommandLineOption play{
        "play", "Console: play this variant of the demo scenario (--scenario) at start.",
        "VARIANT"};
    QCommandLineOption speed{
        "speed",
        "Console: speed of --play: 1, 10, 60, max (virtual time) or live (over "
        "gRPC, in real time) (default 10).",
        "SPEED", "10"};
    QCommandLineOption screenshot{
        "screenshot", "Console: save the window as a PNG after --screenshot-after-s and quit.",
        "FILE"};
    QCommandLineOption screenshotAfter{"screenshot-after-s",
                                       "Console: seconds before --screenshot is taken (default 5).",
                                       "N", "5"};

    void addTo(QCommandLineParser& parser) const
    {
        parser.setApplicationDescription(
            "stormwatch: watch the guarded subscribe client against an MXAccess gateway, and "
            "replay scenarios that compare the protective levers.");
        parser.addHelpOption();
        parser.addVersionOption();
        parser.addOptions({headless,
                           scenario,
                           variants,
                           seed,
                           json,
                           report,
                           progress,
                           verbose,
                           listScenarios,
                           validateScenario,
                           live,
                           gateway,
                           tlsCa,
                           tlsCert,
                           tlsKey,
                           tokenFile,
                           gatewayContract,
                           keepaliveS,
                           keepaliveTimeoutS,
                           allowInsecureToken,
                           levers,
                           settings,
                           play,
                           speed,
                           screenshot,
                           screenshotAfter,
                           record,
                           recordingInfo,
                           exportSkeleton,
                           run,
                           openRecording});
    }
};

// Before the application object exists: is this a run without the window?
bool headlessRequested(int argc, char** argv)
{
    if (siteCommandRequested(argc, argv) || contractCommandRequested(argc, argv) ||
        watchCommandRequested(argc, argv))
        return true;
    for (int i = 1; i < argc; ++i) {
        const QByteArray a(argv[i]);
        for (const char* flag :
             {"--headless", "--list-scenarios", "--validate-scenario", "--help", "-h", "--help-all",
              "--version", "-v", "--live", "--recording-info", "--export-skeleton"})
            if (a == flag || a.startsWith(QByteArray(flag) + '='))
                return true;
    }
    return false;
}

#ifdef STORMWATCH_CONSOLE
// Before the application object exists: does a headless run write a report (with plots)?
bool reportRequested(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i) {
        const QByteArray a(argv[i]);
        if (a == "--report" || a.startsWith("--report="))
            return true;
    }
    return false;
}
#endif

// --- the console window ----------------------------------------------------------------

std::unique_ptr<QCoreApplication> createApplication(int& argc, char** argv, bool headless)
{
#ifdef STORMWATCH_CONSOLE
    if (!headless)
        return std::make_unique<QApplication>(argc, argv);
    // The report's plots are drawn with widgets: a QApplication, offscreen unless the user
    // chose a platform, so a headless run needs no display.
    if (reportRequested(argc, argv)) {
        if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
        return std::make_unique<QApplication>(argc, argv);
    }
#else
    Q_UNUSED(headless);
#endif
    return std::make_unique<QCoreApplication>(argc, argv);
}

// --keepalive-s and --keepalive-timeout-s into `port`; *problem names a bad one.
bool keepaliveFrom(const QCommandLineParser& parser, const Options& o, GrpcPortOptions& port,
                   QString* problem)
{
    double seconds[2] = {0, 0};
    const QCommandLineOption* options[2] = {&o.keepaliveS, &o.keepaliveTimeoutS};
    for (int i = 0; i < 2; ++i) {
        if (!parser.isSet(*options[i]))
            continue;
        bool ok = false;
        seconds[i] = parser.value(*options[i]).toDouble(&ok);
        if (!ok || !(seconds[i] >= 0.1 && seconds[i] <= 3600)) {
            *problem = "bad --" + options[i]->names().first() + " \"" + parser.value(*options[i]) +
                       "\": must be a number of seconds from 0.1 to 3600";
            return false;
        }
    }
    setKeepalive(port, seconds[0], seconds[1]);
    return true;
}

int runConsole(const QCommandLineParser& parser, const Options& o)
{
#ifdef STORMWATCH_CONSOLE
    ConsoleOptions c;
    c.gateway = parser.value(o.gateway);
    c.tlsCa = parser.value(o.tlsCa);
    c.tlsCert = parser.value(o.tlsCert);
    c.tlsKey = parser.value(o.tlsKey);
    c.tokenFile = parser.value(o.tokenFile);
    c.gatewayContract = parser.value(o.gatewayContract);
    if (QString bad; !keepaliveFrom(parser, o, c.port, &bad)) {
        err() << bad << '\n';
        return kExitBadInput;
    }
    c.scenario = parser.value(o.scenario);
    c.site = parser.value(QStringLiteral("site")); // SiteCliOptions (commission_cli.h)
    QString badEndpoint;
    const auto endpoints =
        parseGatewayEndpoints(parser.values(QStringLiteral("gateway-endpoint")), &badEndpoint);
    if (!endpoints) {
        err() << badEndpoint << '\n';
        return kExitBadInput;
    }
    c.gatewayEndpoints = *endpoints;
    c.levers = parser.value(o.levers);
    c.settingsFile = parser.value(o.settings);
    c.screenshot = parser.value(o.screenshot);
    c.play = parser.value(o.play);
    c.record = parser.value(o.record);
    c.openRecording = parser.value(o.openRecording);
    const QString speed = parser.value(o.speed);
    const QMap<QString, double> speeds{{"1", 1}, {"10", 10}, {"60", 60}, {"max", 0}, {"live", -1}};
    if (!speeds.contains(speed)) {
        err() << "bad --speed \"" << speed << "\": must be 1, 10, 60, max or live\n";
        return kExitBadInput;
    }
    c.playSpeed = speeds.value(speed);
    bool ok = false;
    c.screenshotAfterS = parser.value(o.screenshotAfter).toDouble(&ok);
    if (!ok) {
        err() << "bad --screenshot-after-s \"" << parser.value(o.screenshotAfter)
              << "\": must be a number of seconds\n";
        return kExitBadInput;
    }
    return runConsoleWindow(c);
#else
    Q_UNUSED(parser);
    Q_UNUSED(o);
    out() << "the console is not built yet; run with --headless --scenario NAME (see --help)\n";
    return kExitOk;
#endif
}

// ---------------------------------------------------------------------------------------

int listScenarios()
{
    for (const QString& name : bundledScenarioNames()) {
        QList<ScenarioError> errors;
        const auto s = loadScenario(name, &errors);
        const QString first =
            s ? s->description.section(QLatin1Char('\n'), 0, 0) : QStringLiteral("(invalid)");
        // First sentence keeps the list to one line a scenario.
        const qsizetype stop = first.indexOf(QStringLiteral(". "));
        out() << name << "  " << (stop > 0 ? first.left(stop + 1) : first) << '\n';
    }
    return kExitOk;
}

int validateScenario(const QString& file)
{
    QList<ScenarioError> errors;
    const auto s = loadScenarioFile(file, &errors);
    if (!s || !errors.isEmpty()) {
        for (const ScenarioError& e : errors)
            err() << e.toString() << '\n';
        return kExitBadInput;
    }
    out() << "ok\n";
    return kExitOk;
}

QString formatSeconds(double s)
{
    return QString::number(s, 'f', s == std::floor(s) ? 0 : 3);
}

// Metrics as rows, variants as columns (scenario/metric_table.h decides the rows), then
// skipped timeline actions and notes per variant.
void printTable(const ScenarioReport& report)
{
    out() << reportToText(report);
}

class ProgressBar {
public:
    explicit ProgressBar(QString label) : m_label(std::move(label)) {}
    void operator()(double fraction)
    {
        constexpr int kWidth = 30;
        const int filled = int(fraction * kWidth + 0.5);
        err() << '\r' << m_label << " [" << QString(filled, QLatin1Char('#'))
              << QString(kWidth - filled, QLatin1Char(' ')) << "] " << int(fraction * 100 + 0.5)
              << '%';
        err().flush();
        if (fraction >= 1.0)
            err() << '\n';
    }

private:
    QString m_label;
};

// Live runs take real time: "levers-off: 37/110 s" every second, on one line on a terminal.
void showLiveProgress(const QString& variant, double elapsedS, double durationS)
{
    const bool tty = isatty(STDERR_FILENO);
    err() << (tty ? "\r" : "") << variant << ": " << formatSeconds(std::floor(elapsedS)) << '/'
          << formatSeconds(durationS) << " s" << (tty && elapsedS < durationS ? "" : "\n");
    err().flush();
}

// The live options the command line asks for; *problem names a bad one (exit 2).
std::optional<LiveOptions> liveOptionsFrom(const QCommandLineParser& parser, const Options& o,
                                           QString* problem)
{
    LiveOptions live;
    live.progress = showLiveProgress;
    const bool tls = parser.isSet(o.tlsCa) || parser.isSet(o.tlsCert) || parser.isSet(o.tlsKey);
    if (!parser.isSet(o.gateway)) {
        if (tls || parser.isSet(o.tokenFile) || parser.isSet(o.gatewayContract) ||
            parser.isSet(o.keepaliveS) || parser.isSet(o.keepaliveTimeoutS)) {
            *problem =
                "--tls-ca, --tls-cert, --tls-key, --token-file, --gateway-contract and "
                "--keepalive-* are for --gateway "
                "(the embedded mock gateway is plain loopback, on stormwatch's own contract)";
            return std::nullopt;
        }
        return live;
    }
    GrpcPortOptions port;
    port.address = parser.value(o.gateway).toStdString();
    if (tls)
        port.tls =
            TlsFiles{parser.value(o.tlsCa).toStdString(), parser.value(o.tlsCert).toStdString(),
                     parser.value(o.tlsKey).toStdString()};
    port.tokenFile = parser.value(o.tokenFile).toStdString();
    port.contractFile = parser.value(o.gatewayContract).toStdString();
    if (!keepaliveFrom(parser, o, port, problem))
        return std::nullopt;
    if (const QString bad = GrpcGatewayPort::validate(port); !bad.isEmpty()) {
        *problem = "bad --gateway \"" + parser.value(o.gateway) + "\": " + bad;
        return std::nullopt;
    }
    live.gateway = port;
    return live;
}

// --token-file to --gateway without TLS would put the bearer token on the wire in clear
// text: refused (exit 2) unless --allow-insecure-token says that is intended.
QString insecureTokenProblem(const QCommandLineParser& parser, const Options& o)
{
    const bool tls = parser.isSet(o.tlsCa) || parser.isSet(o.tlsCert) || parser.isSet(o.tlsKey);
    if (!parser.isSet(o.tokenFile) || !parser.isSet(o.gateway) || tls ||
        parser.isSet(o.allowInsecureToken))
        return {};
    return "--token-file without TLS would send the bearer token to " + parser.value(o.gateway) +
           " in clear text: add --tls-ca FILE to use TLS, or --allow-insecure-token if the network "
           "is "
           "trusted (an SSH tunnel, a gateway on this machine)";
}

// Why no session opened on the gateway during a live run: one OpenSession with the run's
// own options (closed again at once if it opens), bounded by the port's connect timeout.
// nullopt when a session opens now.
std::optional<GatewayFailure> probeGateway(const GrpcPortOptions& options)
{
    QtScheduler scheduler;
    GrpcGatewayPort port(scheduler, options);
    if (!port.setupError().empty())
        return GatewayFailure{port.setupError(), true};
    QEventLoop loop;
    std::optional<RpcStatus> opened;
    std::string sessionId;
    mxgateway::v1::OpenSessionRequest request;
    request.set_client_name("stormwatch/probe");
    port.openSession(request, [&](RpcStatus status, mxgateway::v1::OpenSessionReply reply) {
        opened = std::move(status);
        sessionId = reply.session_id();
        loop.quit();
    });
    // Reading the contract by server reflection comes first, under the same timeout.
    QTimer::singleShot(
        2 * std::chrono::duration_cast<std::chrono::milliseconds>(options.connectTimeout) +
            std::chrono::seconds(1),
        &loop, &QEventLoop::quit);
    if (!opened)
        loop.exec();
    if (!opened)
        return GatewayFailure{"no answer to OpenSession", false};
    if (!port.setupError().empty()) // the contract the gateway described does not check
        return GatewayFailure{port.setupError(), true};
    if (!opened->ok())
        return GrpcGatewayPort::explainFailure(*opened, options);
    mxgateway::v1::CloseSessionRequest close;
    close.set_session_id(sessionId);
    bool closed = false;
    QEventLoop closing;
    port.closeSession(close, [&](RpcStatus) {
        closed = true;
        closing.quit();
    });
    QTimer::singleShot(2000, &closing, &QEventLoop::quit);
    if (!closed)
        closing.exec();
    return std::nullopt;
}

int runHeadless(const QCommandLineParser& parser, const Options& o)
{
    if (!parser.isSet(o.scenario)) {
        err() << "--headless needs --scenario NAME|FILE (bundled: "
              << bundledScenarioNames().join(", ") << ")\n";
        return kExitBadInput;
    }
    const QString which = parser.value(o.scenario);
    QList<ScenarioError> errors;
    const auto scenario = loadScenario(which, &errors);
    if (!scenario) {
        if (!bundledScenarioNames().contains(which) && !QFileInfo::exists(which)) {
            err() << "unknown scenario \"" << which
                  << "\": not a bundled scenario (bundled: " << bundledScenarioNames().join(", ")
                  << ") nor a file\n";
        } else {
            for (const ScenarioError& e : errors)
                err() << e.toString() << '\n';
        }
        return kExitBadInput;
    }
    std::optional<quint64> seed;
    if (parser.isSet(o.seed)) {
        bool ok = false;
        const QString text = parser.value(o.seed).trimmed();
        const quint64 value = text.startsWith(QLatin1Char('-')) ? 0 : text.toULongLong(&ok);
        if (!ok) {
            err() << "bad --seed \"" << parser.value(o.seed)
                  << "\": must be an integer from 0 to 18446744073709551615\n";
            return kExitBadInput;
        }
        seed = value;
    }
    QStringList variants;
    if (parser.isSet(o.variants))
        for (const QString& v :
             parser.value(o.variants).split(QLatin1Char(','), Qt::SkipEmptyParts))
            variants << v.trimmed();
    if (const QString bad = checkVariantNames(*scenario, variants); !bad.isEmpty()) {
        err() << bad << '\n';
        return kExitBadInput;
    }

    const bool showProgress = parser.isSet(o.progress) || isatty(STDERR_FILENO);
    ProgressBar bar(scenario->name);
    QString error;
    ScenarioReport report;
    // Kept only for the report's plots.
    QList<SeriesSet> series;
    QList<SeriesSet>* keepSeries = parser.isSet(o.report) ? &series : nullptr;
    // Live against --gateway: why a connection never opened its session, when one did not
    // (the report says "never"; this names the cause and the run exits 1).
    std::optional<GatewayFailure> noSession;
    // --record: the variants played on a run host with a recorder, the console's steps.
    Recorder recorder;
    if (parser.isSet(o.record) && !recorder.open(parser.value(o.record), &error)) {
        err() << error << '\n';
        return kExitFailure;
    }
    // A recording that fails mid-run (disk full) is a runtime failure, not bad input.
    std::atomic<bool> recorderFailed{false}; // set on the run host's thread
    QObject::connect(&recorder, &Recorder::failed, [&recorderFailed] { recorderFailed = true; });
    if (parser.isSet(o.live)) {
        QString problem;
        const auto live = liveOptionsFrom(parser, o, &problem);
        if (!live) {
            err() << problem << '\n';
            return kExitBadInput;
        }
        report = recorder.isOpen()
                     ? recordScenario(*scenario, variants, seed, live, recorder, &error, keepSeries)
                     : runScenarioLive(*scenario, variants, seed, *live, &error, keepSeries);
        if (error.isEmpty() && live->gateway &&
            std::any_of(report.variants.cbegin(), report.variants.cend(),
                        [](const VariantMetrics& v) { return !v.connectedAfterS; }))
            noSession = probeGateway(*live->gateway);
    } else if (recorder.isOpen()) {
        report =
            recordScenario(*scenario, variants, seed, std::nullopt, recorder, &error, keepSeries);
    } else {
        report = runScenario(*scenario, variants, seed,
                             showProgress ? ProgressFn(std::ref(bar)) : ProgressFn(), &error,
                             keepSeries);
    }
    recorder.close(); // before any early exit below: the file is complete
    if (!error.isEmpty()) {
        err() << "cannot run scenario \"" << scenario->name << "\": " << error << '\n';
        return recorderFailed ? kExitFailure : kExitBadInput;
    }
    if (parser.isSet(o.json))
        out() << QJsonDocument(reportToJson(report)).toJson(QJsonDocument::Indented);
    else
        printTable(report);
    out().flush();
    if (parser.isSet(o.report)) {
        const QString dir = parser.value(o.report);
        QString why;
        if (!writeReportDir(report, dir, &why)) {
            err() << "cannot write the report to \"" << dir << "\": " << why << '\n';
            return kExitFailure;
        }
#ifdef STORMWATCH_CONSOLE
        // The plots after the text files, so a plotting failure still leaves the report.
        QMap<QString, QString> plots;
        QVector<PlotPanel::Marker>
            markers; // the timeline's faults and lever changes, as in the console
        for (const RunHost::Marker& m : RunHost::timelineMarkers(*scenario))
            markers.push_back(PlotPanel::Marker{m.tS, m.label});
        if (!writeVariantPngs(report, series, dir, &plots, &why, kReportPngSize, markers)) {
            err() << "cannot draw the report's plots into \"" << dir << "\": " << why << '\n';
            return kExitFailure;
        }
        if (!writeReportMarkdown(report, dir, plots, &why)) {
            err() << "cannot write the report to \"" << dir << "\": " << why << '\n';
            return kExitFailure;
        }
#endif
    }
    if (noSession) {
        err() << "stormwatch: no session opened on --gateway " << parser.value(o.gateway) << ": "
              << QString::fromStdString(noSession->text) << '\n';
        return kExitFailure;
    }
    return kExitOk;
}

// A live run that could not open a session leaves gRPC winding down when it returns (a
// channel's reconnect backoff, a call gRPC has not released yet): its threads then race
// the static destructors, and ASan caught a double free in grpc_cq_internal_unref on a
// gRPC thread during exit. Once the output is flushed such a run
// leaves without them.
int leaveHeadless(int code)
{
    if (!grpc_is_initialized())
        return code;
    out().flush();
    err().flush();
    std::fflush(nullptr);
    std::_Exit(code);
}

} // namespace

int main(int argc, char** argv)
{
    setUpProcessMemory();
    const bool headless = headlessRequested(argc, argv);
    const auto app = createApplication(argc, argv, headless);
    const GrpcLifetime grpc;
    QCoreApplication::setApplicationName(QStringLiteral("stormwatch"));
    QCoreApplication::setApplicationVersion(QStringLiteral(STORMWATCH_VERSION));

    Options o;
    QCommandLineParser parser;
    o.addTo(parser);
    const SiteCliOptions siteOptions;
    siteOptions.addTo(parser);
    const ContractCliOptions contractOptions;
    contractOptions.addTo(parser);
    const WatchCliOptions watchOptions;
    watchOptions.addTo(parser);
    if (!parser.parse(QCoreApplication::arguments())) {
        err() << parser.errorText() << " (see --help)\n";
        return kExitBadInput;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        out() << parser.helpText();
        return kExitOk;
    }
    if (parser.isSet(QStringLiteral("version"))) {
        out() << "stormwatch " << QCoreApplication::applicationVersion() << '\n';
        return kExitOk;
    }
    if (!parser.positionalArguments().isEmpty()) {
        err() << "unexpected argument \"" << parser.positionalArguments().first()
              << "\" (see --help)\n";
        return kExitBadInput;
    }
    // The simulated faults make the client and the mock log a lot; the report is the output.
    // Warnings of the scenario runner stay: a timeline action the gateway could not apply.
    if (!parser.isSet(o.verbose))
        QLoggingCategory::setFilterRules(
            QStringLiteral("stormwatch.*=false\nstormwatch.scenario.warning=true"));
    // gRPC's own lines too (a TLS handshake failure logs one per attempt): a failure that
    // matters is named in one line of ours. GRPC_VERBOSITY, when set, still rules.
    if (!parser.isSet(o.verbose) && qEnvironmentVariableIsEmpty("GRPC_VERBOSITY"))
        gpr_set_log_function([](gpr_log_func_args*) {});

    if (parser.isSet(o.listScenarios))
        return listScenarios();
    if (parser.isSet(o.validateScenario))
        return validateScenario(parser.value(o.validateScenario));
    if (const auto code = runContractCommand(parser, contractOptions))
        return *code;
    if (const auto code = runWatchCommand(parser, watchOptions, siteOptions))
        return leaveHeadless(*code);
    if (const auto code = runSiteCommand(parser, siteOptions))
        return leaveHeadless(*code);
    if (parser.isSet(o.recordingInfo))
        return recordingInfo(parser.value(o.recordingInfo));
    if (parser.isSet(o.exportSkeleton))
        return exportScenarioSkeleton(parser.value(o.exportSkeleton), parser.value(o.run));
    for (const QCommandLineOption* gatewayOnly :
         {&o.gateway, &o.tlsCa, &o.tlsCert, &o.tlsKey, &o.tokenFile, &o.gatewayContract,
          &o.keepaliveS, &o.keepaliveTimeoutS})
        if (parser.isSet(*gatewayOnly) && !parser.isSet(o.live) && parser.isSet(o.headless)) {
            err() << "--" << gatewayOnly->names().first() << " is for live runs: add --live\n";
            return kExitBadInput;
        }
    if (const QString bad = insecureTokenProblem(parser, o); !bad.isEmpty()) {
        err() << bad << '\n';
        return kExitBadInput;
    }
    if (parser.isSet(o.live))
        return leaveHeadless(runHeadless(parser, o));
    if (parser.isSet(o.headless))
        return leaveHeadless(runHeadless(parser, o));
    return runConsole(parser, o);
}
