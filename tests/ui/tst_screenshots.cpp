// The done-when pictures: the console at 1600×1000 and 1024×700, light and dark —
// live default, the incident finished (whole run), the compare view, presenter mode — saved
// under build/screenshots/ for a person to look at, with the facts a picture must show
// asserted here (size, whole run, markers, a dark plot in the dark theme).
#include "gateway/mock_gateway_server.h"
#include "models/series_store.h"
#include "scenario/run_host.h"
#include "scenario/scenario_parser.h"
#include "scenario/site.h"
#include "scenario/site_live.h"
#include "scenario/support_generated_site.h"
#include "test_paths.h"
#include "ui/ab_view.h"
#include "ui/compare_view.h"
#include "ui/console_controller.h"
#include "ui/main_window.h"
#include "ui/main_window_view.h"
#include "ui/plot_panel.h"
#include "ui/subscriptions_panel.h"

#include <QComboBox>
#include <QDir>
#include <QImage>
#include <QLabel>
#include <QLocale>
#include <QLoggingCategory>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QtTest>
#include <map>
#include <memory>
#include <qcustomplot.h>

using namespace stormwatch;

namespace {

constexpr int kTimeoutMs = 120000;
const QList<QSize> kSizes{QSize(1600, 1000), QSize(1024, 700)};

QString outDir()
{
    // The suites run from build/tests: the pictures go to build/screenshots.
    const QString dir = QDir(QCoreApplication::applicationDirPath())
                            .absoluteFilePath(QStringLiteral("../screenshots"));
    QDir().mkpath(dir);
    return QDir(dir).canonicalPath();
}

double darkShare(const QImage& image)
{
    qint64 n = 0, total = 0;
    for (int y = 0; y < image.height(); y += 4)
        for (int x = 0; x < image.width(); x += 4, ++total)
            n += image.pixelColor(x, y).lightness() < 90 ? 1 : 0;
    return double(n) / double(total);
}

// Grabs `w` at `size` into <name>-<theme>-<w>x<h>.png; checks the picture's size and, in
// the dark theme, that the plots are not white.
void shoot(QWidget& w, QWidget* plots, const QString& name, Theme theme, QSize size)
{
    w.resize(size);
    QCoreApplication::processEvents();
    QTest::qWait(120); // the throttled replot and the compact layout settle
    QCoreApplication::processEvents();
    const QImage image = w.grab().toImage();
    QCOMPARE(image.size(), size);
    const QString file = QDir(outDir()).filePath(QStringLiteral("%1-%2-%3x%4.png")
                                                     .arg(name, themeName(theme))
                                                     .arg(size.width())
                                                     .arg(size.height()));
    QVERIFY2(image.save(file), qPrintable(file));
    if (plots && theme == Theme::Dark) {
        const QImage plot = plots->grab().toImage();
        QVERIFY2(darkShare(plot) > 0.6, qPrintable(file));
    }
}

// The console window live on a site's gateways, in a theme, at the first size: as
// `stormwatch --site` opens it.
struct SiteConsole {
    QTemporaryDir dir;
    MainWindow w;
    std::unique_ptr<MainWindowView> view;
    std::unique_ptr<ConsoleController> controller;

