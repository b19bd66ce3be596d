#include "scenario/scenario_parser.h"

#include "client/gateway_connection.h"
#include "client/options.h"
#include "gateway/gateway_types.h"
#include "scenario/json_schema_reader.h"
#include "scenario/scenario_timeline_reader.h"
#include "scenario/site.h"
#include "scenario/site_live.h"
#include "scenario/strict_json.h"
#include "scenario/variant_validation.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QSet>
#include <algorithm>
#include <cmath>
#include <type_traits>

namespace stormwatch {

QString ScenarioError::toString() const
{
    return QStringLiteral("%1: %2: %3").arg(file, path, rule);
}

namespace {

// The schema reader (Errors, ObjectReader, KnownNames, ...) is shared with site files.
using namespace json_schema;
using scenario_timeline::checkLevers;
using scenario_timeline::KnownGateways;
using scenario_timeline::readTimeline;

void readGateway(Errors& errors, const QJsonObject& o, GatewaySpec* g)
{
    ObjectReader r(errors, o, QStringLiteral("$.gateway"),
                   {"advertise_bulk_supervisory", "default_command_timeout_s", "command_ms",
                    "per_item_ms", "data_hz", "network_latency_ms", "contract_family"});
    if (auto b = r.boolean("advertise_bulk_supervisory", Need::Optional))
        g->advertiseBulkSupervisory = *b;
    if (auto d =
            r.number("default_command_timeout_s", Need::Optional, limits::kDefaultCommandTimeoutS))
        g->defaultCommandTimeoutS = *d;
    if (auto d = r.number("command_ms", Need::Optional, limits::kCommandMs))
        g->commandMs = *d;
    if (auto d = r.number("per_item_ms", Need::Optional, limits::kPerItemMs))
        g->perItemMs = *d;
    // 0 turns data changes off; any other rate is a period the model can represent.
    if (auto d = r.number("data_hz", Need::Optional, limits::kDataHz);
        d && r.check("data_hz", *d == 0 || *d >= limits::kMinNonZeroDataHz, [&] {
            return QStringLiteral("must be 0 or >= %1 Hz (got %2)")
                .arg(num(limits::kMinNonZeroDataHz), num(*d));
        }))
        g->dataHz = *d;
    if (auto d = r.number("network_latency_ms", Need::Optional, limits::kNetworkLatencyMs))
        g->networkLatencyMs = *d;
    if (auto f = r.string("contract_family", Need::Optional)) {
        gateway::GatewayConfig probe;
        if (r.check("contract_family", gateway::applyContractFamily(f->toStdString(), probe),
                    QStringLiteral("must be \"stormwatch\" or \"%1\" (got %2)")
                        .arg(QString::fromUtf8(gateway::kPublishedContractFamily.data(),
                                               qsizetype(gateway::kPublishedContractFamily.size())),
                             quoted(*f))))
            g->contractFamily = *f;
    }
    r.finish();
}

void readClientModel(Errors& errors, const QJsonObject& o, ScenarioClientModel* m)
{
    ObjectReader r(errors, o, QStringLiteral("$.client_model"),
                   {"redeploy_teardown", "teardown_gated", "keepalive_s", "keepalive_timeout_s"});
    if (auto t = r.string("redeploy_teardown", Need::Optional);
        t &&
        r.check("redeploy_teardown", teardownFromString(t->toStdString()).has_value(),
                QStringLiteral("must be \"per_item_remove\" or \"none\" (got %1)").arg(quoted(*t))))
        m->redeployTeardown = *t;
    if (auto b = r.boolean("teardown_gated", Need::Optional))
        m->teardownGated = *b;
    m->keepaliveS = r.number("keepalive_s", Need::Optional, site_limits::kKeepaliveS);
    m->keepaliveTimeoutS =
        r.number("keepalive_timeout_s", Need::Optional, site_limits::kKeepaliveS);
    r.finish();
}

// Whether a section read without error: only then may other sections be judged by its names
// (otherwise a reference would only echo the section's own error).
struct Section {
    explicit Section(const Errors& errors) : errors_(errors), before_(errors.count()) {}
    bool clean() const { return errors_.count() == before_; }

private:
    const Errors& errors_;
    int before_;
};

std::optional<KnownNames> readConnections(Errors& errors, const QJsonArray& a,
                                          QList<ScenarioConnection>* out)
{
    static const QStringList kKeys = {"name", "write_user_id", "gateway"};
    const QString base = QStringLiteral("$.connections");
    // Too many entries is one error; their names can still be judged by other sections.
    checkCount(errors, base, a.size(), limits::kMaxConnections, "connections");
    const Section section(errors);
    if (a.isEmpty())
        errors.add(base, QStringLiteral("must list at least 1 connection"));
    KnownNames names;
    out->reserve(a.size());
    for (qsizetype i = 0; i < a.size(); ++i) {
        const QString path = indexPath(base, i);
        auto o = asObject(errors, a.at(i), path);
        if (!o)
            continue;
        ObjectReader r(errors, *o, path, kKeys);
        ScenarioConnection c;
        if (auto s = r.name("name", Need::Required)) {
            if (r.check("name", !names.contains(*s), [&] {
                    return QStringLiteral("duplicate connection name %1").arg(quoted(*s));
                }))
                names.add(*s);
            c.name = *s;
        }
        if (auto n = r.integer("write_user_id", Need::Optional, limits::kWriteUserId))
            c.writeUserId = *n;
        if (auto g = r.name("gateway", Need::Optional))
            c.gateway = *g;
        // One unnamed gateway beside named ones would be a gateway no fault could name.
        if (i > 0 && !out->isEmpty())
            r.check("gateway", c.gateway.isEmpty() == out->front().gateway.isEmpty(),
                    QStringLiteral("every connection names its gateway or none does"));
        r.finish();
        out->append(c);
    }
    if (!section.clean())
        return std::nullopt;
    return names;
}

// "expected_update_s": one number for every tag of the instance, or one per tag.
void readExpectedUpdates(Errors& errors, ObjectReader& r, ScenarioInstance& inst)
{
    const QString key = QStringLiteral("expected_update_s");
    if (!r.has(key))
        return;
    if (r.raw(key).isArray()) {
        const QJsonArray list = r.raw(key).toArray();
        const QString listPath = r.pathOf(key);
        if (list.size() != inst.tags) {
            errors.add(listPath, QStringLiteral("must list one period per tag (%1) (got %2)")
                                     .arg(inst.tags)
                                     .arg(list.size()));
            return;
        }
        QList<double> periods;
        periods.reserve(list.size());
        for (qsizetype t = 0; t < list.size(); ++t) {
            const QJsonValue v = list.at(t);
            const QString tagPath = indexPath(listPath, t);
            if (!v.isDouble()) {
                errors.add(tagPath, QStringLiteral("expected number, got %1").arg(typeName(v)));
                return;
            }
            if (v.toDouble() < limits::kExpectedUpdateS.min ||
                v.toDouble() > limits::kExpectedUpdateS.max) {
                errors.add(tagPath, QStringLiteral("must be %1 … %2 s (got %3)")
                                        .arg(num(limits::kExpectedUpdateS.min),
                                             num(limits::kExpectedUpdateS.max), num(v.toDouble())));
                return;
            }
            periods << v.toDouble();
        }
        inst.expectedUpdateS = std::move(periods);
    } else if (auto d = r.number(key, Need::Optional, limits::kExpectedUpdateS); d && *d > 0) {
        inst.expectedUpdateS = QList<double>(inst.tags, *d);
    }
}

// `known` lists the connection names, or is nullopt when the connections themselves had
// errors: then a reference cannot be judged and would only echo the first error.
std::optional<KnownNames> readInstances(Errors& errors, const QJsonArray& a,
                                        const std::optional<KnownNames>& known,
                                        std::optional<double> durationS,
                                        QList<ScenarioInstance>* out)
{
    static const QStringList kKeys = {"name",       "connection",       "tags",
                                      "tag_prefix", "tag_addresses",    "alarms",
                                      "start_at_s", "expected_update_s"};
    const QString base = QStringLiteral("$.instances");
    // Too many entries is one error; their names can still be judged by other sections.
    checkCount(errors, base, a.size(), limits::kMaxInstances, "instances");
    const Section section(errors);
    if (a.isEmpty())
        errors.add(base, QStringLiteral("must list at least 1 instance"));
    KnownNames names;
    out->reserve(a.size());
    for (qsizetype i = 0; i < a.size(); ++i) {
        const QString path = indexPath(base, i);
        auto o = asObject(errors, a.at(i), path);
        if (!o)
            continue;
        ObjectReader r(errors, *o, path, kKeys);
        ScenarioInstance inst;
        if (auto s = r.name("name", Need::Required)) {
            // A series names its subscription "instance/connection" (SeriesSubject).
            if (r.check(
                    "name", !s->contains(QLatin1Char('/')),
                    QStringLiteral(
                        "must not contain '/' (it separates an instance from its connection)")) &&
                r.check("name", !names.contains(*s), [&] {
                    return QStringLiteral("duplicate instance name %1").arg(quoted(*s));
                }))
                names.add(*s);
            inst.name = *s;
        }
        if (auto s = r.string("connection", Need::Required)) {
            if (known)
                r.check("connection", known->contains(*s), [&] {
                    return QStringLiteral("unknown connection %1 (known: %2)")
                        .arg(quoted(*s), known->listed());
                });
            inst.connection = *s;
        }
        const bool real = r.has("tag_addresses");
        if (auto n = r.integer("tags", real ? Need::Optional : Need::Required, limits::kTags))
            inst.tags = int(*n);
        inst.tagPrefix = inst.name + QStringLiteral(".Attr");
        if (real) {
            // Real addresses (a site's, written out): they name the tags; `tags`, when given,
            // must count them, and a prefix would name nothing.
            r.check("tag_prefix", !r.has("tag_prefix"),
                    QStringLiteral("not with tag_addresses (they name the tags)"));
            if (auto list = r.array("tag_addresses", Need::Optional)) {
                const QString listPath = r.pathOf("tag_addresses");
                if (list->isEmpty() || list->size() > qsizetype(limits::kTags.max))
                    errors.add(listPath, QStringLiteral("must list 1 … %1 addresses (got %2)")
                                             .arg(num(limits::kTags.max))
                                             .arg(list->size()));
                QSet<QString> seen;
                for (qsizetype t = 0; t < list->size() && t < qsizetype(limits::kTags.max); ++t) {
                    const QJsonValue v = list->at(t);
                    const QString tagPath = indexPath(listPath, t);
                    if (!v.isString()) {
                        errors.add(tagPath,
                                   QStringLiteral("expected string, got %1").arg(typeName(v)));
                        continue;
                    }
                    const QString a = v.toString();
                    if (const QString rule = checkTagAddress(a); !rule.isEmpty()) {
                        errors.add(tagPath, rule);
                        continue;
                    }
                    if (seen.contains(a)) {
                        errors.add(tagPath,
                                   QStringLiteral("duplicate tag address %1").arg(quoted(a)));
                        continue;
                    }
                    seen.insert(a);
                    inst.tagAddresses << a;
                }
                if (r.has("tags"))
                    r.check("tags", inst.tags == list->size(), [&] {
                        return QStringLiteral(
                                   "must equal the number of tag_addresses (%1) (got %2)")
                            .arg(list->size())
                            .arg(inst.tags);
                    });
                inst.tags = int(list->size());
            }
        } else if (auto s = r.name("tag_prefix", Need::Optional, limits::kMaxTagPrefixLength)) {
            inst.tagPrefix = *s;
        }
        if (auto b = r.boolean("alarms", Need::Optional))
            inst.alarms = *b;
        readExpectedUpdates(errors, r, inst);
        if (auto d = r.number("start_at_s", Need::Optional, limits::kAtS)) {
            if (!durationS || r.atMost("start_at_s", *d, *durationS, QStringLiteral("duration_s")))
                inst.startAtS = *d;
        }
        r.finish();
        out->append(inst);
    }
    if (!section.clean())
        return std::nullopt;
    return names;
}

void readVariants(Errors& errors, const QJsonArray& a, QList<VariantSpec>* out)
{
    static const QStringList kKeys = {"name", "levers"};
    const QString base = QStringLiteral("$.variants");
    if (a.isEmpty())
        errors.add(base, QStringLiteral("must list at least 1 variant"));
    checkCount(errors, base, a.size(), limits::kMaxVariants, "variants");
    QSet<QString> seen;
    for (qsizetype i = 0; i < a.size(); ++i) {
        const QString path = indexPath(base, i);
        VariantSpec v;
        QString namePath = path;
        bool nameReported = false; // missing, mistyped, empty or too long: already an error
        if (a.at(i).isString()) {
            v.name = a.at(i).toString();
            v.levers = a.at(i);
            checkLevers(errors, v.levers, path);
        } else if (a.at(i).isObject()) {
            ObjectReader r(errors, a.at(i).toObject(), path, kKeys);
            namePath = r.pathOf("name");
            if (auto s = r.name("name", Need::Required))
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
            errors.add(path,
                       QStringLiteral("expected a preset name or {name, levers} object, got %1")
                           .arg(typeName(a.at(i))));
            continue;
        }
        if (nameReported) {
            // nothing more to say about the name
        } else if (v.name.isEmpty()) {
            errors.add(namePath, QStringLiteral("must not be empty"));
        } else if (seen.contains(v.name)) {
            errors.add(namePath, QStringLiteral("duplicate variant name %1").arg(quoted(v.name)));
        }
        seen.insert(v.name);
        out->append(v);
    }
}

// The run budget (docs/scenario-format.md): the tag subscribes a run could send with the
// levers off, where every retry tick re-sends an instance's tags and a wedged gateway
// queues every one of them. Each instance subscribes once and then once per retry tick for
// the whole run; its alarm subscription likewise on its own interval; a redeploy subscribes
// the instance's tags once more.
void checkRunBudget(Errors& errors, const Scenario& s, const ClientOptions& options)
{
    const double runMs = s.durationS * 1000;
    const double tagTicks = 1 + std::floor(runMs / options.tagSubscribeRetryIntervalMs);
    const double alarmTicks = 1 + std::floor(runMs / options.alarmSubscribeRetryIntervalMs);
    QHash<QString, int> tagsOf;
    tagsOf.reserve(s.instances.size());
    double subscribes = 0; // exact: at most 50,000 × 10,000 × 8,640,001 < 2^53
    for (const ScenarioInstance& i : s.instances) {
        tagsOf.insert(i.name, i.tags);
        subscribes += double(i.tags) * tagTicks + (i.alarms ? alarmTicks : 0);
    }
    for (const TimelineEvent& e : s.timeline)
        if (e.action == TimelineAction::Redeploy)
            subscribes += tagsOf.value(e.instance);
    if (subscribes > double(limits::kMaxRunTagSubscribes))
        errors.add(
            QStringLiteral("$.instances"),
            QStringLiteral(
                "the run could send up to %1 tag subscribes with the levers off "
                "(tags × (1 + duration_s / options.TagSubscribeRetryIntervalMs) per instance, "
                "plus alarms and redeploys), more than the %2 that keep its memory bounded: "
                "use fewer tags, a shorter duration_s or a longer retry interval")
                .arg(qint64(subscribes))
                .arg(limits::kMaxRunTagSubscribes));
}

// "site": the connections and instances of a site file (its gateways' connections, its
// instances with their real tags), and its client options unless the scenario has its own.
// The site's errors are listed under $.site, each naming the site file.
struct SiteShape {
    std::optional<KnownNames> connections, instances;
};
SiteShape readSite(Errors& errors, ObjectReader& r, const QString& scenarioFile, Scenario& s,
                   ClientOptions& options)
{
    SiteShape shape;
    for (const char* own : {"connections", "instances"})
        r.check(QLatin1String(own), !r.has(QLatin1String(own)),
                QStringLiteral(
                    "not with \"site\" (the site's gateways and instances are the scenario's)"));
    const auto file = r.name("site", Need::Optional, site_limits::kMaxPathLength);
    if (!file)
        return shape;
    const QString path =
        QFileInfo(*file).isAbsolute() ? *file : QFileInfo(scenarioFile).dir().filePath(*file);
    QList<ScenarioError> siteErrors;
    const auto site = loadSiteFile(path, &siteErrors);
    for (const ScenarioError& e : siteErrors)
        errors.add(r.pathOf("site"), e.toString());
    if (!site)
        return shape;
    // The one conversion of a site into a scenario's shape (the console's live run uses it too).
    Scenario shaped = siteScenario(*site);
    KnownNames connections, instances;
    for (const ScenarioConnection& c : shaped.connections)
        connections.add(c.name);
    for (const ScenarioInstance& i : shaped.instances)
        instances.add(i.name);
    s.connections = std::move(shaped.connections);
    s.instances = std::move(shaped.instances);
    s.staleFactor = shaped.staleFactor; // the scenario's own stale_factor, read later, wins
    if (s.options.isEmpty() && !site->options.isEmpty()) {
        s.options = site->options;
        if (auto parsed = optionsFromJson(s.options, nullptr))
            options = *parsed;
    }
    shape.connections = std::move(connections);
    shape.instances = std::move(instances);
    return shape;
}

std::optional<Scenario> parse(const QByteArray& json, const QString& fileName, Errors& errors)
{
    if (json.size() > limits::kMaxFileBytes) {
        errors.add(QStringLiteral("$"),
                   QStringLiteral(
                       "the file is %1 bytes, more than the 64 MiB (%2 bytes) a scenario may have")
                       .arg(json.size())
                       .arg(limits::kMaxFileBytes));
        return std::nullopt;
    }
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        // Qt's offset points just past the character it choked on.
        errors.add(QStringLiteral("$"),
                   invalidJsonAt(json, parseError.offset - 1, parseError.errorString()));
        return std::nullopt;
    }
    // Qt read it; now hold it to what a strict reader accepts (strict_json.h says why this
    // is a pass over the text and not a second parser).
    const QList<StrictJsonIssue> issues = strictJsonIssues(json);
    for (const StrictJsonIssue& issue : issues)
        errors.add(issue.path, invalidJsonAt(json, issue.offset, issue.rule));
    if (!issues.isEmpty())
        return std::nullopt;
    if (!doc.isObject()) {
        errors.add(QStringLiteral("$"),
                   QStringLiteral("expected object, got %1")
                       .arg(doc.isArray() ? QStringLiteral("array") : typeName(QJsonValue())));
        return std::nullopt;
    }

