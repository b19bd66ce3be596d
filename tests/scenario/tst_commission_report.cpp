// The commissioning report's Markdown: text a gateway or a site chose (an error that quotes
// an IPv6 peer as "%5B::1%5D", a name holding "%2") appears as it is, and the numbers land
// in their own cells — the rows are filled in one pass, never substituted into again.
#include "scenario/commission.h"

#include <QtTest>

using namespace stormwatch;

class TestCommissionReport : public QObject {
    Q_OBJECT
private slots:
    void textFromThePeerIsNotSubstitutedInto()
    {
        CommissionReport r;
        r.site = QStringLiteral("plant");
        r.siteFile = QStringLiteral("site%1.json");
        r.variant = QStringLiteral("lever1+2");
        r.timeoutS = 60;
        r.durationS = 12.5;
        CommissionGateway g;
        g.name = QStringLiteral("gw%3");
        g.endpoint = QStringLiteral("[::1]:50051");
        g.state = QStringLiteral("unreachable");
        g.lastError =
            QStringLiteral("failed to connect to all addresses; last error: ipv6:%5B::1%5D:50051");
        g.counts.tags = 7;
        g.counts.good = 4;
        g.counts.failed = 2;
        g.counts.noValue = 1;
        g.subscribeRpcs = 9;
        r.gateways << g;
        CommissionInstance i;
        i.name = QStringLiteral("Tank%2");
        i.gateway = g.name;
        i.counts = g.counts;
        r.instances << i;
        r.counts = g.counts;
        const QString md = QString::fromUtf8(commissionMarkdown(r));
        QVERIFY2(md.contains(QStringLiteral(
                     "Site file `site%1.json`, levers `lever1+2`, timeout 60 s, ran 12.5 s.")),
                 qPrintable(md));
        QVERIFY2(md.contains(QStringLiteral(
                     "| gw%3 | [::1]:50051 | unreachable (failed to connect to all addresses; "
                     "last error: ipv6:%5B::1%5D:50051) | 7 | 4 | 2 | 1 |")),
                 qPrintable(md));
        QVERIFY2(md.contains(QStringLiteral("| Tank%2 | gw%3 | 7 | 4 | 2 | 1 |")), qPrintable(md));
    }
};

QTEST_GUILESS_MAIN(TestCommissionReport)
#include "tst_commission_report.moc"
