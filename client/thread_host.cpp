#include "thread_host.h"

#include <QThread>
#include <QTimer>

#ifdef Q_OS_LINUX
#include <cerrno>
#include <sys/resource.h>
#include <unistd.h>
#endif

namespace stormwatch {

ThreadHost::ThreadHost(QString name) : m_name(std::move(name)), m_owner(QThread::currentThread()) {}

ThreadHost::~ThreadHost()
{
    join();
    for (auto& thread : m_ending)
        thread->wait();
    m_ending.clear();
}

namespace {

void lowerCurrentThreadPriority()
{
#ifdef Q_OS_LINUX
    // Linux keeps a nice value per thread: this lowers only the calling one (never raises it).
    const id_t self = id_t(gettid());
    errno = 0;
    const int nice = getpriority(PRIO_PROCESS, self);
    if (errno == 0 && nice < 10)
        (void)setpriority(PRIO_PROCESS, self, 10);
#endif
}

// Really ended, not waiting: isFinished() is already true while the thread is still in its
// clean-up, and deleting the QThread then waits for it.
bool ended(QThread& thread)
{
    return thread.wait(QDeadlineTimer(0));
}

} // namespace

void ThreadHost::assertOwner() const
{
    Q_ASSERT_X(QThread::currentThread() == m_owner, "ThreadHost", "used from a thread that does not own it");
}

void ThreadHost::assertOnThreadOf(const QObject* object)
{
    Q_ASSERT_X(object && object->thread() == QThread::currentThread(), "ThreadHost",
               "called off the thread the object lives on");
    Q_UNUSED(object);
}

void ThreadHost::start(std::unique_ptr<QObject> worker)
{
    assertOwner();
    Q_ASSERT(worker && !worker->parent());
    join();
    m_thread = std::make_unique<QThread>();
    m_thread->setObjectName(m_name);
    m_worker = std::move(worker);
    m_worker->moveToThread(m_thread.get());
    m_thread->start();
}

void ThreadHost::run(std::function<void()> job, std::function<void()> done, Priority priority)
{
    assertOwner();
    join();
    if (priority == Priority::Background)
        job = [job = std::move(job)] {
            lowerCurrentThreadPriority();
            job();
        };
    m_thread.reset(QThread::create(std::move(job)));
    m_thread->setObjectName(m_name);
    m_doneContext = std::make_unique<QObject>();
    QObject::connect(m_thread.get(), &QThread::finished, m_doneContext.get(), [this, done = std::move(done)] {
        const auto callback = done; // the slot's own storage goes with the context below
        letGo();
        if (callback)
            callback();
    });
    m_thread->start();
}

void ThreadHost::letGo()
{
    // `finished` is emitted by the thread before Qt's clean-up there (its event dispatcher,
    // thread storage): wait() here would wait for that. It is kept until it has ended.
    if (!m_thread)
        return;
    if (m_doneContext)
        m_doneContext.release()->deleteLater(); // its slot is running: deleted back in the loop
    if (ended(*m_thread)) {
        m_thread.reset();
        return;
    }
    m_ending.push_back(std::move(m_thread));
    if (!m_reaper) {
        m_reaper = std::make_unique<QTimer>();
        m_reaper->setInterval(5);
        QObject::connect(m_reaper.get(), &QTimer::timeout, m_reaper.get(), [this] { reap(); });
    }
    if (!m_reaper->isActive())
        m_reaper->start();
}

void ThreadHost::reap()
{
    std::erase_if(m_ending, [](const std::unique_ptr<QThread>& thread) { return ended(*thread); });
    if (m_ending.empty())
        m_reaper->stop();
}

void ThreadHost::post(std::function<void()> fn)
{
    assertOwner();
    if (m_worker)
        QMetaObject::invokeMethod(m_worker.get(), std::move(fn), Qt::QueuedConnection);
}

void ThreadHost::call(std::function<void()> fn)
{
    assertOwner();
    Q_ASSERT(m_worker);
    if (m_worker)
        QMetaObject::invokeMethod(m_worker.get(), std::move(fn), Qt::BlockingQueuedConnection);
}

void ThreadHost::quitCurrentThread()
{
    QThread::currentThread()->quit();
}

void ThreadHost::join()
{
    if (!m_thread)
        return;
    if (m_worker)
        joinWhen([] { quitCurrentThread(); });
    else
        finish(); // run(): the job ends by itself
}

void ThreadHost::joinWhen(std::function<void()> askToStop)
{
    assertOwner();
    if (!m_thread)
        return;
    if (m_worker)
        QMetaObject::invokeMethod(m_worker.get(), std::move(askToStop), Qt::QueuedConnection);
    finish();
}

void ThreadHost::finish()
{
    if (!m_thread)
        return;
    m_thread->wait();
    m_doneContext.reset(); // a `finished` still queued for the owner is dropped with it
    m_worker.reset();      // its thread has ended: nothing of it runs any more
    m_thread.reset();
}

} // namespace stormwatch
