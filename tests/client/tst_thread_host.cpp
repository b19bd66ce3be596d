// ThreadHost: the one way a thread of ours starts and ends — the worker lives on its own
// thread, calls reach it there, joining ends the thread and destroys the worker, and a
// job's done callback comes on the owner's thread, or not at all once the host was joined.
#include "client/thread_host.h"

#include <QPointer>
#include <QSemaphore>
#include <QThread>
#include <QtTest>

#include <atomic>

#ifdef Q_OS_LINUX
#include <sys/resource.h>
#include <unistd.h>
#endif

namespace {
// Destroyed by the job's thread after its job returned and `finished` was emitted (Qt
// deletes a dead thread's deferred deletions in its clean-up): holds that thread there
// until the owner lets it go, so the owner is seen not to wait for it.
class HeldAtTheEnd : public QObject {
public:
    explicit HeldAtTheEnd(QSemaphore* release, std::atomic<bool>* ended) : m_release(release), m_ended(ended) {}
    ~HeldAtTheEnd() override
    {
        m_release->tryAcquire(1, 10000);
        *m_ended = true;
    }

private:
    QSemaphore* m_release;
    std::atomic<bool>* m_ended;
};
} // namespace

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

    void doneDoesNotWaitForTheThreadToEnd()
    {
        QSemaphore release;
        std::atomic<bool> ended{false};
        bool endedWhenDone = true;
        bool done = false;
        {
            ThreadHost host(QStringLiteral("test-ending"));
            host.run([&] { (new HeldAtTheEnd(&release, &ended))->deleteLater(); },
                     [&] {
                         endedWhenDone = ended.load();
                         done = true;
                     });
            QTRY_VERIFY(done); // before the thread's clean-up (held above) is over
            QVERIFY(!endedWhenDone);
            QVERIFY(!host.running());
            // The next job starts while the last thread still ends.
            std::atomic<bool> ranNext{false};
            host.run([&] { ranNext = true; }, {});
            QTRY_VERIFY(ranNext.load());
            release.release();
        } // the destructor waits for both
        QVERIFY(ended.load());
    }

    void backgroundJobsRunAtALowerPriority()
    {
#ifdef Q_OS_LINUX
        const auto niceOfJob = [](ThreadHost::Priority priority) {
            ThreadHost host(QStringLiteral("test-priority"));
            std::atomic<int> nice{-100};
            host.run([&] { nice = getpriority(PRIO_PROCESS, id_t(gettid())); }, {}, priority);
            host.join();
            return nice.load();
        };
        const int own = getpriority(PRIO_PROCESS, id_t(gettid()));
        QCOMPARE(niceOfJob(ThreadHost::Priority::Normal), own);
        QCOMPARE(niceOfJob(ThreadHost::Priority::Background), std::max(own, 10));
        QCOMPARE(getpriority(PRIO_PROCESS, id_t(gettid())), own); // only the job's thread
#endif
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
