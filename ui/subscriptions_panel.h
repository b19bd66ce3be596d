#pragma once
// The Subscriptions dock: every subscription the plots can draw, as a table that sorts,
// filters (text, "only troubled") and says which are drawn. The plots draw what it shows:
// ticking a row, or the keys and context menu below, change the plots' hidden set, which a
// legend click changes too, and the list follows it.
//   I / Return  isolate the selected rows       G        hide the selected rows' gateways
//   H           hide the selected rows          Shift+G  isolate the selected rows' gateways
//   S           show the selected rows          A        show every subscription
//   Ctrl+F      the filter; Down from it goes to the list
// The values refresh twice a second while the dock is seen.

#include "models/series_store.h"

#include <QList>
#include <QSet>
#include <QString>
#include <QTimer>
#include <QWidget>

class QCheckBox;
class QLabel;
class QLineEdit;
class QTableView;
class QAction;

namespace stormwatch {

class PlotPanel;
class SubscriptionListModel;
class SubscriptionFilterModel;

class SubscriptionsPanel : public QWidget {
    Q_OBJECT
public:
    SubscriptionsPanel(const SeriesStore* store, PlotPanel* plots, QWidget* parent = nullptr);

    SubscriptionListModel* model() const { return m_model; }
    QTableView* view() const { return m_view; }
    QLineEdit* filterEdit() const { return m_filter; }
    QCheckBox* onlyTroubledBox() const { return m_onlyTroubled; }

    // The run's gateways, as the plots have them.
    void setGateways(const QMap<QString, QList<int>>& instancesByGateway);

    QList<SubscriptionKey> selectedKeys() const;
    void isolateSelected();
    void hideSelected();
    void showSelected();
    void showAll();
    void hideGatewaysOfSelection();
    void isolateGatewaysOfSelection();

protected:
    void showEvent(QShowEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QAction* addKeyAction(const QString& name, const QString& text, const QKeySequence& key,
                          void (SubscriptionsPanel::*slot)());
    void showContextMenu(const QPoint& at);
    void updateCount();
    QSet<QString> gatewaysOfSelection() const;
    void setSelectedHidden(bool hidden);
    void setKeysHidden(const QList<SubscriptionKey>& keys, bool hidden);
    void setGatewaysOfSelectionHidden(bool hidden);

    PlotPanel* m_plots;
    SubscriptionListModel* m_model;
    SubscriptionFilterModel* m_filterModel;
    QTableView* m_view;
    QLineEdit* m_filter;
    QCheckBox* m_onlyTroubled;
    QLabel* m_count;
    QList<QAction*> m_rowActions;
    QTimer m_refresh;
};

} // namespace stormwatch
