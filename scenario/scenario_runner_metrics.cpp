#include "scenario/scenario_runner.h"

// The tag metrics as things happen: tags not Good (bad_tag_seconds, time_to_all_good_s and
// the per-subscription quality series), Good tags gone stale (stale_tag_seconds), orphaned and
// frozen tags (checked once the step that raised the event is over; the run's seconds and each
// subscription's series) and when every connection first had a session.

#include "scenario/run_time.h"

#include <algorithm>

namespace stormwatch {

using run_time::toSeconds;

double ScenarioRunner::orphanedTagSecondsSoFar() const
{
    const std::int64_t since = (relNow() - m_lastOrphanChange).count();
    return double(m_orphanUs + std::int64_t(m_orphaned) * since) / 1e6;
}

void ScenarioRunner::checkOrphans(int instance)
{
    // Observer calls land mid-transition (a guard reports Failed before it re-arms; a
    // connection reports Connected before it re-subscribes): the check runs once the
    // current step is over, for every instance marked meanwhile.
    if (m_finished || !m_started)
        return;
    if (instance < 0)
        m_orphanCheckAll = true;
    else
        m_orphanCheckDirty.push_back(instance);
    if (m_orphanCheckPosted)
        return;
    m_orphanCheckPosted = true;
    m_scheduler->post([this, life = std::weak_ptr<int>(m_life)] {
        if (life.expired())
            return;
        m_orphanCheckPosted = false;
        countOrphans();
    });
}

void ScenarioRunner::countOrphans()
{
    if (m_finished || !m_started)
        return;
    std::vector<int> dirty;
    dirty.swap(m_orphanCheckDirty);
    const bool all = m_orphanCheckAll;
    m_orphanCheckAll = false;
    const auto& instances = m_engine->instances();
    int orphaned = m_orphaned;
    int frozen = m_frozen;
    const double t = toSeconds(relNow());
    const auto one = [&](std::size_t i) {
        const Instance& in = *instances[i];
        const auto& groups = m_subscriptionSeries[i];
        int n = 0, f = 0;
        for (std::size_t g = 0; g < in.groupCount(); ++g) {
            const int orphanedOfGroup = in.orphanedTags(g);
            const int frozenOfGroup = in.frozenTags(g);
            // Each subscription's own, so the list can name where they are.
            if (g < groups.size()) {
                m_series.at(groups[g].orphaned).add(t, orphanedOfGroup);
                m_series.at(groups[g].frozen).add(t, frozenOfGroup);
            }
            n += orphanedOfGroup;
            f += frozenOfGroup;
        }
        orphaned += n - m_orphans[i];
        m_orphans[i] = n;
        frozen += f - m_frozens[i];
        m_frozens[i] = f;
    };
    if (all) {
        for (std::size_t i = 0; i < instances.size(); ++i)
            one(i);
    } else {
        std::sort(dirty.begin(), dirty.end());
        dirty.erase(std::unique(dirty.begin(), dirty.end()), dirty.end());
        for (int i : dirty)
            one(std::size_t(i));
    }
    const Time now = relNow();
    if (frozen != m_frozen) {
        m_frozenUs += std::int64_t(m_frozen) * (now - m_lastFrozenChange).count();
        m_lastFrozenChange = now;
        m_frozen = frozen;
    }
    if (orphaned == m_orphaned)
        return;
    m_orphanUs += std::int64_t(m_orphaned) * (now - m_lastOrphanChange).count();
    m_lastOrphanChange = now;
    m_orphaned = orphaned;
    m_series.at(m_orphanedSeries).add(toSeconds(now), orphaned);
}

void ScenarioRunner::onConnectionState(const GatewayConnection& connection, ConnectionState state)
{
    if (state == ConnectionState::Connected && !m_connectedAfterS &&
        std::find(m_connected.begin(), m_connected.end(), &connection) == m_connected.end()) {
        m_connected.push_back(&connection);
        if (m_connected.size() == m_engine->connections().size())
            m_connectedAfterS = toSeconds(relNow());
    }
    checkOrphans(-1);
}

double ScenarioRunner::badTagSecondsSoFar() const
{
    const std::int64_t since = (relNow() - m_lastChange).count();
    return double(m_badTagUs + std::int64_t(m_notGood) * since) / 1e6;
}

void ScenarioRunner::resyncCounts()
{
    for (std::size_t i = 0; i < m_counts.size(); ++i)
        onInstanceCounts(int(i));
}

void ScenarioRunner::onInstanceCounts(int index)
{
    const Instance& instance = *m_engine->instances()[std::size_t(index)];
    const QualityCounts now = instance.deployed() ? instance.counts() : QualityCounts{};
    QualityCounts& last = m_counts[std::size_t(index)];
    if (now == last)
        return;
    const int delta = now.notGood() - last.notGood();
    const int staleDelta = now.stale - last.stale;
    last = now;
    if (delta != 0)
        setNotGood(m_notGood + delta);
    if (staleDelta != 0) {
        const Time at = relNow();
        m_staleUs += std::int64_t(m_stale) * (at - m_lastStaleChange).count();
        m_lastStaleChange = at;
        m_stale += staleDelta;
    }

    const double t = toSeconds(relNow());
    auto& groups = m_subscriptionSeries[std::size_t(index)];
    for (std::size_t g = 0; g < groups.size(); ++g) {
        // One group is the usual case: its counts are the instance's, kept incrementally.
        const QualityCounts c = groups.size() == 1 ? now : instance.counts(g);
        m_series.at(groups[g].good).add(t, c.good);
        m_series.at(groups[g].uncertain).add(t, c.uncertain);
        m_series.at(groups[g].bad).add(t, c.bad);
        m_series.at(groups[g].stale).add(t, c.stale);
    }
    checkOrphans(index);
}

void ScenarioRunner::setNotGood(int notGood)
{
    const Time now = relNow();
    m_badTagUs += std::int64_t(m_notGood) * (now - m_lastChange).count();
    m_lastChange = now;
    if (notGood == 0 && m_notGood > 0)
        m_allGoodSince = now;
    else if (notGood > 0)
        m_allGoodSince.reset();
    m_notGood = notGood;
}

} // namespace stormwatch
