#include "ui/sliced_fill.h"

#include <QTimer>

namespace stormwatch {

void SlicedFill::start(std::function<bool(int)> slice, std::function<void()> done)
{
    cancel();
    m_slice = std::move(slice);
    m_done = std::move(done);
    m_stage = 0;
    next();
}

void SlicedFill::cancel()
{
    m_stage = -1;
    ++m_generation;
}

void SlicedFill::next()
{
    if (m_stage < 0)
        return;
    if (!m_slice(m_stage++)) {
        m_stage = -1;
        const auto done = std::move(m_done); // `done` may start another filling
        m_done = nullptr;
        if (done)
            done();
        return;
    }
    QTimer::singleShot(0, m_context, [this, generation = m_generation] {
        if (generation == m_generation)
            next();
    });
}

} // namespace stormwatch
