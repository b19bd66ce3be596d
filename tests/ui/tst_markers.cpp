// Markers on the time axis: the run host publishes faults, redeploys
// and lever changes as the run passes them; the plots draw a line and a short label, the
// labels of close markers do not overlap; the report PNGs and the compare view take the
// scenario's timeline.
#include "models/support_series_updates.h"
#include "scenario/run_host.h"
#include "scenario/scenario_parser.h"
#include "support_fake_view.h"
#include "ui/console_controller.h"
#include "ui/plot_panel.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QSignalSpy>
#include <QtTest>
#include <qcustomplot.h>

using namespace stormwatch;

namespace {

TimelineEvent timelineEvent(TimelineAction action, double atS)
{
    TimelineEvent e;
    e.action = action;
    e.atS = atS;
    return e;
}

Scenario timelineScenario()
{
    const QJsonObject o{
        {"name", "markers"},
        {"description", "a wedge, a redeploy and a lever change"},
        {"duration_s", 60},
        {"seed", 3},
        {"connections", QJsonArray{QJsonObject{{"name", "gw1"}, {"write_user_id", 0}}}},
        {"instances",
         QJsonArray{QJsonObject{{"name", "inst-03"}, {"connection", "gw1"}, {"tags", 20}}}},
        {"timeline",
         QJsonArray{QJsonObject{{"at_s", 10}, {"action", "wedge"}, {"duration_s", 15}},
                    QJsonObject{{"at_s", 30}, {"action", "redeploy"}, {"instance", "inst-03"}},
                    QJsonObject{{"at_s", 40}, {"action", "set_levers"}, {"levers", "lever1"}}}},
        {"variants", QJsonArray{"levers-off"}},
    };
    QList<ScenarioError> errors;
    auto s = parseScenario(QJsonDocument(o).toJson(), QStringLiteral("markers.json"), &errors);
    for (const auto& e : errors)
        qWarning() << e.toString();
    Q_ASSERT(s);
    return *s;
}

} // namespace

