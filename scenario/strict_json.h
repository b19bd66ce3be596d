#pragma once

// A strict pass over a JSON text that Qt's reader has already accepted.
//
// QJsonDocument stays the parser of record: Qt is the dependency, and its reader builds the
// values every rule is checked on. But it is lenient where a strict parser is not: it takes
// `1.`, `.5` and `1.e5`, control characters and unknown escapes inside strings, lone UTF-16
// surrogates, and a key written twice (keeping the last); and an integer above 2^53 reads
// back rounded (`9007199254740993` → …992) without a word. Writing a second, complete JSON
// parser to get strictness would mean two readers that can disagree about the same bytes.
// This pass is smaller: it walks the text once against RFC 8259's grammar without building
// anything, and reports what the strict grammar rejects plus the two ambiguities above,
// each with the JSON path it was found at. It runs only when Qt accepted the text, so a
// file is read by Qt or not at all.

#include <QByteArray>
#include <QList>
#include <QString>

namespace stormwatch {

struct StrictJsonIssue {
    QString path;     // "$.timeline[2].duration_s"; "$" at the top
    qsizetype offset; // byte offset into the text
    QString rule;     // "a number needs a digit after '.'"
};

// Every issue up to `maxIssues`, in text order. A syntax error ends the pass (what follows
// cannot be read reliably); a duplicate key or an inexact integer does not. Linear in the
// text's size; iterative, so nesting depth costs no stack.
QList<StrictJsonIssue> strictJsonIssues(const QByteArray& json, int maxIssues = 50);

// Text quoted from a file into a message: control characters escaped (\n, \u001b) so one
// message stays one line, and cut to `maxChars` characters with "…".
QString quotedText(const QString& text, qsizetype maxChars = 64);

} // namespace stormwatch
