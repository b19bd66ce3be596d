#include "thread_host.h"

#include <QThread>

namespace stormwatch {

ThreadHost::ThreadHost(QString name) : m_name(std::move(name)), m_owner(QThread::currentThread()) {}

ThreadHost::~ThreadHost()
{
    join();
}

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

void ThreadHost::run(std::function<void()> job, std::function<void()> done)
{
    assertOwner();
    join();
    m_thread.reset(QThread::create(std::move(job)));
    m_thread->setObjectName(m_name);
    m_doneContext = std::make_unique<QObject>();
    QObject::connect(m_thread.get(), &QThread::finished, m_doneContext.get(), [this, done = std::move(done)] {
        const auto callback = done; // the slot's own storage goes with the context below
        m_inDone = true;
        finish();
        m_inDone = false;
        if (callback)
            callback();
    });
    m_thread->start();
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
    // A `finished` still queued for the owner is dropped with its receiver; inside that very
    // slot the receiver may not be deleted, so it goes once control is back in the loop.
    if (m_inDone && m_doneContext)
        m_doneContext.release()->deleteLater();
    m_doneContext.reset();
    m_worker.reset();      // its thread has ended: nothing of it runs any more
    m_thread.reset();
}

} // namespace stormwatch
