#include "support_app.h"

#include "test_paths.h"

#include <QProcess>
#include <QProcessEnvironment>
#include <csignal>
#include <sys/resource.h>

namespace apptest {

QProcessEnvironment offscreenEnvironment()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "offscreen");
    return env;
}

Run stormwatch(const QStringList& args, int timeoutMs, long maxFileBytes,
               const QProcessEnvironment& env)
{
    QProcess p;
    p.setProcessEnvironment(env);
    if (maxFileBytes > 0)
        p.setChildProcessModifier(
            [maxFileBytes] { // in the child, before exec: async-signal-safe calls only
                std::signal(SIGXFSZ, SIG_IGN); // the write fails (EFBIG) instead of killing it
                const rlimit limit{rlim_t(maxFileBytes), rlim_t(maxFileBytes)};
                setrlimit(RLIMIT_FSIZE, &limit);
            });
    p.start(testpaths::stormwatchBinary(), args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished(5000);
        return {};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
            QString::fromLocal8Bit(p.readAllStandardError()), p.readAllStandardOutput()};
}

} // namespace apptest
