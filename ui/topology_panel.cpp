#include "ui/topology_panel.h"

#include "models/topology_model.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QMenu>
#include <QPushButton>
#include <QTreeView>
#include <QVBoxLayout>

namespace stormwatch {

TopologyPanel::TopologyPanel(TopologyModel* model, QWidget* parent)
    : QWidget(parent), m_model(model)
{
    m_view = new QTreeView;
    m_view->setObjectName(QStringLiteral("topologyView"));
    m_view->setModel(model);
    m_view->setUniformRowHeights(true);
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    m_view->header()->setStretchLastSection(true);
    m_view->header()->setSectionResizeMode(TopologyModel::Name, QHeaderView::ResizeToContents);
    m_view->expandAll();
    m_redeploy = new QPushButton(tr("Redeploy instance"));
    m_redeploy->setObjectName(QStringLiteral("redeploy"));
    m_redeploy->setToolTip(tr("Tear the selected instance down and deploy it again: it "
                              "re-subscribes every tag"));
    m_redeploy->setEnabled(false);

    auto* column = new QVBoxLayout(this);
    column->setContentsMargins(2, 2, 2, 2);
    column->addWidget(m_view, 1);
    column->addWidget(m_redeploy);

    // New connections and instances show expanded: the tree is small and the point is to
    // see all of it.
    connect(model, &QAbstractItemModel::rowsInserted, m_view,
            [this](const QModelIndex& parent, int first, int last) {
                m_view->expand(parent);
                for (int r = first; r <= last; ++r)
                    m_view->expand(m_model->index(r, 0, parent));
            });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this,
            &TopologyPanel::updateButton);
    connect(model, &QAbstractItemModel::rowsRemoved, this, &TopologyPanel::updateButton);
    connect(m_redeploy, &QPushButton::clicked, this, [this] {
        const QString instance = selectedInstance();
        if (!instance.isEmpty())
            emit redeployRequested(instance);
    });
    connect(m_view, &QWidget::customContextMenuRequested, this, &TopologyPanel::showMenu);
}

QString TopologyPanel::selectedInstance() const
{
    const QModelIndex current = m_view->currentIndex();
    if (!current.isValid() ||
        current.data(TopologyModel::KindRole).toInt() != int(TopologyModel::Kind::Instance))
        return {};
    return current.siblingAtColumn(TopologyModel::Name).data().toString();
}

void TopologyPanel::updateButton()
{
    m_redeploy->setEnabled(!selectedInstance().isEmpty());
}

void TopologyPanel::showMenu(const QPoint& pos)
{
    const QModelIndex at = m_view->indexAt(pos);
    if (!at.isValid() ||
        at.data(TopologyModel::KindRole).toInt() != int(TopologyModel::Kind::Instance))
        return;
    m_view->setCurrentIndex(at);
    QMenu menu(this);
    const QString instance = selectedInstance();
    menu.addAction(tr("Redeploy %1").arg(instance), this,
                   [this, instance] { emit redeployRequested(instance); });
    menu.exec(m_view->viewport()->mapToGlobal(pos));
}

} // namespace stormwatch
