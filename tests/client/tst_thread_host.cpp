// ThreadHost: the one way a thread of ours starts and ends — the worker lives on its own
// thread, calls reach it there, joining ends the thread and destroys the worker, and a
// job's done callback comes on the owner's thread, or not at all once the host was joined.
#include "client/thread_host.h"

#include <QPointer>
#include <QThread>
#include <QtTest>

#include <atomic>

using namespace stormwatch;

class TestThreadHost : public QObject {
    Q_OBJECT
private slots:
    void workerLivesOnItsThreadAndCallsRunThere()
    {
        ThreadHost host(QStringLiteral("test-worker"));
        QVERIFY(!host.running());
        host.start(std::make_unique<QObject>());
        QVERIFY(host.running());
        QPointer<QObject> worker = host.worker();
        QThread* workerThread = nullptr;
        host.call([&] {
            ThreadHost::assertOnThreadOf(worker);
            workerThread = QThread::currentThread();
        });
        QVERIFY(workerThread && workerThread != QThread::currentThread());
        QCOMPARE(worker->thread(), workerThread);
        QCOMPARE(workerThread->objectName(), QStringLiteral("test-worker"));
        std::atomic<int> posted{0};
        host.post([&] { ++posted; });
        host.post([&] { ++posted; });
        host.join(); // what was queued runs first
        QCOMPARE(posted.load(), 2);
        QVERIFY(!host.running());
        QVERIFY(worker.isNull()); // destroyed once its thread ended
        host.join();              // twice is fine
    }

    void joinWhenLetsTheWorkerEndItsThread()
    {
        ThreadHost host(QStringLiteral("test-self-stop"));
        host.start(std::make_unique<QObject>());
        bool askedOnWorker = false;
        host.joinWhen([&] {
            askedOnWorker = QThread::currentThread() != QCoreApplication::instance()->thread();
            ThreadHost::quitCurrentThread();
        });
        QVERIFY(askedOnWorker);
        QVERIFY(!host.running());
    }

    void jobDoneComesOnTheOwnersThread()
    {
        ThreadHost host(QStringLiteral("test-job"));
        std::atomic<bool> ran{false};
        bool done = false;
        host.run([&] { ran = true; },
                 [&] {
                     done = QThread::currentThread() == QCoreApplication::instance()->thread();
                 });
        QTRY_VERIFY(done);
        QVERIFY(ran.load());
        QVERIFY(!host.running());
    }

    void joiningDropsTheDoneCallback()
    {
        bool done = false;
        {
            ThreadHost host(QStringLiteral("test-dropped"));
            host.run([] {}, [&] { done = true; });
            host.join(); // the owner goes before the job's end was delivered
        }
        QCoreApplication::processEvents();
        QCoreApplication::processEvents();
        QVERIFY(!done);
    }
};

QTEST_GUILESS_MAIN(TestThreadHost)
#include "tst_thread_host.moc"
