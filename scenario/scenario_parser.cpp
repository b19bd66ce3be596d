#include "scenario/scenario_parser.h"

#include "scenario/variant_validation.h"

#include "client/gateway_connection.h"
#include "client/options.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QSet>

#include <algorithm>
#include <cmath>

namespace stormwatch {

QString ScenarioError::toString() const {
    return QStringLiteral("%1: %2: %3").arg(file, path, rule);
}

namespace {

constexpr double kMaxDurationS = 86400;
constexpr int kMaxTags = 10000;
constexpr double kMaxDataHz = 100;
// Integers travel as JSON doubles; above 2^53 they are no longer exact.
constexpr double kMaxExactInteger = 9007199254740992.0;

QString typeName(const QJsonValue& v) {
    switch (v.type()) {
    case QJsonValue::Null: return QStringLiteral("null");
    case QJsonValue::Bool: return QStringLiteral("bool");
    case QJsonValue::Double: return QStringLiteral("number");
    case QJsonValue::String: return QStringLiteral("string");
    case QJsonValue::Array: return QStringLiteral("array");
    case QJsonValue::Object: return QStringLiteral("object");
    case QJsonValue::Undefined: break;
    }
    return QStringLiteral("nothing");
}

QString num(double d) { return QString::number(d, 'f', QLocale::FloatingPointShortest); }

class Errors {
public:
    Errors(QString file, QList<ScenarioError>* out) : file_(std::move(file)), out_(out) {}
    void add(const QString& path, const QString& rule) {
        ++count_;
        if (out_) out_->append({file_, path, rule});
    }
    int count() const { return count_; }

private:
    QString file_;
    QList<ScenarioError>* out_;
    int count_ = 0;
};

enum class Need { Required, Optional };

// Reads the keys of one JSON object, checking types and collecting errors. Every key
// the schema knows is declared up front, so finish() can name the unknown ones.
class ObjectReader {
public:
    ObjectReader(Errors& errors, QJsonObject object, QString path, QStringList validKeys)
        : errors_(errors), object_(std::move(object)), path_(std::move(path)),
          valid_(std::move(validKeys)) {}

    QString pathOf(const QString& key) const { return path_ + QLatin1Char('.') + key; }
    bool has(const QString& key) const { return object_.contains(key); }
    QJsonValue raw(const QString& key) const { return object_.value(key); }

    // A present value of the expected type, or nullopt (missing, or wrong type: reported).
    std::optional<QJsonValue> value(const QString& key, QJsonValue::Type type, Need need) {
        if (!object_.contains(key)) {
            if (need == Need::Required) errors_.add(pathOf(key), QStringLiteral("required key missing"));
            return std::nullopt;
        }
        const QJsonValue v = object_.value(key);
        if (v.type() != type) {
            errors_.add(pathOf(key), QStringLiteral("expected %1, got %2")
                                         .arg(typeName(QJsonValue(type)), typeName(v)));
            return std::nullopt;
        }
        return v;
    }
    std::optional<double> number(const QString& key, Need need) {
        auto v = value(key, QJsonValue::Double, need);
        return v ? std::optional<double>(v->toDouble()) : std::nullopt;
    }
    std::optional<qint64> integer(const QString& key, Need need) {
        auto d = number(key, need);
        if (!d) return std::nullopt;
        if (std::floor(*d) != *d || std::fabs(*d) > kMaxExactInteger) {
            errors_.add(pathOf(key), QStringLiteral("must be an integer (got %1)").arg(num(*d)));
            return std::nullopt;
        }
        return static_cast<qint64>(*d);
    }
    std::optional<bool> boolean(const QString& key, Need need) {
        auto v = value(key, QJsonValue::Bool, need);
        return v ? std::optional<bool>(v->toBool()) : std::nullopt;
    }
    std::optional<QString> string(const QString& key, Need need) {
        auto v = value(key, QJsonValue::String, need);
        return v ? std::optional<QString>(v->toString()) : std::nullopt;
    }
    std::optional<QJsonArray> array(const QString& key, Need need) {
        auto v = value(key, QJsonValue::Array, need);
        return v ? std::optional<QJsonArray>(v->toArray()) : std::nullopt;
    }
    std::optional<QJsonObject> object(const QString& key, Need need) {
        auto v = value(key, QJsonValue::Object, need);
        return v ? std::optional<QJsonObject>(v->toObject()) : std::nullopt;
    }

