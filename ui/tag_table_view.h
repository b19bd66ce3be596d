#pragma once
// The Tags dock's table. Live, every tag changes at 10 Hz and the model says so with every
// batch (20 a second); each repaint of the visible rows costs the UI thread ~9 ms. People
// read the table, they do not follow it frame by frame: a change repaints the rows in sight
// at most kRepaintsPerSecond times a second (the first change within one interval), and a
// change to a row out of sight, or while the table is hidden, repaints nothing. Anything
// else that repaints (scrolling, a resize, sorting, filtering) shows the current values.

#include <QTableView>
#include <QTimer>

namespace stormwatch {

class TagTableView : public QTableView {
    Q_OBJECT
public:
    static constexpr int kRepaintsPerSecond = 5;
    explicit TagTableView(QWidget* parent = nullptr);
    // A repaint for changed rows is waiting for its turn.
    bool repaintPending() const { return m_repaint.isActive(); }

protected:
    void dataChanged(const QModelIndex& topLeft, const QModelIndex& bottomRight,
                     const QList<int>& roles = QList<int>()) override;

private:
    QTimer m_repaint;
};

} // namespace stormwatch
