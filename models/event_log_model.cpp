#include "models/event_log_model.h"

#include "client/log_text.h"

#include <QClipboard>
#include <QGuiApplication>
#include <algorithm>
#include <set>

namespace stormwatch {

QString severityText(int severity)
{
    switch (LogSeverity(severity)) {
    case LogSeverity::Debug:
        return QStringLiteral("debug");
    case LogSeverity::Info:
        return QStringLiteral("info");
    case LogSeverity::Warning:
        return QStringLiteral("warning");
    case LogSeverity::Error:
        return QStringLiteral("error");
    }
    return QStringLiteral("?");
}

QColor severityColor(int severity)
{
    switch (LogSeverity(severity)) {
    case LogSeverity::Debug:
        return QColor(0x80, 0x80, 0x80);
    case LogSeverity::Info:
        return {};
    case LogSeverity::Warning:
        return QColor(0xd9, 0x8c, 0x00);
    case LogSeverity::Error:
        return QColor(0xd6, 0x33, 0x2b);
    }
    return {};
}

EventLogModel::EventLogModel(QObject* parent) : QAbstractTableModel(parent) {}

int EventLogModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int EventLogModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : kColumnCount;
}

QVariant EventLogModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const LogEntry& e = m_rows[std::size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Time:
            return QString::number(e.tS, 'f', 3);
        case Wall:
            return e.wall.toString(QStringLiteral("HH:mm:ss.zzz"));
        case Subject:
            return e.subject;
        case Severity:
            return severityText(e.severity);
        case Message:
            return e.message;
        }
        return {};
    case SortRole:
        switch (index.column()) {
        case Time:
            return e.tS;
        case Wall:
            return e.wall;
        case Subject:
            return e.subject;
        case Severity:
            return e.severity;
        case Message:
            return e.message;
        }
        return {};
    case Qt::ForegroundRole: {
        const QColor c = severityColor(e.severity);
        return c.isValid() ? QVariant(c) : QVariant();
    }
    case Qt::ToolTipRole:
        return index.column() == Message ? QVariant(e.message) : QVariant();
    case SeverityRole:
        return e.severity;
    }
    return {};
}

QVariant EventLogModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Time:
        return tr("t (s)");
    case Wall:
        return tr("Wall clock");
    case Subject:
        return tr("Subject");
    case Severity:
        return tr("Severity");
    case Message:
        return tr("Message");
    }
    return {};
}

void EventLogModel::dropOldest(int count)
{
    count = std::min(count, int(m_rows.size()));
    if (count <= 0)
        return;
    beginRemoveRows({}, 0, count - 1);
    m_rows.erase(m_rows.begin(), m_rows.begin() + count);
    m_dropped += count;
    endRemoveRows();
}

void EventLogModel::append(const QVector<LogEntry>& entries)
{
    if (entries.isEmpty())
        return;
    // Only the newest `capacity` entries of a huge batch can survive; skip the rest.
    const int skip = std::max(0, int(entries.size()) - m_capacity);
    const int incoming = int(entries.size()) - skip;
    m_dropped += skip;
    dropOldest(int(m_rows.size()) + incoming - m_capacity);
    const int first = int(m_rows.size());
    beginInsertRows({}, first, first + incoming - 1);
    // Subjects and messages carry peers' text (gateway errors, notices, tag addresses): one
    // line each, no terminal escapes. Already-escaped text comes through unchanged.
    for (auto it = entries.cbegin() + skip; it != entries.cend(); ++it) {
        LogEntry& e = m_rows.emplace_back(*it);
        e.subject = escapeLogText(e.subject);
        e.message = escapeLogText(e.message);
    }
    endInsertRows();
}

void EventLogModel::clear()
{
    beginResetModel();
    m_rows.clear();
    m_dropped = 0;
    endResetModel();
}

void EventLogModel::setCapacity(int rows)
{
    m_capacity = std::max(1, rows);
    dropOldest(int(m_rows.size()) - m_capacity);
}

EventLogFilterProxy::EventLogFilterProxy(QObject* parent) : QSortFilterProxyModel(parent)
{
    setSortRole(EventLogModel::SortRole);
}

void EventLogFilterProxy::setMinimumSeverity(int severity)
{
    if (m_minSeverity == severity)
        return;
    m_minSeverity = severity;
    invalidateRowsFilter();
}

void EventLogFilterProxy::setText(const QString& text)
{
    if (m_text == text)
        return;
    m_text = text;
    invalidateRowsFilter();
}

bool EventLogFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    const QAbstractItemModel* m = sourceModel();
    if (m->data(m->index(sourceRow, 0, sourceParent), EventLogModel::SeverityRole).toInt() <
        m_minSeverity)
        return false;
    if (m_text.isEmpty())
        return true;
    for (int c : {EventLogModel::Subject, EventLogModel::Message}) {
        if (m->data(m->index(sourceRow, c, sourceParent))
                .toString()
                .contains(m_text, Qt::CaseInsensitive))
            return true;
    }
    return false;
}

namespace {
QString cell(QString text)
{
    text.replace(QLatin1Char('\t'), QLatin1Char(' '));
    text.replace(QLatin1Char('\n'), QLatin1Char(' '));
    text.replace(QLatin1Char('\r'), QLatin1Char(' '));
    return text;
}
} // namespace

QString rowsAsTsv(const QAbstractItemModel& model, const QModelIndexList& selected, bool header)
{
    std::set<int> rows;
    for (const QModelIndex& i : selected) {
        if (i.isValid() && i.model() == &model)
            rows.insert(i.row());
    }
    if (rows.empty())
        return {};
    QStringList lines;
    const int columns = model.columnCount();
    QStringList fields;
    if (header) {
        for (int c = 0; c < columns; ++c)
            fields << cell(model.headerData(c, Qt::Horizontal).toString());
        lines << fields.join(QLatin1Char('\t'));
    }
    for (int r : rows) {
        fields.clear();
        for (int c = 0; c < columns; ++c)
            fields << cell(model.data(model.index(r, c)).toString());
        lines << fields.join(QLatin1Char('\t'));
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

QString copyRowsToClipboard(const QAbstractItemModel& model, const QModelIndexList& selected)
{
    const QString tsv = rowsAsTsv(model, selected);
    if (QClipboard* clipboard = QGuiApplication::clipboard())
        clipboard->setText(tsv);
    return tsv;
}

} // namespace stormwatch
