#include "thread_host.h"

#include <QSemaphore>
#include <QThread>
#include <QTimer>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <utility>

#ifdef Q_OS_LINUX
#include <cerrno>
#include <sys/resource.h>
#include <unistd.h>
#endif

namespace stormwatch {

ThreadHost::ThreadHost(QString name) : m_name(std::move(name)), m_owner(QThread::currentThread()) {}

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

} // namespace

struct ThreadHost::Job {
    std::atomic<bool> returned{false}; // set on the job thread, polled by the owner
};

// The run() thread: takes tasks from its queue one at a time until asked to end. It holds
// its mutex only to take a task or to say one returned; nothing of it is posted to the owner.
struct ThreadHost::JobThread {
    explicit JobThread(Priority p, const QString& name) : priority(p)
    {
        thread.reset(QThread::create([this] { loop(); }));
        thread->setObjectName(name);
        thread->start();
    }
    void push(std::function<void()> task)
    {
        {
            std::lock_guard lock(mutex);
            queue.push_back(std::move(task));
        }
        wake.notify_one();
    }
    // Waits until `job` returned (the owner joins a job it gives up on, or is going).
    void waitFor(const Job& job)
    {
        std::unique_lock lock(mutex);
        returned.wait(lock, [&] { return job.returned.load(); });
    }
    // Runs what is queued, then ends the thread and waits for it.
    void end()
    {
        {
            std::lock_guard lock(mutex);
            stop = true;
        }
        wake.notify_one();
        thread->wait();
    }
    void loop()
    {
        if (priority == Priority::Background)
            lowerCurrentThreadPriority();
        std::unique_lock lock(mutex);
        for (;;) {
            wake.wait(lock, [&] { return stop || !queue.empty(); });
            if (queue.empty())
                return;
            std::function<void()> task = std::move(queue.front());
            queue.pop_front();
            lock.unlock();
            task();
            task = nullptr; // what it captured is destroyed here, on this thread
            lock.lock();
            returned.notify_all();
        }
    }

    const Priority priority;
    std::mutex mutex;
    std::condition_variable wake;     // a task queued, or stop
    std::condition_variable returned; // a task returned
    std::deque<std::function<void()>> queue;
    bool stop = false;
    std::unique_ptr<QThread> thread;
};

ThreadHost::~ThreadHost()
{
    join();
    if (m_jobs)
        m_jobs->end();
}

void ThreadHost::assertOwner() const
{
    Q_ASSERT_X(QThread::currentThread() == m_owner, "ThreadHost",
               "used from a thread that does not own it");
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
    JobThread& jobs = jobThread(priority);
    m_job = std::make_shared<Job>();
    m_done = std::move(done);
    jobs.push([job = std::move(job), state = m_job]() mutable {
        job();
        job = nullptr; // its captures go before the owner hears of the end
        state->returned.store(true, std::memory_order_release);
    });
    if (!m_donePoll) {
        m_donePoll = std::make_unique<QTimer>();
        m_donePoll->setObjectName(m_name + QStringLiteral(" done poll")); // named in bench_ui_stall
        m_donePoll->setInterval(kDonePollMs);
        QObject::connect(m_donePoll.get(), &QTimer::timeout, m_donePoll.get(),
                         [this] { pollJob(); });
    }
    m_donePoll->start();
}

void ThreadHost::release(std::shared_ptr<const void> garbage)
{
    assertOwner();
    if (!garbage)
        return;
    JobThread& jobs = m_jobs ? *m_jobs : jobThread(Priority::Background);
    jobs.push([garbage = std::move(garbage)]() mutable { garbage.reset(); });
}

ThreadHost::JobThread& ThreadHost::jobThread(Priority priority)
{
    if (m_jobs && m_jobs->priority != priority) {
        m_jobs->end(); // another priority asked for (no caller does today): a new thread
        m_jobs.reset();
    }
    if (!m_jobs)
        m_jobs = std::make_unique<JobThread>(priority, m_name);
    return *m_jobs;
}

void ThreadHost::pollJob()
{
    if (!m_job || !m_job->returned.load(std::memory_order_acquire))
        return;
    m_job.reset();
    m_donePoll->stop();
    const std::function<void()> done = std::exchange(m_done, nullptr);
    if (done)
        done(); // may run() the next job
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
    if (m_job) {
        m_jobs->waitFor(*m_job);
        m_job.reset();
        m_done = nullptr; // dropped: the owner gave the job up
        m_donePoll->stop();
    }
    if (m_thread)
        joinWhen([] { quitCurrentThread(); });
}

void ThreadHost::joinWhen(std::function<void()> askToStop)
{
    assertOwner();
    if (!m_thread)
        return;
    if (m_worker) {
        // The request waits until this thread is out of postEvent: Qt wakes the worker's
        // event dispatcher after queuing, and a request that ended the thread at once would
        // race that wake-up with the dispatcher's destruction (a crash in wakeUp).
        auto posted = std::make_shared<QSemaphore>();
        QMetaObject::invokeMethod(
            m_worker.get(),
            [posted, askToStop = std::move(askToStop)] {
                posted->acquire();
                askToStop();
            },
            Qt::QueuedConnection);
        posted->release();
    }
    finish();
}

void ThreadHost::finish()
{
    if (!m_thread)
        return;
    m_thread->wait();
    m_worker.reset(); // its thread has ended: nothing of it runs any more
    m_thread.reset();
}

} // namespace stormwatch
