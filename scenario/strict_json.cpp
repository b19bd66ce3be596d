#include "scenario/strict_json.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <unordered_set>
#include <vector>

namespace stormwatch {

namespace {

// Qt stops at 1024 levels before this pass runs; the pass keeps its own bound so it never
// depends on that (its stack is a vector, not the call stack).
constexpr std::size_t kMaxDepth = 10000;
constexpr char kMaxSafeIntegerDigits[] = "9007199254740991"; // 2^53 - 1

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

// A character as a message shows it: 'x' when printable ASCII, else its byte value.
QString describe(char c)
{
    const auto u = static_cast<unsigned char>(c);
    if (u > 0x20 && u < 0x7f)
        return QStringLiteral("'%1'").arg(QLatin1Char(c));
    return QStringLiteral("byte 0x%1")
        .arg(QString::number(u, 16).rightJustified(2, QLatin1Char('0')).toUpper());
}

void appendUtf8(std::string* out, std::uint32_t cp)
{
    if (cp < 0x80) {
        out->push_back(char(cp));
    } else if (cp < 0x800) {
        out->push_back(char(0xC0 | (cp >> 6)));
        out->push_back(char(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        out->push_back(char(0xE0 | (cp >> 12)));
        out->push_back(char(0x80 | ((cp >> 6) & 0x3F)));
        out->push_back(char(0x80 | (cp & 0x3F)));
    } else {
        out->push_back(char(0xF0 | (cp >> 18)));
        out->push_back(char(0x80 | ((cp >> 12) & 0x3F)));
        out->push_back(char(0x80 | ((cp >> 6) & 0x3F)));
        out->push_back(char(0x80 | (cp & 0x3F)));
    }
}

struct Frame {
    bool array = false;
    qsizetype index = 0; // arrays: the element being read
    std::string key;     // objects: the member being read (decoded UTF-8)
    bool hasKey = false;
    std::unordered_set<std::string> keys; // objects: every key so far, for duplicates
};

class Checker {
public:
    Checker(const QByteArray& json, int maxIssues)
        : m_begin(json.constData()), m_p(m_begin), m_end(m_begin + json.size()),
          m_maxIssues(maxIssues)
    {
    }

    QList<StrictJsonIssue> run()
    {
        if (m_end - m_p >= 3 && std::memcmp(m_p, "\xEF\xBB\xBF", 3) == 0)
            m_p += 3; // RFC 8259 8.1
        parse();
        return m_issues;
    }

private:
    QString path() const
    {
        QString p = QStringLiteral("$");
        for (const Frame& f : m_stack) {
            if (f.array)
                p += QStringLiteral("[%1]").arg(f.index);
            else if (f.hasKey)
                p += QLatin1Char('.') +
                     quotedText(QString::fromUtf8(f.key.data(), qsizetype(f.key.size())));
        }
        return p;
    }

    // Records an issue; false when the pass must stop (the cap is reached).
    bool issueAt(const char* at, const QString& rule)
    {
        m_issues.append({path(), qsizetype(at - m_begin), rule});
        return int(m_issues.size()) < m_maxIssues;
    }
    // A syntax error: recorded, and the pass stops.
    bool syntaxAt(const char* at, const QString& rule)
    {
        issueAt(at, rule);
        return false;
    }
    bool syntax(const QString& rule) { return syntaxAt(m_p, rule); }

    void ws()
    {
        while (m_p < m_end && (*m_p == ' ' || *m_p == '\t' || *m_p == '\n' || *m_p == '\r'))
            ++m_p;
    }

    bool parse()
    {
        ws();
        bool expectValue = true;
        for (;;) {
            if (expectValue) {
                if (m_p == m_end)
                    return syntax(QStringLiteral("the text ends where a value should be"));
                const char c = *m_p;
                if (c == '{' || c == '[') {
                    ++m_p;
                    ws();
                    Frame f;
                    f.array = c == '[';
                    m_stack.push_back(std::move(f));
                    if (m_stack.size() > kMaxDepth)
                        return syntax(
                            QStringLiteral("nested deeper than %1 levels").arg(kMaxDepth));
                    if (m_p < m_end && *m_p == (c == '[' ? ']' : '}')) {
                        ++m_p;
                        m_stack.pop_back();
                        expectValue = false;
                    } else if (c == '{' && !key()) {
                        return false;
                    }
                    continue;
                }
                if (!scalar())
                    return false;
                expectValue = false;
                continue;
            }
            ws();
            if (m_stack.empty()) {
                if (m_p != m_end)
                    return syntax(QStringLiteral("%1 after the document").arg(describe(*m_p)));
                return true;
            }
            Frame& f = m_stack.back();
            if (m_p == m_end)
                return syntax(f.array ? QStringLiteral("the text ends inside an array")
                                      : QStringLiteral("the text ends inside an object"));
            if (*m_p == ',') {
                ++m_p;
                ws();
                if (f.array) {
                    ++f.index;
                } else {
                    f.hasKey = false;
                    if (!key())
                        return false;
                }
                expectValue = true;
                continue;
            }
            if (*m_p == (f.array ? ']' : '}')) {
                ++m_p;
                m_stack.pop_back();
                continue;
            }
            return syntax(QStringLiteral("expected ',' or '%1', got %2")
                              .arg(QString(QLatin1Char(f.array ? ']' : '}')), describe(*m_p)));
        }
    }

    bool key()
    {
        if (m_p == m_end || *m_p != '"')
            return syntax(m_p == m_end ? QStringLiteral("the text ends where a key should be")
                                       : QStringLiteral("expected a key in double quotes, got %1")
                                             .arg(describe(*m_p)));
        const char* at = m_p;
        std::string decoded;
        if (!string(&decoded))
            return false;
        Frame& f = m_stack.back();
        const bool fresh = f.keys.insert(decoded).second;
        f.key = std::move(decoded);
        f.hasKey = true;
        if (!fresh &&
            !issueAt(at,
                     QStringLiteral("duplicate key (which of its values counts is not defined)")))
            return false;
        ws();
        if (m_p == m_end || *m_p != ':')
            return syntax(QStringLiteral("expected ':' after a key"));
        ++m_p;
        ws();
        return true;
    }

    bool scalar()
    {
        const char c = *m_p;
        if (c == '"')
            return string(nullptr);
        if (c == '-' || isDigit(c))
            return number();
        if (c == '.')
            return syntax(QStringLiteral("a number needs a digit before '.'"));
        for (const char* word : {"true", "false", "null"}) {
            const auto n = qsizetype(std::strlen(word));
            if (c == word[0]) {
                if (m_end - m_p >= n && std::memcmp(m_p, word, std::size_t(n)) == 0) {
                    m_p += n;
                    return true;
                }
                return syntax(QStringLiteral("expected %1").arg(QLatin1String(word)));
            }
        }
        return syntax(QStringLiteral("%1 where a value should be").arg(describe(c)));
    }

    void digits()
    {
        while (m_p < m_end && isDigit(*m_p))
            ++m_p;
    }

    bool number()
    {
        const char* start = m_p;
        if (*m_p == '-')
            ++m_p;
        if (m_p == m_end || !isDigit(*m_p))
            return syntax(QStringLiteral("a number needs a digit after '-'"));
        const char* firstDigit = m_p;
        if (*m_p == '0') {
            ++m_p;
            if (m_p < m_end && isDigit(*m_p))
                return syntax(QStringLiteral("a number must not start with 0 (write 7, not 07)"));
        } else {
            digits();
        }
        const char* intEnd = m_p;
        bool integer = true;
        if (m_p < m_end && *m_p == '.') {
            ++m_p;
            integer = false;
            if (m_p == m_end || !isDigit(*m_p))
                return syntax(QStringLiteral("a number needs a digit after '.'"));
            digits();
        }
        if (m_p < m_end && (*m_p == 'e' || *m_p == 'E')) {
            ++m_p;
            integer = false;
            if (m_p < m_end && (*m_p == '+' || *m_p == '-'))
                ++m_p;
            if (m_p == m_end || !isDigit(*m_p))
                return syntax(QStringLiteral("a number needs a digit in its exponent"));
            digits();
        }
        if (integer) {
            const std::size_t n = std::size_t(intEnd - firstDigit);
            const std::size_t maxDigits = sizeof kMaxSafeIntegerDigits - 1;
            const bool tooBig =
                n > maxDigits ||
                (n == maxDigits && std::memcmp(firstDigit, kMaxSafeIntegerDigits, n) > 0);
            if (tooBig) {
                QString literal = QString::fromLatin1(start, qsizetype(intEnd - start));
                if (literal.size() > 40)
                    literal = literal.left(40) + QStringLiteral("…");
                return issueAt(
                    start, QStringLiteral(
                               "integer %1 is outside ±%2 (2^53 - 1) and cannot be read exactly")
                               .arg(literal, QLatin1String(kMaxSafeIntegerDigits)));
            }
        }
        return true;
    }

    // Reads four hex digits at `p`; false when they are not there.
    bool hex4(const char* p, std::uint32_t* out) const
    {
        if (m_end - p < 4)
            return false;
        std::uint32_t v = 0;
        for (int i = 0; i < 4; ++i) {
            const int h = hexValue(p[i]);
            if (h < 0)
                return false;
            v = v * 16 + std::uint32_t(h);
        }
        *out = v;
        return true;
    }

    // One UTF-8 sequence (RFC 3629: shortest form, no surrogates, at most U+10FFFF).
    bool utf8(std::string* out)
    {
        const auto* u = reinterpret_cast<const unsigned char*>(m_p);
        const unsigned char b0 = u[0];
        int len = 0;
        unsigned char lo = 0x80, hi = 0xBF; // the second byte's range
        if (b0 >= 0xC2 && b0 <= 0xDF)
            len = 2;
        else if (b0 == 0xE0) {
            len = 3;
            lo = 0xA0;
        } else if (b0 >= 0xE1 && b0 <= 0xEC)
            len = 3;
        else if (b0 == 0xED) {
            len = 3;
            hi = 0x9F;
        } // no UTF-16 surrogates
        else if (b0 >= 0xEE && b0 <= 0xEF)
            len = 3;
        else if (b0 == 0xF0) {
            len = 4;
            lo = 0x90;
        } else if (b0 >= 0xF1 && b0 <= 0xF3)
            len = 4;
        else if (b0 == 0xF4) {
            len = 4;
            hi = 0x8F;
        } // at most U+10FFFF
        bool ok = len > 0 && m_end - m_p >= len;
        for (int i = 1; ok && i < len; ++i) {
            const unsigned char b = u[i];
            ok = i == 1 ? (b >= lo && b <= hi) : (b >= 0x80 && b <= 0xBF);
        }
        if (!ok)
            return syntax(QStringLiteral("invalid UTF-8 (%1)").arg(describe(*m_p)));
        if (out)
            out->append(m_p, std::size_t(len));
        m_p += len;
        return true;
    }

    // A string at the opening quote; its decoded text goes to `out` when given.
    bool string(std::string* out)
    {
        ++m_p;
        for (;;) {
            if (m_p == m_end)
                return syntax(QStringLiteral("the text ends inside a string"));
            const auto c = static_cast<unsigned char>(*m_p);
            if (c == '"') {
                ++m_p;
                return true;
            }
            if (c < 0x20) {
                const QString hex =
                    QStringLiteral("%1").arg(uint(c), 4, 16, QLatin1Char('0')).toUpper();
                return syntax(
                    QStringLiteral("control character U+%1 in a string (write it as \\u%1)")
                        .arg(hex));
            }
            if (c >= 0x80) {
                if (!utf8(out))
                    return false;
                continue;
            }
            if (c != '\\') {
                if (out)
                    out->push_back(char(c));
                ++m_p;
                continue;
            }
            const char* at = m_p;
            if (m_end - m_p < 2)
                return syntax(QStringLiteral("the text ends inside a string"));
            const char e = m_p[1];
            m_p += 2;
            static const char kEscapes[] = "\"\\/bfnrt";
            static const char kDecoded[] = "\"\\/\b\f\n\r\t";
            const char* simple = e == '\0' ? nullptr : std::strchr(kEscapes, e);
            if (simple) {
                if (out)
                    out->push_back(kDecoded[simple - kEscapes]);
                continue;
            }
            if (e != 'u') {
                const auto u = static_cast<unsigned char>(e);
                return syntaxAt(
                    at, u > 0x20 && u < 0x7f
                            ? QStringLiteral("unknown escape \\%1").arg(QLatin1Char(e))
                            : QStringLiteral("unknown escape: \\ then %1").arg(describe(e)));
            }
            std::uint32_t cp = 0;
            if (!hex4(m_p, &cp))
                return syntaxAt(at, QStringLiteral("\\u needs four hex digits"));
            const QString written = QStringLiteral("\\u") + QString::fromLatin1(m_p, 4);
            m_p += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                std::uint32_t low = 0;
                if (m_end - m_p >= 6 && m_p[0] == '\\' && m_p[1] == 'u' && hex4(m_p + 2, &low) &&
                    low >= 0xDC00 && low <= 0xDFFF) {
                    m_p += 6;
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                } else {
                    return syntaxAt(at,
                                    QStringLiteral("unpaired UTF-16 surrogate %1").arg(written));
                }
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                return syntaxAt(at, QStringLiteral("unpaired UTF-16 surrogate %1").arg(written));
            }
            if (out)
                appendUtf8(out, cp);
        }
    }

    const char* m_begin;
    const char* m_p;
    const char* m_end;
    int m_maxIssues;
    std::vector<Frame> m_stack;
    QList<StrictJsonIssue> m_issues;
};

bool needsEscape(char16_t c)
{
    return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x2028 ||
           c == 0x2029 ||                                                // controls, line breaks
           (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069); // bidirectional overrides
}

} // namespace

QList<StrictJsonIssue> strictJsonIssues(const QByteArray& json, int maxIssues)
{
    return Checker(json, std::max(1, maxIssues)).run();
}

QString quotedText(const QString& text, qsizetype maxChars)
{
    QString out;
    out.reserve(std::min(text.size(), maxChars) + 8);
    qsizetype shown = 0;
    for (qsizetype i = 0; i < text.size(); ++i) {
        if (shown >= maxChars) {
            out += QStringLiteral("…");
            break;
        }
        const char16_t c = text.at(i).unicode();
        if (!needsEscape(c)) {
            out += QChar(c);
            if (QChar::isHighSurrogate(c) && i + 1 < text.size() && text.at(i + 1).isLowSurrogate())
                out += text.at(++i); // a surrogate pair is one character: never cut in two
        } else if (c == u'\n') {
            out += QStringLiteral("\\n");
        } else if (c == u'\r') {
            out += QStringLiteral("\\r");
        } else if (c == u'\t') {
            out += QStringLiteral("\\t");
        } else {
            out += QStringLiteral("\\u%1").arg(uint(c), 4, 16, QLatin1Char('0'));
        }
        ++shown;
    }
    return out;
}

} // namespace stormwatch