    // Range rules. Each returns whether the value passed, reporting it when not.
    bool atLeast(const QString& key, double v, double min) {
        return check(key, v >= min, QStringLiteral("must be >= %1 (got %2)").arg(num(min), num(v)));
    }
    bool above(const QString& key, double v, double min) {
        return check(key, v > min, QStringLiteral("must be > %1 (got %2)").arg(num(min), num(v)));
    }
    bool atMost(const QString& key, double v, double max, const QString& what = {}) {
        const QString bound = what.isEmpty() ? num(max) : QStringLiteral("%1 (%2)").arg(what, num(max));
        return check(key, v <= max, QStringLiteral("must be <= %1 (got %2)").arg(bound, num(v)));
    }
    bool check(const QString& key, bool ok, const QString& rule) {
        if (!ok) errors_.add(pathOf(key), rule);
        return ok;
    }

    void finish() {
        for (auto it = object_.begin(); it != object_.end(); ++it) {
            if (!valid_.contains(it.key()))
                errors_.add(pathOf(it.key()),
                            QStringLiteral("unknown key (valid: %1)").arg(valid_.join(QStringLiteral(", "))));
        }
    }

private:
    Errors& errors_;
    QJsonObject object_;
    QString path_;
    QStringList valid_;
};

QString indexPath(const QString& path, qsizetype i) { return QStringLiteral("%1[%2]").arg(path).arg(i); }

// The object at `path`, or nullopt with an error naming what it got instead.
std::optional<QJsonObject> asObject(Errors& errors, const QJsonValue& v, const QString& path) {
    if (v.isObject()) return v.toObject();
    errors.add(path, QStringLiteral("expected object, got %1").arg(typeName(v)));
    return std::nullopt;
}

void checkLevers(Errors& errors, const QJsonValue& levers, const QString& path) {
    QString why;
    if (!validateVariant(levers, &why)) errors.add(path, why);
}

void readGateway(Errors& errors, const QJsonObject& o, GatewaySpec* g) {
    ObjectReader r(errors, o, QStringLiteral("$.gateway"),
                   {"advertise_bulk_supervisory", "default_command_timeout_s", "command_ms",
                    "per_item_ms", "data_hz", "network_latency_ms"});
    if (auto b = r.boolean("advertise_bulk_supervisory", Need::Optional)) g->advertiseBulkSupervisory = *b;
    if (auto d = r.number("default_command_timeout_s", Need::Optional); d && r.above("default_command_timeout_s", *d, 0))
        g->defaultCommandTimeoutS = *d;
    if (auto d = r.number("command_ms", Need::Optional); d && r.atLeast("command_ms", *d, 0)) g->commandMs = *d;
    if (auto d = r.number("per_item_ms", Need::Optional); d && r.atLeast("per_item_ms", *d, 0)) g->perItemMs = *d;
    if (auto d = r.number("data_hz", Need::Optional);
        d && r.atLeast("data_hz", *d, 0) && r.atMost("data_hz", *d, kMaxDataHz))
        g->dataHz = *d;
    if (auto d = r.number("network_latency_ms", Need::Optional); d && r.atLeast("network_latency_ms", *d, 0))
        g->networkLatencyMs = *d;
    r.finish();
}

void readClientModel(Errors& errors, const QJsonObject& o, ScenarioClientModel* m) {
    ObjectReader r(errors, o, QStringLiteral("$.client_model"), {"redeploy_teardown", "teardown_gated"});
    if (auto t = r.string("redeploy_teardown", Need::Optional);
        t && r.check("redeploy_teardown", teardownFromString(t->toStdString()).has_value(),
                     QStringLiteral("must be \"per_item_remove\" or \"none\" (got \"%1\")").arg(*t)))
        m->redeployTeardown = *t;
    if (auto b = r.boolean("teardown_gated", Need::Optional)) m->teardownGated = *b;
    r.finish();
}

void readConnections(Errors& errors, const QJsonArray& a, QList<ScenarioConnection>* out) {
    const QString base = QStringLiteral("$.connections");
    if (a.isEmpty()) errors.add(base, QStringLiteral("must list at least 1 connection"));
    QSet<QString> seen;
    for (qsizetype i = 0; i < a.size(); ++i) {
        const QString path = indexPath(base, i);
        auto o = asObject(errors, a.at(i), path);
        if (!o) continue;
        ObjectReader r(errors, *o, path, {"name", "write_user_id"});
        ScenarioConnection c;
        if (auto s = r.string("name", Need::Required)) {
            if (r.check("name", !s->isEmpty(), QStringLiteral("must not be empty")) &&
                r.check("name", !seen.contains(*s), QStringLiteral("duplicate connection name \"%1\"").arg(*s))) {
                seen.insert(*s);
            }
            c.name = *s;
        }
        if (auto n = r.integer("write_user_id", Need::Optional); n && r.atLeast("write_user_id", double(*n), 0))
            c.writeUserId = *n;
        r.finish();
        out->append(c);
    }
}

// `known` lists the connection names, or is nullopt when the connections themselves had
// errors: then a reference cannot be judged and would only echo the first error.
void readInstances(Errors& errors, const QJsonArray& a, const std::optional<QStringList>& known,
                   std::optional<double> durationS, QList<ScenarioInstance>* out) {
    const QString base = QStringLiteral("$.instances");
    if (a.isEmpty()) errors.add(base, QStringLiteral("must list at least 1 instance"));
    QSet<QString> seen;
    for (qsizetype i = 0; i < a.size(); ++i) {
        const QString path = indexPath(base, i);
        auto o = asObject(errors, a.at(i), path);
        if (!o) continue;
        ObjectReader r(errors, *o, path, {"name", "connection", "tags", "tag_prefix", "alarms", "start_at_s"});
        ScenarioInstance inst;
        if (auto s = r.string("name", Need::Required)) {
            if (r.check("name", !s->isEmpty(), QStringLiteral("must not be empty")) &&
                r.check("name", !seen.contains(*s), QStringLiteral("duplicate instance name \"%1\"").arg(*s)))
                seen.insert(*s);
            inst.name = *s;
        }
        if (auto s = r.string("connection", Need::Required)) {
            if (known)
                r.check("connection", known->contains(*s),
                        QStringLiteral("unknown connection \"%1\" (known: %2)").arg(*s, known->join(QStringLiteral(", "))));
            inst.connection = *s;
        }
        if (auto n = r.integer("tags", Need::Required);
            n && r.atLeast("tags", double(*n), 1) && r.atMost("tags", double(*n), kMaxTags))
            inst.tags = int(*n);
        inst.tagPrefix = inst.name + QStringLiteral(".Attr");
        if (auto s = r.string("tag_prefix", Need::Optional);
            s && r.check("tag_prefix", !s->isEmpty(), QStringLiteral("must not be empty")))
            inst.tagPrefix = *s;
        if (auto b = r.boolean("alarms", Need::Optional)) inst.alarms = *b;
        if (auto d = r.number("start_at_s", Need::Optional); d && r.atLeast("start_at_s", *d, 0)) {
            if (!durationS || r.atMost("start_at_s", *d, *durationS, QStringLiteral("duration_s")))
                inst.startAtS = *d;
        }
        r.finish();
        out->append(inst);
    }
}

// Parameters of each action besides at_s and action. source_outage takes duration_s
// (on at at_s, off at at_s + duration_s) like every other timed fault, so a fault's
// end — what time_to_all_good_s is measured from — is always on the event itself.
QStringList actionParams(TimelineAction a) {
    switch (a) {
    case TimelineAction::Wedge:
    case TimelineAction::SourceOutage:
    case TimelineAction::RefuseSessions: return {"duration_s"};
    case TimelineAction::Slow: return {"factor", "duration_s"};
    case TimelineAction::DropReplies: return {"probability", "duration_s"};
    case TimelineAction::RestartGateway:
    case TimelineAction::KillGateway: return {"downtime_s"};
    case TimelineAction::EndEventStreams: return {};
    case TimelineAction::Redeploy: return {"instance"};
    case TimelineAction::SetLevers: return {"levers"};
    case TimelineAction::SetCapability: return {"advertise_bulk_supervisory"};
    }
    return {};
}

std::optional<TimelineEvent> readEvent(Errors& errors, const QJsonObject& o, const QString& path,
                                       std::optional<double> durationS, const std::optional<QStringList>& known) {
    const int before = errors.count();
    TimelineEvent e;
    std::optional<TimelineAction> action;
    {
        // Read action first: the valid keys depend on it.
        ObjectReader head(errors, o, path, {});
        if (auto s = head.string("action", Need::Required)) {
            action = timelineActionFromName(*s);
            head.check("action", action.has_value(),
                       QStringLiteral("unknown action \"%1\" (valid: %2)")
                           .arg(*s, timelineActionNames().join(QStringLiteral(", "))));
        }
    }
    QStringList keys = {"at_s", "action"};
    if (action) keys += actionParams(*action);
    ObjectReader r(errors, o, path, keys);
    if (auto d = r.number("at_s", Need::Required); d && r.atLeast("at_s", *d, 0)) {
        if (!durationS || r.atMost("at_s", *d, *durationS, QStringLiteral("duration_s"))) e.atS = *d;
    }
    if (!action) return std::nullopt;  // unknown keys cannot be judged without a known action
    e.action = *action;
    const QStringList params = actionParams(*action);
    if (params.contains("duration_s")) {
        if (auto d = r.number("duration_s", Need::Required); d && r.above("duration_s", *d, 0)) e.durationS = *d;
    }
    if (params.contains("factor")) {
        if (auto d = r.number("factor", Need::Required); d && r.atLeast("factor", *d, 1)) e.factor = *d;
    }
    if (params.contains("probability")) {
        if (auto d = r.number("probability", Need::Required);
            d && r.atLeast("probability", *d, 0) && r.atMost("probability", *d, 1))
            e.probability = *d;
    }
    if (params.contains("downtime_s")) {
        if (auto d = r.number("downtime_s", Need::Optional); d && r.atLeast("downtime_s", *d, 0)) e.downtimeS = *d;
    }
    if (params.contains("instance")) {
        if (auto s = r.string("instance", Need::Required)) {
            if (known)
                r.check("instance", known->contains(*s),
                        QStringLiteral("unknown instance \"%1\" (known: %2)").arg(*s, known->join(QStringLiteral(", "))));
            e.instance = *s;
        }
    }
    if (params.contains("levers")) {
        if (!r.has("levers"))
            errors.add(r.pathOf("levers"), QStringLiteral("required key missing"));
        else
            checkLevers(errors, r.raw("levers"), r.pathOf("levers"));
        e.levers = r.raw("levers");
    }
    if (params.contains("advertise_bulk_supervisory")) {
        if (auto b = r.boolean("advertise_bulk_supervisory", Need::Required)) e.advertiseBulkSupervisory = *b;
    }
    r.finish();
    if (errors.count() != before) return std::nullopt;
    return e;
}

void readTimeline(Errors& errors, const QJsonArray& a, std::optional<double> durationS,
                  const std::optional<QStringList>& knownInstances, QList<TimelineEvent>* out) {
    for (qsizetype i = 0; i < a.size(); ++i) {
        const QString path = indexPath(QStringLiteral("$.timeline"), i);
        auto o = asObject(errors, a.at(i), path);
        if (!o) continue;
        if (auto e = readEvent(errors, *o, path, durationS, knownInstances)) out->append(*e);
    }
    std::stable_sort(out->begin(), out->end(),
                     [](const TimelineEvent& x, const TimelineEvent& y) { return x.atS < y.atS; });
}

void readVariants(Errors& errors, const QJsonArray& a, QList<VariantSpec>* out) {
    const QString base = QStringLiteral("$.variants");
    if (a.isEmpty()) errors.add(base, QStringLiteral("must list at least 1 variant"));
    QSet<QString> seen;
    for (qsizetype i = 0; i < a.size(); ++i) {
        const QString path = indexPath(base, i);
        VariantSpec v;
        QString namePath = path;
        bool nameReported = false;  // missing or mistyped: already an error
        if (a.at(i).isString()) {
            v.name = a.at(i).toString();
            v.levers = a.at(i);
            checkLevers(errors, v.levers, path);
        } else if (a.at(i).isObject()) {
            ObjectReader r(errors, a.at(i).toObject(), path, {"name", "levers"});
            namePath = r.pathOf("name");
            if (auto s = r.string("name", Need::Required))
                v.name = *s;
            else
                nameReported = true;
            if (!r.has("levers"))
                errors.add(r.pathOf("levers"), QStringLiteral("required key missing"));
            else
                checkLevers(errors, r.raw("levers"), r.pathOf("levers"));
            v.levers = r.raw("levers");
            r.finish();
        } else {
            errors.add(path, QStringLiteral("expected a preset name or {name, levers} object, got %1")
                                 .arg(typeName(a.at(i))));
            continue;
        }
        if (nameReported) {
            // nothing more to say about the name
        } else if (v.name.isEmpty()) {
            errors.add(namePath, QStringLiteral("must not be empty"));
        } else if (seen.contains(v.name)) {
            errors.add(namePath, QStringLiteral("duplicate variant name \"%1\"").arg(v.name));
        }
        seen.insert(v.name);
        out->append(v);
    }
}

// 1-based line and column of a byte offset, columns counted in characters.
std::pair<int, int> lineAndColumn(const QByteArray& json, int offset) {
    const QByteArray before = json.left(std::clamp(offset, 0, int(json.size())));
    const int line = int(before.count('\n')) + 1;
    const int lineStart = int(before.lastIndexOf('\n')) + 1;
    const int column = int(QString::fromUtf8(before.mid(lineStart)).size()) + 1;
    return {line, column};
}

}  // namespace

std::optional<Scenario> parseScenario(const QByteArray& json, const QString& fileName,
                                      QList<ScenarioError>* errorsOut) {
    Errors errors(fileName, errorsOut);
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        // Qt's offset points just past the character it choked on.
        const auto [line, column] = lineAndColumn(json, parseError.offset - 1);
        errors.add(QStringLiteral("$"), QStringLiteral("invalid JSON at line %1, column %2: %3")
                                            .arg(line).arg(column).arg(parseError.errorString()));
        return std::nullopt;
    }
    if (!doc.isObject()) {
        errors.add(QStringLiteral("$"), QStringLiteral("expected object, got %1")
                                            .arg(doc.isArray() ? QStringLiteral("array") : typeName(QJsonValue())));
        return std::nullopt;
    }

