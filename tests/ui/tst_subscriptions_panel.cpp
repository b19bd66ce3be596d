// The Subscriptions list drives what the plots draw, by real clicks and keys: isolating a
// row draws exactly its series, hiding a gateway hides its series, a row's check box and the
// in-plot legend agree, and past eight subscriptions the legend steps aside for the list.
#include "models/subscription_list_model.h"
#include "models/support_series_updates.h"
#include "ui/plot_data.h"
#include "ui/plot_panel.h"
#include "ui/subscriptions_panel.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLineEdit>
#include <QPushButton>
#include <QStyleOptionViewItem>
#include <QTableView>
#include <QtTest>
#include <algorithm>
#include <qcustomplot.h>

using namespace stormwatch;
using stormwatch::testsupport::SubscriptionStep;

namespace {

// `count` subscriptions Z28061… over ten seconds; even instances on gw-a, odd on gw-b.
// Instance 3 has two bad tags and instance 7 three requests outstanding (troubled).
void feedSite(SeriesStore& store, int count)
{
    for (int t = 0; t <= 10; ++t) {
        QVector<SubscriptionStep> steps;
        for (int i = 0; i < count; ++i)
            steps << SubscriptionStep{.t = double(t),
                                      .instance = i,
                                      .outstanding = i == 7 ? 3 : 0,
                                      .good = i == 3 ? 8 : 10,
                                      .bad = i == 3 ? 2 : 0};
        testsupport::feed(store, steps);
    }
}

QMap<QString, QList<int>> gatewaysOf(int count)
{
    QMap<QString, QList<int>> of;
    for (int i = 0; i < count; ++i)
        of[i % 2 ? QStringLiteral("gw-b") : QStringLiteral("gw-a")] << i;
    return of;
}

// The subscriptions whose outstanding and interval graphs the plots draw.
QList<int> drawn(PlotPanel& plots, const SeriesStore& store)
{
    QList<int> instances;
    for (const SubscriptionKey& k : store.subscriptions()) {
        const bool outstanding = plots.subscriptionGraph(k, SubMetric::Outstanding)->visible();
        const bool interval = plots.subscriptionGraph(k, SubMetric::IntervalS)->visible();
        if (outstanding != interval)
            return {-1}; // the two plots disagree
        if (outstanding)
            instances << k.instance;
    }
    return instances;
}

// The legend's entries (its grid counts the empty cells of its last row too).
int legendEntries(PlotPanel& plots)
{
    int n = 0;
    for (int i = 0; i < plots.subscriptionLegend()->itemCount(); ++i)
        n += plots.subscriptionLegend()->item(i) ? 1 : 0;
    return n;
}

struct Console {
    SeriesStore store;
    QWidget window;
    PlotPanel* plots;
    SubscriptionsPanel* list;
    explicit Console(int count)
    {
        plots = new PlotPanel(&store);
        list = new SubscriptionsPanel(&store, plots);
        auto* row = new QHBoxLayout(&window);
        row->addWidget(plots, 2);
        row->addWidget(list, 1);
        feedSite(store, count);
        plots->setGateways(gatewaysOf(count));
        list->setGateways(gatewaysOf(count));
        window.resize(1400, 800);
        window.show();
    }
    QModelIndex indexOf(int instance, int column = SubscriptionListModel::Instance) const
    {
        const QAbstractItemModel* m = list->view()->model();
        for (int r = 0; r < m->rowCount(); ++r)
            if (m->index(r, 0).data(SubscriptionListModel::KeyRole).value<SubscriptionKey>() ==
                SubscriptionKey{instance, false})
                return m->index(r, column);
        return {};
    }
    void clickRow(int instance, Qt::KeyboardModifiers modifiers = {})
    {
        const QModelIndex index = indexOf(instance);
        list->view()->scrollTo(index);
        QTest::mouseClick(list->view()->viewport(), Qt::LeftButton, modifiers,
                          list->view()->visualRect(index).center());
    }
};

} // namespace

