// The compare view: every variant in virtual time, the metrics side by side with the best
// of each row marked, overlaid plots, and the report exported.

#include "scenario/metric_table.h"
#include "scenario/scenario_parser.h"
#include "ui/compare_view.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QImage>
#include <QLoggingCategory>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>
#include <algorithm>
#include <qcustomplot.h>

using namespace stormwatch;

namespace {

Scenario liveGate()
{
    QList<ScenarioError> errors;
    auto s = loadScenario(QStringLiteral("live-gate-lever1"), &errors);
    Q_ASSERT(s);
    return *s;
}

int columnOf(const QTableWidget* table, const QString& variant)
{
    for (int c = 0; c < table->columnCount(); ++c)
        if (table->horizontalHeaderItem(c)->text() == variant)
            return c;
    return -1;
}

} // namespace

class TestCompareView : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        // The replays refuse sessions on purpose: their client warnings are expected.
        QLoggingCategory::setFilterRules(QStringLiteral("stormwatch.*.warning=false"));
    }

    void liveGateShows22And3WithLever1Best()
    {
        CompareView view(liveGate());
        view.start();
        QTRY_VERIFY_WITH_TIMEOUT(view.done(), 30000);
        const QTableWidget* table = view.table();
        const int off = columnOf(table, "levers-off");
        const int lever1 = columnOf(table, "lever1");
        QVERIFY(off >= 0 && lever1 >= 0);
        const int requests = view.rowOf("subscribe_requests");
        const int outstanding = view.rowOf("max_outstanding");
        QVERIFY(requests >= 0 && outstanding >= 0);
        QCOMPARE(table->item(requests, off)->text(), QStringLiteral("22"));
        QCOMPARE(table->item(requests, lever1)->text(), QStringLiteral("3"));
        QCOMPARE(table->item(outstanding, off)->text(), QStringLiteral("22"));
        QCOMPARE(table->item(outstanding, lever1)->text(), QStringLiteral("1"));
        // The best (smallest) of a row is marked; a row where all agree marks nothing.
        QVERIFY(table->item(requests, lever1)->data(Qt::UserRole).toBool());
        QVERIFY(!table->item(requests, off)->data(Qt::UserRole).toBool());
        const int never = view.rowOf("time_to_all_good_s");
        QCOMPARE(table->item(never, off)->text(), QStringLiteral("never"));
        QVERIFY(!table->item(never, off)->data(Qt::UserRole).toBool());
        QVERIFY(!table->item(never, lever1)->data(Qt::UserRole).toBool());
    }

    // The rows are the one metric table's, in its order, each kind of gateway_rpcs_by_kind
    // indented in its place; the header's tooltip says what the metric measures; an unranked
    // metric is never marked best.
    void rowsFollowTheMetricTable()
    {
        CompareView view(liveGate());
        view.start();
        QTRY_VERIFY_WITH_TIMEOUT(view.done(), 30000);
        const QTableWidget* table = view.table();
        QStringList rows;
        for (int r = 0; r < table->rowCount(); ++r)
            rows << table->verticalHeaderItem(r)->text();
        QStringList expected;
        for (const MetricDescriptor& m : metricTable()) {
            if (m.shape == MetricShape::ByKind) {
                for (const QString& kind : rpcKinds(view.report()))
                    expected << "  " + kind;
                continue;
            }
            expected << m.labelString(); // the metric table's label, not its snake_case key
        }
        QCOMPARE(rows, expected);
        // A kind's count is not ranked: levers-off's subscribe_bulk 0 is not "best".
        for (int r = 0; r < table->rowCount(); ++r)
            if (table->verticalHeaderItem(r)->text().startsWith(QLatin1String("  ")))
                for (int c = 0; c < table->columnCount(); ++c)
                    QVERIFY2(!table->item(r, c)->data(Qt::UserRole).toBool(),
                             qPrintable(table->verticalHeaderItem(r)->text()));
        for (const MetricDescriptor& m : metricTable()) {
            if (m.shape == MetricShape::ByKind)
                continue;
            const int r = view.rowOf(m.keyString());
            QVERIFY2(r >= 0, m.key);
            QCOMPARE(table->verticalHeaderItem(r)->toolTip(), m.tooltip());
            QVERIFY(table->verticalHeaderItem(r)->toolTip().contains(m.descriptionString()));
            for (int c = 0; c < table->columnCount(); ++c) {
                const QString text = table->item(r, c)->text();
                QCOMPARE(text, m.text(view.report().variants[c]));
                if (m.better == Better::Unranked)
                    QVERIFY2(!table->item(r, c)->data(Qt::UserRole).toBool(), m.key);
            }
        }
        // The embedded mock has a queue: a number, not n/a.
        const int queue = view.rowOf("max_sta_queue_depth");
        QVERIFY(table->item(queue, 0)->text() != QStringLiteral("n/a"));
    }

    void plotsOverlayOneLinePerVariant()
    {
        CompareView view(liveGate());
        view.start();
        QTRY_VERIFY_WITH_TIMEOUT(view.done(), 30000);
        const auto plots = view.findChildren<QCustomPlot*>();
        QCOMPARE(plots.size(), 3);
        for (QCustomPlot* plot : plots) {
            QCOMPARE(plot->graphCount(), 2);
            QCOMPARE(plot->graph(0)->name(), QStringLiteral("levers-off"));
            QVERIFY(plot->graph(0)->pen().color() != plot->graph(1)->pen().color());
        }
    }

    void exportWritesTheReportAndThePlots()
    {
        CompareView view(liveGate());
        QTemporaryDir dir;
        QString error;
        QVERIFY(!view.exportTo(dir.path(), &error)); // nothing yet
        view.start();
        QTRY_VERIFY_WITH_TIMEOUT(view.done(), 30000);
        QVERIFY2(view.exportTo(dir.path(), &error), qPrintable(error));
        for (const char* file :
             {"report.json", "report.csv", "report.md", "compare-outstanding.png",
              "compare-tags-not-good.png", "compare-invoke-rpcs.png"}) {
            const QFileInfo info(QDir(dir.path()).filePath(file));
            QVERIFY2(info.exists() && info.size() > 0, file);
        }
        // report.md embeds every image it was written with: each variant's four plots and
        // the overlays.
        QFile md(QDir(dir.path()).filePath("report.md"));
        QVERIFY(md.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(md.readAll());
        QVERIFY(text.contains("## Plots"));
        for (const char* image :
             {"![levers-off](levers-off.png)", "![lever1](lever1.png)", "(compare-outstanding.png)",
              "(compare-tags-not-good.png)", "(compare-invoke-rpcs.png)"})
            QVERIFY2(text.contains(QLatin1String(image)), image);
        for (const char* file : {"levers-off.png", "lever1.png"})
            QVERIFY2(QImage(QDir(dir.path()).filePath(file)).width() > 0, file);
    }

    void closingMidRunCancelsPromptly()
    {
        QElapsedTimer wall;
        wall.start();
        {
            Scenario long_ = liveGate();
            long_.durationS = 36000; // ten virtual hours: far longer than the test waits
            auto* view = new CompareView(long_);
            view->start();
            QVERIFY(view->running());
            delete view;
        }
        QVERIFY2(wall.elapsed() < 5000, qPrintable(QString::number(wall.elapsed())));
    }

    void maxOverSubscriptionsIsTheStepMaximum()
    {
        SeriesSet set;
        Series& a = set.at(set.indexOf("i1/gw1", "outstanding"));
        a.add(0, 1);
        a.add(10, 3);
        Series& b = set.at(set.indexOf("i2/gw1", "outstanding"));
        b.add(5, 2);
        b.add(20, 5);
        set.at(set.indexOf("gateway", "outstanding")).add(1, 100); // not a subscription
        set.endS = 30;
        const QVector<QPointF> m = CompareView::maxOverSubscriptions(set, "outstanding");
        const QVector<QPointF> expected{{0, 1}, {5, 2}, {10, 3}, {20, 5}, {30, 5}};
        QCOMPARE(m, expected);
        const QVector<QPointF> sum = CompareView::sumOverSubscriptions(set, {"outstanding"});
        const QVector<QPointF> sumExpected{{0, 1}, {5, 3}, {10, 5}, {20, 8}, {30, 8}};
        QCOMPARE(sum, sumExpected);
    }

    // The overlays get at most four points a plot column, drawing the same steps: each
    // column's lowest and highest value, and the value in force where every column starts.
    void decimatedLinesDrawTheSameSteps()
    {
        QVector<QPointF> dense;
        for (int i = 0; i < 100'000; ++i)
            dense << QPointF(i * 0.01, (i * 7919) % 101 + (i == 54'321 ? 1000 : 0));
        const int columns = 200;
        const CompareLine line = decimateSteps(dense, 0, 1000, columns);
        QVERIFY(line.x.size() <= 4 * columns);
        QCOMPARE(line.x.size(), line.y.size());
        QCOMPARE(line.x.first(), dense.first().x());
        QCOMPARE(line.x.last(), dense.last().x());
        QVERIFY(std::is_sorted(line.x.begin(), line.x.end()));
        auto stepAt = [](const QVector<double>& x, const QVector<double>& y, double t) {
            const auto it = std::upper_bound(x.begin(), x.end(), t);
            return it == x.begin() ? -1.0 : y[it - x.begin() - 1];
        };
        QVector<double> dx, dy;
        for (const QPointF& p : dense) {
            dx << p.x();
            dy << p.y();
        }
        for (int c = 0; c < columns; ++c) {
            const double from = c * 5.0, to = from + 5.0;
            QCOMPARE(stepAt(line.x, line.y, from), stepAt(dx, dy, from));
            double lo = 1e300, hi = -1e300, dlo = 1e300, dhi = -1e300;
            for (int i = 0; i < line.x.size(); ++i)
                if (line.x[i] >= from && line.x[i] < to) {
                    lo = std::min(lo, line.y[i]);
                    hi = std::max(hi, line.y[i]);
                }
            for (const QPointF& p : dense)
                if (p.x() >= from && p.x() < to) {
                    dlo = std::min(dlo, p.y());
                    dhi = std::max(dhi, p.y());
                }
            QCOMPARE(lo, dlo);
            QCOMPARE(hi, dhi);
        }
        // A short series is kept as it is.
        const QVector<QPointF> few{{0, 1}, {1, 2}, {2, 1}};
        QCOMPARE(decimateSteps(few, 0, 10, columns).y, (QVector<double>{1, 2, 1}));
    }

    // The results reach the widgets over several event-loop turns (the table's rows in
    // slices, then each plot), so a live run beside the view keeps being served between
    // them; done() and finished() only once everything is in.
    void resultsAreFilledOverSeveralTurns()
    {
        CompareView view(liveGate());
        int turns = 0;
        QTimer ticker;
        ticker.setInterval(0);
        connect(&ticker, &QTimer::timeout, [&] { ++turns; });
        ticker.start();
        int turnsAtFirstRow = -1;
        connect(view.table()->model(), &QAbstractItemModel::rowsInserted, [&] {
            if (turnsAtFirstRow < 0)
                turnsAtFirstRow = turns;
        });
        int turnsAtFinished = -1;
        bool filledAtFinished = false;
        connect(&view, &CompareView::finished, [&] {
            turnsAtFinished = turns;
            filledAtFinished = view.done() && view.table()->item(view.table()->rowCount() - 1, 0) &&
                               view.findChildren<QCustomPlot*>().value(2) &&
                               view.findChildren<QCustomPlot*>().value(2)->graphCount() == 2;
        });
        view.start();
        QTRY_VERIFY_WITH_TIMEOUT(view.done(), 30000);
        QVERIFY(turnsAtFirstRow >= 0);
        QVERIFY(filledAtFinished);
        // Rows in slices of 8, then three plots: other events ran in between.
        QVERIFY2(turnsAtFinished - turnsAtFirstRow >= 4,
                 qPrintable(QStringLiteral("%1 -> %2").arg(turnsAtFirstRow).arg(turnsAtFinished)));
    }
};

QTEST_MAIN(TestCompareView)
#include "tst_compare_view.moc"