class TestMarkers : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QLoggingCategory::setFilterRules(QStringLiteral("stormwatch.*.warning=false"));
    }

    void labelsAreShortAndSayWhat()
    {
        TimelineEvent wedge = timelineEvent(TimelineAction::Wedge, 600);
        wedge.durationS = 90;
        QCOMPARE(RunHost::markerLabel(wedge), QStringLiteral("wedge 90 s"));
        TimelineEvent redeploy = timelineEvent(TimelineAction::Redeploy, 610);
        redeploy.instance = QStringLiteral("inst-03");
        QCOMPARE(RunHost::markerLabel(redeploy), QStringLiteral("redeploy inst-03"));
        TimelineEvent restart = timelineEvent(TimelineAction::RestartGateway, 5);
        restart.downtimeS = 5;
        QCOMPARE(RunHost::markerLabel(restart), QStringLiteral("restart (down 5 s)"));
        const LeverSet off = *leverPreset(QStringLiteral("levers-off"), nullptr);
        const LeverSet lever1 = *leverPreset(QStringLiteral("lever1"), nullptr);
        QCOMPARE(RunHost::leverChangeLabel(off, lever1), QStringLiteral("lever1 on"));
        QCOMPARE(RunHost::leverChangeLabel(lever1, off), QStringLiteral("levers off"));
        QVERIFY(RunHost::leverChangeLabel(lever1, lever1).isEmpty());
        LeverSet custom = lever1;
        custom.backoff = false;
        QCOMPARE(RunHost::leverChangeLabel(lever1, custom), QStringLiteral("backoff off"));
        const QVector<RunHost::Marker> timeline = RunHost::timelineMarkers(timelineScenario());
        QCOMPARE(timeline.size(), 3);
        QCOMPARE(timeline[0].label, QStringLiteral("wedge 15 s"));
        QCOMPARE(timeline[2].label, QStringLiteral("lever1 on"));
    }

    void theHostPublishesTimelineAndConsoleMarkers()
    {
        RunHost host;
        QVector<RunHost::Marker> seen;
        connect(&host, &RunHost::markersAdded, this,
                [&](const QVector<RunHost::Marker>& m) { seen += m; });
        QString error;
        QVERIFY2(host.start(timelineScenario(), QString(), 1, &error), qPrintable(error));
        // Paced at 1×: a redeploy from the console lands at the run's "now".
        QTRY_VERIFY_WITH_TIMEOUT(host.virtualS() > 0.5, 10000);
        TimelineEvent redeploy = timelineEvent(TimelineAction::Redeploy, 0);
        redeploy.instance = QStringLiteral("inst-03");
        host.inject(redeploy);
        QTRY_VERIFY_WITH_TIMEOUT(!seen.isEmpty(), 10000);
        QCOMPARE(seen.front().label, QStringLiteral("redeploy inst-03"));
        QVERIFY(seen.front().tS > 0.4 && seen.front().tS < 5);
        host.setSpeed(RunHost::kMaxSpeed);
        QTRY_VERIFY_WITH_TIMEOUT(host.state() == RunHost::State::Finished, 20000);
        QStringList labels;
        for (const RunHost::Marker& m : seen)
            labels << QStringLiteral("%1@%2").arg(m.label).arg(std::round(m.tS));
        QVERIFY2(labels.contains(QStringLiteral("wedge 15 s@10")), qPrintable(labels.join(", ")));
        QVERIFY2(labels.contains(QStringLiteral("redeploy inst-03@30")),
                 qPrintable(labels.join(", ")));
        // set_levers is marked once, by the change it made, within a step of its time.
        const auto lever = std::find_if(seen.begin(), seen.end(), [](const auto& m) {
            return m.label == QLatin1String("lever1 on");
        });
        QVERIFY2(lever != seen.end(), qPrintable(labels.join(", ")));
        QVERIFY(lever->tS >= 40 && lever->tS < 46);
        QCOMPARE(std::count_if(seen.begin(), seen.end(),
                               [](const auto& m) { return m.label.contains("lever1"); }),
                 1);
    }

    // The live console: a lever change and a fault from the panels become markers at the
    // run's time; playing a scenario starts the markers over, with the run's caption.
    void theConsoleGetsThemAndClearsThemForANewRun()
    {
        test::FakeView view;
        ConsoleController c(&view);
        QString error;
        QVERIFY2(c.startEmbedded(&error), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(view.connectionState("gw1"), QStringLiteral("connected"), 20000);
        emit view.intents()->leversChanged(*leverPreset(QStringLiteral("levers-off"), nullptr));
        QTRY_VERIFY_WITH_TIMEOUT(!view.markers.isEmpty(), 20000);
        QCOMPARE(view.markers.front().label, QStringLiteral("levers off"));
        QVERIFY(view.markers.front().tS > 0);
        QCOMPARE(view.caption.scenario, QStringLiteral("live"));
        QCOMPARE(view.caption.levers, QStringLiteral("levers-off"));
        QVERIFY(view.caption.start.isValid());
        TimelineEvent wedge = timelineEvent(TimelineAction::Wedge, 0);
        wedge.durationS = 5;
        emit view.intents()->faultRequested(wedge);
        QTRY_VERIFY_WITH_TIMEOUT(view.markers.size() >= 2, 20000);
        QCOMPARE(view.markers.back().label, QStringLiteral("wedge 5 s"));

        const QDateTime liveStart = view.caption.start;
        emit view.intents()->playRequested(QStringLiteral("live-gate-lever1"),
                                           QStringLiteral("lever1"), 0);
        QTRY_VERIFY_WITH_TIMEOUT(view.caption.scenario == QLatin1String("live-gate-lever1"), 20000);
        QCOMPARE(view.caption.variant, QStringLiteral("lever1"));
        QVERIFY(view.caption.start >= liveStart);
        QTRY_VERIFY_WITH_TIMEOUT(!view.markers.isEmpty(), 20000);
        QCOMPARE(view.markers.front().label, QStringLiteral("refuse 110 s"));
        QCOMPARE(view.markers.front().tS, 0.0);
        for (const RunHost::Marker& m : view.markers)
            QVERIFY2(!m.label.contains(QLatin1String("levers off")) &&
                         !m.label.startsWith(QLatin1String("wedge")),
                     qPrintable(m.label)); // the live run's markers are gone
    }

    void closeLabelsStepDownInsteadOfOverlapping()
    {
        SeriesStore store;
        for (int t = 0; t <= 600; t += 10) {
            testsupport::feed(store, {{.t = double(t), .label = QStringLiteral("inst-03 × gw1")}});
        }
        PlotPanel panel(&store);
        panel.resize(1000, 700);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.addMarkers({{300, "wedge 90 s"},
                          {305, "redeploy inst-03"},
                          {310, "redeploy inst-04"},
                          {500, "lever1 on"}});
        panel.showAll();
        panel.refreshNow();
        const QList<QCPItemText*> labels = panel.markerLabels();
        QCOMPARE(labels.size(), 4);
        QList<QRectF> boxes;
        for (QCPItemText* label : labels) {
            const QPointF at = label->position->pixelPosition();
            const QFontMetrics fm(label->font());
            boxes << QRectF(at, QSizeF(fm.horizontalAdvance(label->text()) + 6, fm.height() + 2));
            // Inside the first plot's data area, at its marker's time.
            QVERIFY(panel.axisRect(PlotPanel::Plot::Outstanding)->rect().contains(at.toPoint()));
        }
        for (int i = 0; i < boxes.size(); ++i)
            for (int j = i + 1; j < boxes.size(); ++j)
                QVERIFY2(!boxes[i].intersects(boxes[j]),
                         qPrintable(labels[i]->text() + " / " + labels[j]->text()));
        // The line of each marker crosses every plot at its time.
        QCPAxis* x = panel.axisRect(PlotPanel::Plot::Gateway)->axis(QCPAxis::atBottom);
        QVERIFY(std::abs(labels[3]->position->pixelPosition().x() - x->coordToPixel(500)) <= 1);
        panel.clearMarkers();
        QVERIFY(panel.markerLabels().isEmpty());
    }

    // A short first plot has room for a row or two: labels beyond them are not stacked below
    // the plot but shortened (or hidden), and none covers another.
    void labelsInAShortPlotAreShortenedNotStackedBelowIt()
    {
        SeriesStore store;
        for (int t = 0; t <= 600; t += 10)
            testsupport::feed(store, {{.t = double(t), .label = QStringLiteral("inst-03 × gw1")}});
        PlotPanel panel(&store);
        panel.resize(900, 330);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        const QVector<PlotPanel::Marker> markers{
            {300, "wedge 90 s"},       {303, "redeploy inst-03"}, {306, "redeploy inst-04"},
            {309, "redeploy inst-05"}, {312, "redeploy inst-06"}, {500, "lever1 on"}};
        panel.addMarkers(markers);
        panel.showAll();
        panel.refreshNow();
        const QRect plot = panel.axisRect(PlotPanel::Plot::Outstanding)->rect();
        const QList<QCPItemText*> labels = panel.markerLabels();
        QCOMPARE(labels.size(), markers.size());
        const int rowHeight = QFontMetrics(labels[0]->font()).height() + 2;
        QVERIFY2(plot.height() < rowHeight * int(markers.size() - 1),
                 qPrintable(QStringLiteral("the plot is %1 px high").arg(plot.height())));
        QList<QRectF> boxes;
        int shortened = 0;
        for (int i = 0; i < labels.size(); ++i) {
            QCPItemText* label = labels[i];
            if (!label->visible())
                continue;
            const QString full = markers[i].label;
            if (label->text() != full) {
                QVERIFY2(label->text().endsWith(QChar(0x2026)) &&
                             full.startsWith(label->text().chopped(1)),
                         qPrintable(label->text()));
                ++shortened;
            }
            const QPointF at = label->position->pixelPosition();
            const QFontMetrics fm(label->font());
            const QRectF box(at, QSizeF(fm.horizontalAdvance(label->text()) + 6, fm.height() + 2));
            QVERIFY2(box.bottom() <= plot.bottom() + 1,
                     qPrintable(QStringLiteral("%1 ends at %2, the plot at %3")
                                    .arg(label->text())
                                    .arg(box.bottom())
                                    .arg(plot.bottom())));
            boxes << box;
        }
        QVERIFY(shortened > 0 || boxes.size() < labels.size());
        for (int i = 0; i < boxes.size(); ++i)
            for (int j = i + 1; j < boxes.size(); ++j)
                QVERIFY(!boxes[i].intersects(boxes[j]));
        // The marker with room keeps its whole label.
        QVERIFY(labels.last()->visible());
        QCOMPARE(labels.last()->text(), QStringLiteral("lever1 on"));
    }
};

QTEST_MAIN(TestMarkers)
#include "tst_markers.moc"