    Scenario s;
    ObjectReader r(errors, doc.object(), QStringLiteral("$"),
                   {"name", "description", "duration_s", "seed", "gateway", "client_model", "options",
                    "connections", "instances", "timeline", "variants"});
    if (auto v = r.string("name", Need::Required); v && r.check("name", !v->isEmpty(), QStringLiteral("must not be empty")))
        s.name = *v;
    if (auto v = r.string("description", Need::Required);
        v && r.check("description", !v->trimmed().isEmpty(), QStringLiteral("must not be empty")))
        s.description = *v;
    std::optional<double> duration;
    if (auto d = r.number("duration_s", Need::Required);
        d && r.above("duration_s", *d, 0) && r.atMost("duration_s", *d, kMaxDurationS))
        duration = s.durationS = *d;
    if (auto n = r.integer("seed", Need::Optional); n && r.atLeast("seed", double(*n), 0)) s.seed = quint64(*n);
    if (auto g = r.object("gateway", Need::Optional)) readGateway(errors, *g, &s.gateway);
    if (auto m = r.object("client_model", Need::Optional)) readClientModel(errors, *m, &s.clientModel);
    if (auto o = r.object("options", Need::Optional)) {
        // Checked by the client's own options parser, so a scenario and --option agree on
        // names and rules; kept as written so the runner applies exactly what the file says.
        QList<OptionError> optionErrors;
        optionsFromJson(*o, &optionErrors);
        for (const OptionError& e : optionErrors)
            errors.add(r.pathOf("options") + QLatin1Char('.') + e.key,
                       QStringLiteral("%1 (got %2)").arg(e.rule, e.value));
        s.options = *o;
    }
    // Names other sections may refer to, when their own section read without error.
    auto namesIfClean = [&errors](int errorsBefore, const auto& list) -> std::optional<QStringList> {
        if (errors.count() != errorsBefore) return std::nullopt;
        QStringList names;
        for (const auto& item : list) names << item.name;
        return names;
    };
    int before = errors.count();
    std::optional<QStringList> connectionNames;
    if (auto a = r.array("connections", Need::Required)) {
        readConnections(errors, *a, &s.connections);
        connectionNames = namesIfClean(before, s.connections);
    }
    before = errors.count();
    std::optional<QStringList> instanceNames;
    if (auto a = r.array("instances", Need::Required)) {
        readInstances(errors, *a, connectionNames, duration, &s.instances);
        instanceNames = namesIfClean(before, s.instances);
    }
    if (auto a = r.array("timeline", Need::Optional)) readTimeline(errors, *a, duration, instanceNames, &s.timeline);
    if (r.has("variants")) {
        if (auto a = r.array("variants", Need::Optional)) readVariants(errors, *a, &s.variants);
    } else {
        for (const QString& preset : defaultVariantNames()) s.variants.append({preset, QJsonValue(preset)});
    }
    r.finish();
    if (errors.count() > 0) return std::nullopt;
    return s;
}

