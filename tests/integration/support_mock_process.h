#pragma once
// One mxgw-mock process for tests at the real boundary (header only, so tests/integration,
// tests/gateway and tests/app share it: `#include "integration/support_mock_process.h"`).
// start() serves on port 0 the first time, then on the same port (a restart after kill()).
// The binary is the built mxgw-mock that CTest names (test_paths.h).

#include "test_paths.h"

#include <QProcess>
#include <QRegularExpression>
#include <QStringList>
#include <QThread>
#include <string>

namespace testsupport {

struct MockProcess {
    // The fault matrix's gateway: a 5 ms command, 0.1 ms per item, data at 2 Hz.
    static QStringList defaultArgs()
    {
        return {"--command-ms", "5", "--per-item-ms", "0.1", "--data-hz", "2"};
    }

    explicit MockProcess(QStringList arguments = defaultArgs())
        : binary(testpaths::mockBinary()), args(std::move(arguments))
    {
    }
    MockProcess(const MockProcess&) = delete;
    MockProcess& operator=(const MockProcess&) = delete;

    QString binary;
    QStringList args;
    QProcess process;
    int port = 0;

    bool start()
    {
        // A restart on the same port can find it taken for a moment (a loaded machine, another
        // suite's mock on an ephemeral port): try again a few times before giving up.
        for (int attempt = 0; attempt < 5; ++attempt) {
            if (startOnce())
                return true;
            if (port == 0)
                return false;
            if (process.state() != QProcess::NotRunning) {
                process.kill();
                process.waitForFinished(1000);
            }
            QThread::msleep(200);
        }
        return false;
    }
    bool startOnce()
    {
        process.start(binary,
                      QStringList{"--listen", QStringLiteral("127.0.0.1:%1").arg(port)} + args);
        if (!process.waitForStarted(10000))
            return false;
        QString line;
        while (!line.contains('\n') && process.waitForReadyRead(10000))
            line += QString::fromLocal8Bit(process.readAllStandardOutput());
        const auto match = QRegularExpression("listening on 127\\.0\\.0\\.1:(\\d+)").match(line);
        if (!match.hasMatch())
            return false;
        port = match.captured(1).toInt();
        return true;
    }
    void kill() // SIGKILL: no goodbye, calls in flight break at the transport
    {
        process.kill();
        process.waitForFinished(5000);
    }
    std::string address() const { return "127.0.0.1:" + std::to_string(port); }
    QString endpoint() const { return QString::fromStdString(address()); }
    ~MockProcess()
    {
        if (process.state() != QProcess::NotRunning) {
            process.terminate();
            if (!process.waitForFinished(5000))
                process.kill();
        }
    }
};

} // namespace testsupport
