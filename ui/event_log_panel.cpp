#include "ui/event_log_panel.h"

#include <QAction>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QTableView>
#include <QVBoxLayout>

namespace stormwatch {

EventLogPanel::EventLogPanel(EventLogModel* model, QWidget* parent) : QWidget(parent)
{
    m_proxy = new EventLogFilterProxy(this);
    m_proxy->setSourceModel(model);

    m_severity = new QComboBox;
    m_severity->setObjectName(QStringLiteral("logSeverity"));
    m_severity->addItem(tr("debug and up"), int(LogSeverity::Debug));
    m_severity->addItem(tr("info and up"), int(LogSeverity::Info));
    m_severity->addItem(tr("warnings and errors"), int(LogSeverity::Warning));
    m_severity->addItem(tr("errors only"), int(LogSeverity::Error));
    m_filter = new QLineEdit;
    m_filter->setObjectName(QStringLiteral("logFilter"));
    m_filter->setPlaceholderText(tr("Filter log (subject, message)  Ctrl+L"));
    m_filter->setClearButtonEnabled(true);
    m_copy = new QPushButton(tr("Copy"));
    m_copy->setObjectName(QStringLiteral("logCopy"));
    m_copy->setToolTip(tr("Copy the selected rows as tab-separated text (Ctrl+C)"));

    m_view = new QTableView;
    m_view->setObjectName(QStringLiteral("logView"));
    m_view->setModel(m_proxy);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setWordWrap(false);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setColumnWidth(EventLogModel::Time, 70);
    m_view->setColumnWidth(EventLogModel::Wall, 90);
    m_view->setColumnWidth(EventLogModel::Subject, 90);
    m_view->setColumnWidth(EventLogModel::Severity, 60);
    auto* copy = new QAction(this);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetShortcut);
    m_view->addAction(copy);
    connect(copy, &QAction::triggered, this, &EventLogPanel::copySelection);

    auto* bar = new QHBoxLayout;
    bar->addWidget(m_severity);
    bar->addWidget(m_filter, 1);
    bar->addWidget(m_copy);
    auto* column = new QVBoxLayout(this);
    column->setContentsMargins(2, 2, 2, 2);
    column->addLayout(bar);
    column->addWidget(m_view, 1);

    connect(m_severity, &QComboBox::currentIndexChanged, this,
            [this] { m_proxy->setMinimumSeverity(m_severity->currentData().toInt()); });
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &EventLogFilterProxy::setText);
    connect(m_copy, &QPushButton::clicked, this, &EventLogPanel::copySelection);
    // Follow the tail only while the user has not scrolled up to read.
    QScrollBar* bar2 = m_view->verticalScrollBar();
    connect(bar2, &QScrollBar::valueChanged, this,
            [this, bar2](int v) { m_atBottom = v >= bar2->maximum() - 1; });
    connect(m_proxy, &QAbstractItemModel::rowsInserted, this, [this] {
        if (m_atBottom)
            m_view->scrollToBottom();
    });
}

QString EventLogPanel::copySelection()
{
    return copyRowsToClipboard(*m_proxy, m_view->selectionModel()->selectedIndexes());
}

} // namespace stormwatch
