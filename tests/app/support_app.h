#pragma once
// What the app suites share: the built stormwatch run as users run it (QProcess), with the
// offscreen platform so a console run needs no display.

#include <QString>
#include <QStringList>

namespace apptest {

struct Run {
    int exitCode = -1; // -1: it crashed, or did not finish within the timeout (then killed)
    QString stdErr;
};

Run stormwatch(const QStringList& args, int timeoutMs = 120000);

} // namespace apptest
