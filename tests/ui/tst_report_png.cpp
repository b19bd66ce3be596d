// The report's plots: a finished virtual run's series loaded into a SeriesStore (units,
// rates, held to the run's end) and one PNG per variant rendered offscreen.
#include "client/lever_set.h"
#include "scenario/scenario_parser.h"
#include "scenario/scenario_runner.h"
#include "ui/plot_panel.h"
#include "ui/report_png.h"

#include <QDir>
#include <QImage>
#include <QImageReader>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <cstdlib>

using namespace stormwatch;

namespace {

// Pixels within a small distance of `colour` (antialiasing blends the edges of a line).
int pixelsNear(const QImage& image, const QColor& colour)
{
    int n = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
            const QColor c = image.pixelColor(x, y);
            if (std::abs(c.red() - colour.red()) <= 12 &&
                std::abs(c.green() - colour.green()) <= 12 &&
                std::abs(c.blue() - colour.blue()) <= 12)
                ++n;
        }
    return n;
}

int distinctColours(const QImage& image)
{
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            colours.insert(image.pixel(x, y));
    return int(colours.size());
}

} // namespace

class TestReportPng : public QObject {
    Q_OBJECT

private slots:
    void fileNamesAreSafe()
    {
        QCOMPARE(variantPngFileName("levers-off"), QStringLiteral("levers-off.png"));
        QCOMPARE(variantPngFileName("lever1+2"), QStringLiteral("lever1_2.png"));
        QCOMPARE(variantPngFileName("a/b c"), QStringLiteral("a_b_c.png"));
        QCOMPARE(variantPngFileName(".."), QStringLiteral("variant...png"));
        QCOMPARE(variantPngFileName(""), QStringLiteral("variant.png"));
    }

    void seriesSetLoadsIntoTheStoreInItsUnits()
    {
        SeriesSet set;
        set.endS = 60;
        Series& out = set.at(set.indexOf("Z28061/gw1", "outstanding"));
        out.add(0, 0);
        out.add(10, 3);
        set.at(set.indexOf("Z28061/gw1", "interval_ms")).add(10, 5000);
        set.at(set.indexOf("Z28062/gw1", "tags_bad")).add(0, 244);
        set.at(set.indexOf("gateway", "invoke_rpcs_per_s")).add(0, 7);
        // The recorder's rate of refused calls, placed at the start of each second.
        Series& suppressed = set.at(set.indexOf("gateway", "suppressed_calls_per_s"));
        suppressed.add(0, 0);
        suppressed.add(20, 4);
        suppressed.add(21, 0);
        suppressed.add(30, 2);
        suppressed.add(31, 0);

        SeriesStore store;
        loadSeriesSet(set, store);
        const SubscriptionKey a{0, false}, b{1, false};
        QCOMPARE(store.subscriptions(), (QList<SubscriptionKey>{a, b}));
        QCOMPARE(store.label(a), QStringLiteral("Z28061 × gw1"));
        QCOMPARE(store.valueAt(a, SubMetric::Outstanding, 12), 3.0);
        QCOMPARE(store.valueAt(a, SubMetric::IntervalS, 12), 5.0); // ms → s
        QCOMPARE(store.valueAt(b, SubMetric::Bad, 59), 244.0);
        // Held to the run's end, so the plots span the whole run.
        QCOMPARE(store.valueAt(a, SubMetric::Outstanding, 60), 3.0);
        QCOMPARE(store.latestTime(), 60.0);
        QCOMPARE(store.gatewayValueAt(GatewayMetric::InvokeRps, 59), 7.0);
        QCOMPARE(store.gatewayValueAt(GatewayMetric::SuppressedPerS, 19.5), 0.0);
        QCOMPARE(store.gatewayValueAt(GatewayMetric::SuppressedPerS, 20.5), 4.0);
        QCOMPARE(store.gatewayValueAt(GatewayMetric::SuppressedPerS, 25), 0.0);
        QCOMPARE(store.gatewayValueAt(GatewayMetric::SuppressedPerS, 30.5), 2.0);
        QCOMPARE(store.gatewayValueAt(GatewayMetric::SuppressedPerS, 59), 0.0);
    }

