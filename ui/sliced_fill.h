#pragma once
// Fills widgets a slice per event-loop turn: showing a finished run at once (series into
// stores, scales, a table, replots) held the UI thread for tens of ms in one event, so the
// A/B and compare views do it a slice at a time, whatever else is waiting (the live run's
// batches, input, paints) going in between. Starting anew or cancelling abandons a filling
// under way: a slice already queued for it does nothing.

#include <QObject>
#include <functional>

namespace stormwatch {

class SlicedFill {
public:
    // `context` owns this (its member): the queued slices run on its thread and die with it.
    explicit SlicedFill(QObject* context) : m_context(context) {}
    SlicedFill(const SlicedFill&) = delete;
    SlicedFill& operator=(const SlicedFill&) = delete;

    // slice(0) runs now, slice(1), slice(2)… one per later turn, while they return true; the
    // first to return false ends the filling, and `done` runs in that turn, once the filling
    // is over (so `done` may start another).
    void start(std::function<bool(int stage)> slice, std::function<void()> done);
    void cancel();
    bool active() const { return m_stage >= 0; }

private:
    void next();

    QObject* m_context;
    std::function<bool(int)> m_slice;
    std::function<void()> m_done;
    int m_stage = -1; // the next slice; -1: not filling
    int m_generation = 0;
};

} // namespace stormwatch
