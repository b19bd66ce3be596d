#pragma once
// Text a peer chose (a client name, a tag address, a gateway's error or notice text), made
// safe for a log line, the event log or a report: one call, one line, no terminal escapes.
//
// Escaped: C0 controls and DEL as \n \r \t or \xNN (ESC is \x1b), C1 controls as \u0080…
// \u009f (U+009B is a CSI on some terminals), U+2028/U+2029 (line breaks to many viewers)
// as \u2028 \u2029, and bytes that are not UTF-8 as \xNN. Everything else, printable
// non-ASCII text included, is kept as it is.
//
// A backslash is kept as it is, so escaping is idempotent: escapeLogText(escapeLogText(s))
// == escapeLogText(s), and each layer a string passes (connection log, event log model)
// may escape it again without doubling anything. The price: a literal "\n" typed by the
// peer reads like an escaped newline — acceptable in a log, and never a line break.
//
// No dependency beyond the standard library and QtCore: client/, gateway/ (as it uses
// client/scheduler.h) and models/ all reach it.

#include <QString>
#include <cstddef>
#include <string>
#include <string_view>

namespace stormwatch {

// At most `maxBytes` bytes of the input are escaped (0 = all); a longer input ends in
// "…(+N bytes)" so a 1 MiB name costs one short line.
std::string escapeLogText(std::string_view text, std::size_t maxBytes = 0);
// The same for UTF-16 text; returns `text` itself (shared, no copy) when nothing needs escaping.
QString escapeLogText(const QString& text);

} // namespace stormwatch
