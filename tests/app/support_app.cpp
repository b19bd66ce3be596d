#include "support_app.h"

#include <QProcess>
#include <QProcessEnvironment>
#include <csignal>
#include <sys/resource.h>

#ifndef STORMWATCH_BINARY
#error "STORMWATCH_BINARY is set for every app suite (app/CMakeLists.txt, tests/CMakeLists.txt)"
#endif

namespace apptest {

Run stormwatch(const QStringList& args, int timeoutMs, long maxFileBytes)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "offscreen");
    p.setProcessEnvironment(env);
    if (maxFileBytes > 0)
        p.setChildProcessModifier(
            [maxFileBytes] { // in the child, before exec: async-signal-safe calls only
                std::signal(SIGXFSZ, SIG_IGN); // the write fails (EFBIG) instead of killing it
                const rlimit limit{rlim_t(maxFileBytes), rlim_t(maxFileBytes)};
                setrlimit(RLIMIT_FSIZE, &limit);
            });
    p.start(STORMWATCH_BINARY, args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished(5000);
        return {};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
            QString::fromLocal8Bit(p.readAllStandardError()), p.readAllStandardOutput()};
}

} // namespace apptest
