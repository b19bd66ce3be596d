#pragma once
// The stormwatch executable's one stdout stream and one stderr stream. Every part of the
// command line (stormwatch_main.cpp, recording_cli.cpp, console.cpp) writes through these:
// two QTextStreams on the same FILE* each keep their own buffer, so text written in one
// order could reach the terminal in another.

#include <QTextStream>
#include <cstdio>

namespace stormwatch::cli {

// Inline: one stream for the whole program, whichever file asks.
inline QTextStream& out()
{
    static QTextStream s(stdout);
    return s;
}

inline QTextStream& err()
{
    static QTextStream s(stderr);
    return s;
}

} // namespace stormwatch::cli
