#include "ui/subscriptions_panel.h"

#include "models/subscription_list_model.h"
#include "ui/plot_panel.h"

#include <QAction>
#include <QCheckBox>
#include <QContextMenuEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <QVBoxLayout>

namespace stormwatch {

namespace {
constexpr int kRefreshMs = 500;
}

SubscriptionsPanel::SubscriptionsPanel(const SeriesStore* store, PlotPanel* plots, QWidget* parent)
    : QWidget(parent), m_plots(plots)
{
    m_model = new SubscriptionListModel(store, this);
    m_model->setColourOf(
        [plots](SubscriptionKey k) { return PlotPanel::colourFor(k, plots->theme()); });
    m_model->setHidden(plots->hiddenSubscriptions());
    m_filterModel = new SubscriptionFilterModel(this);
    m_filterModel->setSourceModel(m_model);

    m_filter = new QLineEdit;
    m_filter->setObjectName(QStringLiteral("subscriptionFilter"));
    m_filter->setPlaceholderText(tr("Filter: instance, connection or gateway (Ctrl+F)"));
    m_filter->setClearButtonEnabled(true);
    m_filter->installEventFilter(this);
    m_onlyTroubled = new QCheckBox(tr("Only troubled"));
    m_onlyTroubled->setObjectName(QStringLiteral("onlyTroubled"));
    m_onlyTroubled->setToolTip(tr("Only subscriptions with a tag not Good, stale, orphaned or "
                                  "frozen, or more than one subscribe request outstanding"));
    m_count = new QLabel;
    m_count->setObjectName(QStringLiteral("subscriptionCount"));
    // A narrow dock shortens the count rather than widening the window's left column.
    m_count->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);

