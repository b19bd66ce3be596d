#include "recording/record_scenario.h"

#include <QEventLoop>

namespace stormwatch {

ScenarioReport recordScenario(const Scenario& scenarioIn, const QStringList& variantNames,
                              std::optional<quint64> seedOverride, const std::optional<LiveOptions>& live,
                              Recorder& recorder, QString* error, QList<SeriesSet>* series)
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

    RunHost host;
    recorder.attach(&host);
    for (const QString& name : std::as_const(names)) {
        QEventLoop loop;
        QSharedPointer<VariantRun> result;
        bool stopped = false;
        QObject::connect(&host, &RunHost::finished, &loop, [&](const QSharedPointer<VariantRun>& run) {
            result = run;
            loop.quit();
        });
        QObject::connect(&host, &RunHost::stopped, &loop, [&] {
            stopped = true;
            loop.quit();
        });
        QObject::connect(&recorder, &Recorder::failed, &loop, [&](const QString& why) {
            if (error)
                *error = why;
            loop.quit();
        });
        QString why;
        const bool started = live ? host.startLive(scenario, name, *live, &why)
                                  : host.start(scenario, name, RunHost::kMaxSpeed, &why);
        if (!started) {
            if (error)
                *error = why;
            recorder.detach();
            return ScenarioReport{};
        }
        loop.exec();
        if (!result) {
            host.stop();
            recorder.detach();
            if (error && error->isEmpty())
                *error = stopped ? QStringLiteral("variant %1 stopped before its end").arg(name)
                                 : QStringLiteral("variant %1 did not finish").arg(name);
            return ScenarioReport{};
        }
        report.variants << result->metrics;
        if (series)
            series->push_back(result->series);
    }
    recorder.detach();
    return report;
}

} // namespace stormwatch