    // A run on several gateways: each one's own series (gateway:NAME) sit beside the run's
    // sum, never listed as subscriptions; the gateway plots read the sum.
    void perGatewaySeriesAreNotSubscriptions()
    {
        SeriesSet set;
        set.endS = 10;
        set.at(set.indexOf("Filler/gw-b", "tags_good")).add(0, 20);
        set.at(set.indexOf("gateway", "sta_queue_depth")).add(2, 9);
        set.at(set.indexOf("gateway:gw-a", "sta_queue_depth")).add(2, 9);
        set.at(set.indexOf("gateway:gw-b", "sta_queue_depth")).add(2, 0);
        set.at(set.indexOf("gateway:gw-a", "invoke_rpcs_per_s")).add(0, 3);

        SeriesStore store;
        loadSeriesSet(set, store);
        QCOMPARE(store.subscriptions(), (QList<SubscriptionKey>{SubscriptionKey{0, false}}));
        QCOMPARE(store.label(SubscriptionKey{0, false}), QStringLiteral("Filler × gw-b"));
        QCOMPARE(store.gatewayValueAt(GatewayMetric::StaQueueDepth, 5), 9.0);
        QVERIFY(store.gatewaySeries(GatewayMetric::InvokeRps).isEmpty()); // the sum has none
        QCOMPARE(store.gatewayNames(), QStringList({"gw-a", "gw-b"}));
        QCOMPARE(store.gatewayValueAt(GatewayMetric::StaQueueDepth, 5, "gw-a"), 9.0);
        QCOMPARE(store.gatewayValueAt(GatewayMetric::InvokeRps, 5, "gw-a"), 3.0);
        QCOMPARE(store.gatewayValueAt(GatewayMetric::StaQueueDepth, 5, "gw-b"), 0.0);
    }

    // The PNG of a run on several gateways is the PNG of its sums: each gateway's own
    // series add no subscription line, legend entry or gateway plot of their own.
    void perGatewaySeriesLeaveThePngAsTheSumDrawsIt()
    {
        SeriesSet sums;
        sums.endS = 30;
        Series& good = sums.at(sums.indexOf("Filler/gw-b", "tags_good"));
        good.add(0, 0);
        good.add(3, 20);
        Series& queue = sums.at(sums.indexOf("gateway", "sta_queue_depth"));
        queue.add(0, 0);
        queue.add(5, 12);
        queue.add(9, 0);
        sums.at(sums.indexOf("gateway", "invoke_rpcs_per_s")).add(0, 4);
        SeriesSet both = sums;
        both.at(both.indexOf("gateway:gw-a", "sta_queue_depth")).add(0, 40); // not the sum's
        both.at(both.indexOf("gateway:gw-a", "invoke_rpcs_per_s")).add(0, 30);
        both.at(both.indexOf("gateway:gw-b", "tags_good")).add(0, 7);

        ScenarioReport report;
        report.scenario = "two-gateways";
        VariantMetrics v;
        v.name = "lever1+2";
        report.variants << v;
        const QSize size(900, 700);
        QTemporaryDir a, b;
        QString error;
        QVERIFY2(writeVariantPngs(report, {sums}, a.path(), nullptr, &error, size),
                 qPrintable(error));
        QVERIFY2(writeVariantPngs(report, {both}, b.path(), nullptr, &error, size),
                 qPrintable(error));
        const QImage sumsImage(QDir(a.path()).filePath(variantPngFileName(v.name)));
        const QImage bothImage(QDir(b.path()).filePath(variantPngFileName(v.name)));
        QVERIFY(!sumsImage.isNull() && !bothImage.isNull());
        QVERIFY(sumsImage == bothImage);
        // ... and a subscription more does change it (the comparison can fail).
        SeriesSet more = sums;
        more.at(more.indexOf("Valves/gw-b", "tags_good")).add(0, 7);
        QVERIFY2(writeVariantPngs(report, {more}, b.path(), nullptr, &error, size),
                 qPrintable(error));
        QVERIFY(QImage(QDir(b.path()).filePath(variantPngFileName(v.name))) != sumsImage);
    }

    void writesAValidNonBlankPngPerVariant()
    {
        QList<ScenarioError> errors;
        const auto scenario = loadScenario("live-gate-lever1", &errors);
        QVERIFY(scenario);
        QList<SeriesSet> series;
        QString error;
        const ScenarioReport report = runScenario(*scenario, {}, std::nullopt, {}, &error, &series);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(series.size(), report.variants.size());

        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QSize size(900, 700);
        QMap<QString, QString> written;
        QVERIFY2(writeVariantPngs(report, series, dir.path(), &written, &error, size),
                 qPrintable(error));
        QCOMPARE(written.size(), report.variants.size());
        QList<QImage> images;
        for (const VariantMetrics& v : report.variants) {
            QCOMPARE(written.value(v.name), variantPngFileName(v.name));
            const QString path = QDir(dir.path()).filePath(written.value(v.name));
            QImageReader reader(path);
            QCOMPARE(reader.format(), QByteArray("png"));
            const QImage image = reader.read();
            QVERIFY2(!image.isNull(), qPrintable(reader.errorString()));
            QCOMPARE(image.size(), size);
            // Not blank: the first subscription's line is drawn in its colour, over axes,
            // labels and the quality stack.
            const int seriesPixels = pixelsNear(image, PlotPanel::colourFor({0, false}));
            QVERIFY2(seriesPixels > 100, qPrintable(QString::number(seriesPixels)));
            QVERIFY(distinctColours(image) > 20);
            images << image;
        }
        // The variants' plots differ (levers off stacks 22 requests, Lever 1 keeps one).
        QVERIFY(images[0] != images[1]);
    }

