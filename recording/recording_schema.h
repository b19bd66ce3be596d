#pragma once
// The recording file's schema: one SQLite database, versioned in its `meta` table
// (docs/recordings.md lists every table). Shared by the writer and the reader.

#include <QSqlDatabase>
#include <QString>

namespace stormwatch::recording {

// Bumped whenever a table or column changes meaning; a reader refuses a newer file.
// 1: the first. 2: tags.advise (the advise kind registered), tags.rejected and
// tag_events.rejected (the gateway refused the item); a schema-1 file reads them as unknown.
// 3: tags.received_s (run time its last value arrived), tags.stale, tags.stale_after_s and
// tag_events.stale; an older file reads them as unknown (no age, never stale).
inline constexpr int kSchemaVersion = 3;
// What the `meta` table's `format` says, so a foreign SQLite file is told apart.
inline constexpr const char* kFormat = "stormwatch-recording";

// Creates every table of kSchemaVersion in an empty database. "" on success.
QString createSchema(QSqlDatabase& db);
// "" when the Qt SQLite driver is there, else what to install.
QString driverProblem();
// A connection name nobody else uses (Qt SQL connections are named, per thread).
QString uniqueConnectionName(const char* role);

} // namespace stormwatch::recording
