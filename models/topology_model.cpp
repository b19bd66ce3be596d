#include "models/topology_model.h"

#include <algorithm>

namespace stormwatch {

struct TopologyModel::Node {
    Kind kind = Kind::Gateway;
    QString name;
    QString state;
    QString tooltip;
    Node* parent = nullptr;
    std::vector<std::unique_ptr<Node>> children;

    int row() const
    {
        if (!parent)
            return 0;
        const auto& siblings = parent->children;
        const auto it = std::find_if(siblings.begin(), siblings.end(),
                                     [this](const auto& n) { return n.get() == this; });
        return int(it - siblings.begin());
    }
    Node* child(const QString& childName) const
    {
        for (const auto& c : children) {
            if (c->name == childName)
                return c.get();
        }
        return nullptr;
    }
    Node* add(Kind k, const QString& childName)
    {
        auto n = std::make_unique<Node>();
        n->kind = k;
        n->name = childName;
        n->parent = this;
        children.push_back(std::move(n));
        return children.back().get();
    }
};

TopologyModel::TopologyModel(QObject* parent)
    : QAbstractItemModel(parent), m_root(std::make_unique<Node>())
{
    Node* gateway = m_root->add(Kind::Gateway, QString());
    gateway->state = QStringLiteral("normal");
}

TopologyModel::~TopologyModel() = default;

TopologyModel::Node* TopologyModel::nodeOf(const QModelIndex& index) const
{
    return index.isValid() ? static_cast<Node*>(index.internalPointer()) : m_root.get();
}

QModelIndex TopologyModel::indexOf(const Node* node, int column) const
{
    if (!node || node == m_root.get())
        return {};
    return createIndex(node->row(), column, const_cast<Node*>(node));
}

QModelIndex TopologyModel::index(int row, int column, const QModelIndex& parent) const
{
    if (!hasIndex(row, column, parent))
        return {};
    return createIndex(row, column, nodeOf(parent)->children[std::size_t(row)].get());
}

QModelIndex TopologyModel::parent(const QModelIndex& child) const
{
    if (!child.isValid())
        return {};
    return indexOf(nodeOf(child)->parent);
}

int TopologyModel::rowCount(const QModelIndex& parent) const
{
    if (parent.isValid() && parent.column() != 0)
        return 0;
    return int(nodeOf(parent)->children.size());
}

int TopologyModel::columnCount(const QModelIndex&) const
{
    return kColumnCount;
}

QColor TopologyModel::stateColor(const QString& state)
{
    if (state == QLatin1String("connected") || state == QLatin1String("normal"))
        return QColor(0x2e, 0x9e, 0x44);
    if (state == QLatin1String("connecting") || state == QLatin1String("recovering"))
        return QColor(0xd9, 0x8c, 0x00);
    if (state == QLatin1String("unreachable") || state == QLatin1String("refused") ||
        state == QLatin1String("reconnecting") || state == QLatin1String("unresponsive") ||
        state == QLatin1String("waiting to reconnect") || state == QLatin1String("closed"))
        return QColor(0xd6, 0x33, 0x2b);
    return QColor(0x80, 0x80, 0x80);
}

QVariant TopologyModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const Node* n = nodeOf(index);
    switch (role) {
    case Qt::DisplayRole:
        if (index.column() == State)
            return n->state;
        if (n->kind == Kind::Gateway)
            return n->name.isEmpty() ? tr("gateway") : tr("gateway %1").arg(n->name);
        return n->name;
    case Qt::DecorationRole:
        return index.column() == Name && n->kind != Kind::Instance ? QVariant(stateColor(n->state))
                                                                   : QVariant();
    case Qt::ForegroundRole:
        return index.column() == State && !n->state.isEmpty() ? QVariant(stateColor(n->state))
                                                              : QVariant();
    case Qt::ToolTipRole:
        return n->tooltip.isEmpty() ? QVariant() : QVariant(n->tooltip);
    case KindRole:
        return int(n->kind);
    case StateRole:
        return n->state;
    case StateColorRole:
        return stateColor(n->state);
    }
    return {};
}

QVariant TopologyModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractItemModel::headerData(section, orientation, role);
    return section == Name ? tr("Name") : tr("State");
}

QModelIndex TopologyModel::gatewayIndex() const
{
    return indexOf(m_root->children.front().get());
}

QModelIndex TopologyModel::connectionIndex(const QString& name) const
{
    return indexOf(m_root->children.front()->child(name));
}

QModelIndex TopologyModel::instanceIndex(const QString& connection, const QString& instance) const
{
    const Node* c = m_root->children.front()->child(connection);
    return c ? indexOf(c->child(instance)) : QModelIndex();
}

