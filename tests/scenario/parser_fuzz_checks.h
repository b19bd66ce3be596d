#pragma once
// What parseScenario() promises for any input whatsoever, shared by the ctest
// replay (tst_parser_fuzz.cpp) and the libFuzzer harness (fuzz_scenario_parser.cpp):
//   - it returns a Scenario or errors, never both and never neither;
//   - every error names the file and a JSON path that starts with "$", as one line of
//     bounded length (text echoed from the file is escaped and cut);
//   - a Scenario it returns survives its own round trip (scenarioToJson, then parsed again);
// and a deterministic mutator for inputs, so a replay is the same on every machine.

#include "scenario/scenario_parser.h"

#include <QByteArray>
#include <QJsonDocument>
#include <QList>
#include <QString>
#include <cstdint>
#include <cstring>

namespace stormwatch::fuzz {

inline constexpr qsizetype kMaxErrorLineChars = 2000;

// Empty when every error keeps the parsers' promise about errors (the scenario and the site
// parser alike), otherwise what broke. `maxLineChars`: the longest line an error may be.
inline QString checkErrors(const QList<ScenarioError>& errors, const QString& file,
                           qsizetype maxLineChars)
{
    for (const ScenarioError& e : errors) {
        const QString line = e.toString();
        if (e.file != file)
            return QStringLiteral("an error names file \"%1\"").arg(e.file.left(80));
        if (!e.path.startsWith(QLatin1Char('$')))
            return QStringLiteral("an error's path does not start with $: %1").arg(line.left(200));
        if (e.rule.isEmpty())
            return QStringLiteral("an error without a rule: %1").arg(line.left(200));
        if (line.contains(QLatin1Char('\n')) || line.contains(QLatin1Char('\r')))
            return QStringLiteral("an error spans lines: %1").arg(line.left(200));
        if (line.size() > maxLineChars)
            return QStringLiteral("an error line of %1 characters: %2")
                .arg(line.size())
                .arg(line.left(200));
    }
    return {};
}

// Empty when the outcome keeps every promise, otherwise what broke.
inline QString checkParse(const QByteArray& input)
{
    const QString file = QStringLiteral("fuzz.json");
    QList<ScenarioError> errors;
    const auto scenario = parseScenario(input, file, &errors);
    if (scenario && !errors.isEmpty())
        return QStringLiteral("a Scenario and %1 errors").arg(errors.size());
    if (!scenario && errors.isEmpty())
        return QStringLiteral("neither a Scenario nor an error");
    if (const QString broken = checkErrors(errors, file, kMaxErrorLineChars); !broken.isEmpty())
        return broken;
    if (scenario) {
        const QByteArray again =
            QJsonDocument(scenarioToJson(*scenario)).toJson(QJsonDocument::Compact);
        QList<ScenarioError> againErrors;
        const auto back = parseScenario(again, file, &againErrors);
        if (!back)
            return QStringLiteral("its own serialization does not parse: %1")
                .arg(againErrors.isEmpty() ? QString() : againErrors.first().toString().left(300));
        if (!(*back == *scenario))
            return QStringLiteral("its serialization parses to a different Scenario");
    }
    return {};
}

// splitmix64: the same sequence from the same seed on every platform (the standard
// library's distributions are not specified bit for bit).
class Random {
public:
    explicit Random(std::uint64_t seed) : m_state(seed) {}
    std::uint64_t next()
    {
        std::uint64_t z = (m_state += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    // 0 .. n - 1 (0 when n is 0)
    qsizetype below(qsizetype n) { return n <= 0 ? 0 : qsizetype(next() % std::uint64_t(n)); }

private:
    std::uint64_t m_state;
};

// Tokens that have broken JSON readers or this schema before: lenient numbers, numbers out
// of every range, big integers, bad strings and escapes, structure, bytes that are not text.
inline const QList<QByteArray>& interestingTokens()
{
    static const QList<QByteArray> tokens = {
        "1.",
        ".5",
        "-.5",
        "1.e5",
        "01",
        "-",
        "+1",
        "1e",
        "1e308",
        "-1e308",
        "1e400",
        "1e-400",
        "1e16",
        "1e9",
        "-0",
        "0",
        "-1",
        "86400",
        "86401",
        "9007199254740991",
        "9007199254740992",
        "9007199254740993",
        "-9007199254740993",
        "123456789012345678901234567890",
        "2147483648",
        "1073741824",
        "0.0005",
        "NaN",
        "Infinity",
        "true",
        "false",
        "null",
        "\"\"",
        "\"\\ud800\"",
        "\"\\udc00\"",
        "\"\\x\"",
        "\"\\u00\"",
        "\"\x01\"",
        "\"\xff\"",
        "\"\xc0\x80\"",
        "\"\xed\xa0\x80\"",
        "\"\\n\\u001b[31m\"",
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        "\"",
        "\\",
        "{}",
        "[]",
        "[[[[[[[[",
        "]]]]]]]]",
        "\"a\":1,",
        "\"name\":\"x\",",
        QByteArray("\0", 1),
        "\xef\xbb\xbf",
        "\t",
        "\r\n",
        "/* */",
        "\"wedge\"",
        "\"slow\"",
        "\"redeploy\"",
        "\"set_levers\"",
        "\"kill_gateway\"",
        "\"levers-off\"",
        "\"all\"",
        "{\"preset\":\"all\",\"recovery\":{\"multiplier\":1e308}}",
    };
    return tokens;
}

// One to four stacked edits of `input`: flip, insert, delete or duplicate bytes, put an
// interesting token in, swap a number for one, or splice in part of another input.
inline QByteArray mutate(const QByteArray& input, const QList<QByteArray>& others, Random& r)
{
    QByteArray b = input;
    const int edits = 1 + int(r.below(4));
    for (int e = 0; e < edits; ++e) {
        const qsizetype at = r.below(b.size() + 1);
        switch (r.below(8)) {
        case 0: // flip a bit
            if (!b.isEmpty()) {
                const qsizetype i = r.below(b.size());
                b[i] = char(b[i] ^ char(1 << r.below(8)));
            }
            break;
        case 1: // insert a random byte
            b.insert(at, char(r.below(256)));
            break;
        case 2: // delete a range
            b.remove(at, 1 + r.below(16));
            break;
        case 3: { // duplicate a range
            const QByteArray part = b.mid(at, 1 + r.below(64));
            b.insert(r.below(b.size() + 1), part);
            break;
        }
        case 4: // insert an interesting token
        case 5: {
            const auto& tokens = interestingTokens();
            b.insert(at, tokens[r.below(tokens.size())]);
            break;
        }
        case 6: { // replace the number at or after `at` with an interesting token
            qsizetype start = at;
            while (start < b.size() && !(b[start] == '-' || (b[start] >= '0' && b[start] <= '9')))
                ++start;
            qsizetype end = start;
            while (end < b.size() && std::strchr("0123456789+-.eE", b[end]) && b[end] != '\0')
                ++end;
            const auto& tokens = interestingTokens();
            if (start < b.size())
                b.replace(start, end - start, tokens[r.below(tokens.size())]);
            break;
        }
        default: { // splice: our head, another input's tail
            if (others.isEmpty())
                break;
            const QByteArray& other = others[r.below(others.size())];
            b = b.left(at) + other.mid(r.below(other.size() + 1));
            break;
        }
        }
    }
    return b;
}

} // namespace stormwatch::fuzz
