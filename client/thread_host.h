#pragma once
// One worker thread and the one object that lives on it: the only way stormwatch starts a
// thread of its own (the run host, the mock gateway's model thread, the
// compare view). The host owns both (no raw new/delete of QThread), starts the thread with
// the worker moved onto it, runs calls there (queued, or waiting for them), and joins it;
// the worker is destroyed once its thread has finished. Q_ASSERTs keep each side on its
// own thread: the host is used from the thread that created it, the worker from its own.
// run() jobs go to one job thread per host, started with the first job and ended with the
// host: the owner never waits for a thread's end, and the job thread takes no lock the
// owner waits on while a job ends (no post to the owner's event queue, no QThread clean-up:
// at nice 10 on a busy machine, preempted while holding one, it held the UI thread up to
// tens of ms). The owner polls for the job's end instead.

#include <QObject>
#include <QString>
#include <functional>
#include <memory>

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
    // Runs `job` on the host's job thread (no event loop there; a job in progress is joined
    // first). `job` and what it captured are destroyed on that thread; `done` runs on the
    // owner's thread once `job` has returned (within ~kDonePollMs), unless the host was
    // joined or destroyed first.
    void run(std::function<void()> job, std::function<void()> done,
             Priority priority = Priority::Normal);
    // Drops the owner's reference to `garbage` on the job thread, after the jobs queued there:
    // a large result is freed there, not on the owner's (UI) thread (also when the host goes:
    // its destructor ends the job thread after what is queued, and waits).
    void release(std::shared_ptr<const void> garbage);

    static constexpr int kDonePollMs = 10;

    // A worker is started, or a run() job is not done yet.
    bool running() const { return m_thread != nullptr || m_job != nullptr; }
    QObject* worker() const { return m_worker.get(); }
    template <class W> W* workerAs() const { return static_cast<W*>(m_worker.get()); }

    // Runs `fn` on the worker's thread after what is already queued there.
    void post(std::function<void()> fn);
    // Runs `fn` on the worker's thread and waits for it (never from that thread).
    void call(std::function<void()> fn);

    // Ends the thread after what is queued there, waits for it, destroys the worker. For a
    // run() job: waits for it to return and drops its `done` (the job thread stays for the
    // next job; the destructor ends it).
    void join();
    // The same, for a worker that ends its thread itself when it is ready (quitCurrentThread):
    // `askToStop` is posted to it, then the host waits.
    void joinWhen(std::function<void()> askToStop);
    // Called on a worker's thread: ends that thread's event loop once control returns to it.
    static void quitCurrentThread();

    static void assertOnThreadOf(const QObject* object);

private:
    struct JobThread; // the run() thread, its queue (thread_host.cpp)
    struct Job;       // one run(): whether it returned, read by the owner's poll
    void assertOwner() const;
    void finish();
    JobThread& jobThread(Priority priority);
    void pollJob();

    QString m_name;
    QThread* m_owner;
    std::unique_ptr<QThread> m_thread;
    std::unique_ptr<QObject> m_worker;
    std::unique_ptr<JobThread> m_jobs;
    std::shared_ptr<Job> m_job; // the run() whose `done` is owed
    std::function<void()> m_done;
    std::unique_ptr<QTimer> m_donePoll;
};

} // namespace stormwatch