void TopologyModel::setGateway(const QString& address, const QString& recoveryState)
{
    Node* g = m_root->children.front().get();
    if (g->name == address && g->state == recoveryState)
        return;
    g->name = address;
    g->state = recoveryState;
    g->tooltip = tr("Gateway %1\nrecovery gate: %2").arg(address, recoveryState);
    emit dataChanged(indexOf(g, 0), indexOf(g, kColumnCount - 1));
}

void TopologyModel::setConnections(const QVector<ConnectionInfo>& connections)
{
    m_connections = connections;
    sync();
}

void TopologyModel::setInstances(const QMap<QString, QStringList>& byConnection)
{
    m_instances = byConnection;
    sync();
}

QString TopologyModel::connectionTooltip(const ConnectionInfo& info)
{
    QStringList lines;
    lines << tr("Connection %1 — %2").arg(info.name, info.state);
    if (!info.error.isEmpty())
        lines << tr("last error: %1").arg(info.error);
    if (info.retryInS >= 0)
        lines << tr("next attempt in %1 s").arg(info.retryInS, 0, 'f', 1);
    if (!info.address.isEmpty())
        lines << tr("address: %1").arg(info.address);
    lines << tr("session: %1").arg(info.sessionId.isEmpty() ? tr("none") : info.sessionId);
    if (info.protocolVersion > 0)
        lines << tr("protocol version: %1").arg(info.protocolVersion);
    if (info.echoedCommandTimeoutS >= 0)
        lines << tr("command timeout (echoed): %1 s").arg(info.echoedCommandTimeoutS);
    if (info.inFlightCeilingS >= 0)
        lines << tr("in-flight ceiling (Lever 1): %1 s").arg(info.inFlightCeilingS);
    lines << (info.supportsSupervisoryBulk ? tr("bulk supervisory subscribe: advertised")
                                           : tr("bulk supervisory subscribe: not advertised"));
    if (!info.capabilities.isEmpty())
        lines << tr("capabilities:")
              << QStringLiteral("  ") + info.capabilities.join(QStringLiteral("\n  "));
    return lines.join(QLatin1Char('\n'));
}

void TopologyModel::sync()
{
    Node* gateway = m_root->children.front().get();
    const QModelIndex gatewayIdx = indexOf(gateway);
    QStringList wanted;
    for (const ConnectionInfo& c : m_connections)
        wanted << c.name;
    for (auto it = m_instances.cbegin(); it != m_instances.cend(); ++it) {
        if (!wanted.contains(it.key()))
            wanted << it.key();
    }
    // Removals first, from the back so rows stay valid.
    for (int r = int(gateway->children.size()) - 1; r >= 0; --r) {
        if (!wanted.contains(gateway->children[std::size_t(r)]->name)) {
            beginRemoveRows(gatewayIdx, r, r);
            gateway->children.erase(gateway->children.begin() + r);
            endRemoveRows();
        }
    }
    for (const QString& name : wanted) {
        const auto info = std::find_if(m_connections.cbegin(), m_connections.cend(),
                                       [&](const ConnectionInfo& c) { return c.name == name; });
        const QString state = info != m_connections.cend() ? info->state : tr("not connected yet");
        const QString tooltip =
            info != m_connections.cend() ? connectionTooltip(*info) : tr("Connection %1").arg(name);
        Node* node = gateway->child(name);
        if (!node) {
            const int row = int(gateway->children.size());
            beginInsertRows(gatewayIdx, row, row);
            node = gateway->add(Kind::Connection, name);
            node->state = state;
            node->tooltip = tooltip;
            for (const QString& instance : m_instances.value(name))
                node->add(Kind::Instance, instance)->tooltip =
                    tr("Instance %1 on %2").arg(instance, name);
            endInsertRows();
            continue;
        }
        if (node->state != state || node->tooltip != tooltip) {
            node->state = state;
            node->tooltip = tooltip;
            emit dataChanged(indexOf(node, 0), indexOf(node, kColumnCount - 1));
        }
        syncInstances(node, m_instances.value(name));
    }
}

void TopologyModel::syncInstances(Node* connection, const QStringList& names)
{
    const QModelIndex parentIdx = indexOf(connection);
    for (int r = int(connection->children.size()) - 1; r >= 0; --r) {
        if (!names.contains(connection->children[std::size_t(r)]->name)) {
            beginRemoveRows(parentIdx, r, r);
            connection->children.erase(connection->children.begin() + r);
            endRemoveRows();
        }
    }
    for (const QString& name : names) {
        if (connection->child(name))
            continue;
        const int row = int(connection->children.size());
        beginInsertRows(parentIdx, row, row);
        connection->add(Kind::Instance, name)->tooltip =
            tr("Instance %1 on %2").arg(name, connection->name);
        endInsertRows();
    }
}

} // namespace stormwatch
