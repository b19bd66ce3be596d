#include "models/tag_table_model.h"

#include "client/gateway_connection.h" // the OPC quality codes

#include <QDateTime>

#include <algorithm>
#include <tuple>

namespace stormwatch {

QualityClass qualityClassOf(int opcQuality)
{
    switch (opcQuality & 0xC0) {
    case 0xC0: return QualityClass::Good;
    case 0x40: return QualityClass::Uncertain;
    default: return QualityClass::Bad;
    }
}

QString qualityText(QualityClass quality)
{
    switch (quality) {
    case QualityClass::Good: return QStringLiteral("Good");
    case QualityClass::Uncertain: return QStringLiteral("Uncertain");
    case QualityClass::Bad: return QStringLiteral("Bad");
    }
    return {};
}

QColor qualityColor(QualityClass quality)
{
    // Readable on both the light and the dark palette.
    switch (quality) {
    case QualityClass::Good: return QColor(0x2e, 0x9e, 0x44);
    case QualityClass::Uncertain: return QColor(0xd9, 0x8c, 0x00);
    case QualityClass::Bad: return QColor(0xd6, 0x33, 0x2b);
    }
    return {};
}

TagTableModel::TagTableModel(QObject* parent) : QAbstractTableModel(parent) {}

int TagTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int TagTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : kColumnCount;
}

QString TagTableModel::formatTimestamp(qint64 us)
{
    if (us <= 0)
        return {};
    if (us < kEpochThresholdUs)
        return QStringLiteral("t=%1 s").arg(double(us) / 1e6, 0, 'f', 3);
    return QDateTime::fromMSecsSinceEpoch(us / 1000).toString(QStringLiteral("HH:mm:ss.zzz"));
}

QString TagTableModel::subscribeResultText(const TagChange& t)
{
    if (t.itemHandle != 0)
        return QStringLiteral("ok");
    return t.error.isEmpty() ? QStringLiteral("pending") : t.error;
}

QVariant TagTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const TagChange& t = m_rows[index.row()];
    const QualityClass q = qualityClassOf(t.quality);
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Instance: return t.instanceName;
        case Tag: return t.tagName;
        case Value: return t.text.isEmpty() ? QString::number(t.value, 'g', 8) : t.text;
        case Quality:
            if (t.orphaned)
                return QStringLiteral("%1 (%2), orphaned").arg(qualityText(q)).arg(t.quality);
            if (t.quality == kQualityUncertainLastUsable)
                return QStringLiteral("%1 (%2), last usable value").arg(qualityText(q)).arg(t.quality);
            return QStringLiteral("%1 (%2)").arg(qualityText(q)).arg(t.quality);
        case SourceTimestamp: return formatTimestamp(t.sourceTimestampUs);
        case ItemHandle: return t.itemHandle != 0 ? QVariant(t.itemHandle) : QVariant(QString());
        case SubscribeResult: return subscribeResultText(t);
        case Advise: return t.advise;
        case FirstValue: return formatTimestamp(m_firstValueUs[index.row()]);
        case LastError: return t.error;
        }
        return {};
    case SortRole:
        switch (index.column()) {
        case Instance: return t.instanceName;
        case Tag: return t.tagName;
        case Value: return t.text.isEmpty() ? QVariant(t.value) : QVariant(t.text);
        case Quality: return t.quality;
        case SourceTimestamp: return t.sourceTimestampUs;
        case ItemHandle: return t.itemHandle;
        case SubscribeResult: return subscribeResultText(t);
        case Advise: return t.advise;
        case FirstValue: return m_firstValueUs[index.row()];
        case LastError: return t.error;
        }
        return {};
    case Qt::ForegroundRole:
        // An orphaned tag is red across the row: the one state a person must act on.
        if (t.orphaned)
            return QVariant(qualityColor(QualityClass::Bad));
        if (index.column() == SubscribeResult && failedToAdd(t))
            return QVariant(qualityColor(QualityClass::Bad));
        return index.column() == Quality ? QVariant(qualityColor(q)) : QVariant();
    case Qt::ToolTipRole:
        if (t.orphaned)
            return tr("Orphaned: not Good, no live item on the gateway, no subscribe in flight "
                      "and no retry scheduled - nothing will ever bring this tag back. The "
                      "resubscribe_guard and drop_superseded levers cure the known causes.");
        return (index.column() == LastError || index.column() == SubscribeResult) && !t.error.isEmpty()
                   ? QVariant(t.error)
                   : QVariant();
    case Qt::TextAlignmentRole:
        return index.column() == Value || index.column() == ItemHandle
                   ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter))
                   : QVariant();
    case QualityClassRole: return int(q);
    case QualityCodeRole: return t.quality;
    case OrphanedRole: return t.orphaned;
    case FailedToAddRole: return failedToAdd(t);
    case NeverReceivedRole: return m_firstValueUs[index.row()] == 0;
    }
    return {};
}

QVariant TagTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Instance: return tr("Instance");
    case Tag: return tr("Tag");
    case Value: return tr("Value");
    case Quality: return tr("Quality");
    case SourceTimestamp: return tr("Source timestamp");
    case ItemHandle: return tr("Item handle");
    case SubscribeResult: return tr("Subscribe");
    case Advise: return tr("Advise");
    case FirstValue: return tr("First value");
    case LastError: return tr("Last error");
    }
    return {};
}

