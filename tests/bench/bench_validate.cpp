// How long parseScenario() takes on big files (JSON parse + every rule), best of N:
//   - 50,000 timeline entries (every action, redeploys naming 1,000 instances),
//   - 20,000 connections with an instance on each (over the 1,000-connection cap, which is
//     one error: every entry and every reference to a connection is still checked),
//   - 20,000 instances naming a connection that does not exist (every one an error: the
//     time and the size of the error text, which must not grow with the names it could list).
// Target: each well under 1 s in the release build.
//
//   bench_validate [--repeat N]

#include "scenario/scenario_parser.h"
#include "scenario/strict_json.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <limits>

using namespace stormwatch;

namespace {

QJsonObject skeleton(double durationS)
{
    return QJsonObject{
        {"name", "bench"}, {"description", "validation benchmark"}, {"duration_s", durationS}};
}

QByteArray bigTimeline(int entries, int instances)
{
    QJsonObject o = skeleton(3600);
    o["connections"] = QJsonArray{QJsonObject{{"name", "gw1"}}};
    QJsonArray insts;
    for (int i = 0; i < instances; ++i)
        insts.append(
            QJsonObject{{"name", QString("inst-%1").arg(i)}, {"connection", "gw1"}, {"tags", 1}});
    o["instances"] = insts;
    QJsonArray timeline;
    for (int i = 0; i < entries; ++i) {
        const double at = double((i * 7919) % 3600);
        QJsonObject e{{"at_s", at}};
        switch (i % 8) {
        case 0:
            e["action"] = "wedge";
            e["duration_s"] = 5;
            break;
        case 1:
            e["action"] = "slow";
            e["factor"] = 3;
            e["duration_s"] = 5;
            break;
        case 2:
            e["action"] = "drop_replies";
            e["probability"] = 0.25;
            e["duration_s"] = 5;
            break;
        case 3:
            e["action"] = "restart_gateway";
            e["downtime_s"] = 2;
            break;
        case 4:
            e["action"] = "redeploy";
            e["instance"] = QString("inst-%1").arg(i % instances);
            break;
        case 5:
            e["action"] = "set_levers";
            e["levers"] = QJsonObject{{"preset", "lever1"}, {"backoff", false}};
            break;
        case 6:
            e["action"] = "set_capability";
            e["advertise_bulk_supervisory"] = (i % 16) < 8;
            break;
        default:
            e["action"] = "kill_gateway";
            break;
        }
        timeline.append(e);
    }
    o["timeline"] = timeline;
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

QByteArray manyConnections(int count, bool knownConnections)
{
    QJsonObject o = skeleton(60);
    QJsonArray conns, insts;
    for (int i = 0; i < count; ++i) {
        conns.append(
            QJsonObject{{"name", QString("gateway-connection-%1").arg(i)}, {"write_user_id", i}});
        const QString target = knownConnections
                                   ? QString("gateway-connection-%1").arg(count - 1 - i)
                                   : QString("missing-connection-%1").arg(i);
        insts.append(QJsonObject{
            {"name", QString("instance-%1").arg(i)}, {"connection", target}, {"tags", 2}});
    }
    o["connections"] = conns;
    o["instances"] = insts;
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

struct Result {
    double bestMs = std::numeric_limits<double>::infinity();
    double qtMs = std::numeric_limits<double>::infinity();     // QJsonDocument::fromJson alone
    double strictMs = std::numeric_limits<double>::infinity(); // the strict pass alone
    bool valid = false;
    qsizetype errors = 0;
    qsizetype errorBytes = 0;
};

Result measure(const QByteArray& json, int repeat)
{
    Result r;
    for (int i = 0; i < repeat; ++i) {
        QList<ScenarioError> errors;
        QElapsedTimer t;
        t.start();
        const bool ok = parseScenario(json, "bench.json", &errors).has_value();
        r.bestMs = std::min(r.bestMs, double(t.nsecsElapsed()) / 1e6);
        r.valid = ok;
        t.restart();
        QJsonParseError parseError;
        const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
        r.qtMs = std::min(r.qtMs, double(t.nsecsElapsed()) / 1e6);
        t.restart();
        const auto issues = strictJsonIssues(json);
        r.strictMs = std::min(r.strictMs, double(t.nsecsElapsed()) / 1e6);
        if (doc.isNull() || !issues.isEmpty())
            std::fprintf(stderr, "the benchmark's own file is not strict JSON\n");
        r.errors = errors.size();
        r.errorBytes = 0;
        for (const ScenarioError& e : errors)
            r.errorBytes += e.toString().toUtf8().size();
    }
    return r;
}

void print(const char* what, const QByteArray& json, const Result& r)
{
    std::printf("%-44s %7.1f ms  (Qt's parse %5.1f ms, strict pass %4.1f ms; %4.1f MB file, %s, "
                "%lld errors, "
                "%lld bytes of error text)\n",
                what, r.bestMs, r.qtMs, r.strictMs, double(json.size()) / 1e6,
                r.valid ? "valid" : "invalid", static_cast<long long>(r.errors),
                static_cast<long long>(r.errorBytes));
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    int repeat = 3;
    const QStringList args = app.arguments();
    for (int i = 1; i < args.size(); ++i) {
        if (args[i] == "--repeat" && i + 1 < args.size()) {
            repeat = std::max(1, args[++i].toInt());
        } else {
            std::fprintf(stderr, "usage: bench_validate [--repeat N]\n");
            return 2;
        }
    }
    std::printf("parseScenario, best of %d:\n", repeat);
    const QByteArray timeline = bigTimeline(50'000, 1'000);
    print("50,000 timeline entries", timeline, measure(timeline, repeat));
    const QByteArray connections = manyConnections(20'000, true);
    print("20,000 connections (+ an instance on each)", connections, measure(connections, repeat));
    const QByteArray unknown = manyConnections(20'000, false);
    print("20,000 instances naming unknown connections", unknown, measure(unknown, repeat));
    return 0;
}
