#pragma once
// What the app suites share: the built stormwatch run as users run it (QProcess), with the
// offscreen platform so a console run needs no display.

#include <QByteArray>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace apptest {

struct Run {
    int exitCode = -1; // -1: it crashed, or did not finish within the timeout (then killed)
    QString stdErr;
    QByteArray stdOut;
};

// The test's own environment with the offscreen platform.
QProcessEnvironment offscreenEnvironment();

// `maxFileBytes` > 0: no file the process writes may grow past it (RLIMIT_FSIZE, the write
// failing as on a full disk), to see what stormwatch does when it cannot write.
Run stormwatch(const QStringList& args, int timeoutMs = 120000, long maxFileBytes = 0,
               const QProcessEnvironment& env = offscreenEnvironment());

} // namespace apptest
