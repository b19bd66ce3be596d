#pragma once
// What the console is attached to, as a tree: the gateway, its data connections (state,
// session, capabilities) and the instances subscribed through each. Updates are diffs —
// rows are updated in place, inserted and removed — so a view keeps its expansion and
// selection while connection states flip during a storm.

#include "client/engine_samples.h"

#include <QAbstractItemModel>
#include <QColor>
#include <QMap>
#include <memory>
#include <vector>

namespace stormwatch {

class TopologyModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { Name, State };
    static constexpr int kColumnCount = 2;
    enum class Kind { Gateway, Connection, Instance };
    enum Role { KindRole = Qt::UserRole + 1, StateRole, StateColorRole };

    explicit TopologyModel(QObject* parent = nullptr);
    ~TopologyModel() override;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // The gateway row: its address and the recovery gate's state ("normal", "recovering",
    // "closed").
    void setGateway(const QString& address, const QString& recoveryState);
    // Connections by name: known ones update in place, new ones are appended, missing ones
    // removed (unless instances still name them).
    void setConnections(const QVector<ConnectionInfo>& connections);
    // Instance names per connection name; a connection named here before setConnections()
    // knows it shows as "not connected yet".
    void setInstances(const QMap<QString, QStringList>& byConnection);

    QModelIndex gatewayIndex() const;
    QModelIndex connectionIndex(const QString& name) const;
    QModelIndex instanceIndex(const QString& connection, const QString& instance) const;

    static QColor stateColor(const QString& state);

private:
    struct Node;
    Node* nodeOf(const QModelIndex& index) const;
    QModelIndex indexOf(const Node* node, int column = 0) const;
    void sync();
    void syncInstances(Node* connection, const QStringList& names);
    static QString connectionTooltip(const ConnectionInfo& info);

    std::unique_ptr<Node> m_root;
    QVector<ConnectionInfo> m_connections;
    QMap<QString, QStringList> m_instances;
};

} // namespace stormwatch
