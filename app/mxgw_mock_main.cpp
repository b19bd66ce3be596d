// mxgw-mock: the mock MXAccess gateway on gRPC (loopback by default). Prints exactly one
// stdout line, "listening on HOST:PORT", once it serves; stops cleanly on SIGINT/SIGTERM.
#include "client/unix_signals.h"
#include "gateway/contract_service.h"
#include "gateway/mock_gateway_server.h"
#include "gateway/stream_reactor.h"
#include "proto/grpc_lifetime.h"
#include "wire/contract.h"
#include "wire/wire_codec.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFile>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <optional>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <unordered_set>

using namespace stormwatch;
using namespace stormwatch::gateway;

namespace {

constexpr int kUsageError = 2;
// kMaxCommandTimeout (gateway_types.h, 24 h) in seconds, for --help and the flag's range.
constexpr qint64 kMaxCommandTimeoutS =
    std::chrono::duration_cast<std::chrono::seconds>(kMaxCommandTimeout).count();
[[noreturn]] void usageError(const QString& message)
{
    std::fprintf(stderr, "mxgw-mock: %s\n", qPrintable(message));
    std::exit(kUsageError);
}

double number(const QCommandLineParser& parser, const QString& flag, double min, double max,
              const QString& rule)
{
    bool ok = false;
    const QString text = parser.value(flag);
    const double v = text.toDouble(&ok);
    if (!ok || !std::isfinite(v) || v < min || v > max)
        usageError(QStringLiteral("--%1 %2: %3").arg(flag, text, rule));
    return v;
}

// "HOST:PORT" with a port in 0..65535 (0 = pick a free one).
void checkListen(const QString& address, bool allowRemote)
{
    const int colon = address.lastIndexOf(':');
    bool ok = false;
    const int port = colon > 0 ? address.mid(colon + 1).toInt(&ok) : -1;
    if (!ok || port < 0 || port > 65535)
        usageError(
            QStringLiteral("--listen %1: must be HOST:PORT with PORT 0..65535").arg(address));
    if (!allowRemote && !isLoopbackAddress(address.toStdString()))
        usageError(
            QStringLiteral(
                "--listen %1: not a loopback address; pass --allow-remote to serve other hosts")
                .arg(address));
}

// --unknown-tags FILE: one address per line (surrounding blanks trimmed; empty lines and
// lines starting with '#' skipped). Bounded like a site's tag list: at most 1,000,000
// addresses of at most 1,024 bytes, a file of at most 64 MiB.
std::unordered_set<std::string> readUnknownTags(const QString& path)
{
    constexpr qint64 kMaxBytes = 64 * 1024 * 1024;
    constexpr std::size_t kMaxTags = 1'000'000;
    constexpr qsizetype kMaxAddress = 1024;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        usageError(QStringLiteral("--unknown-tags %1: %2").arg(path, file.errorString()));
    if (file.size() > kMaxBytes)
        usageError(QStringLiteral("--unknown-tags %1: larger than 64 MiB").arg(path));
    std::unordered_set<std::string> tags;
    int lineNo = 0;
    for (const QByteArray& raw : file.readAll().split('\n')) {
        ++lineNo;
        const QByteArray line = raw.trimmed();
        if (line.isEmpty() || line.startsWith('#'))
            continue;
        if (line.size() > kMaxAddress)
            usageError(QStringLiteral("--unknown-tags %1:%2: address longer than %3 bytes")
                           .arg(path)
                           .arg(lineNo)
                           .arg(kMaxAddress));
        if (tags.size() >= kMaxTags)
            usageError(QStringLiteral("--unknown-tags %1:%2: more than %3 addresses")
                           .arg(path)
                           .arg(lineNo)
                           .arg(kMaxTags));
        tags.insert(line.toStdString());
    }
    return tags;
}

} // namespace