std::optional<Scenario> loadScenarioFile(const QString& path, QList<ScenarioError>* errors) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (errors) errors->append({path, QStringLiteral("$"), QStringLiteral("cannot read file: %1").arg(file.errorString())});
        return std::nullopt;
    }
    return parseScenario(file.readAll(), path, errors);
}

namespace {
const QString kBundledDir = QStringLiteral(":/scenarios");
}

QStringList bundledScenarioNames() {
    QStringList names;
    const QFileInfoList files = QDir(kBundledDir).entryInfoList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
    for (const QFileInfo& f : files) names << f.completeBaseName();
    return names;
}

std::optional<Scenario> loadScenario(const QString& nameOrPath, QList<ScenarioError>* errors) {
    if (bundledScenarioNames().contains(nameOrPath)) {
        const QString fileName = nameOrPath + QStringLiteral(".json");
        QFile file(kBundledDir + QLatin1Char('/') + fileName);
        if (file.open(QIODevice::ReadOnly)) return parseScenario(file.readAll(), fileName, errors);
    }
    if (!QFileInfo::exists(nameOrPath)) {
        if (errors)
            errors->append({nameOrPath, QStringLiteral("$"),
                            QStringLiteral("no bundled scenario or file with this name (bundled: %1)")
                                .arg(bundledScenarioNames().join(QStringLiteral(", ")))});
        return std::nullopt;
    }
    return loadScenarioFile(nameOrPath, errors);
}

