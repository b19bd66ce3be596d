#include "models/subscription_list_model.h"

#include <QLocale>
#include <algorithm>
#include <cmath>

namespace stormwatch {

namespace {

// The columns, one row each: header, tooltip, whether it holds a number.
struct ColumnSpec {
    const char* header;
    const char* tooltip;
    bool numeric;
};
constexpr ColumnSpec kColumns[SubscriptionListModel::kColumnCount] = {
    {"Shown", "Drawn on the plots (Space toggles the selected rows)", false},
    {"Instance", "The instance the subscription is for", false},
    {"Connection", "The data connection it subscribes through", false},
    {"Gateway", "The gateway that connection reaches", false},
    {"Outstanding", "Subscribe requests sent and not yet answered; above 1 the requests stack",
     true},
    {"Retry s", "The guard's current retry interval, in seconds", true},
    {"Good", "Tags whose latest quality is Good", true},
    {"Not good", "Tags that are Uncertain or Bad", true},
    {"Stale", "Good tags without an update for longer than their kind allows", true},
    {"Orphaned",
     "Tags not Good with no live item, nothing in flight and no retry scheduled: nothing will "
     "subscribe them again (a client bug)",
     true},
    {"Frozen",
     "Tags shown Good while the connection is unresponsive: their values may be long gone", true},
};

double latest(const SeriesStore& store, SubscriptionKey key, SubMetric metric)
{
    const auto& s = store.series(key, metric);
    return s.isEmpty() ? 0.0 : s.last().y();
}

QString number(double v)
{
    if (std::isnan(v))
        return QString();
    return v == std::floor(v) ? QLocale().toString(qint64(v)) : QLocale().toString(v, 'f', 1);
}

} // namespace

SubscriptionListModel::SubscriptionListModel(const SeriesStore* store, QObject* parent)
    : QAbstractTableModel(parent), m_store(store)
{
    connect(store, &SeriesStore::subscriptionsChanged, this, &SubscriptionListModel::syncRows);
    syncRows();
}

int SubscriptionListModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int SubscriptionListModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : kColumnCount;
}

bool SubscriptionListModel::troubled(const Values& v)
{
    return v.outstanding > 1 || v.notGood > 0 || v.stale > 0 || v.orphaned > 0 || v.frozen > 0;
}

QVariant SubscriptionListModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const Row& r = m_rows[index.row()];
    const auto column = Column(index.column());
    switch (role) {
    case KeyRole:
        return QVariant::fromValue(r.key);
    case TroubledRole:
        return troubled(r.values);
    case GatewayRole:
        return gatewayOf(r.key);
    case Qt::CheckStateRole:
        if (column == Shown)
            return m_hidden.contains(r.key) ? Qt::Unchecked : Qt::Checked;
        return {};
    case Qt::DecorationRole:
        if (column == Shown && m_colourOf)
            return m_colourOf(r.key);
        return {};
    case Qt::TextAlignmentRole:
        if (kColumns[column].numeric)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::DisplayRole:
    case SortRole:
        break;
    default:
        return {};
    }
    const bool sort = role == SortRole;
    auto value = [&](double v) -> QVariant { return sort ? QVariant(v) : QVariant(number(v)); };
    switch (column) {
    case Shown:
        return sort ? QVariant(!m_hidden.contains(r.key)) : QVariant();
    case Instance:
        return r.instance;
    case Connection:
        return r.connection;
    case Gateway:
        return gatewayOf(r.key);
    case Outstanding:
        return value(r.values.outstanding);
    case RetryS:
        return value(r.values.retryS);
    case Good:
        return value(r.values.good);
    case NotGood:
        return value(r.values.notGood);
    case Stale:
        return value(r.values.stale);
    case Orphaned:
        return value(r.values.orphaned);
    case Frozen:
        return value(r.values.frozen);
    }
    return {};
}

bool SubscriptionListModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (!index.isValid() || index.column() != Shown || role != Qt::CheckStateRole ||
        index.row() >= m_rows.size())
        return false;
    const bool hidden = Qt::CheckState(value.toInt()) == Qt::Unchecked;
    emit hiddenEdited({m_rows[index.row()].key}, hidden);
    return true;
}

Qt::ItemFlags SubscriptionListModel::flags(const QModelIndex& index) const
{
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.isValid() && index.column() == Shown)
        f |= Qt::ItemIsUserCheckable;
    return f;
}

QVariant SubscriptionListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= kColumnCount)
        return {};
    if (role == Qt::DisplayRole)
        return tr(kColumns[section].header);
    if (role == Qt::ToolTipRole)
        return tr(kColumns[section].tooltip);
    return {};
}