    Scenario s;
    ObjectReader r(errors, doc.object(), QStringLiteral("$"),
                   {"name", "description", "duration_s", "seed", "gateway", "client_model",
                    "options", "site", "connections", "instances", "timeline", "variants",
                    "stale_factor"});
    if (auto v = r.name("name", Need::Required))
        s.name = *v;
    if (auto v = r.string("description", Need::Required);
        v && r.check("description", !v->trimmed().isEmpty(), QStringLiteral("must not be empty")) &&
        r.shorterThan("description", *v, limits::kMaxDescriptionLength))
        s.description = *v;
    std::optional<double> duration;
    if (auto d = r.number("duration_s", Need::Required, limits::kDurationS))
        duration = s.durationS = *d;
    if (auto n = r.integer("seed", Need::Optional, limits::kSeed))
        s.seed = quint64(*n);
    if (auto g = r.object("gateway", Need::Optional))
        readGateway(errors, *g, &s.gateway);
    if (auto m = r.object("client_model", Need::Optional))
        readClientModel(errors, *m, &s.clientModel);
    ClientOptions options;
    if (auto o = r.object("options", Need::Optional)) {
        // Checked by the client's own options parser, so a scenario and --option agree on
        // names and rules; kept as written so the runner applies exactly what the file says.
        QList<OptionError> optionErrors;
        if (auto parsed = optionsFromJson(*o, &optionErrors))
            options = *parsed;
        for (const OptionError& e : optionErrors)
            errors.add(r.pathOf("options") + QLatin1Char('.') + quotedText(e.key, kMaxQuotedChars),
                       QStringLiteral("%1 (got %2)").arg(e.rule, e.value));
        s.options = *o;
    }
    std::optional<KnownNames> connectionNames;
    std::optional<KnownNames> instanceNames;
    if (r.has("site")) {
        SiteShape shape = readSite(errors, r, fileName, s, options);
        connectionNames = std::move(shape.connections);
        instanceNames = std::move(shape.instances);
    } else {
        if (auto a = r.array("connections", Need::Required))
            connectionNames = readConnections(errors, *a, &s.connections);
        if (auto a = r.array("instances", Need::Required))
            instanceNames = readInstances(errors, *a, connectionNames, duration, &s.instances);
    }
    KnownGateways gateways;
    if (connectionNames) {
        gateways.names.emplace();
        for (const QString& g : s.gatewayNames())
            gateways.names->add(g);
        gateways.any = !s.gatewayNames().isEmpty();
    }
    if (auto f = r.number("stale_factor", Need::Optional, limits::kStaleFactor))
        s.staleFactor = *f;
    if (auto a = r.array("timeline", Need::Optional))
        readTimeline(errors, *a, duration, instanceNames, gateways, &s.timeline);
    if (r.has("variants")) {
        if (auto a = r.array("variants", Need::Optional))
            readVariants(errors, *a, &s.variants);
    } else {
        for (const QString& preset : defaultVariantNames())
            s.variants.append({preset, QJsonValue(preset)});
    }
    r.finish();
    // Judged on the whole file, so only once everything else holds.
    if (errors.count() == 0)
        checkRunBudget(errors, s, options);
    if (errors.count() > 0)
        return std::nullopt;
    return s;
}

} // namespace

