#include "models/tag_table_model.h"

#include "client/gateway_connection.h" // the OPC quality codes

#include <QDateTime>
#include <QRegularExpression>
#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

namespace stormwatch {

QualityClass qualityClassOf(int opcQuality)
{
    switch (opcQuality & 0xC0) {
    case 0xC0:
        return QualityClass::Good;
    case 0x40:
        return QualityClass::Uncertain;
    default:
        return QualityClass::Bad;
    }
}

QString qualityText(QualityClass quality)
{
    switch (quality) {
    case QualityClass::Good:
        return QStringLiteral("Good");
    case QualityClass::Uncertain:
        return QStringLiteral("Uncertain");
    case QualityClass::Bad:
        return QStringLiteral("Bad");
    }
    return {};
}

QColor qualityColor(QualityClass quality)
{
    // Readable on both the light and the dark palette.
    switch (quality) {
    case QualityClass::Good:
        return QColor(0x2e, 0x9e, 0x44);
    case QualityClass::Uncertain:
        return QColor(0xd9, 0x8c, 0x00);
    case QualityClass::Bad:
        return QColor(0xd6, 0x33, 0x2b);
    }
    return {};
}

namespace {
// A stale Good value: neither Good's green nor Uncertain's amber (the plots' stale band).
const QColor kStaleColor(0x80, 0x64, 0xaa);
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
} // namespace

TagTableModel::TagTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void TagTableModel::setNow(double runS, qint64 wallMs)
{
    const bool tick = std::floor(runS) != std::floor(m_nowS) || wallMs / 1000 != m_wallMs / 1000;
    m_nowS = runS;
    m_wallMs = wallMs;
    if (tick)
        emit clockAdvanced();
}

double TagTableModel::ageS(int r) const
{
    const qint64 received = m_rows[r].receivedUs;
    return received < 0 ? kNaN : std::max(0.0, m_nowS - double(received) / 1e6);
}

double TagTableModel::sourceAgeS(int r) const
{
    const qint64 source = m_rows[r].sourceTimestampUs;
    if (source <= 0)
        return kNaN;
    if (source < kEpochThresholdUs) // a modelled gateway's scheduler time: the run's clock
        return std::max(0.0, m_nowS - double(source) / 1e6);
    if (m_wallMs <= 0)
        return kNaN;
    return std::max(0.0, double(m_wallMs) / 1e3 - double(source) / 1e6);
}

QString TagTableModel::formatAge(double seconds)
{
    if (!(seconds >= 0))
        return {};
    const qint64 s = qint64(seconds);
    if (s < 60)
        return QStringLiteral("%1 s").arg(s);
    if (s < 3600)
        return QStringLiteral("%1 min %2 s").arg(s / 60).arg(s % 60);
    if (s < 86400)
        return QStringLiteral("%1 h %2 min").arg(s / 3600).arg(s % 3600 / 60);
    return QStringLiteral("%1 d %2 h").arg(s / 86400).arg(s % 86400 / 3600);
}

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

QString TagTableModel::textOf(int r) const
{
    return m_rows[std::size_t(r)].hasText ? m_texts.value(r) : QString();
}

QString TagTableModel::errorOf(int r) const
{
    return m_rows[std::size_t(r)].hasError ? m_errors.value(r) : QString();
}

QString TagTableModel::subscribeResultText(int r) const
{
    const Row& t = m_rows[std::size_t(r)];
    if (t.itemHandle != 0)
        return QStringLiteral("ok");
    return t.hasError ? errorOf(r) : QStringLiteral("pending");
}

TagChange TagTableModel::row(int r) const
{
    const Row& t = m_rows[std::size_t(r)];
    TagChange c;
    c.instance = t.instance;
    c.tag = t.tag;
    c.instanceName = m_instanceNames.value(t.instance);
    c.tagName = t.tagName;
    c.value = t.value;
    c.text = textOf(r);
    c.quality = t.quality;
    c.sourceTimestampUs = t.sourceTimestampUs;
    c.itemHandle = t.itemHandle;
    c.error = errorOf(r);
    c.orphaned = t.orphaned;
    c.advise = m_advises.value(t.advise);
    c.rejected = t.rejected;
    c.receivedUs = t.receivedUs;
    c.stale = t.stale;
    c.staleAfterS = t.staleAfterS;
    return c;
}

void TagTableModel::store(int r, const TagChange& c)
{
    Row& t = m_rows[std::size_t(r)];
    t.instance = c.instance;
    t.tag = c.tag;
    if (c.instance >= 0) {
        if (c.instance >= m_instanceNames.size())
            m_instanceNames.resize(c.instance + 1);
        if (m_instanceNames[c.instance] != c.instanceName)
            m_instanceNames[c.instance] = c.instanceName;
    }
    if (t.tagName != c.tagName)
        t.tagName = c.tagName;
    t.value = c.value;
    t.quality = c.quality;
    t.sourceTimestampUs = c.sourceTimestampUs;
    t.itemHandle = c.itemHandle;
    t.orphaned = c.orphaned;
    t.rejected = c.rejected;
    t.receivedUs = c.receivedUs;
    t.stale = c.stale;
    t.staleAfterS = c.staleAfterS;
    // A handful of advise kinds exist; a row names its kind by index.
    qsizetype advise = m_advises.indexOf(c.advise);
    if (advise < 0 && m_advises.size() < 256) {
        advise = m_advises.size();
        m_advises.append(c.advise);
    }
    t.advise = quint8(std::max<qsizetype>(advise, 0));
    const auto keep = [r](QHash<int, QString>& texts, bool& has, const QString& text) {
        if (!text.isEmpty())
            texts.insert(r, text);
        else if (has)
            texts.remove(r);
        has = !text.isEmpty();
    };
    keep(m_texts, t.hasText, c.text);
    keep(m_errors, t.hasError, c.error);
}

QVariant TagTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const int r = index.row();
    const Row& t = m_rows[std::size_t(r)];
    const QualityClass q = qualityClassOf(t.quality);
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Instance:
            return m_instanceNames.value(t.instance);
        case Tag:
            return t.tagName;
        case Value:
            return t.hasText ? textOf(r) : QString::number(t.value, 'g', 8);
        case Quality:
            if (t.orphaned)
                return QStringLiteral("%1 (%2), orphaned").arg(qualityText(q)).arg(t.quality);
            if (staleGood(t))
                return QStringLiteral("%1 (%2), stale").arg(qualityText(q)).arg(t.quality);
            if (t.quality == kQualityUncertainLastUsable)
                return QStringLiteral("%1 (%2), last usable value")
                    .arg(qualityText(q))
                    .arg(t.quality);
            return QStringLiteral("%1 (%2)").arg(qualityText(q)).arg(t.quality);
        case SourceTimestamp:
            return formatTimestamp(t.sourceTimestampUs);
        case Age:
            return formatAge(ageS(index.row()));
        case SourceAge:
            return formatAge(sourceAgeS(index.row()));
        case ItemHandle:
            return t.itemHandle != 0 ? QVariant(t.itemHandle) : QVariant(QString());
        case SubscribeResult:
            return subscribeResultText(r);
        case Advise:
            return m_advises.value(t.advise);
        case FirstValue:
            return formatTimestamp(t.firstValueUs);
        case LastError:
            return errorOf(r);
        }
        return {};
    case SortRole:
        switch (index.column()) {
        case Instance:
            return m_instanceNames.value(t.instance);
        case Tag:
            return t.tagName;
        case Value:
            return t.hasText ? QVariant(textOf(r)) : QVariant(t.value);
        case Quality:
            return t.quality;
        case SourceTimestamp:
            return t.sourceTimestampUs;
        case Age:
        case SourceAge: {
            // No age yet sorts as the oldest.
            const double age = index.column() == Age ? ageS(index.row()) : sourceAgeS(index.row());
            return std::isnan(age) ? std::numeric_limits<double>::infinity() : age;
        }
        case ItemHandle:
            return t.itemHandle;
        case SubscribeResult:
            return subscribeResultText(r);
        case Advise:
            return m_advises.value(t.advise);
        case FirstValue:
            return t.firstValueUs;
        case LastError:
            return errorOf(r);
        }
        return {};
    case Qt::ForegroundRole:
        // An orphaned tag is red across the row: the one state a person must act on.
        if (t.orphaned)
            return QVariant(qualityColor(QualityClass::Bad));
        if (index.column() == SubscribeResult && failedToAdd(t))
            return QVariant(qualityColor(QualityClass::Bad));
        if (staleGood(t) && (index.column() == Quality || index.column() == Age))
            return QVariant(kStaleColor);
        return index.column() == Quality ? QVariant(qualityColor(q)) : QVariant();
    case Qt::ToolTipRole:
        if (t.orphaned)
            return tr("Orphaned: not Good, no live item on the gateway, no subscribe in flight "
                      "and no retry scheduled - nothing will ever bring this tag back. The "
                      "resubscribe_guard and drop_superseded levers cure the known causes.");
        if (index.column() == Age || index.column() == SourceAge ||
            (index.column() == Quality && t.stale))
            return ageToolTip(index.row());
        return (index.column() == LastError || index.column() == SubscribeResult) && t.hasError
                   ? QVariant(errorOf(r))
                   : QVariant();
    case Qt::TextAlignmentRole:
        return index.column() == Value || index.column() == ItemHandle
                   ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter))
                   : QVariant();
    case QualityClassRole:
        return int(q);
    case QualityCodeRole:
        return t.quality;
    case OrphanedRole:
        return t.orphaned;
    case FailedToAddRole:
        return failedToAdd(t);
    case NeverReceivedRole:
        return t.firstValueUs == 0;
    case StaleRole:
        return staleGood(t);
    case AgeRole:
        return ageS(index.row());
    }
    return {};
}

