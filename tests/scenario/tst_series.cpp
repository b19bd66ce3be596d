#include "scenario/report.h"
#include "scenario/run_host.h"
#include "scenario/scenario_parser.h"
#include "scenario/scenario_runner.h"
#include "scenario/series.h"

#include <QElapsedTimer>
#include <QLoggingCategory>
#include <QtTest>
#include <algorithm>
#include <map>

using namespace stormwatch;

class TestSeries : public QObject {
    Q_OBJECT

private slots:
    // One mapping between a series' subject and its plot label, both ways (the run host,
    // report PNGs, recordings, the series store and the compare view all use it).
    void subjectsMapToLabelsAndBack()
    {
        const SeriesSubject sum = SeriesSubject::of("gateway");
        QCOMPARE(sum.kind, SeriesSubject::Kind::RunGateway);
        QVERIFY(sum.isGateway());
        QCOMPARE(sum.label, QString());
        QCOMPARE(sum.gateway, QString());

        const SeriesSubject one = SeriesSubject::of("gateway:gw-b");
        QCOMPARE(one.kind, SeriesSubject::Kind::Gateway);
        QVERIFY(one.isGateway());
        QCOMPARE(one.gateway, QString("gw-b"));
        QCOMPARE(one.label, QString("gateway:gw-b"));

        const SeriesSubject sub = SeriesSubject::of("Z28061/gw1");
        QCOMPARE(sub.kind, SeriesSubject::Kind::Subscription);
        QVERIFY(!sub.isGateway());
        QCOMPARE(sub.label, QString("Z28061 × gw1"));

        // Back from what a SeriesUpdate carries (a reopened recording).
        SeriesUpdate u;
        u.instance = -1;
        QCOMPARE(SeriesSubject::subjectOf(u), QString("gateway"));
        u.label = one.label;
        QCOMPARE(SeriesSubject::subjectOf(u), QString("gateway:gw-b"));
        u.instance = 0;
        u.label = sub.label;
        QCOMPARE(SeriesSubject::subjectOf(u), QString("Z28061/gw1"));

        QCOMPARE(SeriesSubject::gatewayOfLabel(""), QString());
        QCOMPARE(SeriesSubject::gatewayOfLabel("gateway"), QString());
        QCOMPARE(SeriesSubject::gatewayOfLabel("gateway:gw-b"), QString("gw-b"));
        QCOMPARE(SeriesSubject::gatewayOfLabel("gw-b"), QString("gw-b"));
    }

    // The subjects are built by the same mapping that reads them: what the runner names a
    // series by parses back to its parts, and its label is the one the series store gives a
    // subscription's samples.
    void subjectsAreBuiltByTheMappingThatReadsThem()
    {
        QCOMPARE(SeriesSubject::gatewaySubject(), QString("gateway"));
        QCOMPARE(SeriesSubject::of(SeriesSubject::gatewaySubject()).kind,
                 SeriesSubject::Kind::RunGateway);
        const SeriesSubject gw = SeriesSubject::of(SeriesSubject::gatewaySubject("gw-b"));
        QCOMPARE(gw.kind, SeriesSubject::Kind::Gateway);
        QCOMPARE(gw.gateway, QString("gw-b"));
        QCOMPARE(SeriesSubject::gatewayOfLabel(gw.label), QString("gw-b"));

        const QString subject = SeriesSubject::subscriptionSubject("Z28061", "gw1");
        QCOMPARE(subject, QString("Z28061/gw1"));
        const SeriesSubject sub = SeriesSubject::of(subject);
        QCOMPARE(sub.instance, QString("Z28061"));
        QCOMPARE(sub.connection, QString("gw1"));
        QCOMPARE(sub.label, SeriesSubject::subscriptionLabel("Z28061", "gw1"));
        SeriesUpdate u;
        u.instance = 0;
        u.label = sub.label;
        QCOMPARE(SeriesSubject::subjectOf(u), subject);
        // A connection name with a slash: the instance is what comes before the first one,
        // and the round trip keeps the whole name.
        const SeriesSubject slashed =
            SeriesSubject::of(SeriesSubject::subscriptionSubject("inst", "site/gw1"));
        QCOMPARE(slashed.instance, QString("inst"));
        QCOMPARE(slashed.connection, QString("site/gw1"));
        u.label = slashed.label;
        QCOMPARE(SeriesSubject::subjectOf(u), QString("inst/site/gw1"));
        // No connection: the label is the instance alone, as the store labels such a sample.
        QCOMPARE(SeriesSubject::subscriptionLabel("inst", ""), QString("inst"));
        QCOMPARE(SeriesSubject::of("inst").label, QString("inst"));
    }

