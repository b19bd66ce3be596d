#include "ui/tag_table_view.h"

namespace stormwatch {

TagTableView::TagTableView(QWidget* parent) : QTableView(parent)
{
    m_repaint.setSingleShot(true);
    m_repaint.setObjectName(QStringLiteral("tag table repaint")); // named in bench_ui_stall
    m_repaint.setInterval(1000 / kRepaintsPerSecond);
    connect(&m_repaint, &QTimer::timeout, viewport(), [this] { viewport()->update(); });
}

void TagTableView::dataChanged(const QModelIndex& topLeft, const QModelIndex& bottomRight,
                               const QList<int>&)
{
    // Not QTableView's: it repaints at once, for every change. The table is read-only (no
    // editor to refresh); a repaint reads the model's current values.
    if (m_repaint.isActive() || !isVisible() || !topLeft.isValid() || !bottomRight.isValid())
        return;
    const int first = rowAt(0);
    if (first < 0)
        return; // no row in sight
    int last = rowAt(viewport()->height() - 1);
    if (last < 0)
        last = model()->rowCount(rootIndex()) - 1; // the rows end above the bottom
    if (bottomRight.row() < first || topLeft.row() > last)
        return;
    m_repaint.start();
}

} // namespace stormwatch
