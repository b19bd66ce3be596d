#pragma once
// The console window's start: the embedded mock gateway (or an external one), the live
// client, the window and its controller. The headless CLI is in stormwatch_main.cpp.

#include "client/grpc_port_options.h"

#include <QString>
#include <map>

namespace stormwatch {

struct ConsoleOptions {
    QString gateway; // HOST:PORT of an external gateway; empty = the embedded mock
    QString tlsCa, tlsCert, tlsKey, tokenFile;
    QString gatewayContract; // --gateway-contract: the gateway's .proto or .protoset
    GrpcPortOptions port;    // --keepalive-*: the rest of it comes from the strings above
    QString site; // a site file: the live run on its gateways and real tags (docs/sites.md)
    std::map<QString, QString> gatewayEndpoints; // --gateway-endpoint: site gateway -> host:port
    QString scenario; // preselected (and the live client's connections/instances)
    QString levers;   // preset the live client starts with; empty = the last one used
    QString settingsFile;
    QString play;          // variant of the demo scenario to play at start; empty = none
    double playSpeed = 10; // 1, 10, 60; 0 = max (virtual time); -1 = live over gRPC
    QString record; // record the live run and every playback to this file (docs/recordings.md)
    QString openRecording; // show this recording's last run at start (read-only)
    QString screenshot;    // grab the window to this PNG after screenshotAfterS and quit
    double screenshotAfterS = 5;
};

// Needs a QApplication. Returns the exit code: 0, 1 (cannot start), 2 (bad input, with
// the message on stderr).
int runConsoleWindow(const ConsoleOptions& options);

} // namespace stormwatch
