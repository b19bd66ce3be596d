// TSan build only: shows that tsan_qt_bridge.cpp makes TSan see Qt's hand-offs without
// hiding a race across them. Each mode is run by tsan_qt_bridge_check.cmake (CTest
// sanitizers.tsan_qt_bridge), which expects exit 0 for the "-ok" modes and TSan's exit
// code 66 (a report) for the "-race" ones. Without the bridge every mode is reported.

#include <QCoreApplication>
#include <QThread>
#include <cstdio>
#include <cstring>

class Emitter : public QObject {
    Q_OBJECT
signals:
    void ping();
};

namespace {
int g_shared = 0;
}

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    const char* mode = argc > 1 ? argv[1] : "";
    QThread worker;
    QObject target; // lives on the worker thread
    target.moveToThread(&worker);
    worker.start();
    Emitter emitter;
    QObject::connect(&emitter, &Emitter::ping, &target,
                     [] { std::printf("slot reads %d\n", g_shared); });

    if (!std::strcmp(mode, "invoke-ok")) { // written, then handed over
        g_shared = 1;
        QMetaObject::invokeMethod(
            &target, [] { std::printf("reads %d\n", g_shared); }, Qt::QueuedConnection);
    } else if (!std::strcmp(mode, "invoke-race")) { // handed over, then written
        QMetaObject::invokeMethod(
            &target,
            [] {
                QThread::msleep(50);
                std::printf("reads %d\n", g_shared);
            },
            Qt::QueuedConnection);
        g_shared = 2;
    } else if (!std::strcmp(mode, "blocking-ok")) { // written by the worker, read after the call
        QMetaObject::invokeMethod(
            &target, [] { g_shared = 3; }, Qt::BlockingQueuedConnection);
        std::printf("caller reads %d\n", g_shared);
    } else if (!std::strcmp(mode, "signal-ok")) {
        g_shared = 4;
        emit emitter.ping();
    } else if (!std::strcmp(mode, "signal-race")) {
        emit emitter.ping();
        g_shared = 5;
    } else if (!std::strcmp(mode, "wait-ok")) { // written by the worker, read once it is joined
        QMetaObject::invokeMethod(
            &target,
            [] {
                g_shared = 6;
                QThread::currentThread()->quit();
            },
            Qt::QueuedConnection);
        QThread::msleep(200); // let it finish first: wait() then returns at once
        worker.wait();
        std::printf("joiner reads %d\n", g_shared);
        return 0;
    } else {
        std::fprintf(stderr,
                     "usage: %s invoke-ok|invoke-race|blocking-ok|signal-ok|signal-race|wait-ok\n",
                     argv[0]);
        return 2;
    }
    QThread::msleep(200);
    worker.quit();
    worker.wait();
    return 0;
}

#include "tsan_qt_bridge_check.moc"