class TestSubscriptionsPanel : public QObject {
    Q_OBJECT
private slots:
    void isolatingOneRowFromTheListDrawsExactlyItsSeries()
    {
        Console c(20);
        QVERIFY(QTest::qWaitForWindowExposed(&c.window));
        QCOMPARE(c.list->view()->model()->rowCount(), 20);
        QCOMPARE(drawn(*c.plots, c.store).size(), 20);

        // Keys: Ctrl+F, type a name, Down into the list, I.
        c.list->view()->setFocus();
        QTest::keyClick(c.list->view(), Qt::Key_F, Qt::ControlModifier);
        QVERIFY(c.list->filterEdit()->hasFocus());
        QTest::keyClicks(c.list->filterEdit(), QStringLiteral("z28066"));
        QCOMPARE(c.list->view()->model()->rowCount(), 1);
        QTest::keyClick(c.list->filterEdit(), Qt::Key_Down);
        QVERIFY(c.list->view()->hasFocus());
        QTest::keyClick(c.list->view(), Qt::Key_I);
        QCOMPARE(drawn(*c.plots, c.store), QList<int>({5}));
        QCOMPARE(c.plots->visibleSubscriptions(), QList<SubscriptionKey>({{5, false}}));
        // The quality plot sums what is drawn: that subscription's ten tags.
        c.plots->refreshNow();
        QCOMPARE(c.plots->qualityGraph(SubMetric::Good)->data()->at(0)->value, 10.0);

        // A shows every subscription again; a click on another row and the Isolate button.
        QTest::keyClick(c.list->view(), Qt::Key_A);
        QCOMPARE(drawn(*c.plots, c.store).size(), 20);
        QTest::mouseClick(c.list->filterEdit(), Qt::LeftButton);
        c.list->filterEdit()->clear();
        c.clickRow(12);
        QTest::mouseClick(c.list->findChild<QPushButton*>(QStringLiteral("isolateSubscriptions")),
                          Qt::LeftButton);
        QCOMPARE(drawn(*c.plots, c.store), QList<int>({12}));
        // Ctrl-click adds a row; Return isolates both.
        c.clickRow(14, Qt::ControlModifier);
        QTest::keyClick(c.list->view(), Qt::Key_Return);
        QCOMPARE(drawn(*c.plots, c.store), QList<int>({12, 14}));
        QTest::mouseClick(c.list->findChild<QPushButton*>(QStringLiteral("showAllSubscriptions")),
                          Qt::LeftButton);
        QCOMPARE(drawn(*c.plots, c.store).size(), 20);
    }

    void hidingAGatewayHidesItsSeries()
    {
        Console c(20);
        QVERIFY(QTest::qWaitForWindowExposed(&c.window));
        QVERIFY(!c.list->view()->isColumnHidden(SubscriptionListModel::Gateway));
        c.clickRow(3); // on gw-b
        QTest::keyClick(c.list->view(), Qt::Key_G);
        const QList<int> a = gatewaysOf(20).value(QStringLiteral("gw-a"));
        QCOMPARE(drawn(*c.plots, c.store), a);
        // Shift+G on a row of gw-a isolates gw-a (it already is); on gw-b it isolates gw-b.
        c.clickRow(3);
        QTest::keyClick(c.list->view(), Qt::Key_G, Qt::ShiftModifier);
        QCOMPARE(drawn(*c.plots, c.store), gatewaysOf(20).value(QStringLiteral("gw-b")));
        // S shows the selected rows of the hidden gateway again.
        c.clickRow(4);
        QTest::keyClick(c.list->view(), Qt::Key_S);
        QVERIFY(drawn(*c.plots, c.store).contains(4));
        QTest::keyClick(c.list->view(), Qt::Key_H);
        QVERIFY(!drawn(*c.plots, c.store).contains(4));
    }

    // A few subscriptions: the legend names them, and its click and the row's check box
    // change the same hidden set.
    void theCheckBoxAndTheLegendAgree()
    {
        Console c(5);
        QVERIFY(QTest::qWaitForWindowExposed(&c.window));
        c.plots->refreshNow();
        QCOMPARE(legendEntries(*c.plots), 5);
        QTableView* view = c.list->view();
        const QModelIndex check = c.indexOf(2, SubscriptionListModel::Shown);
        QStyleOptionViewItem option;
        option.initFrom(view->viewport());
        option.rect = view->visualRect(check);
        option.features |=
            QStyleOptionViewItem::HasCheckIndicator | QStyleOptionViewItem::HasDecoration;
        option.decorationSize = view->iconSize().isValid() ? view->iconSize() : QSize(16, 16);
        const QRect box =
            view->style()->subElementRect(QStyle::SE_ItemViewItemCheckIndicator, &option, view);
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, box.center());
        QVERIFY(c.plots->isSubscriptionHidden({2, false}));
        QVERIFY(!drawn(*c.plots, c.store).contains(2));

