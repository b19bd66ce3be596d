#include "scenario/site_live.h"

namespace stormwatch {

std::optional<SitePortOptions> sitePortOptions(const Site& site,
                                               const std::map<QString, QString>& endpoints,
                                               QString* error, QStringList* refusedContracts)
{
    auto fail = [&](const QString& why) {
        if (error)
            *error = why;
        return std::nullopt;
    };
    for (const auto& [name, endpoint] : endpoints) {
        if (!site.gateway(name))
            return fail(
                QStringLiteral("--gateway-endpoint %1: the site has no gateway \"%1\"").arg(name));
        if (const QString rule = checkEndpoint(endpoint); !rule.isEmpty())
            return fail(QStringLiteral("--gateway-endpoint %1=%2: %3").arg(name, endpoint, rule));
    }
    SitePortOptions ports;
    for (const SiteGateway& g : site.gateways) {
        GrpcPortOptions o;
        const auto over = endpoints.find(g.name);
        o.address = (over != endpoints.end() ? over->second : g.endpoint).toStdString();
        if (g.tls)
            o.tls =
                TlsFiles{g.tlsCa.toStdString(), g.tlsCert.toStdString(), g.tlsKey.toStdString()};
        o.tokenFile = g.tokenFile.toStdString();
        o.contractFile = g.contractFile.toStdString();
        setKeepalive(o, g.keepaliveS, g.keepaliveTimeoutS);
        if (refusedContracts) {
            if (const QString why = GrpcGatewayPort::validateTransport(o); !why.isEmpty())
                return fail(QStringLiteral("gateway %1: %2").arg(g.name, why));
            if (const QString why = GrpcGatewayPort::validate(o); !why.isEmpty())
                *refusedContracts << QStringLiteral("gateway %1: %2").arg(g.name, why);
        } else if (const QString why = GrpcGatewayPort::validate(o); !why.isEmpty()) {
            return fail(QStringLiteral("gateway %1: %2").arg(g.name, why));
        }
        ports.emplace(g.name.toStdString(), std::move(o));
    }
    return ports;
}

std::optional<std::map<QString, QString>> parseGatewayEndpoints(const QStringList& values,
                                                                QString* error)
{
    std::map<QString, QString> endpoints;
    for (const QString& e : values) {
        const qsizetype eq = e.indexOf(QLatin1Char('='));
        if (eq <= 0) {
            if (error)
                *error = QStringLiteral("--gateway-endpoint %1: must be NAME=HOST:PORT").arg(e);
            return std::nullopt;
        }
        endpoints[e.left(eq)] = e.mid(eq + 1);
    }
    return endpoints;
}

Scenario siteScenario(const Site& site)
{
    Scenario s;
    s.name = site.name;
    s.description = site.description;
    s.durationS = 60;
    s.options = site.options;
    for (const SiteGateway& g : site.gateways)
        s.connections.append(ScenarioConnection{g.name, g.writeUserId, g.name});
    s.instances.reserve(site.instances.size());
    for (const SiteInstance& i : site.instances) {
        ScenarioInstance inst;
        inst.name = i.name;
        inst.connection = i.gateway;
        inst.tags = int(i.tags.size());
        inst.tagPrefix = i.name + QStringLiteral(".Attr");
        inst.tagAddresses.reserve(i.tags.size());
        bool expected = false;
        for (const SiteTag& t : i.tags) {
            inst.tagAddresses << t.address;
            expected = expected || site.expectedUpdateS.contains(t.kind);
        }
        if (expected) {
            inst.expectedUpdateS.reserve(i.tags.size());
            for (const SiteTag& t : i.tags)
                inst.expectedUpdateS << site.expectedUpdateS.value(t.kind, 0);
        }
        inst.alarms = i.alarms;
        s.instances.append(std::move(inst));
    }
    s.staleFactor = site.staleFactor;
    s.variants = {VariantSpec{QStringLiteral("live"), QJsonValue(QStringLiteral("lever1+2"))}};
    return s;
}

} // namespace stormwatch
