#pragma once
// A server-streaming reactor fed from the model thread. Writes are queued so exactly one
// is outstanding at a time; finish() drains what is queued first (a graceful end), while a
// client cancel drops the queue. The channel is shared with the model's callbacks, so it
// outlives the reactor (OnDone) safely: writes after that are dropped.
//
// The backlog is bounded: a client that reads slowly or not at all
// must not grow the server. At most kStreamBacklogMessages messages wait behind the one being
// written; past that the stream overflows into a coalescing buffer (StreamOverflow): for the
// event stream the latest value per item (server handle, item handle), at most
// kStreamBacklogItems items, further new items dropped; notices, at most
// kStreamBacklogNotices; for any other stream (WatchStats) the latest message. Once the
// client has read the queue down, the buffer goes out as one batch, preceded by a
// "backlog-overflow" notice saying how many updates were coalesced and dropped. Everything is
// counted in StreamBacklogCounters (GatewayStats), and freed when the stream ends.

#include "gateway_types.h"
#include "mxaccess_gateway.pb.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <grpcpp/grpcpp.h>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace stormwatch::gateway {

inline constexpr std::size_t kStreamBacklogMessages = 32;
inline constexpr std::size_t kStreamBacklogItems = 100'000;
inline constexpr std::size_t kStreamBacklogNotices = 16;

// What a stream holds past its queue: the latest message (any stream but the event stream).
template <class Msg> class StreamOverflow {
public:
    bool empty() const { return !m_latest; }
    std::size_t items() const { return m_latest ? 1 : 0; }
    void add(const Msg& message, StreamBacklogCounters& counters)
    {
        if (m_latest)
            counters.coalesced.fetch_add(1, std::memory_order_relaxed);
        m_latest = message;
    }
    void takeInto(std::deque<Msg>& queue)
    {
        queue.push_back(std::move(*m_latest));
        m_latest.reset();
    }
    void clear() { m_latest.reset(); }

private:
    std::optional<Msg> m_latest;
};

// The event stream's: the latest value per item, and the notices.
template <> class StreamOverflow<mxgateway::v1::MxEvent> {
public:
    bool empty() const { return m_latest.empty() && m_notices.empty(); }
    std::size_t items() const { return m_latest.size() + m_notices.size(); }
    void add(const mxgateway::v1::MxEvent& event, StreamBacklogCounters& counters)
    {
        if (event.has_notice()) {
            if (m_notices.size() < kStreamBacklogNotices)
                m_notices.push_back(event);
            else
                drop(counters, 1);
            return;
        }
        for (const auto& change : event.data_changes().changes()) {
            const std::pair key{change.server_handle(), change.item_handle()};
            if (auto it = m_latest.find(key); it != m_latest.end()) {
                it->second = change;
                ++m_coalesced;
                counters.coalesced.fetch_add(1, std::memory_order_relaxed);
            } else if (m_latest.size() < kStreamBacklogItems) {
                m_latest.emplace(key, change);
            } else {
                drop(counters, 1);
            }
        }
    }
    void takeInto(std::deque<mxgateway::v1::MxEvent>& queue)
    {
        mxgateway::v1::MxEvent notice;
        notice.mutable_notice()->set_kind("backlog-overflow");
        notice.mutable_notice()->set_message(
            "the client read too slowly: " + std::to_string(m_coalesced) +
            " updates were replaced by a newer value of their item and " +
            std::to_string(m_dropped) + " dropped; the latest value of each item follows");
        queue.push_back(std::move(notice));
        for (auto& n : m_notices)
            queue.push_back(std::move(n));
        // The latest values in messages of kMaxChangesPerEvent, as the stream sends a tick.
        mxgateway::v1::MxEvent batch;
        for (auto& [key, change] : m_latest) {
            *batch.mutable_data_changes()->add_changes() = std::move(change);
            if (std::size_t(batch.data_changes().changes_size()) == kMaxChangesPerEvent)
                queue.push_back(std::exchange(batch, {}));
        }
        if (batch.has_data_changes())
            queue.push_back(std::move(batch));
        clear();
    }
    void clear()
    {
        m_latest.clear();
        m_notices.clear();
        m_notices.shrink_to_fit();
        m_coalesced = 0;
        m_dropped = 0;
    }

private:
    void drop(StreamBacklogCounters& counters, std::int64_t n)
    {
        m_dropped += n;
        counters.dropped.fetch_add(n, std::memory_order_relaxed);
    }

    std::map<std::pair<std::int32_t, std::int32_t>, mxgateway::v1::DataChange> m_latest;
    std::vector<mxgateway::v1::MxEvent> m_notices;
    std::int64_t m_coalesced = 0;
    std::int64_t m_dropped = 0;
};

