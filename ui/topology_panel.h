#pragma once
// The Topology dock: gateway → connections → instances with state colours (capabilities and
// session in the tooltips), and Redeploy for the selected instance (button or context menu).

#include <QWidget>

class QPushButton;
class QTreeView;

namespace stormwatch {

class TopologyModel;

class TopologyPanel : public QWidget {
    Q_OBJECT
public:
    explicit TopologyPanel(TopologyModel* model, QWidget* parent = nullptr);
    QTreeView* view() const { return m_view; }
    QString selectedInstance() const; // empty unless an instance row is selected

signals:
    void redeployRequested(const QString& instance);

private:
    void updateButton();
    void showMenu(const QPoint& pos);

    TopologyModel* m_model;
    QTreeView* m_view = nullptr;
    QPushButton* m_redeploy = nullptr;
};

} // namespace stormwatch