        // The legend's entry for it, clicked, shows it again and ticks the row.
        QCPLegend* legend = c.plots->subscriptionLegend();
        QCPAbstractLegendItem* item = legend->itemWithPlottable(
            c.plots->subscriptionGraph({2, false}, SubMetric::Outstanding));
        QVERIFY(item);
        c.plots->customPlot()->replot();
        QTest::mouseClick(c.plots->customPlot(), Qt::LeftButton, {}, item->rect().center());
        QVERIFY(!c.plots->isSubscriptionHidden({2, false}));
        QCOMPARE(Qt::CheckState(check.data(Qt::CheckStateRole).toInt()), Qt::Checked);
    }

    void theLegendStepsAsideBeyondEightSubscriptions()
    {
        for (int count : {PlotPanel::kMaxLegendEntries, PlotPanel::kMaxLegendEntries + 1}) {
            Console c(count);
            QVERIFY(QTest::qWaitForWindowExposed(&c.window));
            c.plots->refreshNow();
            const bool shown = count <= PlotPanel::kMaxLegendEntries;
            QCOMPARE(legendEntries(*c.plots), shown ? count : 0);
            QCOMPARE(c.plots->subscriptionLegend()->visible(), shown);
            // Out of the layout, the legend leaves the plots the width of the window.
            const QCPAxisRect* rect = c.plots->axisRect(PlotPanel::Plot::Outstanding);
            QVERIFY2(rect->outerRect().width() > c.plots->customPlot()->width() * 3 / 4,
                     qPrintable(QString::number(rect->outerRect().width())));
        }
    }

    // Past the limit the outstanding and retry plots draw each gateway's aggregate lines, not
    // a line per subscription; a click on one isolates that gateway's worst subscriptions.
    void pastTheLimitEachGatewayIsAggregateLinesAndAClickIsolatesItsWorst()
    {
        Console c(40);
        QVERIFY(QTest::qWaitForWindowExposed(&c.window));
        c.plots->setXRange(0, 10);
        c.plots->refreshNow();
        QVERIFY(c.plots->aggregated());
        QCOMPARE(drawn(*c.plots, c.store), QList<int>());
        using L = plot::SubscriptionAggregate::Line;
        for (const QString& gateway : {QStringLiteral("gw-a"), QStringLiteral("gw-b")})
            for (int l = 0; l < plot::SubscriptionAggregate::kLineCount; ++l) {
                QCPGraph* g = c.plots->aggregateGraph(gateway, l);
                QVERIFY2(g && g->visible() && !g->data()->isEmpty(), qPrintable(gateway));
            }
        // gw-b holds instance 7, with three requests outstanding: its sum is 3, as is its most.
        QCPGraph* sum = c.plots->aggregateGraph(QStringLiteral("gw-b"), L::OutstandingSum);
        QCOMPARE(sum->data()->findBegin(5, true)->value, 3.0);
        QCOMPARE(c.plots->aggregateGraph(QStringLiteral("gw-a"), L::OutstandingSum)
                     ->data()
                     ->findBegin(5, true)
                     ->value,
                 0.0);
        // The legend names the aggregate lines, two per gateway.
        QCOMPARE(legendEntries(*c.plots), 4);

        // A click on gw-b's sum line, where it stands at 3.
        c.plots->customPlot()->replot();
        const QPoint at(int(sum->keyAxis()->coordToPixel(5)),
                        int(sum->valueAxis()->coordToPixel(3)));
        QTest::mouseClick(c.plots->customPlot(), Qt::LeftButton, {}, at);
        QVERIFY(!c.plots->aggregated());
        const QList<int> worst = drawn(*c.plots, c.store);
        QCOMPARE(worst.size(), PlotPanel::kWorstOnClick);
        QVERIFY(worst.contains(7)); // the one stacking requests
        for (int i : worst)
            QCOMPARE(i % 2, 1); // all of gw-b

        // The limit is a setting: raised past the count, every subscription is a line again.
        QTest::mouseClick(c.list->findChild<QPushButton*>(QStringLiteral("showAllSubscriptions")),
                          Qt::LeftButton);
        QVERIFY(c.plots->aggregated());
        c.plots->setAggregateAbove(50);
        QVERIFY(!c.plots->aggregated());
        QCOMPARE(drawn(*c.plots, c.store).size(), 40);
        QVERIFY(!c.plots->aggregateGraph(QStringLiteral("gw-a"), 0));
    }

    // Aggregated, the crosshair reads what is drawn: each gateway's aggregate lines at its time.
    void theCrosshairReadsEachGatewaysAggregateLines()
    {
        Console c(40);
        QVERIFY(QTest::qWaitForWindowExposed(&c.window));
        c.plots->setXRange(0, 10);
        c.plots->refreshNow();
        QVERIFY(c.plots->aggregated());
        using L = plot::SubscriptionAggregate::Line;
        const auto at5 = [&](const QString& gateway, L line) {
            return c.plots->aggregateGraph(gateway, line)->data()->findBegin(5, true)->value;
        };
        const QString text = c.plots->crosshairText(5);
        for (const QString& gateway : {QStringLiteral("gw-a"), QStringLiteral("gw-b")}) {
            const QString expected =
                QStringLiteral("%1: outstanding sum %2, most %3; retry longest %4 s, median %5 s")
                    .arg(gateway)
                    .arg(at5(gateway, L::OutstandingSum))
                    .arg(at5(gateway, L::OutstandingMax))
                    .arg(at5(gateway, L::IntervalMax))
                    .arg(at5(gateway, L::IntervalMedian));
            QVERIFY2(text.contains(expected), qPrintable(expected + QStringLiteral("\n") + text));
        }
        QVERIFY2(text.contains(QStringLiteral("gw-b: outstanding sum 3, most 3")),
                 qPrintable(text));
        // The busiest subscriptions follow the aggregates: instance 7 first.
        const qsizetype busiest = text.indexOf(QStringLiteral("Z28068 × gw1: outstanding 3"));
        QVERIFY2(busiest > text.indexOf(QStringLiteral("gw-b: outstanding sum")), qPrintable(text));
    }

    void onlyTroubledAndSortingFindTheWorst()
    {
        Console c(20);
        QVERIFY(QTest::qWaitForWindowExposed(&c.window));
        QTest::mouseClick(c.list->onlyTroubledBox(), Qt::LeftButton, {},
                          QPoint(6, c.list->onlyTroubledBox()->height() / 2));
        QVERIFY(c.list->onlyTroubledBox()->isChecked());
        QAbstractItemModel* m = c.list->view()->model();
        QCOMPARE(m->rowCount(), 2); // instance 3 (bad tags) and 7 (stacked requests)
        QTest::mouseClick(c.list->onlyTroubledBox(), Qt::LeftButton, {},
                          QPoint(6, c.list->onlyTroubledBox()->height() / 2));
        QCOMPARE(m->rowCount(), 20);
        // A click on the Outstanding header sorts by it; a second click puts the most first.
        QHeaderView* header = c.list->view()->horizontalHeader();
        c.list->view()->scrollTo(m->index(0, SubscriptionListModel::Outstanding));
        const int xs = header->sectionViewportPosition(SubscriptionListModel::Outstanding) +
                       header->sectionSize(SubscriptionListModel::Outstanding) / 2;
        QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, QPoint(xs, header->height() / 2));
        QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, QPoint(xs, header->height() / 2));
        QCOMPARE(m->index(0, 0).data(SubscriptionListModel::KeyRole).value<SubscriptionKey>(),
                 (SubscriptionKey{7, false}));
        QCOMPARE(m->index(0, SubscriptionListModel::Outstanding).data().toString(),
                 QStringLiteral("3"));
    }

    // Orphaned and frozen tags are each a column of their own, and each makes its
    // subscription troubled: here instance 9's tags are all Good, only frozen.
    void orphanedAndFrozenTagsAreNamedAndCountAsTroubled()
    {
        Console c(20);
        QVERIFY(QTest::qWaitForWindowExposed(&c.window));
        testsupport::feed(
            c.store, {SubscriptionStep{.t = 11, .instance = 5, .good = 8, .bad = 2, .orphaned = 2},
                      SubscriptionStep{.t = 11, .instance = 9, .good = 10, .frozen = 10}});
        QTRY_COMPARE(c.indexOf(5, SubscriptionListModel::Orphaned).data().toString(),
                     QStringLiteral("2"));
        QCOMPARE(c.indexOf(9, SubscriptionListModel::Frozen).data().toString(),
                 QStringLiteral("10"));
        QCOMPARE(c.indexOf(3, SubscriptionListModel::Orphaned).data().toString(),
                 QStringLiteral("0"));
        QCOMPARE(c.indexOf(3, SubscriptionListModel::Frozen).data().toString(),
                 QStringLiteral("0"));

        QTest::mouseClick(c.list->onlyTroubledBox(), Qt::LeftButton, {},
                          QPoint(6, c.list->onlyTroubledBox()->height() / 2));
        QAbstractItemModel* m = c.list->view()->model();
        QList<int> troubled;
        for (int r = 0; r < m->rowCount(); ++r)
            troubled << m->index(r, 0)
                            .data(SubscriptionListModel::KeyRole)
                            .value<SubscriptionKey>()
                            .instance;
        std::sort(troubled.begin(), troubled.end());
        QCOMPARE(troubled, (QList<int>{3, 5, 7, 9}));

        // The Frozen header, clicked twice, puts the most frozen first.
        QHeaderView* header = c.list->view()->horizontalHeader();
        c.list->view()->scrollTo(m->index(0, SubscriptionListModel::Frozen));
        const int xs = header->sectionViewportPosition(SubscriptionListModel::Frozen) +
                       header->sectionSize(SubscriptionListModel::Frozen) / 2;
        QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, QPoint(xs, header->height() / 2));
        QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, QPoint(xs, header->height() / 2));
        QCOMPARE(m->index(0, 0).data(SubscriptionListModel::KeyRole).value<SubscriptionKey>(),
                 (SubscriptionKey{9, false}));
    }
};

QTEST_MAIN(TestSubscriptionsPanel)
#include "tst_subscriptions_panel.moc"
