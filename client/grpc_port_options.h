#pragma once
// How to reach a gateway over gRPC (--gateway, --tls-*, --token-file): plain options that a
// view may hold and hand over without knowing the port that uses them.

#include "scheduler.h"

#include <chrono>
#include <optional>
#include <string>

namespace stormwatch {

// PEM files for a TLS channel. An empty caFile trusts the system roots; certFile and
// keyFile (both or neither) present a client certificate (mutual TLS).
struct TlsFiles {
    std::string caFile;
    std::string certFile;
    std::string keyFile;
};

struct GrpcPortOptions {
    std::string address;         // host:port or [v6]:port
    std::optional<TlsFiles> tls; // nullopt = insecure channel (the loopback mock)
    std::string tokenFile;       // bearer token, sent as "authorization: Bearer …"; empty = none
    Duration invokeDeadline{0};  // gRPC deadline on Invoke; 0 = none (the session timeout rules)
    Duration connectTimeout = std::chrono::seconds(10); // deadline on Open/CloseSession; 0 = none
    // HTTP/2 keepalive: a ping after this long without a frame from the gateway, and the
    // transport is closed when its ack takes longer than the timeout. Pings go on while the
    // event stream is quiet (MXAccess sends on change only), so a frozen gateway ends the
    // stream within time + timeout, by default 15 s.
    Duration keepaliveTime = std::chrono::seconds(10);
    Duration keepaliveTimeout = std::chrono::seconds(5);
    // The gateway's contract (--gateway-contract: a .proto or .protoset); empty = stormwatch's
    // own, compiled in. Checked before any call: one that does not check gets none.
    std::string contractFile;
    std::string contractProfile; // empty = by the contract's package
};

// Sets the keepalive from seconds as a site file or the command line gives them; 0 (unset)
// keeps the default.
void setKeepalive(GrpcPortOptions& options, double keepaliveS, double keepaliveTimeoutS);

} // namespace stormwatch