QVariant TagTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Instance:
        return tr("Instance");
    case Tag:
        return tr("Tag");
    case Value:
        return tr("Value");
    case Quality:
        return tr("Quality");
    case SourceTimestamp:
        return tr("Source timestamp");
    case Age:
        return tr("Age");
    case SourceAge:
        return tr("Source age");
    case ItemHandle:
        return tr("Item handle");
    case SubscribeResult:
        return tr("Subscribe");
    case Advise:
        return tr("Advise");
    case FirstValue:
        return tr("First value");
    case LastError:
        return tr("Last error");
    }
    return {};
}

QString TagTableModel::ageToolTip(int r) const
{
    const Row& t = m_rows[std::size_t(r)];
    QStringList lines;
    const double age = ageS(r);
    lines << (std::isnan(age) ? tr("No value has arrived yet.")
                              : tr("Last value arrived %1 ago.").arg(formatAge(age)));
    if (const double source = sourceAgeS(r); !std::isnan(source))
        lines << tr("Its source timestamp is %1 old.").arg(formatAge(source));
    if (t.staleAfterS > 0)
        lines << tr("Stale after %1 without an update (its kind's expected period × the stale "
                    "factor)%2.")
                     .arg(formatAge(t.staleAfterS), t.stale ? tr(": it is stale now") : QString());
    else
        lines << tr("No expected update period: the tag sends on change only and is never stale.");
    return lines.join(QLatin1Char(' '));
}

