#pragma once

// What a live client needs from a site file: one gRPC port per gateway (endpoint, TLS,
// token), shared by commissioning and live runs so a gateway is reached the same way by
// both, and the site's shape as a scenario (its gateways as connections, its instances
// with their real tags), which a live run of the console drives.

#include "client/grpc_gateway_port.h"
#include "scenario/scenario.h"
#include "scenario/site.h"

#include <QString>
#include <map>
#include <optional>
#include <string>

namespace stormwatch {

// Gateway name -> the port options of that gateway; `endpoints` (gateway name -> host:port)
// reach a gateway elsewhere than its file says (--gateway-endpoint). nullopt with *error
// naming the gateway or the override that is wrong. With `refusedContracts`, a gateway whose
// contract does not check is kept and named there instead (its connection is then refused
// and sends nothing, while the others run: the console shows it).
using SitePortOptions = std::map<std::string, GrpcPortOptions>;
std::optional<SitePortOptions> sitePortOptions(const Site& site,
                                               const std::map<QString, QString>& endpoints,
                                               QString* error,
                                               QStringList* refusedContracts = nullptr);

// --gateway-endpoint values ("NAME=HOST:PORT", repeatable) as gateway name -> host:port;
// nullopt with *error naming a value without "NAME=". The endpoints are checked against
// the site by sitePortOptions.
std::optional<std::map<QString, QString>> parseGatewayEndpoints(const QStringList& values,
                                                                QString* error);

// The site as a scenario: a connection per gateway (named as the gateway), its instances
// with their real tag addresses, the site's client options, one "live" variant (lever1+2).
// Validated as every scenario is when it runs.
Scenario siteScenario(const Site& site);

} // namespace stormwatch
