#include "support_app.h"

#include <QProcess>
#include <QProcessEnvironment>

#ifndef STORMWATCH_BINARY
#error "STORMWATCH_BINARY is set for every app suite (app/CMakeLists.txt, tests/CMakeLists.txt)"
#endif

namespace apptest {

Run stormwatch(const QStringList& args, int timeoutMs)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "offscreen");
    p.setProcessEnvironment(env);
    p.start(STORMWATCH_BINARY, args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished(5000);
        return {};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromLocal8Bit(p.readAllStandardError())};
}

} // namespace apptest
