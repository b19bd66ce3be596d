#pragma once
// Every subscription the plots can draw, as a sortable table: the console's list of series
// once a site has more of them than an in-plot legend can name. A row per subscription of the
// SeriesStore with its latest values (outstanding, retry interval, tags by quality), its
// connection and gateway, whether the plots show it, and whether it is troubled. The store
// says when rows come and go; values are re-read by refresh(), which the view calls at its
// own pace (a site of 1,000 subscriptions would otherwise announce changes 20 times a
// second). Which subscriptions are hidden belongs to the plots: this model mirrors it
// (setHidden) and asks for changes through hiddenEdited, so a click on the check box and a
// click on the in-plot legend end in the same place.

#include "models/series_store.h"

#include <QAbstractTableModel>
#include <QColor>
#include <QHash>
#include <QList>
#include <QMap>
#include <QSet>
#include <QSortFilterProxyModel>
#include <QString>
#include <functional>

namespace stormwatch {

class SubscriptionListModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Shown,
        Instance,
        Connection,
        Gateway,
        Outstanding,
        RetryS,
        Good,
        NotGood,
        Stale,
        Orphaned,
        Frozen
    };
    static constexpr int kColumnCount = 11;
    enum Role {
        KeyRole = Qt::UserRole + 1, // the row's SubscriptionKey
        SortRole,                   // numbers as numbers
        TroubledRole,               // bool
        GatewayRole,                // QString, "" when the run names none
    };

    explicit SubscriptionListModel(const SeriesStore* store, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // Which gateway each instance is on (a site's run); empty: the gateway column is blank.
    void setGateways(const QMap<QString, QList<int>>& instancesByGateway);
    // The plots' hidden set, mirrored for the check column.
    void setHidden(const QSet<SubscriptionKey>& hidden);
    // The swatch beside each row: the colour the plots draw the subscription in.
    void setColourOf(std::function<QColor(SubscriptionKey)> colourOf);
    // Re-reads every row's latest values; announces only the rows whose values changed.
    void refresh();

    SubscriptionKey keyAt(int row) const { return m_rows.value(row).key; }
    int rowOf(SubscriptionKey key) const { return m_rowOf.value(key, -1); }
    QString gatewayOf(SubscriptionKey key) const { return m_gatewayOfInstance.value(key.instance); }
    QStringList gatewayNames() const;

    // The latest values a row shows; all 0 before the first sample.
    struct Values {
        double outstanding = 0;
        double retryS = 0;
        double good = 0;
        double notGood = 0;
        double stale = 0;
        double orphaned = 0;
        double frozen = 0;
        bool operator==(const Values&) const = default;
    };
    // A subscription is troubled when a tag of it is not Good, stale, orphaned or frozen, or
    // when more than one subscribe request of it is outstanding (the duplicate stacking the
    // guard prevents).
    static bool troubled(const Values& v);

signals:
    // A person ticked or unticked rows: the plots should show / hide them.
    void hiddenEdited(const QList<SubscriptionKey>& keys, bool hidden);

private:
    struct Row {
        SubscriptionKey key;
        QString instance;
        QString connection;
        Values values;
    };
    void syncRows();
    bool readValues(Row& row) const;

    const SeriesStore* m_store;
    QList<Row> m_rows;
    QHash<SubscriptionKey, int> m_rowOf;
    QSet<SubscriptionKey> m_hidden;
    QHash<int, QString> m_gatewayOfInstance;
    std::function<QColor(SubscriptionKey)> m_colourOf;
};

// The list's filter: a text that the instance, connection or gateway contains (any case),
// and "only troubled". Sorts by SortRole.
class SubscriptionFilterModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit SubscriptionFilterModel(QObject* parent = nullptr);
    void setText(const QString& text);
    void setOnlyTroubled(bool only);
    bool onlyTroubled() const { return m_onlyTroubled; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    QString m_text;
    bool m_onlyTroubled = false;
};

} // namespace stormwatch