    m_view = new QTableView;
    m_view->setObjectName(QStringLiteral("subscriptionList"));
    m_view->setModel(m_filterModel);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(SubscriptionListModel::Instance, Qt::AscendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setAlternatingRowColors(true);
    m_view->setWordWrap(false);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    m_view->setToolTip(tr("I isolate · H hide · S show · A show all · G hide gateway · "
                          "Shift+G isolate gateway"));

    auto* isolate = new QPushButton(tr("&Isolate"));
    isolate->setObjectName(QStringLiteral("isolateSubscriptions"));
    isolate->setToolTip(tr("Draw only the selected subscriptions (I)"));
    auto* all = new QPushButton(tr("Show &all"));
    all->setObjectName(QStringLiteral("showAllSubscriptions"));
    all->setToolTip(tr("Draw every subscription (A)"));

    auto* top = new QHBoxLayout;
    top->addWidget(m_filter, 1);
    top->addWidget(m_onlyTroubled);
    auto* lines = new QSpinBox;
    lines->setObjectName(QStringLiteral("aggregateAbove"));
    lines->setRange(1, 100000);
    lines->setPrefix(tr("lines up to "));
    lines->setValue(plots->aggregateAbove());
    lines->setToolTip(tr("Past this many drawn subscriptions the outstanding and retry plots "
                         "draw each gateway's aggregate (sum and most outstanding, longest and "
                         "median retry interval); click an aggregate line to isolate that "
                         "gateway's worst subscriptions"));
    connect(lines, &QSpinBox::valueChanged, plots, &PlotPanel::setAggregateAbove);
    connect(plots, &PlotPanel::aggregateAboveChanged, lines, [lines](int subscriptions) {
        const QSignalBlocker block(lines);
        lines->setValue(subscriptions);
    });
    auto* bottom = new QHBoxLayout;
    bottom->addWidget(lines);
    bottom->addStretch(1);
    bottom->addWidget(isolate);
    bottom->addWidget(all);
    auto* column = new QVBoxLayout(this);
    column->setContentsMargins(2, 2, 2, 2);
    column->addLayout(top);
    column->addWidget(m_view, 1);
    column->addWidget(m_count);
    column->addLayout(bottom);

    addKeyAction(QStringLiteral("isolate"), tr("Isolate"), QKeySequence(Qt::Key_I),
                 &SubscriptionsPanel::isolateSelected)
        ->setShortcuts(
            {QKeySequence(Qt::Key_I), QKeySequence(Qt::Key_Return), QKeySequence(Qt::Key_Enter)});
    addKeyAction(QStringLiteral("hide"), tr("Hide"), QKeySequence(Qt::Key_H),
                 &SubscriptionsPanel::hideSelected);
    addKeyAction(QStringLiteral("show"), tr("Show"), QKeySequence(Qt::Key_S),
                 &SubscriptionsPanel::showSelected);
    addKeyAction(QStringLiteral("showAll"), tr("Show all"), QKeySequence(Qt::Key_A),
                 &SubscriptionsPanel::showAll);
    addKeyAction(QStringLiteral("hideGateway"), tr("Hide their gateway"), QKeySequence(Qt::Key_G),
                 &SubscriptionsPanel::hideGatewaysOfSelection);
    addKeyAction(QStringLiteral("isolateGateway"), tr("Isolate their gateway"),
                 QKeySequence(Qt::SHIFT | Qt::Key_G),
                 &SubscriptionsPanel::isolateGatewaysOfSelection);
    auto* find = new QAction(this);
    find->setShortcut(QKeySequence::Find);
    find->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(find, &QAction::triggered, this, [this] {
        m_filter->setFocus(Qt::ShortcutFocusReason);
        m_filter->selectAll();
    });
    addAction(find);

    connect(m_filter, &QLineEdit::textChanged, m_filterModel, &SubscriptionFilterModel::setText);
    connect(m_onlyTroubled, &QCheckBox::toggled, m_filterModel,
            &SubscriptionFilterModel::setOnlyTroubled);
    connect(isolate, &QPushButton::clicked, this, &SubscriptionsPanel::isolateSelected);
    connect(all, &QPushButton::clicked, this, &SubscriptionsPanel::showAll);
    connect(m_view, &QWidget::customContextMenuRequested, this,
            &SubscriptionsPanel::showContextMenu);
    connect(m_model, &SubscriptionListModel::hiddenEdited, this,
            &SubscriptionsPanel::setKeysHidden);
    connect(plots, &PlotPanel::hiddenSubscriptionsChanged, m_model,
            &SubscriptionListModel::setHidden);
    connect(m_filterModel, &QAbstractItemModel::modelReset, this, &SubscriptionsPanel::updateCount);
    connect(m_filterModel, &QAbstractItemModel::layoutChanged, this,
            &SubscriptionsPanel::updateCount);
    connect(m_filterModel, &QAbstractItemModel::rowsInserted, this,
            &SubscriptionsPanel::updateCount);
    connect(m_filterModel, &QAbstractItemModel::rowsRemoved, this,
            &SubscriptionsPanel::updateCount);
    connect(plots, &PlotPanel::hiddenSubscriptionsChanged, this, &SubscriptionsPanel::updateCount);
    m_refresh.setInterval(kRefreshMs);
    connect(&m_refresh, &QTimer::timeout, this, [this] {
        if (isVisible())
            m_model->refresh();
    });
    m_refresh.start();
    updateCount();
}

QAction* SubscriptionsPanel::addKeyAction(const QString& name, const QString& text,
                                          const QKeySequence& key,
                                          void (SubscriptionsPanel::*slot)())
{
    auto* a = new QAction(text, this);
    a->setObjectName(name);
    a->setShortcut(key);
    // Letters are the list's own: typed in the filter they are text.
    a->setShortcutContext(Qt::WidgetShortcut);
    connect(a, &QAction::triggered, this, slot);
    m_view->addAction(a);
    m_rowActions << a;
    return a;
}

void SubscriptionsPanel::setGateways(const QMap<QString, QList<int>>& instancesByGateway)
{
    m_model->setGateways(instancesByGateway);
    m_view->setColumnHidden(SubscriptionListModel::Gateway, instancesByGateway.size() < 2);
}

QList<SubscriptionKey> SubscriptionsPanel::selectedKeys() const
{
    QList<SubscriptionKey> keys;
    for (const QModelIndex& row : m_view->selectionModel()->selectedRows())
        keys << row.data(SubscriptionListModel::KeyRole).value<SubscriptionKey>();
    return keys;
}

void SubscriptionsPanel::isolateSelected()
{
    const QList<SubscriptionKey> keep = selectedKeys();
    if (keep.isEmpty())
        return;
    QSet<SubscriptionKey> hidden;
    for (int row = 0; row < m_model->rowCount(); ++row)
        if (!keep.contains(m_model->keyAt(row)))
            hidden.insert(m_model->keyAt(row));
    m_plots->setHiddenSubscriptions(hidden);
}

void SubscriptionsPanel::setSelectedHidden(bool hidden)
{
    setKeysHidden(selectedKeys(), hidden);
}

void SubscriptionsPanel::setKeysHidden(const QList<SubscriptionKey>& keys, bool hidden)
{
    if (keys.isEmpty())
        return;
    QSet<SubscriptionKey> next = m_plots->hiddenSubscriptions();
    for (const SubscriptionKey& k : keys)
        hidden ? (void)next.insert(k) : (void)next.remove(k);
    m_plots->setHiddenSubscriptions(next);
}

void SubscriptionsPanel::hideSelected()
{
    setSelectedHidden(true);
}

void SubscriptionsPanel::showSelected()
{
    setSelectedHidden(false);
}

void SubscriptionsPanel::showAll()
{
    m_plots->setHiddenSubscriptions({});
}

QSet<QString> SubscriptionsPanel::gatewaysOfSelection() const
{
    QSet<QString> gateways;
    for (const SubscriptionKey& k : selectedKeys())
        if (const QString g = m_model->gatewayOf(k); !g.isEmpty())
            gateways.insert(g);
    return gateways;
}

void SubscriptionsPanel::setGatewaysOfSelectionHidden(bool hidden)
{
    const QSet<QString> gateways = gatewaysOfSelection();
    if (gateways.isEmpty())
        return;
    QSet<SubscriptionKey> next = m_plots->hiddenSubscriptions();
    for (int row = 0; row < m_model->rowCount(); ++row) {
        const SubscriptionKey k = m_model->keyAt(row);
        if (gateways.contains(m_model->gatewayOf(k)))
            hidden ? (void)next.insert(k) : (void)next.remove(k);
    }
    m_plots->setHiddenSubscriptions(next);
}

void SubscriptionsPanel::hideGatewaysOfSelection()
{
    setGatewaysOfSelectionHidden(true);
}

void SubscriptionsPanel::isolateGatewaysOfSelection()
{
    const QSet<QString> gateways = gatewaysOfSelection();
    if (gateways.isEmpty())
        return;
    QSet<SubscriptionKey> hidden;
    for (int row = 0; row < m_model->rowCount(); ++row) {
        const SubscriptionKey k = m_model->keyAt(row);
        if (!gateways.contains(m_model->gatewayOf(k)))
            hidden.insert(k);
    }
    m_plots->setHiddenSubscriptions(hidden);
}

void SubscriptionsPanel::showContextMenu(const QPoint& at)
{
    if (selectedKeys().isEmpty())
        return;
    QMenu menu(this);
    const bool gateways = !gatewaysOfSelection().isEmpty();
    for (QAction* a : std::as_const(m_rowActions)) {
        if (a->objectName().endsWith(QLatin1String("Gateway")) && !gateways)
            continue;
        menu.addAction(a);
    }
    menu.exec(m_view->viewport()->mapToGlobal(at));
}

void SubscriptionsPanel::updateCount()
{
    const int total = m_model->rowCount();
    int drawn = 0;
    for (int row = 0; row < total; ++row)
        drawn += m_plots->isSubscriptionHidden(m_model->keyAt(row)) ? 0 : 1;
    m_count->setText(
        tr("%1 listed · %2 of %3 drawn").arg(m_filterModel->rowCount()).arg(drawn).arg(total));
    m_count->setToolTip(m_count->text());
}

void SubscriptionsPanel::showEvent(QShowEvent* event)
{
    m_model->refresh();
    QWidget::showEvent(event);
}

bool SubscriptionsPanel::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_filter && event->type() == QEvent::KeyPress) {
        const auto* key = static_cast<QKeyEvent*>(event);
        if (key->key() == Qt::Key_Down && m_filterModel->rowCount() > 0) {
            m_view->setFocus(Qt::TabFocusReason);
            const QModelIndex current = m_view->currentIndex();
            if (!current.isValid() || !m_view->selectionModel()->isRowSelected(current.row()))
                m_view->selectRow(current.isValid() ? current.row() : 0);
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace stormwatch
