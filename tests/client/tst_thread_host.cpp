// ThreadHost: the one way a thread of ours starts and ends — the worker lives on its own
// thread, calls reach it there, joining ends the thread and destroys the worker, and a
// job's done callback comes on the owner's thread, or not at all once the host was joined.
#include "client/thread_host.h"

#include <QElapsedTimer>
#include <QPointer>
#include <QSemaphore>
#include <QThread>
#include <QtTest>
#include <atomic>
#include <memory>

#ifdef Q_OS_LINUX
#include <sys/resource.h>
#include <unistd.h>
#endif

using namespace stormwatch;

namespace {
// Says on which thread it was destroyed, and counts the live ones (a leak shows).
struct Probe {
    static inline std::atomic<int> alive{0};
    std::atomic<QThread*>* destroyedOn;
    explicit Probe(std::atomic<QThread*>* where) : destroyedOn(where) { ++alive; }
    ~Probe()
    {
        *destroyedOn = QThread::currentThread();
        --alive;
    }
};

// Runs an empty job and waits for its done: what was queued on the job thread before is over.
bool drain(ThreadHost& host)
{
    bool done = false;
    host.run([] {}, [&] { done = true; });
    return QTest::qWaitFor([&] { return done; }, 5000);
}
} // namespace

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
        host.run(
            [&] { ran = true; },
            [&] { done = QThread::currentThread() == QCoreApplication::instance()->thread(); });
        QTRY_VERIFY(done);
        QVERIFY(ran.load());
        QVERIFY(!host.running());
    }

    void jobsRunOnOneThreadThatTheOwnerNeverWaitsFor()
    {
        QSemaphore release;
        std::atomic<QThread*> firstOn{nullptr};
        std::atomic<QThread*> secondOn{nullptr};
        bool firstDone = false;
        bool secondDone = false;
        {
            ThreadHost host(QStringLiteral("test-jobs"));
            host.run([&] { firstOn = QThread::currentThread(); }, [&] { firstDone = true; });
            QTRY_VERIFY(firstDone);
            QVERIFY(!host.running());
            // The job thread is held (freeing something released to it) while the owner starts
            // the next job: run() returns at once and the job runs once the thread is free.
            std::atomic<QThread*> heldOn{nullptr};
            host.release(std::shared_ptr<const void>(new int(0), [&](const int* p) {
                heldOn = QThread::currentThread();
                release.tryAcquire(1, 10000);
                delete p;
            }));
            QElapsedTimer owner;
            owner.start();
            host.run([&] { secondOn = QThread::currentThread(); }, [&] { secondDone = true; });
            QVERIFY(owner.elapsed() < 1000);
            QVERIFY(host.running());
            QTest::qWait(50);
            QVERIFY(!secondDone);
            release.release();
            QTRY_VERIFY(secondDone);
            QCOMPARE(heldOn.load(), firstOn.load());
        } // the destructor ends the job thread
        QVERIFY(firstOn.load() && firstOn.load() != QThread::currentThread());
        QCOMPARE(secondOn.load(), firstOn.load()); // one thread, not one per job
    }

    void whatAJobCapturedIsFreedOnItsThreadBeforeDone()
    {
        ThreadHost host(QStringLiteral("test-captures"));
        std::atomic<QThread*> destroyedOn{nullptr};
        std::atomic<QThread*> ranOn{nullptr};
        bool freedBeforeDone = false;
        bool done = false;
        // The job holds the only reference from the start: an owner's copy dropped after
        // run() raced the job (under TSan the job ended first, and the owner freed it).
        auto probe = std::make_shared<Probe>(&destroyedOn);
        host.run([probe = std::move(probe), &ranOn] { ranOn = QThread::currentThread(); },
                 [&] {
                     freedBeforeDone = Probe::alive == 0;
                     done = true;
                 });
        QTRY_VERIFY(done);
        QVERIFY(freedBeforeDone);
        QCOMPARE(destroyedOn.load(), ranOn.load());
        QVERIFY(destroyedOn.load() != QThread::currentThread());
    }

    void releasedObjectsAreFreedOnTheJobThreadOnceNobodyUsesThem()
    {
        ThreadHost host(QStringLiteral("test-release"));
        std::atomic<QThread*> destroyedOn{nullptr};
        auto probe = std::make_shared<Probe>(&destroyedOn);
        std::shared_ptr<const Probe> stillShown = probe;
        host.release(std::move(probe));
        QVERIFY(drain(host));
        QCOMPARE(Probe::alive.load(), 1); // still used by the owner: not freed
        QCOMPARE(destroyedOn.load(), nullptr);
        host.release(std::move(stillShown));
        QVERIFY(drain(host));
        QCOMPARE(Probe::alive.load(), 0); // no leak
        QVERIFY(destroyedOn.load() && destroyedOn.load() != QThread::currentThread());

        // Released before any job: the host starts its job thread for it.
        ThreadHost fresh(QStringLiteral("test-release-first"));
        destroyedOn = nullptr;
        fresh.release(std::make_shared<Probe>(&destroyedOn));
        QVERIFY(drain(fresh));
        QCOMPARE(Probe::alive.load(), 0);
        QVERIFY(destroyedOn.load() && destroyedOn.load() != QThread::currentThread());
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
        // The job thread stays for the next job, still lowered; the owner keeps its own.
        ThreadHost host(QStringLiteral("test-priority-again"));
        std::atomic<int> second{-100};
        host.run([] {}, {}, ThreadHost::Priority::Background);
        host.join();
        host.run([&] { second = getpriority(PRIO_PROCESS, id_t(gettid())); }, {},
                 ThreadHost::Priority::Background);
        host.join();
        QCOMPARE(second.load(), std::max(own, 10));
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