std::optional<Scenario> parseScenario(const QByteArray& json, const QString& fileName,
                                      QList<ScenarioError>* errorsOut)
{
    Errors errors(fileName, errorsOut);
    auto scenario = parse(json, fileName, errors);
    errors.finish();
    return scenario;
}

std::optional<Scenario> loadScenarioFile(const QString& path, QList<ScenarioError>* errors)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (errors)
            errors->append({path, QStringLiteral("$"),
                            QStringLiteral("cannot read file: %1").arg(file.errorString())});
        return std::nullopt;
    }
    return parseScenario(file.readAll(), path, errors);
}

namespace {
const QString kBundledDir = QStringLiteral(":/scenarios");
}

QStringList bundledScenarioNames()
{
    QStringList names;
    const QFileInfoList files =
        QDir(kBundledDir).entryInfoList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
    for (const QFileInfo& f : files)
        names << f.completeBaseName();
    return names;
}

std::optional<Scenario> loadScenario(const QString& nameOrPath, QList<ScenarioError>* errors)
{
    if (bundledScenarioNames().contains(nameOrPath)) {
        const QString fileName = nameOrPath + QStringLiteral(".json");
        QFile file(kBundledDir + QLatin1Char('/') + fileName);
        if (file.open(QIODevice::ReadOnly))
            return parseScenario(file.readAll(), fileName, errors);
    }
    if (!QFileInfo::exists(nameOrPath)) {
        if (errors)
            errors->append(
                {nameOrPath, QStringLiteral("$"),
                 QStringLiteral("no bundled scenario or file with this name (bundled: %1)")
                     .arg(bundledScenarioNames().join(QStringLiteral(", ")))});
        return std::nullopt;
    }
    return loadScenarioFile(nameOrPath, errors);
}

