#pragma once
// Every deployed tag as a row, the way UaExpert's data-access view shows it: instance, tag,
// value, quality, source timestamp, item handle, last error. Fed in batches of TagChange
// (the worker's ≤ 20 Hz flushes): known rows update in place, new rows are appended with
// one insert per batch, and changed rows are announced in coalesced ranges, so 488 tags at
// 10 Hz cost a hash lookup per change and a handful of dataChanged signals per batch.

#include "client/engine_samples.h"

#include <QAbstractTableModel>
#include <QColor>
#include <QHash>
#include <QSortFilterProxyModel>
#include <QVector>

#include <array>

namespace stormwatch {

// OPC quality classes (the top two bits of the quality code: 192 Good, 64 Uncertain, 0 Bad).
enum class QualityClass { Good, Uncertain, Bad };
inline constexpr int kQualityClassCount = 3;
QualityClass qualityClassOf(int opcQuality);
QString qualityText(QualityClass quality); // "Good", "Uncertain", "Bad"
QColor qualityColor(QualityClass quality);

class TagTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Instance, Tag, Value, Quality, SourceTimestamp, ItemHandle, LastError };
    static constexpr int kColumnCount = 7;
    enum Role {
        SortRole = Qt::UserRole + 1, // raw value for sorting (numbers sort as numbers)
        QualityClassRole,            // int(QualityClass) of the row, on every column
        QualityCodeRole,             // the OPC quality code
        OrphanedRole,                // bool: nobody will ever re-subscribe this tag
    };

    explicit TagTableModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // Rows are keyed by (instance, tag); a later change in the same batch wins.
    void applyChanges(const QVector<TagChange>& changes);
    void clear();

    const TagChange& row(int r) const { return m_rows[r]; }
    int rowOf(int instance, int tag) const { return m_rowByKey.value(key(instance, tag), -1); }
    int count(QualityClass quality) const { return m_counts[std::size_t(quality)]; }

    // Source timestamps below this are scheduler time (a virtual run starts at 0), above it
    // epoch time from a real gateway: the first shows as seconds, the second as a clock.
    static constexpr qint64 kEpochThresholdUs = 1'000'000'000'000LL; // ~11.6 days
    static QString formatTimestamp(qint64 sourceTimestampUs);

signals:
    // Counts per quality class changed (for the filter buttons' labels).
    void qualityCountsChanged();

private:
    static qint64 key(int instance, int tag) { return (qint64(instance) << 32) | quint32(tag); }
    void emitChangedRanges(QVector<int>& rows);

    QVector<TagChange> m_rows;
    QHash<qint64, int> m_rowByKey;
    std::array<int, kQualityClassCount> m_counts{};
};

// Filters by a set of quality classes and by free text (instance, tag, value, error), and
// sorts any column by its raw value.
class TagFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit TagFilterProxy(QObject* parent = nullptr);

    void setQualityShown(QualityClass quality, bool shown);
    bool isQualityShown(QualityClass quality) const { return m_shown[std::size_t(quality)]; }
    void setText(const QString& text);
    QString text() const { return m_text; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    std::array<bool, kQualityClassCount> m_shown{true, true, true};
    QString m_text;
};

} // namespace stormwatch
