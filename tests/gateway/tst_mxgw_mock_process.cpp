// The built mxgw-mock executable: announces its port, serves, refuses bad flags with exit 2,
// and stops cleanly on SIGTERM.
#include "mock_control.grpc.pb.h"
#include "mxaccess_gateway.grpc.pb.h"
#include "test_paths.h"

#include <QProcess>
#include <QRegularExpression>
#include <QTest>
#include <grpcpp/grpcpp.h>

using namespace std::chrono_literals;

class TestMxgwMockProcess : public QObject {
    Q_OBJECT
private slots:
    void announcesPortServesAndStopsOnSigterm();
    void refusesNonLoopbackListen();
    void rejectsNegativeCommandMs();
    void helpDocumentsEveryFlag();
    void unknownFlagExits2();
    void missingFlagValueExits2();
    void versionExits0();
    void keepQueuedOnCloseReachesTheConfig();
    void reuseHandlesHandsARemovedHandleOutAgain();
    void forgedClientNameLogsOneEscapedLine();
    void helpStatesTheMaximumCommandTimeout();
    void defaultCommandTimeoutAboveTheMaximumExits2();
};

namespace {
struct Finished {
    int exitCode = -1;
    QString stderrText;
};
Finished runToEnd(const QStringList& args)
{
    QProcess p;
    p.start(testpaths::mockBinary(), args);
    if (!p.waitForFinished(10000)) {
        p.kill();
        p.waitForFinished(5000);
        return {};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
            QString::fromLocal8Bit(p.readAllStandardError())};
}
// Starts mxgw-mock and reads its one line, "listening on 127.0.0.1:PORT": the port, or
// empty (with what it printed in `printed`).
QString startAndReadPort(QProcess& p, const QStringList& args, QString& printed)
{
    p.start(testpaths::mockBinary(), args);
    if (!p.waitForStarted(10000))
        return {};
    while (!printed.contains('\n') && p.waitForReadyRead(10000))
        printed += QString::fromLocal8Bit(p.readAllStandardOutput());
    const auto match =
        QRegularExpression("^listening on 127\\.0\\.0\\.1:(\\d+)\\n$").match(printed);
    return match.hasMatch() ? match.captured(1) : QString();
}
} // namespace

