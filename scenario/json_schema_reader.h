#pragma once

// The schema reader behind scenario and site files: every error names the file, the JSON
// path and the rule ("file: $.gateways[1].endpoint: must be HOST:PORT"), every key the
// schema knows is declared so unknown ones are named, and a hostile file cannot make the
// error list itself the problem. Internal to scenario/ (scenario_parser.cpp, site_parser.cpp).

#include "scenario/scenario.h"
#include "scenario/scenario_parser.h"
#include "scenario/strict_json.h"

#include <QByteArray>
#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QLocale>
#include <QSet>
#include <QString>
#include <QStringList>
#include <algorithm>
#include <cmath>
#include <optional>
#include <type_traits>
#include <utility>

namespace stormwatch::json_schema {

namespace limits = scenario_limits;

// A hostile file must not make the error list itself the problem: at most this many errors
// are listed (the rest are counted in a last line), each rule and path cut to a bounded
// length, and at most a few names quoted in "unknown name" rules.
inline constexpr int kMaxListedErrors = 1000;
inline constexpr qsizetype kMaxRuleChars = 1000;
inline constexpr qsizetype kMaxPathChars = 400;
inline constexpr qsizetype kMaxQuotedChars = 64;
inline constexpr int kMaxListedNames = 10;

inline QString typeName(const QJsonValue& v)
{
    switch (v.type()) {
    case QJsonValue::Null:
        return QStringLiteral("null");
    case QJsonValue::Bool:
        return QStringLiteral("bool");
    case QJsonValue::Double:
        return QStringLiteral("number");
    case QJsonValue::String:
        return QStringLiteral("string");
    case QJsonValue::Array:
        return QStringLiteral("array");
    case QJsonValue::Object:
        return QStringLiteral("object");
    case QJsonValue::Undefined:
        break;
    }
    return QStringLiteral("nothing");
}

// Plain digits for ordinary magnitudes (86401, 0.5, 1000000000), the exponent form for the
// absurd ones (1e+308, 1e-300) so a message never spells out 300 zeros.
inline QString num(double d)
{
    const double a = std::fabs(d);
    const bool exponent = a != 0 && (a >= 1e16 || a < 1e-4);
    return QString::number(d, exponent ? 'g' : 'f', QLocale::FloatingPointShortest);
}

// A name from the file inside a rule: quoted, escaped, cut.
inline QString quoted(const QString& name)
{
    return QLatin1Char('"') + quotedText(name, kMaxQuotedChars) + QLatin1Char('"');
}

class Errors {
public:
    Errors(QString file, QList<ScenarioError>* out) : file_(std::move(file)), out_(out) {}
    void add(const QString& path, const QString& rule)
    {
        ++count_;
        if (out_ && count_ <= kMaxListedErrors)
            out_->append({file_, quotedText(path, kMaxPathChars), quotedText(rule, kMaxRuleChars)});
    }
    int count() const { return count_; }
    // Counts what was not listed, in one last line.
    void finish()
    {
        if (out_ && count_ > kMaxListedErrors)
            out_->append({file_, QStringLiteral("$"),
                          QStringLiteral("… and %1 more errors (only the first %2 are listed)")
                              .arg(count_ - kMaxListedErrors)
                              .arg(kMaxListedErrors)});
    }

private:
    QString file_;
    QList<ScenarioError>* out_;
    int count_ = 0;
};

// The names a section declared, for the sections that refer to them: a set to look a name up
// in constant time, and the first few in file order for "unknown name" rules, which never
// list every name (10,000 connections would make each such rule megabytes long).
class KnownNames {
public:
    void add(const QString& name)
    {
        if (m_set.contains(name))
            return;
        m_set.insert(name);
        if (m_firstFew.size() < kMaxListedNames)
            m_firstFew << name;
    }
    bool contains(const QString& name) const { return m_set.contains(name); }
    QString listed() const
    {
        QStringList shown;
        for (const QString& n : m_firstFew)
            shown << quotedText(n, kMaxQuotedChars);
        QString text = shown.join(QStringLiteral(", "));
        if (m_set.size() > m_firstFew.size())
            text += QStringLiteral(", … and %1 more").arg(m_set.size() - m_firstFew.size());
        return text;
    }

private:
    QSet<QString> m_set;
    QStringList m_firstFew;
};

enum class Need { Required, Optional };

// Reads the keys of one JSON object, checking types and collecting errors. Every key
// the schema knows is declared up front, so finish() can name the unknown ones.
class ObjectReader {
public:
    ObjectReader(Errors& errors, QJsonObject object, QString path, QStringList validKeys)
        : errors_(errors), object_(std::move(object)), path_(std::move(path)),
          valid_(std::move(validKeys))
    {
    }