    bool start(const Site& site, const std::map<std::string, GrpcPortOptions>& ports, Theme theme,
               QString* error)
    {
        w.setSettingsFile(dir.filePath("s.ini"));
        w.restoreSettings();
        w.setTheme(theme);
        view = std::make_unique<MainWindowView>(w);
        controller = std::make_unique<ConsoleController>(view.get());
        controller->setSite(siteScenario(site), ports);
        controller->loadDemoScenario();
        if (!controller->startEmbedded(error))
            return false;
        w.resize(kSizes[0]);
        w.show();
        return QTest::qWaitForWindowExposed(&w);
    }
    int goodTags()
    {
        const SeriesStore* store = w.store();
        int good = 0;
        for (const SubscriptionKey& k : store->subscriptions())
            good += int(store->valueAt(k, SubMetric::Good, store->latestTime()));
        return good;
    }
    ~SiteConsole()
    {
        if (controller)
            controller->host()->stop();
    }
};

// The share of each plot's own strip (the plot widget's height over four, its whole width)
// that its axis rectangle takes: the plot with its own axes, not a legend's column or row.
// The data area inside the axes is printed beside it.
QList<double> plotShares(PlotPanel& plots, QSize size)
{
    QList<double> shares;
    const QRect viewport = plots.customPlot()->viewport();
    const double strip = double(viewport.width()) * viewport.height() / 4.0;
    for (int p = 0; p < 4; ++p) {
        const QCPAxisRect* rect = plots.axisRect(PlotPanel::Plot(p));
        const QRect outer = rect->outerRect();
        const QRect inner = rect->rect();
        shares << double(outer.width()) * outer.height() / strip;
        qInfo("%dx%d: plot %d keeps %.1f %% of its strip (data area inside its axes %.1f %%)",
              size.width(), size.height(), p, 100 * shares.last(),
              100.0 * inner.width() * inner.height() / strip);
    }
    return shares;
}

} // namespace

