#include "support_fake_view.h"

namespace stormwatch::test {

FakeView::FakeView()
{
    m_store.setRetentionSeconds(0); // keep everything: tests look at whole series
}

void FakeView::applyTagChanges(const QVector<TagChange>& changes)
{
    for (const TagChange& t : changes)
        tags.insert((qint64(t.instance) << 32) | quint32(t.tag), t);
}

void FakeView::setGatewaySummary(const QString& address, const QString& state)
{
    gatewayAddress = address;
    recoveryState = state;
}

void FakeView::setFaultsAvailable(bool available, const QString& reasonWhenNot)
{
    faultsAvailable = available;
    faultsReason = reasonWhenNot;
}

void FakeView::setRunState(const RunState& state)
{
    run = state;
    playing = state.playback && state.running;
    progress = state.progress;
    playbackLabel = state.label;
}

void FakeView::showError(const QString& title, const QString& text)
{
    errors << title + QStringLiteral(": ") + text;
}

int FakeView::goodTags() const
{
    int good = 0;
    for (const TagChange& t : tags)
        good += t.quality == 192 ? 1 : 0;
    return good;
}

bool FakeView::logContains(const QString& text) const
{
    for (const LogEntry& e : log)
        if (e.message.contains(text) || e.subject.contains(text))
            return true;
    return false;
}

QString FakeView::connectionState(const QString& name) const
{
    for (const ConnectionInfo& c : connections)
        if (c.name == name)
            return c.state;
    return {};
}

} // namespace stormwatch::test