    QString pathOf(const QString& key) const
    {
        return path_ + QLatin1Char('.') + quotedText(key, kMaxQuotedChars);
    }
    bool has(const QString& key) const { return object_.contains(key); }
    QJsonValue raw(const QString& key) const { return object_.value(key); }

    // A present value of the expected type, or nullopt (missing, or wrong type: reported).
    std::optional<QJsonValue> value(const QString& key, QJsonValue::Type type, Need need)
    {
        const auto it = object_.constFind(key);
        if (it == object_.constEnd()) {
            if (need == Need::Required)
                errors_.add(pathOf(key), QStringLiteral("required key missing"));
            return std::nullopt;
        }
        const QJsonValue v = it.value();
        if (v.type() != type) {
            errors_.add(
                pathOf(key),
                QStringLiteral("expected %1, got %2").arg(typeName(QJsonValue(type)), typeName(v)));
            return std::nullopt;
        }
        return v;
    }
    std::optional<double> number(const QString& key, Need need)
    {
        auto v = value(key, QJsonValue::Double, need);
        return v ? std::optional<double>(v->toDouble()) : std::nullopt;
    }
    // A number within `range`, or nullopt (missing, mistyped or out of range: reported).
    std::optional<double> number(const QString& key, Need need, const NumberRange& range)
    {
        auto d = number(key, need);
        if (!d || !inRange(key, *d, range))
            return std::nullopt;
        return d;
    }
    // A whole number within `range` (whose bounds are whole and within ±(2^53 - 1)).
    std::optional<qint64> integer(const QString& key, Need need, const NumberRange& range)
    {
        auto d = number(key, need);
        if (!d)
            return std::nullopt;
        if (std::floor(*d) != *d) {
            errors_.add(pathOf(key), QStringLiteral("must be an integer (got %1)").arg(num(*d)));
            return std::nullopt;
        }
        if (!inRange(key, *d, range))
            return std::nullopt;
        return static_cast<qint64>(*d);
    }
    std::optional<bool> boolean(const QString& key, Need need)
    {
        auto v = value(key, QJsonValue::Bool, need);
        return v ? std::optional<bool>(v->toBool()) : std::nullopt;
    }
    std::optional<QString> string(const QString& key, Need need)
    {
        auto v = value(key, QJsonValue::String, need);
        return v ? std::optional<QString>(v->toString()) : std::nullopt;
    }
    // A string of 1 .. maxLength characters.
    std::optional<QString> name(const QString& key, Need need,
                                qsizetype maxLength = limits::kMaxNameLength)
    {
        auto s = string(key, need);
        if (!s)
            return std::nullopt;
        if (!check(key, !s->isEmpty(), QStringLiteral("must not be empty")) ||
            !shorterThan(key, *s, maxLength))
            return std::nullopt;
        return s;
    }
    std::optional<QJsonArray> array(const QString& key, Need need)
    {
        auto v = value(key, QJsonValue::Array, need);
        return v ? std::optional<QJsonArray>(v->toArray()) : std::nullopt;
    }
    std::optional<QJsonObject> object(const QString& key, Need need)
    {
        auto v = value(key, QJsonValue::Object, need);
        return v ? std::optional<QJsonObject>(v->toObject()) : std::nullopt;
    }