class TestScreenshots : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QLoggingCategory::setFilterRules(QStringLiteral("stormwatch.*.warning=false"));
    }
    void cleanup() { applyTheme(Theme::Light); }

    void siteFilteredToOneGateway_data() { console_data(); }

    // The example site (1,000 tags on two gateways, each an embedded mock here) live in the
    // console; gw-packaging goes away and the plots are filtered to gw-utilities, whose
    // tags stay Good: the picture of "its plot shows no disturbance".
    void siteFilteredToOneGateway()
    {
        QFETCH(int, theme);
        const Theme t = Theme(theme);
        QList<ScenarioError> errors;
        const auto site = loadSiteFile(
            testpaths::sourceFile(QStringLiteral("resources/sites/example-site.json")), &errors);
        QVERIFY(site);
        gateway::MockGatewayServer packaging, utilities;
        QVERIFY(packaging.start());
        QVERIFY(utilities.start());
        QString error;
        const auto ports = sitePortOptions(
            *site,
            {{QStringLiteral("gw-packaging"), QString::fromStdString(packaging.address())},
             {QStringLiteral("gw-utilities"), QString::fromStdString(utilities.address())}},
            &error);
        QVERIFY2(ports, qPrintable(error));
        SiteConsole console;
        QVERIFY2(console.start(*site, *ports, t, &error), qPrintable(error));
        MainWindow& w = console.w;
        SeriesStore* store = w.store();
        QTRY_COMPARE_WITH_TIMEOUT(console.goodTags(), 1000, kTimeoutMs);
        QTest::qWait(3000);
        packaging.stop(); // its calls and stream end: its tags go Bad, it is retried
        const double stoppedAt = store->latestTime();
        QTRY_VERIFY_WITH_TIMEOUT(store->latestTime() > stoppedAt + 8, kTimeoutMs);
        w.plots()->setGatewayFilter(QStringLiteral("gw-utilities"));
        w.plots()->fitWholeRun(); // the run so far, not the follow window's first seconds
        QCOMPARE(w.plots()->gatewayChooser()->currentText(), QStringLiteral("gw-utilities"));
        for (QSize size : kSizes)
            shoot(w, w.plots(), QStringLiteral("site-gw-utilities"), t, size);
        w.plots()->setGatewayFilter(QStringLiteral("gw-packaging"));
        shoot(w, w.plots(), QStringLiteral("site-gw-packaging"), t, kSizes[0]);
    }

    void siteAtScale_data()
    {
        QTest::addColumn<int>("theme");
        QTest::addColumn<int>("instances");
        QTest::addColumn<int>("tags");
        for (int instances : {50, 1000})
            for (Theme theme : {Theme::Light, Theme::Dark})
                QTest::addRow("%d instances, %s", instances, qPrintable(themeName(theme)))
                    << int(theme) << instances << (instances > 100 ? 5 : 40);
    }

    // A site's many subscriptions do not squeeze the plots: past a handful the in-plot legend
    // steps aside for the Subscriptions list, and each plot keeps at least 70 % of its strip
    // for data at both sizes.
    void siteAtScale()
    {
        QFETCH(int, theme);
        QFETCH(int, instances);
        QFETCH(int, tags);
        const Theme t = Theme(theme);
        gateway::GatewayConfig config;
        config.dataHz = 1;
        gateway::MockGatewayServer gw(config);
        QVERIFY(gw.start());
        Site site = testsupport::generatedSite(instances, tags);
        site.name = QStringLiteral("scale-%1").arg(instances);
        QString error;
        const auto ports = sitePortOptions(
            site, {{QStringLiteral("gw1"), QString::fromStdString(gw.address())}}, &error);
        QVERIFY2(ports, qPrintable(error));
        SiteConsole console;
        QVERIFY2(console.start(site, *ports, t, &error), qPrintable(error));
        MainWindow& w = console.w;
        QTRY_COMPARE_WITH_TIMEOUT(console.goodTags(), instances * tags, kTimeoutMs);
        QTest::qWait(1500);
        // One gateway's aggregate lines instead of a line per subscription, named in the
        // legend (its sum and its most).
        QVERIFY(w.plots()->aggregated());
        QCOMPARE(w.plots()->subscriptionLegend()->itemCount(), 2);
        // The Scenario dock describes the site shown, not the demo scenario, and its
        // scenario controls are off with the reason said.
        const QString described =
            w.findChild<QTextBrowser*>(QStringLiteral("scenarioDescription"))->toPlainText();
        for (const QString& fact :
             {QStringLiteral("Site %1: 1 gateway, ").arg(site.name),
              QStringLiteral("%1 instances").arg(QLocale().toString(instances)),
              QStringLiteral("%1 tags").arg(QLocale().toString(instances * tags)),
              QStringLiteral("gw1 (%1)").arg(QString::fromStdString(gw.address()))})
            QVERIFY2(described.contains(fact), qPrintable(described));
        QVERIFY(w.findChild<QLabel*>(QStringLiteral("nowRunning"))
                    ->text()
                    .contains(QStringLiteral("without --site")));
        for (const char* control : {"play", "compare", "scenario", "variant", "openScenario"})
            QVERIFY2(!w.findChild<QWidget*>(QLatin1String(control))->isEnabled(), control);
        QVERIFY(w.subscriptionsPanel()->isVisible()); // raised over Topology
        for (QSize size : kSizes) {
            shoot(w, w.plots(), QStringLiteral("site-%1-instances").arg(instances), t, size);
            const QList<double> shares = plotShares(*w.plots(), size);
            for (int p = 0; p < shares.size(); ++p)
                QVERIFY2(shares[p] >= 0.70, qPrintable(QStringLiteral("%1x%2: plot %3 keeps %4 %")
                                                           .arg(size.width())
                                                           .arg(size.height())
                                                           .arg(p)
                                                           .arg(shares[p] * 100, 0, 'f', 1)));
        }
    }

    void console_data()
    {
        QTest::addColumn<int>("theme");
        QTest::newRow("light") << int(Theme::Light);
        QTest::newRow("dark") << int(Theme::Dark);
    }

    void console()
    {
        QFETCH(int, theme);
        const Theme t = Theme(theme);
        QTemporaryDir dir;
        MainWindow w;
        w.setSettingsFile(dir.filePath("s.ini"));
        w.restoreSettings();
        w.setTheme(t);
        MainWindowView view(w);
        ConsoleController controller(&view);
        controller.loadDemoScenario();
        QString error;
        QVERIFY2(controller.startEmbedded(&error), qPrintable(error));
        w.resize(kSizes[0]);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        // Live default: a few seconds of the live run on the embedded mock.
        QTRY_VERIFY_WITH_TIMEOUT(w.store()->latestTime() > 8, kTimeoutMs);
        for (QSize size : kSizes)
            shoot(w, w.plots(), QStringLiteral("live-default"), t, size);

        // The incident, played to its end at max speed: shown whole, with its markers.
        w.resize(kSizes[0]);
        emit view.intents()->playRequested(QStringLiteral("incident-2026-08-26"),
                                           QStringLiteral("levers-off"), 0);
        QTRY_VERIFY_WITH_TIMEOUT(controller.host()->state() == RunHost::State::Finished,
                                 kTimeoutMs);
        QCoreApplication::processEvents();
        QVERIFY(w.plots()->xLower() <= 1);
        QVERIFY(w.plots()->xUpper() >= 1799);
        QVERIFY2(w.plots()->markers().size() >= 5,
                 qPrintable(QString::number(w.plots()->markers().size())));
        QCOMPARE(w.plots()->markers().front().label, QStringLiteral("wedge 90 s"));
        for (QSize size : kSizes)
            shoot(w, w.plots(), QStringLiteral("incident-finished"), t, size);

        // The titled export of the whole run, as a slide.
        PlotPanel::ExportOptions slide;
        slide.size = QSize(1920, 1080);
        slide.range = PlotPanel::Range::WholeRun;
        const QString exported =
            QDir(outDir()).filePath(QStringLiteral("export-%1-1920x1080.png").arg(themeName(t)));
        QVERIFY(w.exportPng(exported, slide));
        QCOMPARE(QImage(exported).size(), QSize(1920, 1080));

        // Presenter mode over the finished incident.
        w.setPresenterMode(true);
        for (QSize size : kSizes)
            shoot(w, w.plots(), QStringLiteral("presenter"), t, size);
        QVERIFY(w.presenterCaption()->text().contains(
            QStringLiteral("incident-2026-08-26 — levers-off")));
        w.setPresenterMode(false);

        // A/B side by side in the window: the incident without and with Lever 1.
        w.resize(kSizes[0]);
        w.showAb(QStringLiteral("incident-2026-08-26"), QStringLiteral("levers-off"),
                 QStringLiteral("lever1"));
        QTRY_VERIFY_WITH_TIMEOUT(w.abView()->done(), kTimeoutMs);
        QVERIFY2(w.abView()->label(1)->text().contains(QStringLiteral("lever1")),
                 qPrintable(w.abView()->status()));
        for (QSize size : kSizes)
            shoot(w, w.abView()->panel(0), QStringLiteral("ab-side-by-side"), t, size);
        w.abView()->closeRequested();

        // The compare view of a short scenario (two variants).
        QList<ScenarioError> errors;
        const auto scenario = loadScenario(QStringLiteral("live-gate-lever1"), &errors);
        QVERIFY(scenario);
        CompareView compare(*scenario, &w);
        compare.show();
        compare.start();
        QTRY_VERIFY_WITH_TIMEOUT(compare.done(), kTimeoutMs);
        for (QSize size : kSizes)
            shoot(compare, compare.findChildren<QCustomPlot*>().value(0), QStringLiteral("compare"),
                  t, size);
        // Its report, as Export report writes it: the images report.md embeds.
        const QString report =
            QDir(outDir()).filePath(QStringLiteral("report-%1").arg(themeName(t)));
        QDir(report).removeRecursively();
        QVERIFY(QDir().mkpath(report));
        QString why;
        QVERIFY2(compare.exportTo(report, &why), qPrintable(why));
        QFile md(QDir(report).filePath(QStringLiteral("report.md")));
        QVERIFY(md.open(QIODevice::ReadOnly));
        QVERIFY(QString::fromUtf8(md.readAll()).contains(QStringLiteral("![lever1](lever1.png)")));
    }
};

QTEST_MAIN(TestScreenshots)
#include "tst_screenshots.moc"
