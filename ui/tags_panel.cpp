#include "ui/tags_panel.h"

#include "ui/tag_table_view.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

namespace stormwatch {

TagsPanel::TagsPanel(TagTableModel* model, QWidget* parent) : QWidget(parent), m_model(model)
{
    m_proxy = new TagFilterProxy(this);
    m_proxy->setSourceModel(model);

    auto* bar = new QHBoxLayout;
    for (QualityClass q : {QualityClass::Good, QualityClass::Uncertain, QualityClass::Bad}) {
        auto* b = new QToolButton;
        b->setObjectName(QStringLiteral("quality") + qualityText(q));
        b->setCheckable(true);
        b->setChecked(true);
        b->setToolTip(tr("Show tags of %1 quality").arg(qualityText(q)));
        QPalette p = b->palette();
        p.setColor(QPalette::ButtonText, qualityColor(q));
        b->setPalette(p);
        connect(b, &QToolButton::toggled, this,
                [this, q](bool shown) { m_proxy->setQualityShown(q, shown); });
        m_buttons[std::size_t(q)] = b;
        bar->addWidget(b);
    }
    // Commissioning's two questions: which tags did the gateway refuse, which never got a
    // value. One at a time (a tag in both lists is shown by either).
    auto outcomeButton = [&](const QString& name, const QString& tip, TagFilterProxy::Outcome outcome) {
        auto* b = new QToolButton;
        b->setObjectName(name);
        b->setCheckable(true);
        b->setToolTip(tip);
        connect(b, &QToolButton::toggled, this, [this, outcome](bool shown) { showOutcome(outcome, shown); });
        bar->addWidget(b);
        return b;
    };
    m_failedToAdd = outcomeButton(QStringLiteral("outcomeFailedToAdd"),
                                  tr("Show only tags the gateway refused to add (its reason in Subscribe); a call that "
                                     "failed, such as a timeout, is retried and not listed"),
                                  TagFilterProxy::Outcome::FailedToAdd);
    m_neverReceived = outcomeButton(QStringLiteral("outcomeNeverReceived"),
                                    tr("Show only tags that never received a value"),
                                    TagFilterProxy::Outcome::NeverReceived);
    m_filter = new QLineEdit;
    m_filter->setObjectName(QStringLiteral("tagFilter"));
    m_filter->setPlaceholderText(tr("Filter tags (instance, tag, value, subscribe result, error)"));
    m_filter->setClearButtonEnabled(true);
    bar->addWidget(m_filter, 1);
    m_shown = new QLabel;
    m_shown->setObjectName(QStringLiteral("tagsShown"));
    bar->addWidget(m_shown);

    m_view = new TagTableView;
    m_view->setObjectName(QStringLiteral("tagView"));
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(-1, Qt::AscendingOrder); // arrival order until a header is clicked
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setAlternatingRowColors(true);
    m_view->setWordWrap(false);
    m_view->verticalHeader()->hide();
    // Fixed row heights: no per-row measuring when hundreds of rows change ten times a second.
    m_view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_view->setColumnWidth(TagTableModel::Instance, 80);
    m_view->setColumnWidth(TagTableModel::Tag, 140);
    m_view->setColumnWidth(TagTableModel::Value, 80);
    m_view->setColumnWidth(TagTableModel::Quality, 100);
    m_view->setColumnWidth(TagTableModel::SourceTimestamp, 150);
    m_view->setColumnWidth(TagTableModel::ItemHandle, 90);
    m_view->setColumnWidth(TagTableModel::SubscribeResult, 160);
    m_view->setColumnWidth(TagTableModel::FirstValue, 110);

    auto* column = new QVBoxLayout(this);
    column->setContentsMargins(2, 2, 2, 2);
    column->addLayout(bar);
    column->addWidget(m_view, 1);

    connect(m_filter, &QLineEdit::textChanged, m_proxy, &TagFilterProxy::setText);
    connect(model, &TagTableModel::qualityCountsChanged, this, &TagsPanel::updateCounts);
    connect(m_proxy, &QAbstractItemModel::rowsInserted, this, &TagsPanel::updateCounts);
    connect(m_proxy, &QAbstractItemModel::rowsRemoved, this, &TagsPanel::updateCounts);
    connect(m_proxy, &QAbstractItemModel::modelReset, this, &TagsPanel::updateCounts);
    connect(m_proxy, &QAbstractItemModel::layoutChanged, this, &TagsPanel::updateCounts);
    updateCounts();
}

void TagsPanel::showOutcome(TagFilterProxy::Outcome outcome, bool shown)
{
    if (shown) {
        // The other outcome button lets go (without its toggled() undoing this one).
        QToolButton* other = outcome == TagFilterProxy::Outcome::FailedToAdd ? m_neverReceived : m_failedToAdd;
        const QSignalBlocker block(other);
        other->setChecked(false);
        m_proxy->setOutcome(outcome);
    } else if (m_proxy->outcome() == outcome) {
        m_proxy->setOutcome(TagFilterProxy::Outcome::All);
    }
    updateCounts();
}

void TagsPanel::updateCounts()
{
    for (QualityClass q : {QualityClass::Good, QualityClass::Uncertain, QualityClass::Bad})
        m_buttons[std::size_t(q)]->setText(
            QStringLiteral("%1 %2").arg(qualityText(q)).arg(m_model->count(q)));
    m_failedToAdd->setText(tr("Failed to add %1").arg(m_model->failedToAddCount()));
    m_neverReceived->setText(tr("No value %1").arg(m_model->neverReceivedCount()));
    m_shown->setText(tr("%1 of %2").arg(m_proxy->rowCount()).arg(m_model->rowCount()));
}

} // namespace stormwatch