QJsonObject scenarioToJson(const Scenario& s) {
    QJsonObject gateway{{"advertise_bulk_supervisory", s.gateway.advertiseBulkSupervisory},
                        {"default_command_timeout_s", s.gateway.defaultCommandTimeoutS},
                        {"command_ms", s.gateway.commandMs},
                        {"per_item_ms", s.gateway.perItemMs},
                        {"data_hz", s.gateway.dataHz},
                        {"network_latency_ms", s.gateway.networkLatencyMs}};
    QJsonArray connections;
    for (const ScenarioConnection& c : s.connections)
        connections.append(QJsonObject{{"name", c.name}, {"write_user_id", double(c.writeUserId)}});
    QJsonArray instances;
    for (const ScenarioInstance& i : s.instances)
        instances.append(QJsonObject{{"name", i.name}, {"connection", i.connection}, {"tags", i.tags},
                                     {"tag_prefix", i.tagPrefix}, {"alarms", i.alarms}, {"start_at_s", i.startAtS}});
    QJsonArray timeline;
    for (const TimelineEvent& e : s.timeline) {
        QJsonObject o{{"at_s", e.atS}, {"action", timelineActionName(e.action)}};
        for (const QString& p : actionParams(e.action)) {
            if (p == "duration_s") o.insert(p, e.durationS);
            else if (p == "factor") o.insert(p, e.factor);
            else if (p == "probability") o.insert(p, e.probability);
            else if (p == "downtime_s") o.insert(p, e.downtimeS);
            else if (p == "instance") o.insert(p, e.instance);
            else if (p == "levers") o.insert(p, e.levers);
            else if (p == "advertise_bulk_supervisory") o.insert(p, e.advertiseBulkSupervisory);
        }
        timeline.append(o);
    }
    QJsonArray variants;
    for (const VariantSpec& v : s.variants) {
        if (v.levers.isString() && v.levers.toString() == v.name)
            variants.append(v.name);
        else
            variants.append(QJsonObject{{"name", v.name}, {"levers", v.levers}});
    }
    return QJsonObject{{"name", s.name},       {"description", s.description},
                       {"duration_s", s.durationS}, {"seed", double(s.seed)},
                       {"gateway", gateway},
                       {"client_model", QJsonObject{{"redeploy_teardown", s.clientModel.redeployTeardown},
                                                    {"teardown_gated", s.clientModel.teardownGated}}},
                       {"options", s.options},
                       {"connections", connections}, {"instances", instances},
                       {"timeline", timeline}, {"variants", variants}};
}

}  // namespace stormwatch
