#include "log_text.h"

#include <QByteArray>

namespace stormwatch {

namespace {

constexpr char kHex[] = "0123456789abcdef";

void appendHexByte(std::string& out, unsigned char b)
{
    out += "\\x";
    out += kHex[b >> 4];
    out += kHex[b & 0xf];
}

void appendCodePoint(std::string& out, char32_t cp) // \uNNNN (only BMP code points reach here)
{
    out += "\\u";
    for (int shift = 12; shift >= 0; shift -= 4)
        out += kHex[(cp >> shift) & 0xf];
}

// Length of the well-formed UTF-8 sequence at text[i] (RFC 3629: no overlongs, no
// surrogates, nothing above U+10FFFF) and its code point; 0 when it is not one.
std::size_t utf8Sequence(std::string_view text, std::size_t i, char32_t& cp)
{
    const auto at = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char lead = at(i);
    std::size_t length = 0;
    unsigned char low = 0x80, high = 0xbf; // allowed range of the second byte
    if (lead >= 0xc2 && lead <= 0xdf) {
        length = 2;
        cp = lead & 0x1f;
    } else if (lead >= 0xe0 && lead <= 0xef) {
        length = 3;
        cp = lead & 0x0f;
        if (lead == 0xe0)
            low = 0xa0; // overlong
        if (lead == 0xed)
            high = 0x9f; // surrogates
    } else if (lead >= 0xf0 && lead <= 0xf4) {
        length = 4;
        cp = lead & 0x07;
        if (lead == 0xf0)
            low = 0x90; // overlong
        if (lead == 0xf4)
            high = 0x8f; // above U+10FFFF
    } else {
        return 0;
    }
    if (i + length > text.size())
        return 0;
    for (std::size_t k = 1; k < length; ++k) {
        const unsigned char c = at(i + k);
        if (k == 1 ? (c < low || c > high) : (c < 0x80 || c > 0xbf))
            return 0;
        cp = (cp << 6) | (c & 0x3f);
    }
    return length;
}

bool mustEscape(char32_t cp)
{
    return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029;
}

} // namespace

std::string escapeLogText(std::string_view text, std::size_t maxBytes)
{
    std::size_t end = text.size();
    if (maxBytes > 0 && end > maxBytes) {
        end = maxBytes;
        while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xc0) == 0x80)
            --end; // not inside a UTF-8 sequence
    }
    std::string out;
    out.reserve(end + 16);
    for (std::size_t i = 0; i < end;) {
        const auto b = static_cast<unsigned char>(text[i]);
        if (b < 0x80) {
            switch (b) {
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            default:
                if (mustEscape(b))
                    appendHexByte(out, b);
                else
                    out += static_cast<char>(b);
            }
            ++i;
            continue;
        }
        char32_t cp = 0;
        const std::size_t length = utf8Sequence(text.substr(0, end), i, cp);
        if (length == 0) {
            appendHexByte(out, b); // not UTF-8
            ++i;
            continue;
        }
        if (mustEscape(cp))
            appendCodePoint(out, cp);
        else
            out.append(text.substr(i, length));
        i += length;
    }
    if (end < text.size())
        out += "...(+" + std::to_string(text.size() - end) + " bytes)";
    return out;
}

QString escapeLogText(const QString& text)
{
    bool clean = true;
    for (const QChar c : text) {
        if (mustEscape(c.unicode())) {
            clean = false;
            break;
        }
    }
    if (clean)
        return text;
    const QByteArray utf8 = text.toUtf8();
    return QString::fromStdString(
        escapeLogText(std::string_view(utf8.constData(), std::size_t(utf8.size()))));
}

} // namespace stormwatch
