#pragma once
// One worker thread and the one object that lives on it: the only way stormwatch starts a
// thread of its own (the client worker, the run host, the mock gateway's model thread, the
// compare view). The host owns both (no raw new/delete of QThread), starts the thread with
// the worker moved onto it, runs calls there (queued, or waiting for them), and joins it;
// the worker is destroyed once its thread has finished. Q_ASSERTs keep each side on its
// own thread: the host is used from the thread that created it, the worker from its own.

#include <QObject>
#include <QString>

#include <functional>
#include <memory>

class QThread;

namespace stormwatch {

class ThreadHost {
public:
    explicit ThreadHost(QString name);
    ~ThreadHost(); // join()
    ThreadHost(const ThreadHost&) = delete;
    ThreadHost& operator=(const ThreadHost&) = delete;

    // Starts a thread with `worker` (no parent) moved onto it; a running thread is joined first.
    void start(std::unique_ptr<QObject> worker);
    // Starts a thread that runs `job` and ends (no event loop); `done` runs on the owner's
    // thread once it has ended, unless the host was joined or destroyed first.
    void run(std::function<void()> job, std::function<void()> done);

    bool running() const { return m_thread != nullptr; }
    QObject* worker() const { return m_worker.get(); }
    template <class W>
    W* workerAs() const
    {
        return static_cast<W*>(m_worker.get());
    }

    // Runs `fn` on the worker's thread after what is already queued there.
    void post(std::function<void()> fn);
    // Runs `fn` on the worker's thread and waits for it (never from that thread).
    void call(std::function<void()> fn);

    // Ends the thread after what is queued there, waits for it, destroys the worker.
    void join();
    // The same, for a worker that ends its thread itself when it is ready (quitCurrentThread):
    // `askToStop` is posted to it, then the host waits.
    void joinWhen(std::function<void()> askToStop);
    // Called on a worker's thread: ends that thread's event loop once control returns to it.
    static void quitCurrentThread();

    static void assertOnThreadOf(const QObject* object);

private:
    void assertOwner() const;
    void finish();

    QString m_name;
    QThread* m_owner;
    std::unique_ptr<QThread> m_thread;
    std::unique_ptr<QObject> m_worker;
    std::unique_ptr<QObject> m_doneContext; // run(): receives `finished` on the owner's thread
    bool m_inDone = false;
};

} // namespace stormwatch