// Writer: what the channel writes to and finishes, StartWrite(const Msg*) and
// Finish(grpc::Status): a server-streaming reactor, or the contract service's reactor that
// writes each message in its contract's wire form.
template <class Msg, class Writer = grpc::ServerWriteReactor<Msg>> class StreamChannel {
public:
    StreamChannel(Writer* reactor, std::shared_ptr<StreamBacklogCounters> counters)
        : m_reactor(reactor),
          m_counters(counters ? std::move(counters) : std::make_shared<StreamBacklogCounters>())
    {
    }
    ~StreamChannel()
    {
        std::lock_guard lock(m_mutex);
        freeBacklog();
    }

    // Model thread. By value: an encoded event is moved in, not copied.
    void write(Msg message)
    {
        std::lock_guard lock(m_mutex);
        if (m_finishing || !m_reactor)
            return;
        if (waiting() < kStreamBacklogMessages && m_overflow.empty()) {
            m_queue.push_back(std::move(message));
            m_counters->queued.fetch_add(1, std::memory_order_relaxed);
            StreamBacklogCounters::raise(m_counters->maxQueued,
                                         static_cast<std::int64_t>(waiting()));
        } else {
            if (m_overflow.empty())
                m_counters->overflows.fetch_add(1, std::memory_order_relaxed);
            const std::size_t before = m_overflow.items();
            m_overflow.add(message, *m_counters);
            const std::size_t after = m_overflow.items();
            m_counters->heldItems.fetch_add(static_cast<std::int64_t>(after) -
                                                static_cast<std::int64_t>(before),
                                            std::memory_order_relaxed);
            StreamBacklogCounters::raise(m_counters->maxHeldItems,
                                         static_cast<std::int64_t>(after));
        }
        pump();
    }
    // Messages waiting behind the write in flight, and items held past them (tests).
    std::size_t backlog() const
    {
        std::lock_guard lock(m_mutex);
        return waiting();
    }
    std::size_t heldItems() const
    {
        std::lock_guard lock(m_mutex);
        return m_overflow.items();
    }
    // drain: what is queued goes out first (a graceful end); else it is dropped (a
    // subscriber cut off), only the write in flight completes.
    void finish(grpc::Status status, bool drain = true)
    {
        std::lock_guard lock(m_mutex);
        if (m_finishing)
            return;
        m_finishing = true;
        m_status = std::move(status);
        if (!drain)
            dropQueued();
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
        if (!m_queue.empty()) {
            m_queue.pop_front();
            m_counters->queued.fetch_sub(1, std::memory_order_relaxed);
        }
        if (!ok)
            cancelLocked();
        else if (m_queue.empty() && !m_overflow.empty()) {
            // The client has read the queue down: what it missed goes out, coalesced.
            m_counters->heldItems.fetch_sub(static_cast<std::int64_t>(m_overflow.items()),
                                            std::memory_order_relaxed);
            const std::size_t before = m_queue.size();
            m_overflow.takeInto(m_queue);
            m_counters->queued.fetch_add(static_cast<std::int64_t>(m_queue.size() - before),
                                         std::memory_order_relaxed);
        }
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
        freeBacklog();
    }

private:
    void dropQueued()
    {
        // The front element may be the write in flight: it must live until OnWriteDone.
        while (m_queue.size() > (m_writing ? 1u : 0u)) {
            m_queue.pop_back();
            m_counters->queued.fetch_sub(1, std::memory_order_relaxed);
        }
        dropOverflow();
    }
    void cancelLocked()
    {
        m_cancelled = true;
        dropQueued();
        if (!m_finishing) {
            m_finishing = true;
            m_status = grpc::Status(grpc::StatusCode::CANCELLED, "client cancelled");
        }
    }
    std::size_t waiting() const { return m_queue.size() - (m_writing && !m_queue.empty() ? 1 : 0); }
    void dropOverflow()
    {
        m_counters->heldItems.fetch_sub(static_cast<std::int64_t>(m_overflow.items()),
                                        std::memory_order_relaxed);
        m_overflow.clear();
    }
    // The stream is over: its queue and buffer go, and their memory with them.
    void freeBacklog()
    {
        m_counters->queued.fetch_sub(static_cast<std::int64_t>(m_queue.size()),
                                     std::memory_order_relaxed);
        std::deque<Msg>().swap(m_queue);
        dropOverflow();
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
    Writer* m_reactor;
    std::deque<Msg> m_queue;
    std::shared_ptr<StreamBacklogCounters> m_counters;
    StreamOverflow<Msg> m_overflow;
    bool m_writing = false;
    bool m_finishing = false;
    bool m_finished = false;
    bool m_cancelled = false;
    grpc::Status m_status;
    std::uint64_t m_id = 0;
};

template <class Msg> class StreamReactor final : public grpc::ServerWriteReactor<Msg> {
public:
    explicit StreamReactor(std::function<void(const std::shared_ptr<StreamChannel<Msg>>&)> onCancel,
                           std::shared_ptr<StreamBacklogCounters> counters = nullptr)
        : m_channel(std::make_shared<StreamChannel<Msg>>(this, std::move(counters))),
          m_onCancel(std::move(onCancel))
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
