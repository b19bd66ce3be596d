#include "app/recording_cli.h"

#include "app/cli_streams.h"
#include "recording/recording.h"
#include "recording/scenario_skeleton.h"
#include "scenario/metric_table.h"

#include <QJsonDocument>

namespace stormwatch {

namespace {

using cli::err;
using cli::out;

void printWarnings(const Recording& r)
{
    for (const QString& w : r.warnings())
        err() << "warning: " << w << '\n';
}

} // namespace

int recordingInfo(const QString& file)
{
    QString error;
    const auto r = Recording::open(file, &error);
    if (!r) {
        err() << error << '\n';
        return 2;
    }
    printWarnings(*r);
    out() << file << ": recording schema " << r->schemaVersion() << ", written by stormwatch "
          << r->appVersion() << ", created " << r->createdUtc().toString(Qt::ISODate) << ", "
          << r->runs().size() << " run(s)\n";
    for (const RecordedRun& run : r->runs()) {
        out() << "run " << run.id << ": " << run.scenario << " / " << run.variant << ", "
              << (run.live ? "live on " + run.gateway : QStringLiteral("virtual time")) << ", "
              << QString::number(run.endS, 'f', 1) << " s recorded, "
              << (run.ended.isEmpty() ? QStringLiteral("not closed") : run.ended);
        if (!run.metrics.isEmpty()) {
            for (const MetricDescriptor& m : metricTable()) {
                if (!m.summary)
                    continue;
                const QJsonValue v = run.metrics.value(m.keyString());
                out() << ", " << m.keyString() << ' '
                      << m.text(v.isDouble() ? std::optional<double>(v.toDouble()) : std::nullopt);
            }
        }
        out() << '\n';
    }
    return 0;
}

int exportScenarioSkeleton(const QString& file, const QString& runText)
{
    QString error;
    const auto r = Recording::open(file, &error);
    if (!r) {
        err() << error << '\n';
        return 2;
    }
    printWarnings(*r);
    if (r->runs().isEmpty()) {
        err() << file << ": the recording holds no run\n";
        return 2;
    }
    qint64 id = r->runs().last().id;
    if (!runText.isEmpty()) {
        bool ok = false;
        id = runText.toLongLong(&ok);
        if (!ok) {
            err() << "bad --run \"" << runText
                  << "\": must be a run number (see --recording-info)\n";
            return 2;
        }
    }
    const auto data = r->load(id, &error);
    if (!data) {
        err() << error << '\n';
        return 2;
    }
    const RecordedRun* run = nullptr;
    for (const RecordedRun& x : r->runs())
        if (x.id == id)
            run = &x;
    out() << QJsonDocument(scenarioSkeleton(*r, *run, *data)).toJson(QJsonDocument::Indented);
    return 0;
}

} // namespace stormwatch