QJsonObject scenarioToJson(const Scenario& s)
{
    QJsonObject gateway{{"advertise_bulk_supervisory", s.gateway.advertiseBulkSupervisory},
                        {"default_command_timeout_s", s.gateway.defaultCommandTimeoutS},
                        {"command_ms", s.gateway.commandMs},
                        {"per_item_ms", s.gateway.perItemMs},
                        {"data_hz", s.gateway.dataHz},
                        {"network_latency_ms", s.gateway.networkLatencyMs}};
    if (s.gateway.contractFamily != GatewaySpec{}.contractFamily)
        gateway.insert("contract_family", s.gateway.contractFamily);
    QJsonArray connections;
    for (const ScenarioConnection& c : s.connections) {
        QJsonObject o{{"name", c.name}, {"write_user_id", double(c.writeUserId)}};
        if (!c.gateway.isEmpty())
            o.insert("gateway", c.gateway);
        connections.append(o);
    }
    QJsonArray instances;
    for (const ScenarioInstance& i : s.instances) {
        QJsonObject o{{"name", i.name},
                      {"connection", i.connection},
                      {"tags", i.tags},
                      {"alarms", i.alarms},
                      {"start_at_s", i.startAtS}};
        // Real addresses name the tags themselves (a site's, written out in full).
        if (i.tagAddresses.isEmpty())
            o.insert("tag_prefix", i.tagPrefix);
        else
            o.insert("tag_addresses", QJsonArray::fromStringList(i.tagAddresses));
        if (!i.expectedUpdateS.isEmpty()) {
            if (i.expectedUpdateS.count(i.expectedUpdateS.first()) == i.expectedUpdateS.size())
                o.insert("expected_update_s", i.expectedUpdateS.first());
            else {
                QJsonArray periods;
                for (double d : i.expectedUpdateS)
                    periods.append(d);
                o.insert("expected_update_s", periods);
            }
        }
        instances.append(o);
    }
    QJsonArray timeline;
    for (const TimelineEvent& e : s.timeline) {
        QJsonObject o{{"at_s", e.atS}, {"action", timelineActionName(e.action)}};
        for (const QString& p : scenario_timeline::actionParams(e.action)) {
            if (p == "duration_s")
                o.insert(p, e.durationS);
            else if (p == "factor")
                o.insert(p, e.factor);
            else if (p == "probability")
                o.insert(p, e.probability);
            else if (p == "downtime_s")
                o.insert(p, e.downtimeS);
            else if (p == "instance")
                o.insert(p, e.instance);
            else if (p == "levers")
                o.insert(p, e.levers);
            else if (p == "advertise_bulk_supervisory")
                o.insert(p, e.advertiseBulkSupervisory);
        }
        if (e.atGateway() && !e.gateway.isEmpty())
            o.insert("gateway", e.gateway);
        timeline.append(o);
    }
    QJsonArray variants;
    for (const VariantSpec& v : s.variants) {
        if (v.levers.isString() && v.levers.toString() == v.name)
            variants.append(v.name);
        else
            variants.append(QJsonObject{{"name", v.name}, {"levers", v.levers}});
    }
    QJsonObject clientModel{{"redeploy_teardown", s.clientModel.redeployTeardown},
                            {"teardown_gated", s.clientModel.teardownGated}};
    if (s.clientModel.keepaliveS)
        clientModel.insert("keepalive_s", *s.clientModel.keepaliveS);
    if (s.clientModel.keepaliveTimeoutS)
        clientModel.insert("keepalive_timeout_s", *s.clientModel.keepaliveTimeoutS);
    QJsonObject out{
        {"name", s.name},         {"description", s.description}, {"duration_s", s.durationS},
        {"seed", double(s.seed)}, {"gateway", gateway},           {"client_model", clientModel},
        {"options", s.options},   {"connections", connections},   {"instances", instances},
        {"timeline", timeline},   {"variants", variants}};
    if (s.staleFactor != limits::kDefaultStaleFactor)
        out.insert("stale_factor", s.staleFactor);
    return out;
}

} // namespace stormwatch
