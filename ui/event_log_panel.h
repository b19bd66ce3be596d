#pragma once
// The Event log dock: the engine's log with a minimum-severity filter, a text filter
// (Ctrl+L), Copy (TSV of the selected rows, also Ctrl+C) and follow-the-tail scrolling while
// the view sits at the bottom.

#include "models/event_log_model.h"

#include <QWidget>

class QComboBox;
class QLineEdit;
class QPushButton;
class QTableView;

namespace stormwatch {

class EventLogPanel : public QWidget {
    Q_OBJECT
public:
    explicit EventLogPanel(EventLogModel* model, QWidget* parent = nullptr);
    EventLogFilterProxy* proxy() const { return m_proxy; }
    QTableView* view() const { return m_view; }
    QLineEdit* filterEdit() const { return m_filter; }
    QComboBox* severityCombo() const { return m_severity; }
    // TSV of the selected rows onto the clipboard; returns it.
    QString copySelection();

private:
    EventLogFilterProxy* m_proxy = nullptr;
    QTableView* m_view = nullptr;
    QComboBox* m_severity = nullptr;
    QLineEdit* m_filter = nullptr;
    QPushButton* m_copy = nullptr;
    bool m_atBottom = true;
};

} // namespace stormwatch
