// Site files: the scenario's schema reader (json_schema_reader.h) over gateways, instances
// and options, plus the tag CSV. Linear in the file: names and addresses are looked up in
// hashes, never by scanning what came before (20,000 rows validate in milliseconds).
#include "client/options.h"
#include "scenario/json_schema_reader.h"
#include "scenario/site.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QSet>
#include <QStringDecoder>
#include <functional>

namespace stormwatch {

using namespace json_schema;
namespace slimits = site_limits;

qsizetype Site::tagCount() const
{
    qsizetype n = 0;
    for (const SiteInstance& i : instances)
        n += i.tags.size();
    return n;
}

const SiteGateway* Site::gateway(const QString& name) const
{
    for (const SiteGateway& g : gateways)
        if (g.name == name)
            return &g;
    return nullptr;
}

QString checkEndpoint(const QString& endpoint)
{
    const QString rule =
        QStringLiteral("must be HOST:PORT with a port 1..65535 (got %1)").arg(quoted(endpoint));
    if (endpoint.size() > slimits::kMaxEndpointLength)
        return QStringLiteral("must be at most %1 characters (got %2)")
            .arg(slimits::kMaxEndpointLength)
            .arg(endpoint.size());
    const qsizetype colon = endpoint.lastIndexOf(QLatin1Char(':'));
    if (colon <= 0)
        return rule;
    const QString host = endpoint.left(colon);
    bool ok = false;
    const int port = endpoint.mid(colon + 1).toInt(&ok);
    if (!ok || port < 1 || port > 65535 || endpoint.mid(colon + 1).startsWith(QLatin1Char('+')))
        return rule;
    if (host.startsWith(QLatin1Char('['))) {
        if (!host.endsWith(QLatin1Char(']')) || host.size() < 3)
            return rule;
        return {};
    }
    for (const QChar c : host)
        if (!(c.isLetterOrNumber() || c == QLatin1Char('.') || c == QLatin1Char('-') ||
              c == QLatin1Char('_')) ||
            c.unicode() > 127)
            return rule;
    return {};
}

QString checkTagAddress(const QString& a)
{
    if (a.isEmpty())
        return QStringLiteral("a tag address must not be empty");
    if (a.size() > slimits::kMaxTagAddressLength)
        return QStringLiteral("a tag address must be at most %1 characters (got %2)")
            .arg(slimits::kMaxTagAddressLength)
            .arg(a.size());
    for (const QChar c : a)
        if (c.unicode() < 0x20 || c.unicode() == 0x7f)
            return QStringLiteral("a tag address must not contain control characters (got %1)")
                .arg(quoted(a));
    if (a.front().isSpace() || a.back().isSpace())
        return QStringLiteral("a tag address must not start or end with a blank (got %1)")
            .arg(quoted(a));
    return {};
}

namespace {

QString kindRule(const QString& k)
{
    if (k.size() > slimits::kMaxKindLength)
        return QStringLiteral("a kind must be at most %1 characters (got %2)")
            .arg(slimits::kMaxKindLength)
            .arg(k.size());
    for (const QChar c : k)
        if (!((c.isLetterOrNumber() && c.unicode() < 128) || c == QLatin1Char('_') ||
              c == QLatin1Char('-')))
            return QStringLiteral("a kind is letters, digits, '_' and '-' (got %1)").arg(quoted(k));
    return {};
}

// What is being built, instance by instance: the addresses seen so far (for duplicates,
// in constant time) and where each came from.
struct Building {
    SiteInstance* instance = nullptr;
    QHash<QString, QString> seen; // address -> where it was first listed
};

class SiteReader {
public:
    SiteReader(Errors& errors, QString fileName) : errors_(errors), file_(std::move(fileName)) {}

    std::optional<Site> read(const QByteArray& json);

private:
    QString resolve(const QString& path) const
    {
        return QFileInfo(path).isAbsolute() ? path : QFileInfo(file_).dir().filePath(path);
    }
    // A readable file at `key` (resolved against the site file), or nullopt (reported).
    std::optional<QString> file(ObjectReader& r, const QString& key)
    {
        auto s = r.name(key, Need::Optional, slimits::kMaxPathLength);
        if (!s)
            return std::nullopt;
        const QString path = resolve(*s);
        const QFileInfo info(path);
        if (!r.check(key, info.isFile() && info.isReadable(),
                     [&] { return QStringLiteral("cannot read file %1").arg(quoted(path)); }))
            return std::nullopt;
        return QFileInfo(path).absoluteFilePath();
    }
    void readGateways(const QJsonArray& a, Site& site);
    void readInstances(const QJsonArray& a, Site& site);
    void readCsv(const QString& display, const QString& path);
    void readExpectedUpdates(const QString& path, const QJsonObject& periods, Site& site);
    void addTag(Building& b, const SiteTag& tag, const QString& where,
                const std::function<void(const QString&)>& fail);

