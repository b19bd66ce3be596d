#include "support_recording.h"

#include "scenario/scenario_parser.h"

#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSqlDatabase>
#include <QTimer>
#include <QtTest>

namespace stormwatch::test {

namespace {

Scenario parse(const QJsonObject& o)
{
    QList<ScenarioError> errors;
    auto s =
        parseScenario(QJsonDocument(o).toJson(), o.value("name").toString() + ".json", &errors);
    for (const auto& e : errors)
        qWarning() << e.toString();
    if (!s)
        qFatal("a test scenario does not parse");
    return *s;
}

} // namespace

Scenario wedgeAndLeverChange(double durationS, int tags, const QString& variant,
                             const QString& leversAt300)
{
    return parse(QJsonObject{
        {"name", "wedge-and-lever-change"},
        {"description", "a wedge and a lever change, recorded"},
        {"duration_s", durationS},
        {"seed", 7},
        {"gateway", QJsonObject{{"command_ms", 20}, {"per_item_ms", 1}, {"data_hz", 1}}},
        {"connections", QJsonArray{QJsonObject{{"name", "gw1"}, {"write_user_id", 0}}}},
        {"instances",
         QJsonArray{
             QJsonObject{{"name", "inst-a"}, {"connection", "gw1"}, {"tags", tags}},
             QJsonObject{
                 {"name", "inst-b"}, {"connection", "gw1"}, {"tags", tags}, {"start_at_s", 30}}}},
        {"timeline",
         QJsonArray{QJsonObject{{"at_s", 120}, {"action", "wedge"}, {"duration_s", 60}},
                    QJsonObject{{"at_s", 300}, {"action", "set_levers"}, {"levers", leversAt300}}}},
        {"variants", QJsonArray{variant}},
    });
}

void ConsoleModels::follow(RunHost& host)
{
    store.setRetentionSeconds(0);
    QObject::connect(&host, &RunHost::seriesUpdates, &store,
                     [this](const auto& u) { store.appendSeries(u); });
    QObject::connect(&host, &RunHost::tagChanges, &tags,
                     [this](const auto& c) { tags.applyChanges(c); });
    QObject::connect(&host, &RunHost::logEntries, &log, [this](const auto& e) {
        log.append(e);
        logLines += int(e.size());
    });
    QObject::connect(&host, &RunHost::progress, &store, [this](double t) { store.advanceTo(t); });
}

bool showRecordedRun(Recording& recording, qint64 runId, SeriesStore* store, EventLogModel* log,
                     TagTableModel* tags, QString* error)
{
    const auto data = recording.load(runId, error);
    if (!data)
        return false;
    double endS = 0;
    for (const RecordedRun& r : recording.runs())
        if (r.id == runId)
            endS = r.endS;
    if (store) {
        store->clear();
        store->setRetentionSeconds(0);
        store->appendSeries(data->series);
        store->advanceTo(endS);
    }
    if (log) {
        log->clear();
        log->append(data->logs);
    }
    if (tags) {
        tags->clear();
        QVector<TagChange> states;
        states.reserve(data->tags.size());
        for (const RecordedTag& t : data->tags)
            states.push_back(t.state);
        tags->applyChanges(states);
        tags->setNow(endS);
    }
    return true;
}

RecordedRunResult recordRun(const Scenario& scenario, const QString& path, ConsoleModels* models,
                            bool live, int commitIntervalMs,
                            const std::function<void(double)>& onProgress,
                            const LiveOptions& liveOptions)
{
    RecordedRunResult result;
    Recorder recorder;
    QString error;
    if (!recorder.open(path, &error)) {
        qWarning() << error;
        return result;
    }
    recorder.setCommitIntervalMs(commitIntervalMs);
    RunHost host;
    recorder.attach(&host);
    if (models)
        models->follow(host);
    QEventLoop loop;
    QObject::connect(&host, &RunHost::finished, &loop, [&](const QSharedPointer<VariantRun>& run) {
        result.run = run;
        loop.quit();
    });
    QObject::connect(&host, &RunHost::stopped, &loop, &QEventLoop::quit);
    if (onProgress)
        QObject::connect(&host, &RunHost::progress, &loop, [&](double t) { onProgress(t); });
    const bool started = live ? host.startLive(scenario, {}, liveOptions, &error)
                              : host.start(scenario, {}, RunHost::kMaxSpeed, &error);
    if (!started) {
        qWarning() << error;
        return result;
    }
    QTimer::singleShot(120'000, &loop,
                       &QEventLoop::quit); // a hung run fails the test, not the suite
    loop.exec();
    result.commits = recorder.commits();
    recorder.close();
    return result;
}

QString recorderConnection(const QString& file)
{
    QString connection; // the newest one (earlier tests' may linger)
    qint64 newest = -1;
    for (const QString& name : QSqlDatabase::connectionNames())
        if (name.startsWith(QStringLiteral("stormwatch-recorder-"))) {
            const qint64 n = name.section(QLatin1Char('-'), -1).toLongLong();
            if (n > newest && QSqlDatabase::database(name, false).databaseName() == file) {
                newest = n;
                connection = name;
            }
        }
    return connection;
}

QString compareSeries(const SeriesSet& expected, const SeriesSet& actual)
{
    int compared = 0;
    for (const Series& e : expected.all()) {
        const Series* a = actual.find(e.subject(), e.metric());
        if (e.points().empty()) {
            if (a && !a->points().empty())
                return QStringLiteral("%1/%2: recorded points of a series the run left empty")
                    .arg(e.subject(), e.metric());
            continue;
        }
        if (!a)
            return QStringLiteral("%1/%2: missing").arg(e.subject(), e.metric());
        if (a->points().size() != e.points().size())
            return QStringLiteral("%1/%2: %3 points, expected %4")
                .arg(e.subject(), e.metric())
                .arg(a->points().size())
                .arg(e.points().size());
        for (std::size_t i = 0; i < e.points().size(); ++i)
            if (!(a->points()[i] == e.points()[i]))
                return QStringLiteral("%1/%2: point %3 is (%4, %5), expected (%6, %7)")
                    .arg(e.subject(), e.metric())
                    .arg(i)
                    .arg(a->points()[i].tS)
                    .arg(a->points()[i].value)
                    .arg(e.points()[i].tS)
                    .arg(e.points()[i].value);
        ++compared;
    }
    for (const Series& a : actual.all())
        if (!a.points().empty() && !expected.find(a.subject(), a.metric()))
            return QStringLiteral("%1/%2: not in the run").arg(a.subject(), a.metric());
    return compared > 0 ? QString() : QStringLiteral("no series compared");
}

QString compareStores(const SeriesStore& expected, const SeriesStore& actual)
{
    if (expected.subscriptions() != actual.subscriptions())
        return QStringLiteral("different subscriptions");
    for (const SubscriptionKey& k : expected.subscriptions()) {
        if (expected.label(k) != actual.label(k))
            return QStringLiteral("label %1 vs %2").arg(actual.label(k), expected.label(k));
        for (int m = 0; m < kSubMetricCount; ++m)
            if (expected.series(k, SubMetric(m)) != actual.series(k, SubMetric(m)))
                return QStringLiteral("%1 %2 differs")
                    .arg(expected.label(k), metricName(SubMetric(m)));
    }
    for (int m = 0; m < kGatewayMetricCount; ++m)
        if (expected.gatewaySeries(GatewayMetric(m)) != actual.gatewaySeries(GatewayMetric(m)))
            return QStringLiteral("gateway %1 differs").arg(metricName(GatewayMetric(m)));
    if (expected.latestTime() != actual.latestTime())
        return QStringLiteral("latest time %1 vs %2")
            .arg(actual.latestTime())
            .arg(expected.latestTime());
    return {};
}

} // namespace stormwatch::test
