#include "retry_budget.h"

#include <algorithm>
#include <cmath>

namespace stormwatch {

RetryBudget::RetryBudget(RetryBudgetConfig config)
    : m_config(config), m_maxMilliTokens(config.maxTokens * 1000),
      m_ratioMilliTokens(int(std::lround(config.tokenRatio * 1000))),
      m_milliTokens(m_maxMilliTokens)
{
}

void RetryBudget::recordFailure()
{
    m_milliTokens = std::max(0, m_milliTokens - 1000);
}

void RetryBudget::recordSuccess()
{
    m_milliTokens = std::min(m_maxMilliTokens, m_milliTokens + m_ratioMilliTokens);
}

bool RetryBudget::tryRetry(Time now, Duration probeEvery)
{
    if (!throttling())
        return true;
    if (!m_lastProbe || now - *m_lastProbe >= probeEvery) {
        m_lastProbe = now;
        ++m_probes;
        return true;
    }
    ++m_throttled;
    return false;
}

} // namespace stormwatch
