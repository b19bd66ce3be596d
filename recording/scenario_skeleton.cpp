#include "recording/scenario_skeleton.h"

#include "client/lever_set.h"
#include "scenario/scenario_parser.h"

#include <QFileInfo>
#include <QHash>
#include <QJsonDocument>
#include <QMap>
#include <QRegularExpression>
#include <algorithm>
#include <cmath>

namespace stormwatch {

namespace {

double percentile(std::vector<double> v, double p)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const auto i = std::size_t(std::ceil(p * double(v.size()))) - (p > 0 ? 1 : 0);
    return v[std::min(i, v.size() - 1)];
}

// "<prefix><n>" for n = 1..count: the prefix, else "" (real addresses have no such form).
QString commonTagPrefix(const QStringList& names)
{
    static const QRegularExpression numbered(QStringLiteral("^(.*\\D)(\\d+)$"));
    QString prefix;
    QList<int> numbers;
    for (const QString& n : names) {
        const auto m = numbered.match(n);
        if (!m.hasMatch() || (!prefix.isEmpty() && m.captured(1) != prefix))
            return {};
        prefix = m.captured(1);
        numbers << m.captured(2).toInt();
    }
    std::sort(numbers.begin(), numbers.end());
    for (qsizetype i = 0; i < numbers.size(); ++i)
        if (numbers[i] != i + 1)
            return {};
    return prefix;
}

QString seconds(double s)
{
    return QString::number(s, 'f', s < 10 ? 2 : 1) + QStringLiteral(" s");
}

} // namespace

std::optional<Scenario> scenarioOfRecordedRun(const RecordedRun& run, QString* error)
{
    QJsonObject sourceJson = run.source;
    sourceJson.remove(QStringLiteral("started_mid_run_at_s"));
    // The console's live run is open-ended (30 days): beyond a file's limit, so held to it.
    if (const QJsonValue d = sourceJson.value(QStringLiteral("duration_s")); d.isDouble())
        sourceJson.insert(QStringLiteral("duration_s"),
                          std::min(d.toDouble(), scenario_limits::kMaxRunS));
    QList<ScenarioError> errors;
    auto s = parseScenario(QJsonDocument(sourceJson).toJson(),
                           QStringLiteral("recorded run %1").arg(run.id), &errors);
    if (!s && error) {
        QStringList lines;
        for (const ScenarioError& e : std::as_const(errors))
            lines << e.toString();
        *error = lines.join(QLatin1Char('\n'));
    }
    return s;
}

