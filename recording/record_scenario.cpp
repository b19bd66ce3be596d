#include "recording/record_scenario.h"

#include <QEventLoop>

namespace stormwatch {

ScenarioReport recordScenario(const Scenario& scenarioIn, const QStringList& variantNames,
                              std::optional<quint64> seedOverride,
                              const std::optional<LiveOptions>& live, Recorder& recorder,
                              QString* error, QList<SeriesSet>* series)
{
    ScenarioReport report;
    if (const QString bad = checkVariantNames(scenarioIn, variantNames); !bad.isEmpty()) {
        if (error)
            *error = bad;
        return report;
    }
    Scenario scenario = scenarioIn;
    if (seedOverride)
        scenario.seed = *seedOverride; // what the runner's seed override does
    report.scenario = scenario.name;
    report.description = scenario.description;
    report.durationS = scenario.durationS;
    report.seed = scenario.seed;
    report.live = live.has_value();
    QStringList names = variantNames;
    if (names.isEmpty())
        for (const VariantSpec& v : scenario.variants)
            names << v.name;

    if (!recorder.isOpen()) {
        if (error)
            *error = QStringLiteral("the recording is not open");
        return ScenarioReport{};
    }
    RunHost host;
    // A recorder that fails stops the whole run at once: what follows would not be
    // recorded, and a report beside a recording that misses it would look complete.
    QString recorderFailure;
    QEventLoop* running = nullptr;
    const QMetaObject::Connection onFailure =
        QObject::connect(&recorder, &Recorder::failed, [&](const QString& why) {
            recorderFailure = why;
            if (running)
                running->quit();
        });
    const auto stopWith = [&](const QString& why) {
        QObject::disconnect(onFailure);
        host.stop();
        recorder.detach();
        if (error)
            *error = why;
        return ScenarioReport{};
    };
    const auto failedAt = [&](const QString& variant) {
        return QStringLiteral("%1 (variant %2; the file holds only what was committed before)")
            .arg(recorderFailure, variant);
    };
    recorder.attach(&host);
    for (const QString& name : std::as_const(names)) {
        QEventLoop loop;
        QSharedPointer<VariantRun> result;
        bool stopped = false;
        QObject::connect(&host, &RunHost::finished, &loop,
                         [&](const QSharedPointer<VariantRun>& run) {
                             result = run;
                             loop.quit();
                         });
        QObject::connect(&host, &RunHost::stopped, &loop, [&] {
            stopped = true;
            loop.quit();
        });
        QString why;
        // The recorder writes the run's start inside start(): a failure there is known now.
        const bool started = live ? host.startLive(scenario, name, *live, &why)
                                  : host.start(scenario, name, RunHost::kMaxSpeed, &why);
        if (!recorderFailure.isEmpty())
            return stopWith(failedAt(name));
        if (!started)
            return stopWith(why);
        running = &loop;
        loop.exec();
        running = nullptr;
        if (!recorderFailure.isEmpty())
            return stopWith(failedAt(name));
        if (!result)
            return stopWith(stopped ? QStringLiteral("variant %1 stopped before its end").arg(name)
                                    : QStringLiteral("variant %1 did not finish").arg(name));
        report.variants << result->metrics;
        if (series)
            series->push_back(result->series);
    }
    QObject::disconnect(onFailure);
    recorder.detach();
    return report;
}

} // namespace stormwatch