void TagTableModel::count(const TagChange& row, qint64 firstValueUs, int sign)
{
    m_counts[std::size_t(qualityClassOf(row.quality))] += sign;
    m_failedToAdd += sign * int(failedToAdd(row));
    m_neverReceived += sign * int(firstValueUs == 0);
}

void TagTableModel::applyChanges(const QVector<TagChange>& changes)
{
    if (changes.isEmpty())
        return;
    const auto before = std::make_tuple(m_counts, m_failedToAdd, m_neverReceived);
    QVector<int> updated;
    updated.reserve(changes.size());
    QVector<TagChange> added;
    QHash<qint64, int> addedIndex; // a tag new in this batch may change twice in it
    QHash<int, qint64> addedFirst;  // its first value, when that was not its last change
    for (const TagChange& c : changes) {
        const qint64 k = key(c.instance, c.tag);
        if (const auto it = m_rowByKey.constFind(k); it != m_rowByKey.cend()) {
            TagChange& row = m_rows[*it];
            qint64& first = m_firstValueUs[*it];
            count(row, first, -1);
            row = c;
            if (first == 0 && hasValue(c))
                first = c.sourceTimestampUs;
            count(row, first, +1);
            updated.push_back(*it);
        } else if (const auto a = addedIndex.constFind(k); a != addedIndex.cend()) {
            // The first value stays the first even if the tag changes again in this batch.
            const qint64 first = hasValue(added[*a]) ? added[*a].sourceTimestampUs : 0;
            added[*a] = c;
            if (first != 0)
                addedFirst[*a] = first;
        } else {
            addedIndex.insert(k, int(added.size()));
            added.push_back(c);
        }
    }
    emitChangedRanges(updated);
    if (!added.isEmpty()) {
        const int first = int(m_rows.size());
        beginInsertRows({}, first, first + int(added.size()) - 1);
        m_rows.reserve(first + added.size());
        m_firstValueUs.reserve(first + added.size());
        for (int a = 0; a < int(added.size()); ++a) {
            TagChange& c = added[a];
            m_rowByKey.insert(key(c.instance, c.tag), int(m_rows.size()));
            const qint64 firstValue = addedFirst.value(a, hasValue(c) ? c.sourceTimestampUs : 0);
            count(c, firstValue, +1);
            m_firstValueUs.push_back(firstValue);
            m_rows.push_back(std::move(c));
        }
        endInsertRows();
    }
    if (std::make_tuple(m_counts, m_failedToAdd, m_neverReceived) != before)
        emit qualityCountsChanged();
}

void TagTableModel::emitChangedRanges(QVector<int>& rows)
{
    if (rows.isEmpty())
        return;
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    // Scattered rows would give one signal each; past a handful of ranges one covering
    // range is cheaper for the views than many small ones.
    constexpr int kMaxRanges = 16;
    QVector<std::pair<int, int>> ranges;
    for (int r : rows) {
        if (!ranges.isEmpty() && ranges.back().second + 1 == r)
            ranges.back().second = r;
        else
            ranges.push_back({r, r});
    }
    if (ranges.size() > kMaxRanges)
        ranges = {{rows.front(), rows.back()}};
    for (const auto& [first, last] : ranges)
        emit dataChanged(index(first, 0), index(last, kColumnCount - 1));
}

void TagTableModel::clear()
{
    if (m_rows.isEmpty())
        return;
    beginResetModel();
    m_rows.clear();
    m_firstValueUs.clear();
    m_rowByKey.clear();
    m_counts = {};
    m_failedToAdd = m_neverReceived = 0;
    endResetModel();
    emit qualityCountsChanged();
}

TagFilterProxy::TagFilterProxy(QObject* parent) : QSortFilterProxyModel(parent)
{
    setSortRole(TagTableModel::SortRole);
    setSortCaseSensitivity(Qt::CaseInsensitive);
    // Rows change quality in place: re-filter and re-sort on dataChanged.
    setDynamicSortFilter(true);
}

void TagFilterProxy::setQualityShown(QualityClass quality, bool shown)
{
    if (m_shown[std::size_t(quality)] == shown)
        return;
    m_shown[std::size_t(quality)] = shown;
    invalidateRowsFilter();
}

void TagFilterProxy::setOutcome(Outcome outcome)
{
    if (m_outcome == outcome)
        return;
    m_outcome = outcome;
    invalidateRowsFilter();
}

void TagFilterProxy::setText(const QString& text)
{
    if (m_text == text)
        return;
    m_text = text;
    invalidateRowsFilter();
}

bool TagFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    const QAbstractItemModel* m = sourceModel();
    const QModelIndex first = m->index(sourceRow, 0, sourceParent);
    const int q = m->data(first, TagTableModel::QualityClassRole).toInt();
    if (q >= 0 && q < kQualityClassCount && !m_shown[std::size_t(q)])
        return false;
    if (m_outcome == Outcome::FailedToAdd && !m->data(first, TagTableModel::FailedToAddRole).toBool())
        return false;
    if (m_outcome == Outcome::NeverReceived && !m->data(first, TagTableModel::NeverReceivedRole).toBool())
        return false;
    if (m_text.isEmpty())
        return true;
    for (int c : {TagTableModel::Instance, TagTableModel::Tag, TagTableModel::Value,
                  TagTableModel::SubscribeResult, TagTableModel::LastError}) {
        if (m->data(m->index(sourceRow, c, sourceParent)).toString().contains(m_text,
                                                                             Qt::CaseInsensitive))
            return true;
    }
    return false;
}

} // namespace stormwatch