QJsonObject scenarioSkeleton(const Recording& recording, const RecordedRun& run,
                             const RunData& data)
{
    // The run's own scenario is the base (its gateway block, options, client model, seed);
    // what the recording saw replaces what it can.
    Scenario s = scenarioOfRecordedRun(run).value_or(Scenario{});
    const Scenario source = s;
    s.name = (run.scenario.isEmpty() ? QStringLiteral("recording") : run.scenario).left(110) +
             QStringLiteral("-recorded");
    s.durationS = std::clamp(std::ceil(run.endS), 1.0, scenario_limits::kMaxRunS);

    // Instances: the tags the run showed, by instance, in the order first seen.
    QMap<int, QStringList> tagNames;
    QHash<int, QString> instanceName;
    QHash<int, std::vector<double>> firstGood;
    QHash<int, int> goodAtEnd;
    for (const RecordedTag& t : data.tags) {
        tagNames[t.state.instance] << t.state.tagName;
        instanceName.insert(t.state.instance, t.state.instanceName);
        if (t.firstGoodS >= 0)
            firstGood[t.state.instance].push_back(t.firstGoodS);
        if (t.state.quality >= 192)
            ++goodAtEnd[t.state.instance];
    }
    QHash<QString, QString> connectionOf; // from the subscriptions' series
    for (const SeriesUpdate& u : data.series)
        if (const SeriesSubject subject = SeriesSubject::of(SeriesSubject::subjectOf(u));
            subject.kind == SeriesSubject::Kind::Subscription && !subject.connection.isEmpty())
            connectionOf.insert(subject.instance, subject.connection);
    QStringList observed;
    if (!tagNames.isEmpty()) {
        QList<ScenarioInstance> instances;
        for (auto it = tagNames.cbegin(); it != tagNames.cend(); ++it) {
            ScenarioInstance i;
            i.name = instanceName.value(it.key());
            const auto was =
                std::find_if(source.instances.cbegin(), source.instances.cend(),
                             [&](const ScenarioInstance& x) { return x.name == i.name; });
            i.connection = connectionOf.value(
                i.name, was != source.instances.cend() ? was->connection : QString());
            i.tags = int(it.value().size());
            i.tagPrefix = commonTagPrefix(it.value());
            if (i.tagPrefix.isEmpty())
                i.tagPrefix = was != source.instances.cend() ? was->tagPrefix
                                                             : i.name + QStringLiteral(".Attr");
            i.alarms = was != source.instances.cend() && was->alarms;
            i.startAtS = was != source.instances.cend() ? std::min(was->startAtS, s.durationS) : 0;
            instances << i;
            const std::vector<double>& fg = firstGood.value(it.key());
            observed << QStringLiteral("%1: %2 tags, %3 Good at the end; first Good value %4")
                            .arg(i.name, QString::number(i.tags),
                                 QString::number(goodAtEnd.value(it.key())),
                                 fg.empty() ? QStringLiteral("never")
                                            : QStringLiteral("p50 %1, p95 %2, max %3 into the run")
                                                  .arg(seconds(percentile(fg, 0.5)),
                                                       seconds(percentile(fg, 0.95)),
                                                       seconds(percentile(fg, 1.0))));
        }
        s.instances = instances;
    }
    // Every instance's connection must exist.
    for (const ScenarioInstance& i : std::as_const(s.instances))
        if (std::none_of(s.connections.cbegin(), s.connections.cend(),
                         [&](const ScenarioConnection& c) { return c.name == i.connection; })) {
            ScenarioConnection added; // supervisory (write user 0), the scenario's one gateway
            added.name = i.connection.isEmpty() ? QStringLiteral("gw1") : i.connection;
            s.connections << added;
        }
    for (ScenarioInstance& i : s.instances)
        if (i.connection.isEmpty())
            i.connection = s.connections.first().name;
    for (const ConnectionInfo& c : data.connections)
        if (c.echoedCommandTimeoutS >= 0)
            observed << QStringLiteral(
                            "connection %1: the gateway echoed a session command timeout of %2")
                            .arg(c.name, seconds(c.echoedCommandTimeoutS));

    // The faults and changes the run passed, then lever changes made at the console.
    QList<TimelineEvent> timeline;
    for (const TimelineEvent& e : data.timeline) {
        if (e.atS > s.durationS)
            continue;
        if (e.action == TimelineAction::Redeploy &&
            std::none_of(s.instances.cbegin(), s.instances.cend(),
                         [&](const ScenarioInstance& i) { return i.name == e.instance; }))
            continue;
        timeline << e;
    }
    for (const LeverChange& c : data.leverChanges) {
        const bool fromTimeline =
            std::any_of(data.timeline.cbegin(), data.timeline.cend(), [&](const TimelineEvent& e) {
                return e.action == TimelineAction::SetLevers && e.atS <= c.tS && c.tS - e.atS <= 5;
            });
        if (fromTimeline || c.tS > s.durationS)
            continue;
        TimelineEvent e;
        e.atS = c.tS;
        e.action = TimelineAction::SetLevers;
        e.levers = c.levers;
        timeline << e;
    }
    std::stable_sort(timeline.begin(), timeline.end(),
                     [](const TimelineEvent& a, const TimelineEvent& b) { return a.atS < b.atS; });
    s.timeline = timeline;
    int faults = 0;
    for (const TimelineEvent& e : timeline)
        faults += e.isFault() ? 1 : 0;

    s.variants = {VariantSpec{QStringLiteral("as-recorded"), run.levers}};
    for (const QString& preset : leverPresetNames())
        s.variants << VariantSpec{preset, preset};

    s.description =
        QStringLiteral(
            "Skeleton from the recording %1, run %2 (%3 / %4, %5%6, %7 s recorded, started %8). "
            "Instances, tag counts and prefixes are what the run showed; the timeline holds the %9 "
            "fault(s) and the lever changes it passed; \"as-recorded\" is the levers it started "
            "with. "
            "Observed: %10. Check the gateway block (costs, data rate) against the site before "
            "drawing conclusions.")
            // One arg() call: a chained one would substitute into the names inserted before.
            .arg(QFileInfo(recording.path()).fileName(), QString::number(run.id), run.scenario,
                 run.variant, run.live ? QStringLiteral("live") : QStringLiteral("virtual time"),
                 run.gateway.isEmpty() ? QString() : QStringLiteral(" on ") + run.gateway,
                 QString::number(run.endS, 'f', 1), run.startedUtc.toString(Qt::ISODate),
                 QString::number(faults),
                 observed.isEmpty() ? QStringLiteral("no tags")
                                    : observed.join(QStringLiteral("; ")))
            .left(scenario_limits::kMaxDescriptionLength);
    return scenarioToJson(s);
}

} // namespace stormwatch
