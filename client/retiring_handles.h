#pragma once
// Item handles whose RemoveItem a connection sent and has not seen run ("retiring"). Their
// values belong to an item going away, never to a route, so the connection drops them instead
// of keeping them (a redeploy's old items stream for minutes while a subscribe runs, and
// keeping each of their values would cost a write per change). A handle leaves when the
// gateway answers its remove, or any command sent after it (the STA is one FIFO: the remove
// ran first), or hands the handle out again, and with the session.
//
// A gateway that reuses handles can give a removed item's handle to a subscribe sent after
// the remove, and the new item's first value can come before that subscribe's reply (and
// before the remove's own answer: they are separate calls). Once such a gateway is known, a
// retiring handle keeps its latest value while a subscribe sent after its remove runs, in its
// own entry, which the connection's route cache points at: no lookup per change. Until then
// nothing is kept, which spares a write per change of every removed item in a storm on
// gateways that never reuse a handle.

#include "gateway_port.h"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace stormwatch {

class RetiringHandles {
public:
    // 32 bytes: written once a change while kept, it should cost one cache line.
    struct Entry {
        std::uint64_t removeSeq = 0;        // the remove's correlation number
        std::int64_t sourceTimestampUs = 0; // the kept value's, while hasValue
        double value = 0;
        std::int32_t quality = 0;
        bool timedOut = false;
        bool hasValue = false; // kept while a subscribe sent after the remove runs
        bool hasText = false;  // a string value: its text is kept apart
    };
    // A kept value that leaves with its handle's entry for the connection's own store of
    // unrouted values; `text` is set when `hasText`. Its bytes leave the shared budget first.
    using ReleaseFn = std::function<void(std::int32_t handle, const Entry& value, std::string text,
                                         bool hasText)>;

    // `keptBytes` is the connection's budget for kept values, shared with its unrouted ones
    // (kept texts count there, up to `maxKeptBytes`). Past `maxEntries`, the oldest timed-out
    // remove is forgotten first; when none timed out, a new one is not retired.
    RetiringHandles(std::size_t& keptBytes, std::size_t maxKeptBytes, std::size_t maxEntries,
                    ReleaseFn release);

    // The remove numbered `removeSeq` goes out for `handle`. True when an entry of the handle
    // was replaced (a pointer to it is gone).
    bool retire(std::int32_t handle, std::uint64_t removeSeq);
    // Its remove was answered: it has run.
    void removeAnswered(std::int32_t handle);
    // Its remove answered DEADLINE_EXCEEDED: the STA still runs it later, so the handle stays
    // retiring until a command sent after it is answered.
    void removeTimedOut(std::int32_t handle);
    // The gateway answered the command numbered `seq` (status OK): every timed-out remove
    // sent before it has run.
    void answered(std::uint64_t seq);
    // The gateway handed the handle out again: its kept value is released and its entry goes.
    void handedOut(std::int32_t handle);
    // Releases the handle's kept value, if any; the entry stays.
    void releaseValue(std::int32_t handle);
    // Keeps the change as the handle's latest value when a subscribe sent after its remove
    // runs (`newestOp`: that subscribe's first correlation number).
    void keep(const MxChange& change, const MxEventBatch& event, Entry& entry,
              std::uint64_t newestOp);
    // Nobody can be handed the handles any more: every kept value goes (the caller resets the
    // shared budget).
    void dropValues();
    void clear(); // the session is gone

    Entry* find(std::int32_t handle);
    const Entry* find(std::int32_t handle) const;
    bool contains(std::int32_t handle) const { return m_entries.count(handle) != 0; }
    bool empty() const { return m_entries.empty(); }
    std::size_t size() const { return m_entries.size(); }
    std::size_t values() const { return m_values; } // entries with a kept value
    std::size_t timedOut() const { return m_timedOut; }
    // Handles that stopped retiring (answered, settled, evicted) since the caller last cleared
    // this: a cache of where changes went may still say "retiring" for them.
    std::vector<std::int32_t>& left() { return m_left; }

private:
    void unretire(std::int32_t handle); // released, forgotten and listed in left()
    bool forget(std::int32_t handle);   // erased, counts kept right
    bool keepText(const MxChange& change, const MxEventBatch& event, Entry& entry);

    std::size_t& m_keptBytes;
    std::size_t m_maxKeptBytes;
    std::size_t m_maxEntries;
    ReleaseFn m_release;
    std::unordered_map<std::int32_t, Entry> m_entries;
    std::unordered_map<std::int32_t, std::string> m_texts; // counted in m_keptBytes
    std::size_t m_timedOut = 0;                            // entries with timedOut set
    std::size_t m_values = 0;                              // entries with hasValue set
    // Timed-out removes as (handle, removeSeq), oldest first; one whose handle left (or was
    // retired again) is stale and skipped.
    std::deque<std::pair<std::int32_t, std::uint64_t>> m_timedOutRemoves;
    std::uint64_t m_answeredSeq = 0; // the latest command the gateway answered
    std::vector<std::int32_t> m_left;
};

} // namespace stormwatch
