#pragma once
// Every deployed tag as a row, the way UaExpert's data-access view shows it: instance, tag,
// value, quality, source timestamp, age and source age, item handle, the subscribe's per-item
// result (ok or the gateway's error text), when its first value came, last error. Fed in batches of
// TagChange (the worker's ≤ 20 Hz flushes): known rows update in place, new rows are appended with
// one insert per batch, and changed rows are announced in coalesced ranges, so 488 tags at
// 10 Hz cost a hash lookup per change and a handful of dataChanged signals per batch.

#include "client/engine_samples.h"

#include <QAbstractTableModel>
#include <QColor>
#include <QHash>
#include <QSortFilterProxyModel>
#include <QVector>
#include <array>
#include <deque>
#include <optional>

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
    enum Column {
        Instance,
        Tag,
        Value,
        Quality,
        SourceTimestamp,
        Age,
        SourceAge,
        ItemHandle,
        SubscribeResult,
        Advise,
        FirstValue,
        LastError
    };
    static constexpr int kColumnCount = 12;
    enum Role {
        SortRole = Qt::UserRole + 1, // raw value for sorting (numbers sort as numbers)
        QualityClassRole,            // int(QualityClass) of the row, on every column
        QualityCodeRole,             // the OPC quality code
        OrphanedRole,                // bool: nobody will ever re-subscribe this tag
        FailedToAddRole,             // bool: the gateway refused the item (stormwatch::failedToAdd)
        NeverReceivedRole,           // bool: no value has arrived since the row appeared
        StaleRole,                   // bool: Good, and older than its kind allows
        AgeRole,                     // double: seconds since its last value arrived; NaN: none yet
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

    // The row as the change that made it (assembled: rows are stored slimmer).
    TagChange row(int r) const;
    int rowOf(int instance, int tag) const;
    int count(QualityClass quality) const { return m_counts[std::size_t(quality)]; }
    // Rows the gateway refused (a per-item error; a call that failed, e.g. DEADLINE_EXCEEDED,
    // is retried and not counted), and rows that never received a value.
    int failedToAddCount() const { return m_failedToAdd; }
    int neverReceivedCount() const { return m_neverReceived; }
    // Good tags older than their kind allows (TagChange::stale).
    int staleCount() const { return m_stale; }

    // The run's clock, for the ages: run seconds (TagChange::receivedUs's clock) and, when
    // known, the wall clock at that moment (ms since the epoch) for a real gateway's source
    // timestamps. Ages change without any tag changing, so no dataChanged is sent for them:
    // clockAdvanced() fires once per shown second, and views repaint, re-filter and re-sort
    // on it (TagFilterProxy does the last two).
    void setNow(double runS, qint64 wallMs = 0);
    double nowS() const { return m_nowS; }
    // Seconds since the row's last value arrived; NaN before its first.
    double ageS(int r) const;
    // Seconds since its source timestamp, in that timestamp's clock; NaN when unknown.
    double sourceAgeS(int r) const;
    // "42 s", "3 min 4 s", "2 h 5 min", "3 d 4 h"; empty for a negative age.
    static QString formatAge(double seconds);
    // The source timestamp of the row's first value (0: none yet).
    qint64 firstValueUs(int r) const { return m_rows[std::size_t(r)].firstValueUs; }
    // A value has arrived: data changes carry the gateway's source timestamp.
    static bool hasValue(const TagChange& t) { return t.sourceTimestampUs > 0; }

    // Source timestamps below this are scheduler time (a virtual run starts at 0), above it
    // epoch time from a real gateway: the first shows as seconds, the second as a clock.
    static constexpr qint64 kEpochThresholdUs = 1'000'000'000'000LL; // ~11.6 days
    static QString formatTimestamp(qint64 sourceTimestampUs);

signals:
    // Counts per quality class, or the failed-to-add / never-received / stale counts, changed
    // (for the filter buttons' labels).
    void qualityCountsChanged();
    void clockAdvanced();

private:
    static qint64 key(int instance, int tag) { return (qint64(instance) << 32) | quint32(tag); }
    void setRowOf(int instance, int tag, int row);
    void emitChangedRanges(QVector<int>& rows);

    // A row holds what every tag has; the instance's name once per instance, the advise's
    // text once per kind, and a string value or an error (few tags have them) apart. At a
    // site's 100,000 rows a whole TagChange per row was twice the size.
    struct Row {
        QString tagName;
        double value = 0;
        qint64 sourceTimestampUs = 0;
        qint64 receivedUs = -1;
        qint64 firstValueUs = 0; // the first value's source timestamp (0: none yet)
        double staleAfterS = 0;
        int instance = -1;
        int tag = -1;
        int quality = 0;
        int itemHandle = 0;
        quint8 advise = 0; // into m_advises
        bool orphaned = false;
        bool rejected = false;
        bool stale = false;
        bool hasText = false;  // m_texts has its value's text
        bool hasError = false; // m_errors has its error
    };
    static bool staleGood(const Row& t) { return t.stale && (t.quality & 0xC0) == 0xC0; }
    static bool failedToAdd(const Row& t) { return stormwatch::failedToAdd(t.rejected, t.quality); }
    void store(int r, const TagChange& c);
    QString textOf(int r) const;
    QString errorOf(int r) const;
    // The Subscribe column: "ok" (an item on the gateway), the error text, or "pending".
    QString subscribeResultText(int r) const;
    void count(const Row& row, int sign);
    QString ageToolTip(int r) const;

    // Blocks, not one array: a site's rows arrive batch after batch, and an array would be
    // copied whole at each growth, holding the old and the new copy at once.
    std::deque<Row> m_rows;
    QVector<QString> m_instanceNames; // by instance
    QStringList m_advises{QString()}; // the advise kinds seen, "" first
    QHash<int, QString> m_texts;      // by row: string values
    QHash<int, QString> m_errors;     // by row: subscribe errors
    // Rows by instance and tag (-1: none): an engine's indices are dense, so a table per
    // instance instead of a hash entry per row. An index no engine sends (negative, or past
    // any site's size: a damaged recording's) is hashed instead of sizing a table by it.
    static bool dense(int instance, int tag)
    {
        return instance >= 0 && tag >= 0 && instance < (1 << 16) && tag < (1 << 22);
    }
    std::vector<std::vector<int>> m_rowOf;
    QHash<qint64, int> m_rowOfSparse;
    std::array<int, kQualityClassCount> m_counts{};
    int m_failedToAdd = 0;
    int m_neverReceived = 0;
    int m_stale = 0;
    double m_nowS = 0;
    qint64 m_wallMs = 0;
};