    Errors& errors_;
    QString file_;
    KnownNames gatewayNames_;
    QHash<QString, qsizetype> instanceIndex_;
    QList<Building> building_;
    qsizetype totalTags_ = 0;
    bool tooManyTags_ = false;
};

void SiteReader::readGateways(const QJsonArray& a, Site& site)
{
    const QString base = QStringLiteral("$.gateways");
    checkCount(errors_, base, a.size(), slimits::kMaxGateways, "gateways");
    if (a.isEmpty())
        errors_.add(base, QStringLiteral("must list at least 1 gateway"));
    for (qsizetype i = 0; i < a.size() && i < slimits::kMaxGateways; ++i) {
        const QString path = indexPath(base, i);
        auto o = asObject(errors_, a.at(i), path);
        if (!o)
            continue;
        ObjectReader r(errors_, *o, path,
                       {"name", "endpoint", "tls", "token_file", "allow_insecure_token",
                        "write_user_id", "contract", "keepalive_s", "keepalive_timeout_s"});
        SiteGateway g;
        if (auto s = r.name("name", Need::Required)) {
            if (r.check("name", !gatewayNames_.contains(*s), [&] {
                    return QStringLiteral("duplicate gateway name %1").arg(quoted(*s));
                }))
                gatewayNames_.add(*s);
            g.name = *s;
        }
        if (auto s = r.string("endpoint", Need::Required)) {
            const QString rule = checkEndpoint(*s);
            if (r.check("endpoint", rule.isEmpty(), rule))
                g.endpoint = *s;
        }
        bool tls = false;
        if (auto t = r.object("tls", Need::Optional)) {
            tls = g.tls = true;
            ObjectReader tr(errors_, *t, r.pathOf("tls"), {"ca", "cert", "key"});
            if (auto f = file(tr, QStringLiteral("ca")))
                g.tlsCa = *f;
            if (auto f = file(tr, QStringLiteral("cert")))
                g.tlsCert = *f;
            if (auto f = file(tr, QStringLiteral("key")))
                g.tlsKey = *f;
            tr.check(
                QStringLiteral("cert"), tr.has("cert") == tr.has("key"),
                QStringLiteral("cert and key come together (a client certificate needs its key)"));
            tr.finish();
        }
        if (auto f = file(r, QStringLiteral("token_file")))
            g.tokenFile = *f;
        if (auto f = file(r, QStringLiteral("contract")))
            g.contractFile = *f;
        const bool insecure = r.boolean("allow_insecure_token", Need::Optional).value_or(false);
        if (r.has("token_file"))
            r.check("token_file", tls || insecure,
                    QStringLiteral("a bearer token is sent only over TLS: add \"tls\", or "
                                   "\"allow_insecure_token\": true "
                                   "to send it in clear text"));
        if (auto n = r.integer("write_user_id", Need::Optional, scenario_limits::kWriteUserId))
            g.writeUserId = *n;
        if (auto n = r.number("keepalive_s", Need::Optional, slimits::kKeepaliveS))
            g.keepaliveS = *n;
        if (auto n = r.number("keepalive_timeout_s", Need::Optional, slimits::kKeepaliveS))
            g.keepaliveTimeoutS = *n;
        r.finish();
        site.gateways.append(g);
    }
}

void SiteReader::addTag(Building& b, const SiteTag& tag, const QString& where,
                        const std::function<void(const QString&)>& fail)
{
    if (const QString rule = checkTagAddress(tag.address); !rule.isEmpty())
        return fail(rule);
    if (const QString rule = kindRule(tag.kind); !rule.isEmpty())
        return fail(rule);
    if (const auto it = b.seen.constFind(tag.address); it != b.seen.constEnd())
        return fail(QStringLiteral("duplicate tag address %1 in instance %2 (first at %3)")
                        .arg(quoted(tag.address), quoted(b.instance->name), it.value()));
    if (b.instance->tags.size() >= slimits::kMaxTagsPerInstance)
        return fail(QStringLiteral("instance %1 has more than %2 tags")
                        .arg(quoted(b.instance->name))
                        .arg(slimits::kMaxTagsPerInstance));
    if (totalTags_ >= slimits::kMaxTags) {
        if (!tooManyTags_)
            fail(QStringLiteral("the site has more than %1 tags").arg(slimits::kMaxTags));
        tooManyTags_ = true;
        return;
    }
    b.seen.insert(tag.address, where);
    b.instance->tags.append(tag);
    ++totalTags_;
}

// A period per tag kind; a kind no tag has is refused, since a misspelt one would silently
// leave its tags unwatched.
void SiteReader::readExpectedUpdates(const QString& path, const QJsonObject& periods, Site& site)
{
    QSet<QString> kinds;
    for (const SiteInstance& inst : site.instances)
        for (const SiteTag& t : inst.tags)
            if (!t.kind.isEmpty())
                kinds.insert(t.kind);
    QStringList known(kinds.begin(), kinds.end());
    known.sort();
    const NumberRange& range = scenario_limits::kExpectedUpdateS;
    for (auto it = periods.begin(); it != periods.end(); ++it) {
        const QString at = path + QLatin1Char('.') + quotedText(it.key(), kMaxQuotedChars);
        if (const QString rule = kindRule(it.key()); !rule.isEmpty()) {
            errors_.add(at, rule);
            continue;
        }
        if (!kinds.contains(it.key())) {
            errors_.add(
                at, known.isEmpty()
                        ? QStringLiteral("no tag has a kind (give it in the CSV's third column)")
                        : QStringLiteral("no tag has this kind (kinds: %1)")
                              .arg(known.join(QStringLiteral(", "))));
            continue;
        }
        if (!it.value().isDouble()) {
            errors_.add(at, QStringLiteral("expected number, got %1").arg(typeName(it.value())));
            continue;
        }
        const double d = it.value().toDouble();
        if (d < range.min || d > range.max) {
            errors_.add(at, QStringLiteral("must be %1 … %2 s (got %3)")
                                .arg(num(range.min), num(range.max), num(d)));
            continue;
        }
        site.expectedUpdateS.insert(it.key(), d);
    }
}

void SiteReader::readInstances(const QJsonArray& a, Site& site)
{
    const QString base = QStringLiteral("$.instances");
    checkCount(errors_, base, a.size(), slimits::kMaxInstances, "instances");
    if (a.isEmpty())
        errors_.add(base, QStringLiteral("must list at least 1 instance"));
    const qsizetype n = std::min<qsizetype>(a.size(), slimits::kMaxInstances);
    site.instances.reserve(n);
    building_.reserve(n);
    for (qsizetype i = 0; i < n; ++i) {
        const QString path = indexPath(base, i);
        site.instances.append(SiteInstance{});
        building_.append(Building{});
        auto o = asObject(errors_, a.at(i), path);
        if (!o)
            continue;
        ObjectReader r(errors_, *o, path, {"name", "gateway", "alarms", "tags"});
        SiteInstance& inst = site.instances.last();
        Building& b = building_.last();
        b.instance = &inst;
        if (auto s = r.name("name", Need::Required)) {
            // A series names its subscription "instance/connection" (SeriesSubject).
            if (r.check("name", !s->contains(QLatin1Char('/')),
                        QStringLiteral(
                            "must not contain '/' (it separates an instance from its gateway)")) &&
                r.check("name", !instanceIndex_.contains(*s), [&] {
                    return QStringLiteral("duplicate instance name %1").arg(quoted(*s));
                }))
                instanceIndex_.insert(*s, i);
            inst.name = *s;
        }
        if (auto s = r.name("gateway", Need::Required)) {
            r.check("gateway", gatewayNames_.contains(*s), [&] {
                return QStringLiteral("unknown gateway %1 (gateways: %2)")
                    .arg(quoted(*s), gatewayNames_.listed());
            });
            inst.gateway = *s;
        }
        if (auto v = r.boolean("alarms", Need::Optional))
            inst.alarms = *v;
        if (auto tags = r.array("tags", Need::Optional)) {
            const QString tagsPath = r.pathOf("tags");
            for (qsizetype t = 0; t < tags->size(); ++t) {
                const QString tagPath = indexPath(tagsPath, t);
                const QJsonValue v = tags->at(t);
                if (!v.isString()) {
                    errors_.add(tagPath,
                                QStringLiteral("expected string, got %1").arg(typeName(v)));
                    continue;
                }
                addTag(b, SiteTag{v.toString(), {}}, tagPath,
                       [&](const QString& rule) { errors_.add(tagPath, rule); });
            }
        }
        r.finish();
    }
}

// One CSV field list from a line: comma separated, blanks around fields trimmed, a field in
// double quotes may hold commas and "" for a quote. False (with `why`) on a broken quote.
bool splitCsvLine(QStringView line, QStringList& fields, QString& why)
{
    fields.clear();
    qsizetype i = 0;
    const qsizetype n = line.size();
    while (true) {
        while (i < n && line[i] == QLatin1Char(' '))
            ++i;
        QString field;
        if (i < n && line[i] == QLatin1Char('"')) {
            ++i;
            bool closed = false;
            while (i < n) {
                if (line[i] == QLatin1Char('"')) {
                    if (i + 1 < n && line[i + 1] == QLatin1Char('"')) {
                        field += QLatin1Char('"');
                        i += 2;
                        continue;
                    }
                    closed = true;
                    ++i;
                    break;
                }
                field += line[i++];
            }
            if (!closed) {
                why = QStringLiteral("a quoted field is not closed on its line");
                return false;
            }
            while (i < n && line[i] == QLatin1Char(' '))
                ++i;
            if (i < n && line[i] != QLatin1Char(',')) {
                why = QStringLiteral("text after a quoted field");
                return false;
            }
        } else {
            const qsizetype start = i;
            while (i < n && line[i] != QLatin1Char(','))
                ++i;
            field = line.mid(start, i - start).trimmed().toString();
        }
        fields << field;
        if (i >= n)
            return true;
        ++i; // the comma
    }
}

void SiteReader::readCsv(const QString& display, const QString& path)
{
    const QString key = QStringLiteral("$.tags_csv");
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        errors_.add(key,
                    QStringLiteral("cannot read %1: %2").arg(quoted(display), f.errorString()));
        return;
    }
    if (f.size() > scenario_limits::kMaxFileBytes) {
        errors_.add(key, QStringLiteral("%1 is %2 bytes, more than the 64 MiB a tag list may have")
                             .arg(quoted(display))
                             .arg(f.size()));
        return;
    }
    const QByteArray bytes = f.readAll();
    // Each line is decoded on its own and a line that is not UTF-8 is refused: decoding it
    // with replacement characters would subscribe an address nobody wrote.
    QStringDecoder utf8(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    qsizetype lineNo = 0;
    QStringList fields;
    QString why;
    bool headerAllowed = true;
    for (qsizetype from = 0; from <= bytes.size();) {
        qsizetype end = bytes.indexOf('\n', from);
        if (end < 0)
            end = bytes.size();
        const QByteArrayView bytesOfLine(bytes.constData() + from, end - from);
        from = end + 1;
        ++lineNo;
        utf8.resetState();
        const QString decoded = utf8.decode(bytesOfLine);
        QStringView line(decoded);
        if (line.endsWith(QLatin1Char('\r')))
            line.chop(1);
        const QStringView trimmed = line.trimmed();
        const QString where = QStringLiteral("%1:%2").arg(display).arg(lineNo);
        auto fail = [&](const QString& rule) {
            errors_.add(key, where + QStringLiteral(": ") + rule);
        };
        if (utf8.hasError()) {
            fail(QStringLiteral("not valid UTF-8 (save the tag list as UTF-8)"));
            continue;
        }
        if (trimmed.isEmpty() || trimmed.startsWith(QLatin1Char('#')))
            continue;
        if (!splitCsvLine(line, fields, why)) {
            fail(why);
            continue;
        }
        // An optional header row: the columns' names.
        if (headerAllowed) {
            headerAllowed = false;
            if (fields.value(0).compare(QLatin1String("instance"), Qt::CaseInsensitive) == 0 &&
                fields.value(1).compare(QLatin1String("tag_address"), Qt::CaseInsensitive) == 0)
                continue;
        }
        if (fields.size() < 2 || fields.size() > 3) {
            fail(QStringLiteral("expected instance,tag_address[,kind] (got %1 fields)")
                     .arg(fields.size()));
            continue;
        }
        const auto it = instanceIndex_.constFind(fields[0]);
        if (it == instanceIndex_.constEnd()) {
            fail(QStringLiteral("unknown instance %1 (declare it in $.instances with its gateway)")
                     .arg(quoted(fields[0])));
            continue;
        }
        Building& b = building_[it.value()];
        addTag(b, SiteTag{fields[1], fields.value(2)}, where, fail);
    }
}

std::optional<Site> SiteReader::read(const QByteArray& json)
{
    if (json.size() > scenario_limits::kMaxFileBytes) {
        errors_.add(
            QStringLiteral("$"),
            QStringLiteral("the file is %1 bytes, more than the 64 MiB a site file may have")
                .arg(json.size()));
        return std::nullopt;
    }
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        errors_.add(QStringLiteral("$"),
                    invalidJsonAt(json, parseError.offset - 1, parseError.errorString()));
        return std::nullopt;
    }
    const QList<StrictJsonIssue> issues = strictJsonIssues(json);
    for (const StrictJsonIssue& issue : issues)
        errors_.add(issue.path, invalidJsonAt(json, issue.offset, issue.rule));
    if (!issues.isEmpty())
        return std::nullopt;
    if (!doc.isObject()) {
        errors_.add(QStringLiteral("$"),
                    QStringLiteral("expected object, got %1")
                        .arg(doc.isArray() ? QStringLiteral("array") : typeName(QJsonValue())));
        return std::nullopt;
    }
    Site site;
    site.file = file_;
    ObjectReader r(errors_, doc.object(), QStringLiteral("$"),
                   {"name", "description", "options", "gateways", "instances", "tags_csv",
                    "expected_update_s", "stale_factor"});
    if (auto v = r.name("name", Need::Required))
        site.name = *v;
    if (auto v = r.string("description", Need::Optional);
        v && r.shorterThan("description", *v, scenario_limits::kMaxDescriptionLength))
        site.description = *v;
    if (auto o = r.object("options", Need::Optional)) {
        // The client's own options parser: a site, a scenario and --option agree on names and
        // rules.
        QList<OptionError> optionErrors;
        optionsFromJson(*o, &optionErrors);
        for (const OptionError& e : optionErrors)
            errors_.add(r.pathOf("options") + QLatin1Char('.') + quotedText(e.key, kMaxQuotedChars),
                        QStringLiteral("%1 (got %2)").arg(e.rule, e.value));
        site.options = *o;
    }
    if (auto a = r.array("gateways", Need::Required))
        readGateways(*a, site);
    if (auto a = r.array("instances", Need::Required))
        readInstances(*a, site);
    if (auto csv = r.name("tags_csv", Need::Optional, slimits::kMaxPathLength)) {
        const QString display = QFileInfo(file_).dir().filePath(*csv);
        const QString path = resolve(*csv);
        site.tagsCsv = QFileInfo(path).absoluteFilePath();
        readCsv(QFileInfo(*csv).isAbsolute() ? *csv : display, path);
    }
    if (auto f = r.number("stale_factor", Need::Optional, scenario_limits::kStaleFactor))
        site.staleFactor = *f;
    if (auto o = r.object("expected_update_s", Need::Optional))
        readExpectedUpdates(r.pathOf("expected_update_s"), *o, site);
    for (qsizetype i = 0; i < site.instances.size(); ++i) {
        const SiteInstance& inst = site.instances[i];
        if (building_[i].instance && inst.tags.isEmpty())
            errors_.add(
                indexPath(QStringLiteral("$.instances"), i),
                QStringLiteral("instance %1 has no tags (list them in \"tags\" or in tags_csv)")
                    .arg(quoted(inst.name)));
    }
    r.finish();
    if (errors_.count() > 0)
        return std::nullopt;
    return site;
}

} // namespace

std::optional<Site> parseSite(const QByteArray& json, const QString& fileName,
                              QList<ScenarioError>* errorsOut)
{
    Errors errors(fileName, errorsOut);
    SiteReader reader(errors, fileName);
    auto site = reader.read(json);
    errors.finish();
    return site;
}

std::optional<Site> loadSiteFile(const QString& path, QList<ScenarioError>* errors)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (errors)
            errors->append({path, QStringLiteral("$"),
                            QStringLiteral("cannot read file: %1").arg(file.errorString())});
        return std::nullopt;
    }
    if (file.size() > scenario_limits::kMaxFileBytes) {
        if (errors)
            errors->append(
                {path, QStringLiteral("$"),
                 QStringLiteral("the file is larger than the 64 MiB a site file may have")});
        return std::nullopt;
    }
    return parseSite(file.readAll(), path, errors);
}

} // namespace stormwatch