    void recordsChangesOnly()
    {
        Series s("a/gw1", "outstanding", 100);
        s.add(0, 1);
        s.add(1, 1); // no change: not stored
        s.add(2, 2);
        QCOMPARE(s.points(), (std::vector<SeriesPoint>{{0, 1}, {2, 2}}));
        QCOMPARE(s.valueAt(1.5), 1.0);
        QCOMPARE(s.valueAt(2), 2.0);
        QCOMPARE(s.valueAt(-1, 7), 7.0);
    }

    void coalescesTheSameInstant()
    {
        Series s("a/gw1", "tags_good", 100);
        s.add(0, 0);
        s.add(3, 5);
        s.add(3, 9); // same instant: the step settles on the last value
        QCOMPARE(s.points(), (std::vector<SeriesPoint>{{0, 0}, {3, 9}}));
        s.add(4, 1);
        s.add(4, 9); // changed and changed back within one instant: no step at all
        QCOMPARE(s.points(), (std::vector<SeriesPoint>{{0, 0}, {3, 9}}));
        QCOMPARE(s.maxValue(), 9.0);
    }

    void staysUnderItsCapAndKeepsThePeak()
    {
        const std::size_t cap = 1000;
        Series s("gateway", "sta_queue_depth", cap);
        double peak = 0;
        for (int i = 0; i < 100'000; ++i) {
            const double v = (i * 7919) % 501 + (i == 4321 ? 10'000 : 0);
            peak = std::max(peak, v);
            s.add(i * 0.01, v);
            QVERIFY(s.points().size() < cap);
        }
        QVERIFY(s.thinned());
        QCOMPARE(s.maxValue(), peak);
        QCOMPARE(s.points().front().tS, 0.0);
        // Still spans the whole run, in time order.
        QVERIFY(s.points().back().tS > 990);
        for (std::size_t i = 1; i < s.points().size(); ++i)
            QVERIFY(s.points()[i].tS > s.points()[i - 1].tS);
    }

    // An open-ended run's series keep their last windowS seconds: the value in force at the
    // window's start and every step inside it, as an unbounded series has them; the peak
    // of the whole run; never thinned, so the points' times stay as they were recorded.
    void windowKeepsTheLastSecondsWhole()
    {
        Series windowed("gateway", "sta_queue_depth", SeriesLimits::window(10));
        Series whole("gateway", "sta_queue_depth", SeriesLimits(10'000'000));
        std::size_t most = 0;
        for (int i = 0; i < 100'000; ++i) { // 10,000 s at 10 points a second
            const double t = i * 0.1;
            const double v = (i * 7919) % 501 + (i == 4321 ? 10'000 : 0);
            windowed.add(t, v);
            whole.add(t, v);
            most = std::max(most, windowed.points().size());
        }
        QVERIFY(!windowed.thinned());
        QVERIFY(windowed.dropped() > 90'000);
        QCOMPARE(windowed.maxValue(), whole.maxValue());
        QVERIFY2(most <= 2 * 100 + 64, qPrintable(QString::number(most))); // ~100 points a window
        const double last = windowed.points().back().tS;
        QCOMPARE(last, whole.points().back().tS);
        QVERIFY(windowed.points().front().tS <= last - 10); // the value in force at the start
        for (double t = last - 10; t <= last; t += 0.05)
            QCOMPARE(windowed.valueAt(t, -1), whole.valueAt(t, -1));
        // What is kept is the unbounded series' tail, point for point.
        const auto& tail = windowed.points();
        QVERIFY(std::equal(tail.begin(), tail.end(),
                           whole.points().end() - std::ptrdiff_t(tail.size())));
    }

    // A burst inside the window: at its cap the series drops its older half (never thins),
    // so the newest points are still the ones recorded.
    void windowAtItsCapDropsTheOlderHalf()
    {
        Series s("a/gw1", "outstanding", SeriesLimits::window(1e9, 100));
        for (int i = 0; i < 1000; ++i) {
            s.add(i, i % 2);
            QVERIFY(s.points().size() < 100);
        }
        QVERIFY(!s.thinned());
        QCOMPARE(s.points().back(), (SeriesPoint{999, 1}));
        for (std::size_t i = 1; i < s.points().size(); ++i)
            QCOMPARE(s.points()[i].tS, s.points()[i - 1].tS + 1); // consecutive: nothing merged
        QCOMPARE(s.dropped() + s.points().size(), std::size_t(1000));
    }

    // The console's open-ended live run keeps a window of its series, not the whole run.
    void openEndedRunsKeepAWindow()
    {
        Scenario s;
        s.durationS = 600;
        QCOMPARE(RunHost::seriesLimitsFor(s).windowS, 0.0); // a run with an end: all of it
        s.durationS = RunHost::kOpenEndedS;
        QCOMPARE(RunHost::seriesLimitsFor(s).windowS, RunHost::kOpenEndedSeriesWindowS);
        QCOMPARE(RunHost::seriesLimitsFor(RunHost::openEndedLive(s, LeverSet{})).windowS,
                 RunHost::kOpenEndedSeriesWindowS);
    }

    // A run 30 times longer than its series window, through the run host in virtual time:
    // its metrics are those of the same run keeping every point (metrics never come from
    // the series), it holds a fraction of the points, and the steps it sent — what the
    // plots and a recorder get — still carry every point of every series.
    void aRunLongerThanItsWindowReportsTheSameAndSendsEveryPoint()
    {
        QLoggingCategory::setFilterRules(QStringLiteral("stormwatch.*=false"));
        QList<ScenarioError> errors;
        const auto scenario = loadScenario(QStringLiteral("incident-2026-08-26"), &errors);
        QVERIFY(scenario);
        const VariantSpec* spec = nullptr;
        for (const VariantSpec& v : scenario->variants)
            if (v.name == QLatin1String("levers-off"))
                spec = &v;
        QVERIFY(spec);

        RunHost host;
        host.setSeriesLimits(SeriesLimits::window(scenario->durationS / 30));
        std::map<std::pair<QString, QString>, Series>
            sent; // (subject, metric) as the steps carried it
        QObject::connect(&host, &RunHost::seriesUpdates, [&](const QVector<SeriesUpdate>& updates) {
            for (const SeriesUpdate& u : updates) {
                QString subject = u.label;
                subject.replace(QStringLiteral(" × "), QStringLiteral("/"));
                if (u.instance < 0 && subject.isEmpty())
                    subject = QStringLiteral("gateway");
                auto it = sent.try_emplace({subject, u.metric}, subject, u.metric,
                                           SeriesLimits(10'000'000))
                              .first;
                for (const QPointF& p : u.points)
                    it->second.add(p.x(), p.y());
            }
        });
        QSharedPointer<VariantRun> bounded;
        QObject::connect(&host, &RunHost::finished,
                         [&](const QSharedPointer<VariantRun>& run) { bounded = run; });
        QString error;
        QVERIFY2(host.start(*scenario, spec->name, RunHost::kMaxSpeed, &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(bounded, 120000);

        ScenarioRunner reference(*scenario, *spec);
        const VariantRun whole = reference.run();
        QCOMPARE(variantToJson(bounded->metrics, false), variantToJson(whole.metrics, false));

        std::size_t boundedPoints = 0, wholePoints = 0, dropped = 0;
        for (const Series& b : bounded->series.all()) {
            boundedPoints += b.points().size();
            dropped += b.dropped();
        }
        for (const Series& w : whole.series.all())
            wholePoints += w.points().size();
        QVERIFY2(
            dropped > 0 && boundedPoints * 4 < wholePoints,
            qPrintable(QStringLiteral("%1 of %2 points kept").arg(boundedPoints).arg(wholePoints)));

        // Every series the steps carried is the whole run's, step for step.
        QVERIFY(sent.count({QStringLiteral("gateway"), QStringLiteral("sta_queue_depth")}));
        int compared = 0;
        for (const auto& [key, got] : sent) {
            const Series* expected = whole.series.find(key.first, key.second);
            QVERIFY2(expected, qPrintable(key.first + " " + key.second));
            std::vector<double> times;
            for (const SeriesPoint& p : expected->points())
                times.push_back(p.tS);
            for (const SeriesPoint& p : got.points())
                times.push_back(p.tS);
            for (const double t : times)
                QVERIFY2(
                    got.valueAt(t, -1) == expected->valueAt(t, -1),
                    qPrintable(QStringLiteral("%1 %2 at %3 s").arg(key.first, key.second).arg(t)));
            compared += expected->points().empty() ? 0 : 1;
        }
        QVERIFY(compared >= 4);
    }

    void setFindsAndListsSeries()
    {
        SeriesSet set(50);
        const std::size_t a = set.indexOf("i1/gw1", "outstanding");
        const std::size_t b = set.indexOf("gateway", "sta_queue_depth");
        QCOMPARE(set.indexOf("i1/gw1", "outstanding"), a);
        QVERIFY(a != b);
        set.at(a).add(1, 3);
        QVERIFY(set.find("i1/gw1", "outstanding"));
        QCOMPARE(set.find("i1/gw1", "outstanding")->points().size(), std::size_t(1));
        QVERIFY(!set.find("i1/gw1", "nope"));
        QCOMPARE(set.subjects(), (QStringList{"i1/gw1", "gateway"}));
    }

    // A run sets up three series per subscription; with 50,000 instances a
    // linear indexOf made set-up quadratic. Four times the series take about four times as
    // long (a scan takes sixteen), and every lookup still finds its own series.
    void manySeriesSetUpInLinearTime()
    {
        auto setUp = [](int subjects) {
            double best = 1e300;
            for (int round = 0; round < 3; ++round) {
                QElapsedTimer t;
                t.start();
                SeriesSet set(8);
                for (int i = 0; i < subjects; ++i) {
                    const QString subject = QString("instance-%1/gw1").arg(i);
                    for (const char* metric : {"outstanding", "interval_ms", "tags_good"})
                        set.indexOf(subject, QString::fromLatin1(metric));
                }
                for (int i = 0; i < subjects; ++i) // looked up again, as the runner does
                    set.at(set.indexOf(QString("instance-%1/gw1").arg(i), "outstanding")).add(i, 1);
                if (set.size() != std::size_t(subjects) * 3 || set.subjects().size() != subjects)
                    return -1.0;
                best = std::min(best, double(t.nsecsElapsed()) / 1e6);
            }
            return best;
        };
        const double small = setUp(5000);
        const double big = setUp(20000);
        qInfo("5000 subjects: %.1f ms, 20000 subjects: %.1f ms", small, big);
        QVERIFY(small >= 0 && big >= 0);
        QVERIFY2(big < 8 * small + 50, qPrintable(QString("%1 ms vs %2 ms").arg(big).arg(small)));
    }

    void indexOfKeepsOrderAndIdentity()
    {
        SeriesSet set(8);
        std::vector<std::size_t> first;
        for (int i = 0; i < 1000; ++i)
            first.push_back(set.indexOf(QString("s%1").arg(i % 100), QString("m%1").arg(i / 100)));
        for (int i = 0; i < 1000; ++i) {
            QCOMPARE(first[std::size_t(i)], std::size_t(i)); // created in call order
            QCOMPARE(set.indexOf(QString("s%1").arg(i % 100), QString("m%1").arg(i / 100)),
                     std::size_t(i));
            const Series* found =
                set.find(QString("s%1").arg(i % 100), QString("m%1").arg(i / 100));
            QVERIFY(found == &set.at(std::size_t(i)));
        }
        // a subject and metric that only concatenate alike are different series
        const std::size_t ab = set.indexOf("a/b", "c");
        QVERIFY(set.indexOf("a", "b/c") != ab);
        QCOMPARE(set.subjects().size(), 100 + 2);
        QCOMPARE(set.subjects().front(), QString("s0"));
        // copies look up their own series
        const SeriesSet copy = set;
        QVERIFY(copy.find("a/b", "c") == &copy.at(ab));
    }
};

QTEST_GUILESS_MAIN(TestSeries)
#include "tst_series.moc"
