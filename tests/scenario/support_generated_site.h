#pragma once
// A site of real size without a file: `instances` instances named Area0001_Unit… of `tags`
// tags each (Area0001_Unit.Attr0…), all on one gateway. Its endpoint is a placeholder: a
// suite or benchmark reaches the gateway through sitePortOptions with the mock's address.
// Header only: `#include "scenario/support_generated_site.h"`.

#include "scenario/site.h"

namespace stormwatch::testsupport {

inline Site generatedSite(int instances, int tags,
                          const QString& gatewayName = QStringLiteral("gw1"))
{
    Site site;
    site.name = QStringLiteral("generated-%1x%2").arg(instances).arg(tags);
    SiteGateway gateway;
    gateway.name = gatewayName;
    gateway.endpoint = QStringLiteral("127.0.0.1:1");
    site.gateways = {gateway};
    for (int i = 0; i < instances; ++i) {
        SiteInstance instance;
        instance.name = QStringLiteral("Area%1_Unit").arg(i + 1, 4, 10, QChar('0'));
        instance.gateway = gateway.name;
        for (int t = 0; t < tags; ++t)
            instance.tags << SiteTag{instance.name + QStringLiteral(".Attr%1").arg(t), {}};
        site.instances << instance;
    }
    return site;
}

} // namespace stormwatch::testsupport