void TestMxgwMockProcess::announcesPortServesAndStopsOnSigterm()
{
    QProcess p;
    QString line;
    const QString listenPort = startAndReadPort(
        p, {"--listen", "127.0.0.1:0", "--no-bulk-supervisory", "--data-hz", "0"}, line);
    QVERIFY2(!listenPort.isEmpty(), qPrintable(line));
    const int port = listenPort.toInt();
    QVERIFY(port > 0);

    auto stub = mxgateway::v1::MxAccessGateway::NewStub(grpc::CreateChannel(
        "127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + 5s);
    mxgateway::v1::OpenSessionRequest req;
    mxgateway::v1::OpenSessionReply reply;
    QVERIFY(stub->OpenSession(&ctx, req, &reply).ok());
    QCOMPARE(reply.capabilities_size(), 9); // --no-bulk-supervisory
    QCOMPARE(reply.default_command_timeout().seconds(), 30);

    p.terminate(); // SIGTERM
    QVERIFY(p.waitForFinished(10000));
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QCOMPARE(p.exitCode(), 0);
    QCOMPARE(QString::fromLocal8Bit(p.readAllStandardOutput()), QString()); // exactly one line
}

void TestMxgwMockProcess::refusesNonLoopbackListen()
{
    const auto r = runToEnd({"--listen", "10.1.2.3:5"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.stderrText.contains("--listen 10.1.2.3:5") &&
                 r.stderrText.contains("--allow-remote"),
             qPrintable(r.stderrText));
}

void TestMxgwMockProcess::rejectsNegativeCommandMs()
{
    const auto r = runToEnd({"--command-ms", "-1"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.stderrText.contains("--command-ms -1") && r.stderrText.contains(">= 0"),
             qPrintable(r.stderrText));
}

void TestMxgwMockProcess::helpDocumentsEveryFlag()
{
    QProcess p;
    p.start(testpaths::mockBinary(), {"--help"});
    QVERIFY(p.waitForFinished(10000));
    QCOMPARE(p.exitCode(), 0);
    const QString help = QString::fromLocal8Bit(p.readAllStandardOutput());
    for (const char* flag : {"--listen", "--allow-remote", "--no-bulk-supervisory", "--command-ms",
                             "--per-item-ms", "--default-command-timeout-s", "--data-hz", "--seed",
                             "--keep-queued-on-close", "--reuse-handles"})
        QVERIFY2(help.contains(flag), flag);
    QVERIFY(help.contains("default 127.0.0.1:50051"));
    QVERIFY(help.contains("default 30"));
}

void TestMxgwMockProcess::unknownFlagExits2()
{
    const auto r = runToEnd({"--no-such-flag"});
    QCOMPARE(r.exitCode, 2); // bad input, not QCommandLineParser::process()'s 1
    QVERIFY2(r.stderrText.contains("no-such-flag"), qPrintable(r.stderrText));
    QVERIFY2(r.stderrText.startsWith("mxgw-mock: "), qPrintable(r.stderrText));
}

void TestMxgwMockProcess::missingFlagValueExits2()
{
    const auto r = runToEnd({"--command-ms"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.stderrText.contains("command-ms"), qPrintable(r.stderrText));
}

void TestMxgwMockProcess::versionExits0()
{
    QProcess p;
    p.start(testpaths::mockBinary(), {"--version"});
    QVERIFY(p.waitForFinished(10000));
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QCOMPARE(p.exitCode(), 0);
    QVERIFY(QString::fromLocal8Bit(p.readAllStandardOutput()).contains("0.1.0"));
}

void TestMxgwMockProcess::keepQueuedOnCloseReachesTheConfig()
{
    for (const bool keep : {false, true}) {
        QProcess p;
        QStringList args = {"--listen", "127.0.0.1:0", "--data-hz", "0"};
        if (keep)
            args << "--keep-queued-on-close";
        QString line;
        const QString listenPort = startAndReadPort(p, args, line);
        QVERIFY2(!listenPort.isEmpty(), qPrintable(line));
        auto control = mxgateway::mock::v1::MockGatewayControl::NewStub(grpc::CreateChannel(
            "127.0.0.1:" + listenPort.toStdString(), grpc::InsecureChannelCredentials()));
        grpc::ClientContext ctx;
        ctx.set_deadline(std::chrono::system_clock::now() + 5s);
        mxgateway::mock::v1::MockConfig config;
        QVERIFY(control->GetConfig(&ctx, {}, &config).ok());
        QCOMPARE(config.close_drops_queued_commands(), !keep);
        p.terminate();
        QVERIFY(p.waitForFinished(10000));
        QCOMPARE(p.exitCode(), 0);
    }
}

// --reuse-handles over the wire: after a RemoveItem, the next item gets the freed handle;
// without the flag, a new one.
void TestMxgwMockProcess::reuseHandlesHandsARemovedHandleOutAgain()
{
    for (const bool reuse : {true, false}) {
        QProcess p;
        QStringList args = {"--listen",     "127.0.0.1:0", "--data-hz",     "0",
                            "--command-ms", "0",           "--per-item-ms", "0"};
        if (reuse)
            args << "--reuse-handles";
        QString line;
        const QString listenPort = startAndReadPort(p, args, line);
        QVERIFY2(!listenPort.isEmpty(), qPrintable(line));
        auto stub = mxgateway::v1::MxAccessGateway::NewStub(grpc::CreateChannel(
            "127.0.0.1:" + listenPort.toStdString(), grpc::InsecureChannelCredentials()));
        auto call = [&](const mxgateway::v1::MxCommandRequest& req,
                        mxgateway::v1::MxCommandReply& reply) {
            grpc::ClientContext ctx;
            ctx.set_deadline(std::chrono::system_clock::now() + 5s);
            return stub->Invoke(&ctx, req, &reply).ok() && reply.success();
        };
        grpc::ClientContext openCtx;
        openCtx.set_deadline(std::chrono::system_clock::now() + 5s);
        mxgateway::v1::OpenSessionReply opened;
        QVERIFY(stub->OpenSession(&openCtx, {}, &opened).ok());
        mxgateway::v1::MxCommandRequest req;
        req.set_session_id(opened.session_id());
        mxgateway::v1::MxCommandReply reply;
        req.mutable_command()->mutable_register_()->set_client_name("test");
        QVERIFY(call(req, reply));
        const int sh = reply.register_().server_handle();
        auto subscribe = [&](const std::string& tag) {
            req.mutable_command()->mutable_subscribe_bulk()->set_server_handle(sh);
            req.mutable_command()->mutable_subscribe_bulk()->clear_tag_addresses();
            req.mutable_command()->mutable_subscribe_bulk()->add_tag_addresses(tag);
            req.mutable_command()->mutable_subscribe_bulk()->set_supervisory(true);
            return call(req, reply) ? reply.subscribe_bulk().results(0).item_handle() : 0;
        };
        const int first = subscribe("Tank.Level");
        QVERIFY(first > 0);
        QVERIFY(subscribe("Tank.Temp") > 0);
        req.mutable_command()->mutable_remove_item()->set_server_handle(sh);
        req.mutable_command()->mutable_remove_item()->set_item_handle(first);
        QVERIFY(call(req, reply));
        const int next = subscribe("Tank.Flow");
        if (reuse)
            QCOMPARE(next, first);
        else
            QVERIFY(next > first + 1);
        p.terminate();
        QVERIFY(p.waitForFinished(10000));
        QCOMPARE(p.exitCode(), 0);
    }
}

// A client name chosen to forge a "fault" line and colour the terminal
// is logged as one line, its newline and ESC escaped.
void TestMxgwMockProcess::forgedClientNameLogsOneEscapedLine()
{
    QProcess p;
    QString line;
    const QString listenPort =
        startAndReadPort(p, {"--listen", "127.0.0.1:0", "--data-hz", "0"}, line);
    QVERIFY2(!listenPort.isEmpty(), qPrintable(line));
    auto stub = mxgateway::v1::MxAccessGateway::NewStub(grpc::CreateChannel(
        "127.0.0.1:" + listenPort.toStdString(), grpc::InsecureChannelCredentials()));
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + 5s);
    mxgateway::v1::OpenSessionRequest req;
    req.set_client_name("x\nstormwatch.gateway: fault: STA wedged for 999999 ms\x1b[31mRED");
    mxgateway::v1::OpenSessionReply reply;
    QVERIFY(stub->OpenSession(&ctx, req, &reply).ok()); // logged before it is answered
    p.terminate();
    QVERIFY(p.waitForFinished(10000));
    QCOMPARE(p.exitCode(), 0);
    const QByteArray err = p.readAllStandardError();
    QVERIFY2(!err.contains('\x1b'), err.constData());
    const QList<QByteArray> lines = err.split('\n');
    QByteArrayList opened;
    for (const QByteArray& l : lines) {
        QVERIFY2(!l.startsWith("stormwatch.gateway: fault:"), err.constData());
        if (l.contains("opened by"))
            opened << l;
    }
    QCOMPARE(opened.size(), 1);
    QVERIFY2(opened[0].contains(
                 "opened by x\\nstormwatch.gateway: fault: STA wedged for 999999 ms\\x1b[31mRED"),
             opened[0].constData());
}

void TestMxgwMockProcess::helpStatesTheMaximumCommandTimeout()
{
    QProcess p;
    p.start(testpaths::mockBinary(), {"--help"});
    QVERIFY(p.waitForFinished(10000));
    const QString help =
        QString::fromLocal8Bit(p.readAllStandardOutput()).simplified(); // unwrapped
    QVERIFY2(help.contains("maximum command timeout") && help.contains("86400"), qPrintable(help));
}

void TestMxgwMockProcess::defaultCommandTimeoutAboveTheMaximumExits2()
{
    auto r = runToEnd({"--default-command-timeout-s", "86401"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.stderrText.contains("--default-command-timeout-s 86401") &&
                 r.stderrText.contains("86400"),
             qPrintable(r.stderrText));
    r = runToEnd({"--default-command-timeout-s", "1e308"});
    QCOMPARE(r.exitCode, 2);
}

QTEST_GUILESS_MAIN(TestMxgwMockProcess)
#include "tst_mxgw_mock_process.moc"
