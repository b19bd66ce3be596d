#pragma once
// A server-streaming reactor fed from the model thread. Writes are queued so exactly one
// is outstanding at a time; finish() drains what is queued first (a graceful end), while a
// client cancel drops the queue. The channel is shared with the model's callbacks, so it
// outlives the reactor (OnDone) safely: writes after that are dropped.

#include <grpcpp/grpcpp.h>

#include <deque>
#include <functional>
#include <memory>
#include <mutex>

namespace stormwatch::gateway {

template <class Msg>
class StreamChannel {
public:
    explicit StreamChannel(grpc::ServerWriteReactor<Msg>* reactor) : m_reactor(reactor) {}

    // Model thread.
    void write(const Msg& message)
    {
        std::lock_guard lock(m_mutex);
        if (m_finishing || !m_reactor)
            return;
        m_queue.push_back(message);
        pump();
    }
    void finish(grpc::Status status)
    {
        std::lock_guard lock(m_mutex);
        if (m_finishing)
            return;
        m_finishing = true;
        m_status = std::move(status);
        pump();
    }
    bool cancelled() const
    {
        std::lock_guard lock(m_mutex);
        return m_cancelled;
    }
    void setId(std::uint64_t id)
    {
        std::lock_guard lock(m_mutex);
        m_id = id;
    }
    std::uint64_t id() const
    {
        std::lock_guard lock(m_mutex);
        return m_id;
    }

    // gRPC threads (through the reactor).
    void onWriteDone(bool ok)
    {
        std::lock_guard lock(m_mutex);
        m_writing = false;
        if (!m_queue.empty())
            m_queue.pop_front();
        if (!ok)
            cancelLocked();
        pump();
    }
    void onCancel()
    {
        std::lock_guard lock(m_mutex);
        cancelLocked();
        pump();
    }
    void onDone()
    {
        std::lock_guard lock(m_mutex);
        m_reactor = nullptr;
        m_queue.clear();
    }

private:
    void cancelLocked()
    {
        m_cancelled = true;
        // The front element may be the write in flight: it must live until OnWriteDone.
        while (m_queue.size() > (m_writing ? 1u : 0u))
            m_queue.pop_back();
        if (!m_finishing) {
            m_finishing = true;
            m_status = grpc::Status(grpc::StatusCode::CANCELLED, "client cancelled");
        }
    }
    // Starts the next write, or finishes once nothing is queued. The gRPC call is the last
    // thing done, so a reaction run inline finds consistent state (the mutex is recursive).
    void pump()
    {
        if (m_writing || m_finished || !m_reactor)
            return;
        if (!m_queue.empty() && !m_cancelled) {
            m_writing = true;
            m_reactor->StartWrite(&m_queue.front());
            return;
        }
        if (m_finishing) {
            m_finished = true;
            m_reactor->Finish(m_status);
        }
    }

    mutable std::recursive_mutex m_mutex;
    grpc::ServerWriteReactor<Msg>* m_reactor;
    std::deque<Msg> m_queue;
    bool m_writing = false;
    bool m_finishing = false;
    bool m_finished = false;
    bool m_cancelled = false;
    grpc::Status m_status;
    std::uint64_t m_id = 0;
};

template <class Msg>
class StreamReactor final : public grpc::ServerWriteReactor<Msg> {
public:
    explicit StreamReactor(std::function<void(const std::shared_ptr<StreamChannel<Msg>>&)> onCancel)
        : m_channel(std::make_shared<StreamChannel<Msg>>(this)), m_onCancel(std::move(onCancel))
    {
    }
    const std::shared_ptr<StreamChannel<Msg>>& channel() const { return m_channel; }

    void OnWriteDone(bool ok) override { m_channel->onWriteDone(ok); }
    void OnCancel() override
    {
        m_channel->onCancel();
        if (m_onCancel)
            m_onCancel(m_channel);
    }
    void OnDone() override
    {
        m_channel->onDone();
        delete this;
    }

private:
    std::shared_ptr<StreamChannel<Msg>> m_channel;
    std::function<void(const std::shared_ptr<StreamChannel<Msg>>&)> m_onCancel;
};

} // namespace stormwatch::gateway