    // Range rules. Each returns whether the value passed, reporting it when not.
    bool inRange(const QString& key, double v, const NumberRange& range)
    {
        const auto unit = [&] {
            return *range.unit ? QLatin1Char(' ') + QLatin1String(range.unit) : QString();
        };
        if (!(range.minExclusive ? v > range.min : v >= range.min))
            return check(key, false, [&] {
                return QStringLiteral("must be %1 %2%3 (got %4)")
                    .arg(range.minExclusive ? QStringLiteral(">") : QStringLiteral(">="),
                         num(range.min), unit(), num(v));
            });
        return check(key, v <= range.max, [&] {
            return QStringLiteral("must be <= %1%2 (got %3)").arg(num(range.max), unit(), num(v));
        });
    }
    bool atMost(const QString& key, double v, double max, const QString& what)
    {
        return check(key, v <= max, [&] {
            return QStringLiteral("must be <= %1 (%2) (got %3)").arg(what, num(max), num(v));
        });
    }
    bool shorterThan(const QString& key, const QString& s, qsizetype maxLength)
    {
        return check(key, s.size() <= maxLength, [&] {
            return QStringLiteral("must be at most %1 characters (got %2)")
                .arg(maxLength)
                .arg(s.size());
        });
    }
    bool check(const QString& key, bool ok, const QString& rule)
    {
        if (!ok)
            errors_.add(pathOf(key), rule);
        return ok;
    }
    // The rule's text is built only when it is broken: on a 50,000-entry file the passing
    // checks are most of the work.
    template <typename RuleText>
    requires std::is_invocable_r_v<QString, RuleText>
    bool check(const QString& key, bool ok, RuleText&& rule)
    {
        if (!ok)
            errors_.add(pathOf(key), rule());
        return ok;
    }

    void finish()
    {
        for (auto it = object_.begin(); it != object_.end(); ++it) {
            if (!valid_.contains(it.key()))
                errors_.add(pathOf(it.key()), QStringLiteral("unknown key (valid: %1)")
                                                  .arg(valid_.join(QStringLiteral(", "))));
        }
    }

private:
    Errors& errors_;
    QJsonObject object_;
    QString path_;
    QStringList valid_;
};

inline QString indexPath(const QString& path, qsizetype i)
{
    return path + QLatin1Char('[') + QString::number(i) + QLatin1Char(']');
}

// The object at `path`, or nullopt with an error naming what it got instead.
inline std::optional<QJsonObject> asObject(Errors& errors, const QJsonValue& v, const QString& path)
{
    if (v.isObject())
        return v.toObject();
    errors.add(path, QStringLiteral("expected object, got %1").arg(typeName(v)));
    return std::nullopt;
}

// A list's length cap; reported once, and every entry is still checked.
inline void checkCount(Errors& errors, const QString& path, qsizetype size, qsizetype max,
                       const char* what)
{
    if (size > max)
        errors.add(path, QStringLiteral("must list at most %1 %2 (got %3)")
                             .arg(max)
                             .arg(QLatin1String(what))
                             .arg(size));
}

// 1-based line and column of a byte offset, columns counted in characters.
inline std::pair<qsizetype, qsizetype> lineAndColumn(const QByteArray& json, qsizetype offset)
{
    const char* text = json.constData();
    const qsizetype end = std::clamp<qsizetype>(offset, 0, json.size());
    const qsizetype line = std::count(text, text + end, '\n') + 1;
    qsizetype lineStart = end;
    while (lineStart > 0 && text[lineStart - 1] != '\n')
        --lineStart;
    const qsizetype column = QString::fromUtf8(text + lineStart, end - lineStart).size() + 1;
    return {line, column};
}

inline QString invalidJsonAt(const QByteArray& json, qsizetype offset, const QString& what)
{
    const auto [line, column] = lineAndColumn(json, offset);
    return QStringLiteral("invalid JSON at line %1, column %2: %3").arg(line).arg(column).arg(what);
}

} // namespace stormwatch::json_schema
