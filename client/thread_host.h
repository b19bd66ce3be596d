#pragma once
// One worker thread and the one object that lives on it: the only way stormwatch starts a
// thread of its own (the client worker, the run host, the mock gateway's model thread, the
// compare view). The host owns both (no raw new/delete of QThread), starts the thread with
// the worker moved onto it, runs calls there (queued, or waiting for them), and joins it;
// the worker is destroyed once its thread has finished. Q_ASSERTs keep each side on its
// own thread: the host is used from the thread that created it, the worker from its own.
// A thread started by run() is never waited for on the owner's thread once its job is done:
// it may still be ending (Qt's own clean-up) when `done` runs, and at a low priority on a
// busy machine that took tens of ms; it is let go and deleted once it has ended.

#include <QObject>
#include <QString>

#include <functional>
#include <memory>
#include <vector>

class QThread;
class QTimer;

namespace stormwatch {

class ThreadHost {
public:
    explicit ThreadHost(QString name);
    ~ThreadHost(); // join()
    ThreadHost(const ThreadHost&) = delete;
    ThreadHost& operator=(const ThreadHost&) = delete;

    // Starts a thread with `worker` (no parent) moved onto it; a running thread is joined first.
    void start(std::unique_ptr<QObject> worker);
    // Background: a job that must not take a core from the UI or a live run (a replay at
    // max speed); its thread runs at nice 10 on Linux (QThread's own priorities do nothing
    // under SCHED_OTHER, and SCHED_IDLE would starve it on a busy machine).
    enum class Priority { Normal, Background };
    // Starts a thread that runs `job` and ends (no event loop); `done` runs on the owner's
    // thread once `job` has returned, unless the host was joined or destroyed first.
    void run(std::function<void()> job, std::function<void()> done, Priority priority = Priority::Normal);

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

    // Ends the thread after what is queued there, waits for it, destroys the worker. (A
    // run() thread whose job is done and `done` ran is not waited for here: nothing of the
    // job runs any more; the destructor waits for it.)
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
    void letGo(); // the run() thread whose `finished` is being handled: no wait
    void reap();

    // run() threads whose job is done, still ending; deleted once ended (the timer polls).
    std::vector<std::unique_ptr<QThread>> m_ending;
    std::unique_ptr<QTimer> m_reaper;

    QString m_name;
    QThread* m_owner;
    std::unique_ptr<QThread> m_thread;
    std::unique_ptr<QObject> m_worker;
    std::unique_ptr<QObject> m_doneContext; // run(): receives `finished` on the owner's thread
};

} // namespace stormwatch