// Filters by a set of quality classes, by the subscribe's outcome and by free text
// (instance, tag, value, subscribe result, error), and sorts any column by its raw value.
class TagFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    enum class Outcome { All, FailedToAdd, NeverReceived, Stale };
    explicit TagFilterProxy(QObject* parent = nullptr);

    void setOutcome(Outcome outcome);
    Outcome outcome() const { return m_outcome; }

    void setQualityShown(QualityClass quality, bool shown);
    bool isQualityShown(QualityClass quality) const { return m_shown[std::size_t(quality)]; }
    void setText(const QString& text);
    QString text() const { return m_text; }
    // Only rows whose last value is at least this many seconds old (0: off); a row that
    // never received a value has no age and is not shown.
    void setOlderThan(double seconds);
    double olderThan() const { return m_olderThanS; }
    // "30", "30 s", "5m", "5 min", "1.5h": seconds; "" = 0 (off); nullopt when unreadable.
    static std::optional<double> parseAge(const QString& text);

    void setSourceModel(QAbstractItemModel* model) override;

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    std::array<bool, kQualityClassCount> m_shown{true, true, true};
    void onClockAdvanced();

    Outcome m_outcome = Outcome::All;
    QString m_text;
    double m_olderThanS = 0;
    QMetaObject::Connection m_clock;
};

} // namespace stormwatch