void SubscriptionListModel::setGateways(const QMap<QString, QList<int>>& instancesByGateway)
{
    QHash<int, QString> of;
    for (auto it = instancesByGateway.cbegin(); it != instancesByGateway.cend(); ++it)
        for (int instance : *it)
            of.insert(instance, it.key());
    if (of == m_gatewayOfInstance)
        return;
    m_gatewayOfInstance = of;
    if (!m_rows.isEmpty())
        emit dataChanged(index(0, Gateway), index(int(m_rows.size()) - 1, Gateway));
}

QStringList SubscriptionListModel::gatewayNames() const
{
    QStringList names;
    for (const QString& g : m_gatewayOfInstance)
        if (!names.contains(g))
            names << g;
    names.sort();
    return names;
}

void SubscriptionListModel::setHidden(const QSet<SubscriptionKey>& hidden)
{
    if (hidden == m_hidden)
        return;
    m_hidden = hidden;
    if (!m_rows.isEmpty())
        emit dataChanged(index(0, Shown), index(int(m_rows.size()) - 1, Shown),
                         {Qt::CheckStateRole, SortRole});
}

void SubscriptionListModel::setColourOf(std::function<QColor(SubscriptionKey)> colourOf)
{
    m_colourOf = std::move(colourOf);
    if (!m_rows.isEmpty())
        emit dataChanged(index(0, Shown), index(int(m_rows.size()) - 1, Shown),
                         {Qt::DecorationRole});
}

bool SubscriptionListModel::readValues(Row& row) const
{
    const auto of = [&](SubMetric m) { return latest(*m_store, row.key, m); };
    const Values now{.outstanding = of(SubMetric::Outstanding),
                     .retryS = of(SubMetric::IntervalS),
                     .good = of(SubMetric::Good),
                     .notGood = of(SubMetric::Uncertain) + of(SubMetric::Bad),
                     .stale = of(SubMetric::Stale),
                     .orphaned = of(SubMetric::Orphaned),
                     .frozen = of(SubMetric::Frozen)};
    if (now == row.values)
        return false;
    row.values = now;
    return true;
}

void SubscriptionListModel::refresh()
{
    // Changed rows are announced in runs, so a quiet site costs no signal at all.
    int first = -1;
    auto flush = [&](int end) {
        if (first >= 0)
            emit dataChanged(index(first, Outstanding), index(end - 1, kColumnCount - 1));
        first = -1;
    };
    for (int i = 0; i < m_rows.size(); ++i) {
        if (readValues(m_rows[i])) {
            if (first < 0)
                first = i;
        } else {
            flush(i);
        }
    }
    flush(int(m_rows.size()));
}

// Rows follow the store's subscriptions (sorted by instance); a subscription's label names
// its instance and connection ("inst × conn").
void SubscriptionListModel::syncRows()
{
    const QList<SubscriptionKey> keys = m_store->subscriptions();
    beginResetModel();
    m_rows.clear();
    m_rowOf.clear();
    m_rows.reserve(keys.size());
    for (const SubscriptionKey& k : keys) {
        Row r;
        r.key = k;
        const QString label = m_store->label(k);
        const qsizetype cross = label.indexOf(QStringLiteral(" × "));
        r.instance = cross < 0 ? label : label.left(cross);
        r.connection = cross < 0 ? QString() : label.mid(cross + 3);
        readValues(r);
        m_rowOf.insert(k, int(m_rows.size()));
        m_rows.push_back(r);
    }
    endResetModel();
}

SubscriptionFilterModel::SubscriptionFilterModel(QObject* parent) : QSortFilterProxyModel(parent)
{
    setSortRole(SubscriptionListModel::SortRole);
    // A value that changes under the filter re-filters the row (only troubled).
    setDynamicSortFilter(true);
}

void SubscriptionFilterModel::setText(const QString& text)
{
    if (text == m_text)
        return;
    m_text = text;
    invalidateFilter();
}

void SubscriptionFilterModel::setOnlyTroubled(bool only)
{
    if (only == m_onlyTroubled)
        return;
    m_onlyTroubled = only;
    invalidateFilter();
}

bool SubscriptionFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    const QAbstractItemModel* m = sourceModel();
    const QModelIndex row = m->index(sourceRow, 0, sourceParent);
    if (m_onlyTroubled && !row.data(SubscriptionListModel::TroubledRole).toBool())
        return false;
    if (m_text.isEmpty())
        return true;
    for (int column : {SubscriptionListModel::Instance, SubscriptionListModel::Connection,
                       SubscriptionListModel::Gateway})
        if (m->index(sourceRow, column, sourceParent)
                .data()
                .toString()
                .contains(m_text, Qt::CaseInsensitive))
            return true;
    return false;
}

} // namespace stormwatch
