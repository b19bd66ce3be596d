#pragma once
// The Tags dock: every tag with value, quality, timestamp, age, handle, the subscribe's
// result, its first value and last error; quality buttons (with counts), "failed to add",
// "never received a value" and "stale" buttons (with counts, one at a time), an "older than"
// field and a text filter; click a header to sort.

#include "models/tag_table_model.h"

#include <QWidget>

class QLabel;
class QLineEdit;
class QTableView;
class QToolButton;

namespace stormwatch {

class TagsPanel : public QWidget {
    Q_OBJECT
public:
    explicit TagsPanel(TagTableModel* model, QWidget* parent = nullptr);
    TagFilterProxy* proxy() const { return m_proxy; }
    QTableView* view() const { return m_view; }
    QLineEdit* filterEdit() const { return m_filter; }
    QToolButton* qualityButton(QualityClass quality) const
    {
        return m_buttons[std::size_t(quality)];
    }
    QToolButton* failedToAddButton() const { return m_failedToAdd; }
    QToolButton* neverReceivedButton() const { return m_neverReceived; }
    QToolButton* staleButton() const { return m_stale; }
    QLineEdit* olderThanEdit() const { return m_olderThan; }

private:
    void updateCounts();
    void showOutcome(TagFilterProxy::Outcome outcome, bool shown);
    void applyOlderThan();

    TagTableModel* m_model;
    TagFilterProxy* m_proxy = nullptr;
    QTableView* m_view = nullptr;
    QLineEdit* m_filter = nullptr;
    QLabel* m_shown = nullptr;
    std::array<QToolButton*, kQualityClassCount> m_buttons{};
    QToolButton* m_failedToAdd = nullptr;
    QToolButton* m_neverReceived = nullptr;
    QToolButton* m_stale = nullptr;
    QLineEdit* m_olderThan = nullptr;
};

} // namespace stormwatch
