#pragma once
// The engine's log as a table (scheduler time, wall clock, subject, severity, message), fed
// in batches and capped: past the cap the oldest rows go first, so a long storm cannot eat
// the workstation's memory. A filter proxy narrows by minimum severity and text, and
// selected rows copy out as TSV (pastes into a spreadsheet or an incident note).

#include "client/engine_samples.h"

#include <QAbstractTableModel>
#include <QColor>
#include <QSortFilterProxyModel>
#include <deque>

namespace stormwatch {

// The values of stormwatch::Severity (client/gateway_connection.h) as the log carries them.
enum class LogSeverity { Debug = 0, Info = 1, Warning = 2, Error = 3 };
QString severityText(int severity); // "debug", "info", "warning", "error"
QColor severityColor(int severity);

class EventLogModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Time, Wall, Subject, Severity, Message };
    static constexpr int kColumnCount = 5;
    enum Role { SeverityRole = Qt::UserRole + 1, SortRole };
    static constexpr int kDefaultCapacity = 50'000;

    explicit EventLogModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    void append(const QVector<LogEntry>& entries);
    void clear();
    // Shrinking drops the oldest rows at once. At least 1.
    void setCapacity(int rows);
    int capacity() const { return m_capacity; }
    // Rows dropped off the front since the last clear().
    qint64 droppedCount() const { return m_dropped; }
    const LogEntry& entry(int row) const { return m_rows[std::size_t(row)]; }

private:
    void dropOldest(int count);

    std::deque<LogEntry> m_rows; // O(1) at both ends: the cap drops from the front
    int m_capacity = kDefaultCapacity;
    qint64 m_dropped = 0;
};

// Rows at or above a minimum severity whose subject or message contains the text.
class EventLogFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit EventLogFilterProxy(QObject* parent = nullptr);
    void setMinimumSeverity(int severity);
    int minimumSeverity() const { return m_minSeverity; }
    void setText(const QString& text);
    QString text() const { return m_text; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    int m_minSeverity = int(LogSeverity::Debug);
    QString m_text;
};

// The rows touched by `selected` (any model, e.g. a proxy), in row order, one line each,
// columns joined by tabs; tabs and newlines inside a cell become spaces. With `header` the
// first line holds the column titles.
QString rowsAsTsv(const QAbstractItemModel& model, const QModelIndexList& selected,
                  bool header = true);
// rowsAsTsv() onto the system clipboard; returns what was copied.
QString copyRowsToClipboard(const QAbstractItemModel& model, const QModelIndexList& selected);

} // namespace stormwatch
