// escapeLogText: peer-chosen text becomes exactly one log line with no terminal escapes.
#include "client/log_text.h"

#include <QtTest>

using namespace stormwatch;

class TestLogText : public QObject {
    Q_OBJECT

private slots:
    void plainTextIsKept()
    {
        QCOMPARE(escapeLogText(std::string_view("Z28061.Attr12 ok: 30 s")),
                 std::string("Z28061.Attr12 ok: 30 s"));
        const std::string utf8 =
            "Zürich ✓ \xf0\x9f\x98\x80 \\n stays"; // printable non-ASCII, a literal backslash-n
        QCOMPARE(escapeLogText(utf8), utf8);
        QCOMPARE(escapeLogText(std::string_view()), std::string());
    }

    // The forged-line attack: one line, the ESC visible.
    void newlinesAndEscapesAreEscaped()
    {
        const std::string attack =
            "x\nstormwatch.gateway: fault: STA wedged for 999999 ms\x1b[31mRED";
        QCOMPARE(
            escapeLogText(attack),
            std::string("x\\nstormwatch.gateway: fault: STA wedged for 999999 ms\\x1b[31mRED"));
        QCOMPARE(escapeLogText(std::string_view("a\rb\tc\x7f"
                                                "d\x01")),
                 std::string("a\\rb\\tc\\x7fd\\x01"));
        QCOMPARE(escapeLogText(std::string_view("nul\0end", 7)), std::string("nul\\x00end"));
    }

    void unicodeControlsAndLineSeparatorsAreEscaped()
    {
        QCOMPARE(escapeLogText(std::string_view("a\xc2\x9b"
                                                "31mb")),
                 std::string("a\\u009b31mb")); // C1 CSI
        QCOMPARE(escapeLogText(std::string_view("a\xc2\x85"
                                                "b")),
                 std::string("a\\u0085b")); // NEL
        QCOMPARE(escapeLogText(std::string_view("a\xe2\x80\xa8"
                                                "b\xe2\x80\xa9")),
                 std::string("a\\u2028b\\u2029"));
    }

    void bytesThatAreNotUtf8AreEscaped()
    {
        QCOMPARE(escapeLogText(std::string_view("a\xff"
                                                "b")),
                 std::string("a\\xffb"));
        QCOMPARE(escapeLogText(std::string_view("\xc0\xaf")),
                 std::string("\\xc0\\xaf")); // overlong '/'
        QCOMPARE(escapeLogText(std::string_view("\xed\xa0\x80")),
                 std::string("\\xed\\xa0\\x80")); // a surrogate
        QCOMPARE(escapeLogText(std::string_view("end\xe2\x82")),
                 std::string("end\\xe2\\x82")); // cut short
        QCOMPARE(escapeLogText(std::string_view("\xf4\x90\x80\x80")),
                 std::string("\\xf4\\x90\\x80\\x80")); // > U+10FFFF
    }

    void escapingTwiceChangesNothing()
    {
        for (const std::string& s : {std::string("x\n\x1b[0m\\n\xc2\x9b\xff"), std::string("plain"),
                                     std::string("\\x1b")}) {
            const std::string once = escapeLogText(s);
            QCOMPARE(escapeLogText(once), once);
            QVERIFY(once.find('\n') == std::string::npos && once.find('\x1b') == std::string::npos);
        }
    }

    void longTextIsCutAtACharacterBoundary()
    {
        const std::string name = std::string(1 << 20, 'a');
        QCOMPARE(escapeLogText(name, 8), std::string("aaaaaaaa...(+1048568 bytes)"));
        // "é" is two bytes: a cut inside it backs up to before it.
        QCOMPARE(escapeLogText(std::string_view("abc\xc3\xa9xyz"), 4),
                 std::string("abc...(+5 bytes)"));
        QCOMPARE(escapeLogText(std::string_view("short"), 8), std::string("short"));
    }

    void qstringOverloadSharesCleanTextAndEscapesTheRest()
    {
        const QString clean = QStringLiteral("session 1 opened: Zürich");
        const QString same = escapeLogText(clean);
        QCOMPARE(same, clean);
        QCOMPARE(same.constData(), clean.constData()); // no copy
        QCOMPARE(escapeLogText(QStringLiteral("a\nb\x1b[31m") + QChar(0x2028)),
                 QStringLiteral("a\\nb\\x1b[31m\\u2028"));
        QCOMPARE(escapeLogText(QString(QChar(0x9b))), QStringLiteral("\\u009b"));
    }
};

QTEST_GUILESS_MAIN(TestLogText)
#include "tst_log_text.moc"
