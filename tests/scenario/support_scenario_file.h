#pragma once
// The scenario.scenario_parser* suites' scenario file: a valid one that uses every action
// once, and ways to edit one value of it (set, remove) or build long lists.

#include "scenario/scenario_parser.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>
#include <algorithm>
#include <optional>

namespace stormwatch::scenariotest {
// A valid scenario that uses every action once, so each rule row mutates one value.
inline QJsonObject baseScenario()
{
    const QJsonArray timeline{
        QJsonObject{{"at_s", 10}, {"action", "wedge"}, {"duration_s", 5}},
        QJsonObject{{"at_s", 20}, {"action", "slow"}, {"factor", 2}, {"duration_s", 5}},
        QJsonObject{
            {"at_s", 30}, {"action", "drop_replies"}, {"probability", 0.5}, {"duration_s", 5}},
        QJsonObject{{"at_s", 40}, {"action", "restart_gateway"}},
        QJsonObject{{"at_s", 50}, {"action", "end_event_streams"}},
        QJsonObject{{"at_s", 60}, {"action", "source_outage"}, {"duration_s", 10}},
        QJsonObject{{"at_s", 70}, {"action", "refuse_sessions"}, {"duration_s", 5}},
        QJsonObject{{"at_s", 80}, {"action", "redeploy"}, {"instance", "i1"}},
        QJsonObject{{"at_s", 90}, {"action", "set_levers"}, {"levers", "all"}},
        QJsonObject{
            {"at_s", 95}, {"action", "set_capability"}, {"advertise_bulk_supervisory", false}},
        QJsonObject{{"at_s", 97}, {"action", "kill_gateway"}},
    };
    return QJsonObject{
        {"name", "base"},
        {"description", "every action once"},
        {"duration_s", 100},
        {"connections", QJsonArray{QJsonObject{{"name", "gw1"}}}},
        {"instances", QJsonArray{QJsonObject{{"name", "i1"}, {"connection", "gw1"}, {"tags", 3}}}},
        {"timeline", timeline},
    };
}

// `root` with the value at `path` replaced (or removed when `v` is nullopt); the path
// is a list of object keys and array indices.
inline QJsonValue withValue(const QJsonValue& root, QStringList path,
                            const std::optional<QJsonValue>& v)
{
    const QString head = path.takeFirst();
    if (root.isArray()) {
        QJsonArray a = root.toArray();
        const int i = head.toInt();
        if (i == a.size())
            a.append(QJsonValue()); // "one past the end" appends
        if (path.isEmpty()) {
            if (v)
                a[i] = *v;
            else
                a.removeAt(i);
        } else {
            a[i] = withValue(a.at(i), path, v);
        }
        return a;
    }
    QJsonObject o = root.toObject();
    if (path.isEmpty()) {
        if (v)
            o[head] = *v;
        else
            o.remove(head);
    } else {
        o[head] = withValue(o.value(head), path, v);
    }
    return o;
}

inline QByteArray bytes(const QJsonValue& v)
{
    return QJsonDocument(v.toObject()).toJson();
}
inline QByteArray set(const QString& path, const QJsonValue& v)
{
    return bytes(withValue(baseScenario(), path.split('/'), v));
}
inline QByteArray removed(const QString& path)
{
    return bytes(withValue(baseScenario(), path.split('/'), std::nullopt));
}

inline QJsonArray connectionList(int n)
{
    QJsonArray a;
    for (int i = 0; i < n; ++i)
        a.append(QJsonObject{{"name", i == 0 ? QString("gw1") : QString("gw-%1").arg(i)}});
    return a;
}
inline QJsonArray instanceList(int n, const QString& connection)
{
    QJsonArray a;
    for (int i = 0; i < n; ++i)
        a.append(QJsonObject{{"name", i == 0 ? QString("i1") : QString("inst-%1").arg(i)},
                             {"connection", connection},
                             {"tags", 1}});
    return a;
}
inline QJsonArray variantList(int n)
{
    QJsonArray a;
    for (int i = 0; i < n; ++i)
        a.append(QJsonObject{{"name", QString("v%1").arg(i)}, {"levers", "all"}});
    return a;
}
inline QJsonArray capabilityEvents(int n)
{
    QJsonArray a;
    for (int i = 0; i < n; ++i)
        a.append(QJsonObject{{"at_s", i % 100},
                             {"action", "set_capability"},
                             {"advertise_bulk_supervisory", i % 2 == 0}});
    return a;
}

// The base scenario in compact form with one piece of text replaced, for syntax a
// QJsonObject cannot express; empty (and so failing the test) when `from` is not there once.
inline QByteArray edited(const QByteArray& from, const QByteArray& to)
{
    QByteArray b = QJsonDocument(baseScenario()).toJson(QJsonDocument::Compact);
    if (b.count(from) != 1)
        return {};
    return b.replace(from, to);
}

// Best of three wall times of a parse, in ms.
inline double parseMs(const QByteArray& json)
{
    double best = 1e300;
    for (int i = 0; i < 3; ++i) {
        QList<ScenarioError> errors;
        QElapsedTimer t;
        t.start();
        parseScenario(json, "t.json", &errors);
        best = std::min(best, double(t.nsecsElapsed()) / 1e6);
    }
    return best;
}

inline QByteArray document(const QJsonObject& o)
{
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

inline QString joined(const QList<ScenarioError>& errors)
{
    QStringList lines;
    for (const ScenarioError& e : errors)
        lines << e.toString();
    return lines.join('\n');
}

} // namespace stormwatch::scenariotest