    // Side by side, the same height is the same number: levers-off climbing to 30 and
    // lever1 staying at 2 are drawn on one scale, so lever1's line stays low; each image is
    // titled with its scenario, variant and levers.
    void variantsShareOneScaleAndCarryTitles()
    {
        ScenarioReport report;
        report.scenario = "storm";
        report.variants = {VariantMetrics{}, VariantMetrics{}};
        report.variants[0].name = "levers-off";
        report.variants[0].levers = leverSetToJson(*leverPreset("levers-off", nullptr));
        report.variants[1].name = "lever1";
        report.variants[1].levers = leverSetToJson(*leverPreset("lever1", nullptr));
        QCOMPARE(variantPngTitle(report, report.variants[1]),
                 QStringLiteral("storm — lever1 · levers: lever1 · in-process mock, virtual time"));
        SeriesSet high, low;
        for (SeriesSet* s : {&high, &low}) {
            s->endS = 100;
            Series& out = s->at(s->indexOf("i/gw", "outstanding"));
            for (int t = 0; t <= 100; t += 10)
                out.add(t, s == &high ? t * 0.3 : (t / 10) % 3);
        }
        {
            // Alone, each would be drawn to its own height.
            SeriesStore hs, ls;
            loadSeriesSet(high, hs);
            loadSeriesSet(low, ls);
            QCOMPARE(PlotPanel::wholeRunScale(hs, QSize(800, 600)).outstanding, 30.0);
            QCOMPARE(PlotPanel::wholeRunScale(ls, QSize(800, 600)).outstanding, 2.0);
        }
        QTemporaryDir dir;
        QMap<QString, QString> written;
        QString error;
        const QSize size(800, 600);
        QVERIFY2(writeVariantPngs(report, {high, low}, dir.path(), &written, &error, size,
                                  {{50, "wedge 30 s"}}),
                 qPrintable(error));
        // The topmost pixel of the line in the right half (the legend's swatch is on the left).
        const auto top = [&](const QString& file) {
            const QImage image(QDir(dir.path()).filePath(file));
            const QColor c = PlotPanel::colourFor({0, false});
            for (int y = 0; y < image.height(); ++y)
                for (int x = image.width() / 2; x < image.width() * 9 / 10; ++x)
                    if (qAbs(image.pixelColor(x, y).red() - c.red()) < 20 &&
                        qAbs(image.pixelColor(x, y).green() - c.green()) < 20 &&
                        qAbs(image.pixelColor(x, y).blue() - c.blue()) < 20)
                        return y;
            return -1;
        };
        const int highTop = top(written.value("levers-off")), lowTop = top(written.value("lever1"));
        QVERIFY(highTop > 0 && lowTop > 0);
        // The outstanding plot is about a fifth of 600 px: 2 of 30 sits near its bottom.
        QVERIFY2(lowTop - highTop > 60,
                 qPrintable(QStringLiteral("%1 vs %2").arg(lowTop).arg(highTop)));
    }

    void sameSafeNameTwiceGetsDistinctFiles()
    {
        ScenarioReport report;
        report.variants = {VariantMetrics{}, VariantMetrics{}};
        report.variants[0].name = "a+b";
        report.variants[1].name = "a b";
        SeriesSet s;
        s.endS = 10;
        s.at(s.indexOf("i/gw", "outstanding")).add(0, 1);
        QTemporaryDir dir;
        QMap<QString, QString> written;
        QString error;
        QVERIFY2(writeVariantPngs(report, {s, s}, dir.path(), &written, &error, QSize(400, 300)),
                 qPrintable(error));
        QCOMPARE(written.value("a+b"), QStringLiteral("a_b.png"));
        QCOMPARE(written.value("a b"), QStringLiteral("a_b-2.png"));
        QVERIFY(QFile::exists(dir.filePath("a_b-2.png")));
    }

    void failuresSayWhat()
    {
        ScenarioReport report;
        report.variants = {VariantMetrics{}};
        report.variants[0].name = "lever1";
        QString error;
        QVERIFY(!writeVariantPngs(report, {}, QDir::tempPath(), nullptr, &error));
        QVERIFY2(error.contains("1 variants but series for 0"), qPrintable(error));

        SeriesSet s;
        s.endS = 10;
        QVERIFY(
            !writeVariantPngs(report, {s}, "/nonexistent/dir", nullptr, &error, QSize(200, 200)));
        QVERIFY2(error.contains("lever1") && error.contains("/nonexistent/dir"), qPrintable(error));
    }
};

QTEST_MAIN(TestReportPng)
#include "tst_report_png.moc"
