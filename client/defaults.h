#pragma once
// The client's defaults, in one place: ClientOptions, the guard's timing and the
// connection's config all start from these (the incident analysis's values where it gives one,
// docs/background.md).

namespace stormwatch::defaults {

inline constexpr int kTagSubscribeRetryIntervalMs = 5000;     // backoff floor
inline constexpr int kTagSubscribeRetryMaxIntervalMs = 60000; // backoff max
inline constexpr int kTagSubscribeInFlightCeilingMs = 45000;  // lowest in-flight ceiling
// The ceiling is at least the session's echoed command timeout plus this margin, so a
// request the gateway may still answer within its deadline is never presumed lost
// (the gateway's 30 s default timeout + 15 s = the 45 s lowest ceiling; docs/background.md).
inline constexpr int kTagSubscribeInFlightCeilingMarginMs = 15000;
inline constexpr int kMxCommandTimeoutMs = 60000; // the client's own deadline per Invoke
inline constexpr int kMxSupervisoryAdviseParallelism = 16;
inline constexpr int kReconnectBackoffFloorMs = 1000;
inline constexpr int kReconnectBackoffMaxMs = 30000;
inline constexpr int kAlarmSubscribeRetryIntervalMs = 5000;
inline constexpr int kSessionCommandTimeoutMs = 60000; // Lever 3's value in the "all" preset

} // namespace stormwatch::defaults