int TagTableModel::rowOf(int instance, int tag) const
{
    if (!dense(instance, tag))
        return m_rowOfSparse.value(key(instance, tag), -1);
    if (std::size_t(instance) >= m_rowOf.size())
        return -1;
    const std::vector<int>& rows = m_rowOf[std::size_t(instance)];
    return std::size_t(tag) < rows.size() ? rows[std::size_t(tag)] : -1;
}

void TagTableModel::setRowOf(int instance, int tag, int row)
{
    if (!dense(instance, tag)) {
        m_rowOfSparse.insert(key(instance, tag), row);
        return;
    }
    if (std::size_t(instance) >= m_rowOf.size())
        m_rowOf.resize(std::size_t(instance) + 1);
    std::vector<int>& rows = m_rowOf[std::size_t(instance)];
    if (std::size_t(tag) >= rows.size())
        rows.resize(std::size_t(tag) + 1, -1);
    rows[std::size_t(tag)] = row;
}

void TagTableModel::count(const Row& row, int sign)
{
    m_stale += sign * int(staleGood(row));
    m_counts[std::size_t(qualityClassOf(row.quality))] += sign;
    m_failedToAdd += sign * int(failedToAdd(row));
    m_neverReceived += sign * int(row.firstValueUs == 0);
}

void TagTableModel::applyChanges(const QVector<TagChange>& changes)
{
    if (changes.isEmpty())
        return;
    const auto before = std::make_tuple(m_counts, m_failedToAdd, m_neverReceived, m_stale);
    QVector<int> updated;
    updated.reserve(changes.size());
    QVector<TagChange> added;
    QHash<qint64, int> addedIndex; // a tag new in this batch may change twice in it
    QHash<int, qint64> addedFirst; // its first value, when that was not its last change
    for (const TagChange& c : changes) {
        const qint64 k = key(c.instance, c.tag);
        if (const int r = rowOf(c.instance, c.tag); r >= 0) {
            Row& row = m_rows[std::size_t(r)];
            count(row, -1);
            store(r, c);
            if (row.firstValueUs == 0 && hasValue(c))
                row.firstValueUs = c.sourceTimestampUs;
            count(row, +1);
            updated.push_back(r);
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
        for (int a = 0; a < int(added.size()); ++a) {
            const TagChange& c = added[a];
            const int r = int(m_rows.size());
            setRowOf(c.instance, c.tag, r);
            m_rows.emplace_back();
            store(r, c);
            Row& row = m_rows.back();
            row.firstValueUs = addedFirst.value(a, hasValue(c) ? c.sourceTimestampUs : 0);
            count(row, +1);
        }
        endInsertRows();
    }
    if (std::make_tuple(m_counts, m_failedToAdd, m_neverReceived, m_stale) != before)
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
    if (m_rows.empty())
        return;
    beginResetModel();
    m_rows.clear();
    m_instanceNames.clear();
    m_advises = QStringList{QString()};
    m_texts.clear();
    m_errors.clear();
    m_rowOf.clear();
    m_rowOfSparse.clear();
    m_counts = {};
    m_failedToAdd = m_neverReceived = m_stale = 0;
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

void TagFilterProxy::setSourceModel(QAbstractItemModel* model)
{
    disconnect(m_clock);
    QSortFilterProxyModel::setSourceModel(model);
    if (auto* tags = qobject_cast<TagTableModel*>(model))
        m_clock =
            connect(tags, &TagTableModel::clockAdvanced, this, &TagFilterProxy::onClockAdvanced);
}

// Ages moved with the clock: only a filter or an order that reads them is redone.
void TagFilterProxy::onClockAdvanced()
{
    if (m_olderThanS > 0)
        invalidateRowsFilter();
    if (sortColumn() == TagTableModel::Age || sortColumn() == TagTableModel::SourceAge)
        invalidate();
}

void TagFilterProxy::setOlderThan(double seconds)
{
    if (m_olderThanS == seconds)
        return;
    m_olderThanS = seconds;
    invalidateRowsFilter();
}

std::optional<double> TagFilterProxy::parseAge(const QString& text)
{
    const QString t = text.trimmed();
    if (t.isEmpty())
        return 0.0;
    static const QRegularExpression form(
        QStringLiteral(
            "^(\\d+(?:\\.\\d+)?)\\s*(s|sec|secs|seconds?|m|min|mins|minutes?|h|hours?)?$"),
        QRegularExpression::CaseInsensitiveOption);
    const QRegularExpressionMatch m = form.match(t);
    if (!m.hasMatch())
        return std::nullopt;
    const double n = m.captured(1).toDouble();
    const QString unit = m.captured(2).toLower();
    if (unit.startsWith(QLatin1Char('h')))
        return n * 3600;
    if (unit.startsWith(QLatin1Char('m')))
        return n * 60;
    return n;
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
    if (m_outcome == Outcome::FailedToAdd &&
        !m->data(first, TagTableModel::FailedToAddRole).toBool())
        return false;
    if (m_outcome == Outcome::NeverReceived &&
        !m->data(first, TagTableModel::NeverReceivedRole).toBool())
        return false;
    if (m_outcome == Outcome::Stale && !m->data(first, TagTableModel::StaleRole).toBool())
        return false;
    if (m_olderThanS > 0 && !(m->data(first, TagTableModel::AgeRole).toDouble() >= m_olderThanS))
        return false;
    if (m_text.isEmpty())
        return true;
    for (int c : {TagTableModel::Instance, TagTableModel::Tag, TagTableModel::Value,
                  TagTableModel::SubscribeResult, TagTableModel::LastError}) {
        if (m->data(m->index(sourceRow, c, sourceParent))
                .toString()
                .contains(m_text, Qt::CaseInsensitive))
            return true;
    }
    return false;
}

} // namespace stormwatch