// A freeze stops this process as SIGSTOP does, so the client's transport meets exactly what
// a frozen gateway gives it (its keepalive pings unanswered, the TCP connection open). A stopped
// process cannot wake itself: a detached shell, orphaned at once, sends SIGCONT after the
// duration. The stop waits a moment so that this fault's reply leaves first.
static CallStatus freezeThisProcess(double seconds, std::string& description)
{
    static constexpr double kReplyLeavesS = 0.1;
    const std::string waker = "(sleep " + std::to_string(seconds + kReplyLeavesS) +
                              "; kill -CONT " + std::to_string(::getpid()) + ") >/dev/null 2>&1 &";
    const char* argv[] = {"/bin/sh", "-c", waker.c_str(), nullptr};
    pid_t shell = 0;
    if (::posix_spawn(&shell, "/bin/sh", nullptr, nullptr, const_cast<char* const*>(argv),
                      environ) != 0)
        return CallStatus::error(grpc::StatusCode::INTERNAL,
                                 "freeze: could not start the shell that wakes the gateway");
    ::waitpid(shell, nullptr, 0); // the shell returns at once; its background waker lives on
    std::thread([] {
        std::this_thread::sleep_for(std::chrono::duration<double>(kReplyLeavesS));
        ::kill(::getpid(), SIGSTOP);
    }).detach();
    description = "gateway process stopped (SIGSTOP) for " + std::to_string(seconds) + " s";
    return {};
}

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    const GrpcLifetime grpc;
    QCoreApplication::setApplicationName("mxgw-mock");
    QCoreApplication::setApplicationVersion("0.1.0");

    const GatewayConfig defaults;
    QCommandLineParser parser;
    parser.setApplicationDescription(
        "Mock MXAccess gateway: one STA running commands FIFO at a modelled cost, per-session\n"
        "command deadlines, advised items emitting data, faults via MockGatewayControl.\n"
        "Prints \"listening on HOST:PORT\" on stdout when ready; SIGINT/SIGTERM stop it.\n"
        "\n"
        "Event stream backlog (per StreamEvents, also WatchStats): a client that reads slowly\n"
        "or not at all does not grow the mock. At most " +
        QString::number(kStreamBacklogMessages) +
        " messages wait behind the one being written;\n"
        "past that, updates are coalesced: the latest value per item (server and item handle)\n"
        "is kept, at most " +
        QString::number(kStreamBacklogItems) +
        " items per stream (updates of further items are dropped), and\n"
        "at most " +
        QString::number(kStreamBacklogNotices) +
        " notices. When the client has read its queue, it gets a \"backlog-overflow\"\n"
        "notice (how many updates were coalesced and dropped), then the latest value of each\n"
        "item. WatchStats keeps the latest stats message. GatewayStats counts it all\n"
        "(stream_backlog_*, stream_overflows, stream_updates_coalesced/_dropped); a stream's\n"
        "backlog is freed when the stream ends.");
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addOptions({
        {"listen", "Address to serve on; port 0 picks a free one (default 127.0.0.1:50051).",
         "host:port", "127.0.0.1:50051"},
        {"allow-remote", "Allow a non-loopback --listen address (default: off, loopback only)."},
        {"no-bulk-supervisory", "Do not advertise bulk-subscribe-supervisory: behave as an old "
                                "gateway (default: advertised)."},
        {"command-ms", "STA cost of every command in ms, >= 0 (default 2).", "ms",
         QString::number(defaults.commandMs)},
        {"per-item-ms", "STA cost per tag or handle in ms, >= 0 (default 0.5).", "ms",
         QString::number(defaults.perItemMs)},
        {"default-command-timeout-s",
         QStringLiteral(
             "Command timeout of sessions that do not set one, > 0 and <= %1, the maximum command "
             "timeout (default 30). A session asking for more (OpenSession command_timeout) gets "
             "%1 s "
             "and is told so in the echoed default_command_timeout; a command_timeout that breaks "
             "google.protobuf.Duration's rules is refused INVALID_ARGUMENT.")
             .arg(kMaxCommandTimeoutS),
         "s",
         QString::number(std::chrono::duration<double>(defaults.defaultCommandTimeout).count())},
        {"data-hz", "Data changes per second per advised item, 0..1000 (default 1).", "hz",
         QString::number(defaults.dataHz)},
        {"seed", "Seed of every random choice, an unsigned integer (default 1).", "n",
         QString::number(defaults.seed)},
        {"unknown-tags",
         "File of tag addresses this gateway does not know, one per line ('#' comments): AddItem, "
         "AddItemBulk and SubscribeBulk fail exactly those items with \"item not found: "
         "<address>\", "
         "the rest succeed (default: none).",
         "file"},
        {"keep-queued-on-close", "CloseSession leaves the session's queued commands on the STA to "
                                 "run (default: off, they are "
                                 "dropped and their Invokes answered CANCELLED)."},
        {"contract",
         "Serve this gateway contract (.proto or .protoset) instead of stormwatch's own, e.g. "
         "resources/contracts/mxaccess-gateway-v1.proto: its method paths, numbers and shapes, "
         "checked "
         "first (a contract that does not check is refused, exit 2).",
         "file"},
        {"profile",
         "--contract: its family (stormwatch, mxaccess-gateway-v1; default: by its package).",
         "name"},
        {"event-queue",
         "--contract: events a subscriber may fall behind by before the backpressure policy "
         "applies, "
         "0 = no bound (default: 10000 for the published contract family, else 0).",
         "n"},
        {"backpressure",
         "--contract: what a subscriber past --event-queue gets: fail-fast faults its session "
         "(EventQueueOverflow; "
         "the client needs a new session), disconnect-subscriber ends its stream only (the session "
         "stays "
         "Ready and the stream may resume) (default: fail-fast).",
         "policy"},
        {"api-keys",
         "--contract: every call needs 'authorization: Bearer <key>' with one of the keys in this "
         "file and the "
         "method's scope (session:open, session:close, invoke:read, events:read), as the published "
         "gateway does: "
         "a missing or unknown key is UNAUTHENTICATED, a key without the scope PERMISSION_DENIED. "
         "One key a line: "
         "'mxgw_<key-id>_<secret> scope[,scope...]', '#' comments (default: every call is served).",
         "file"},
        {"no-reflection", "Serve no gRPC server reflection (UNIMPLEMENTED), as a gateway without "
                          "it: a client must be given the "
                          "contract (default: reflection describes the contract served)."},
        {"reuse-handles", "Hand a removed item's handle out again: a new item gets the lowest "
                          "freed handle of its session, "
                          "as some gateways do (default: off, item handles only count up)."},
    });
    // parse(), not process(): an unknown flag or a missing value is bad input (exit 2), while
    // process() would exit 1. Help and version still exit 0.
    if (!parser.parse(QCoreApplication::arguments()))
        usageError(parser.errorText());
    if (parser.isSet("help") || parser.isSet("help-all"))
        parser.showHelp(0);
    if (parser.isSet("version"))
        parser.showVersion();
    if (!parser.positionalArguments().isEmpty())
        usageError(
            QStringLiteral("unexpected argument '%1'").arg(parser.positionalArguments().first()));

    GatewayConfig config;
    config.advertiseBulkSupervisory = !parser.isSet("no-bulk-supervisory");
    config.closeDropsQueuedCommands = !parser.isSet("keep-queued-on-close");
    config.reuseHandles = parser.isSet("reuse-handles");
    config.commandMs = number(parser, "command-ms", 0, 1e9, "must be a number >= 0");
    config.perItemMs = number(parser, "per-item-ms", 0, 1e9, "must be a number >= 0");
    const double timeoutS =
        number(parser, "default-command-timeout-s", 1e-6, kMaxCommandTimeoutS,
               QStringLiteral("must be a number > 0 and <= %1 (the maximum command timeout)")
                   .arg(kMaxCommandTimeoutS));
    config.defaultCommandTimeout = Duration(std::llround(timeoutS * 1e6));
    config.dataHz = number(parser, "data-hz", 0, 1000, "must be a number between 0 and 1000");
    bool seedOk = false;
    config.seed = parser.value("seed").toULongLong(&seedOk);
    if (!seedOk)
        usageError(
            QStringLiteral("--seed %1: must be an unsigned integer").arg(parser.value("seed")));
    const QString listen = parser.value("listen");
    checkListen(listen, parser.isSet("allow-remote"));
    std::unordered_set<std::string> unknownTags;
    if (parser.isSet("unknown-tags"))
        unknownTags = readUnknownTags(parser.value("unknown-tags"));

    UnixSignals stopSignals{SIGINT, SIGTERM};
    if (!stopSignals.ok()) {
        std::perror("mxgw-mock: socketpair");
        return 1;
    }
    QObject::connect(&stopSignals, &UnixSignals::received, &app, &QCoreApplication::quit);

    std::shared_ptr<const wire::WireCodec> contract;
    if (parser.isSet("contract") || parser.isSet("profile")) {
        if (!parser.isSet("contract"))
            usageError(QStringLiteral("--profile is for --contract"));
        std::string error;
        auto loaded =
            wire::GatewayContract::fromFile(parser.value("contract").toStdString(), error);
        const wire::ContractProfile* profile = loaded ? wire::profileFor(*loaded) : nullptr;
        if (loaded && parser.isSet("profile")) {
            profile = wire::findProfile(parser.value("profile").toStdString());
            if (!profile)
                usageError(QStringLiteral("unknown --profile '%1' (profiles: %2)")
                               .arg(parser.value("profile"),
                                    QString::fromStdString(wire::profileNames())));
        }
        if (loaded)
            contract = wire::WireCodec::create(wire::checkContract(loaded, *profile), error);
        if (!contract)
            usageError(QStringLiteral("--contract: %1").arg(QString::fromStdString(error)));
        std::fprintf(stderr, "mxgw-mock: %s\n", contract->check().summary().c_str());
    }

    // What the contract can carry, its family's documented policy, then what was asked.
    config = configForContract(contract ? *contract : *wire::WireCodec::compiled(), config);
    if (!contract && (parser.isSet("event-queue") || parser.isSet("backpressure")))
        usageError(QStringLiteral(
            "--event-queue and --backpressure are for --contract: stormwatch's own contract "
            "coalesces a slow reader's backlog instead"));
    std::shared_ptr<const ApiKeys> apiKeys;
    if (parser.isSet("api-keys")) {
        if (!contract)
            usageError(QStringLiteral(
                "--api-keys is for --contract (the published gateway's authorization)"));
        std::string error;
        auto keys = ApiKeys::load(parser.value("api-keys").toStdString(), error);
        if (!keys)
            usageError(QStringLiteral("--api-keys: %1").arg(QString::fromStdString(error)));
        apiKeys = std::make_shared<const ApiKeys>(std::move(*keys));
    }
    if (parser.isSet("event-queue")) {
        bool ok = false;
        const qulonglong n = parser.value("event-queue").toULongLong(&ok);
        if (!ok || n > 100'000'000)
            usageError(
                QStringLiteral("--event-queue %1: must be an integer between 0 and 100000000")
                    .arg(parser.value("event-queue")));
        config.eventQueueCapacity = std::size_t(n);
    }
    if (parser.isSet("backpressure")) {
        const QString policy = parser.value("backpressure");
        if (policy == "fail-fast")
            config.backpressure = BackpressurePolicy::FailFast;
        else if (policy == "disconnect-subscriber")
            config.backpressure = BackpressurePolicy::DisconnectSubscriber;
        else
            usageError(
                QStringLiteral("--backpressure %1: must be fail-fast or disconnect-subscriber")
                    .arg(policy));
    }
    MockGatewayServer server(config, contract);
    server.setApiKeys(apiKeys);
    server.setServeReflection(!parser.isSet("no-reflection"));
    server.setFreezeProcess(freezeThisProcess);
    if (!server.start(listen.toStdString())) {
        std::fprintf(stderr, "mxgw-mock: %s\n", server.lastError().c_str());
        return 1;
    }
    // Before the announcement: no client can have added an item yet.
    if (!unknownTags.empty())
        server.runOnModel(
            [&](GatewayModel& model) { model.setUnknownTags(std::move(unknownTags)); });
    std::printf("listening on %s\n", server.address().c_str());
    std::fflush(stdout);

    const int rc = app.exec();
    server.stop();
    return rc;
}
