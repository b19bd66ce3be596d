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
    auto outcomeButton = [&](const QString& name, const QString& tip,
                             TagFilterProxy::Outcome outcome) {
        auto* b = new QToolButton;
        b->setObjectName(name);
        b->setCheckable(true);
        b->setToolTip(tip);
        connect(b, &QToolButton::toggled, this,
                [this, outcome](bool shown) { showOutcome(outcome, shown); });
        bar->addWidget(b);
        return b;
    };
    m_failedToAdd = outcomeButton(
        QStringLiteral("outcomeFailedToAdd"),
        tr("Show only tags the gateway refused to add (its reason in Subscribe); a call that "
           "failed, such as a timeout, is retried and not listed"),
        TagFilterProxy::Outcome::FailedToAdd);
    m_neverReceived = outcomeButton(QStringLiteral("outcomeNeverReceived"),
                                    tr("Show only tags that never received a value"),
                                    TagFilterProxy::Outcome::NeverReceived);
    m_stale = outcomeButton(
        QStringLiteral("outcomeStale"),
        tr("Show only Good tags with no update for longer than their kind allows (the site's "
           "expected_update_s × stale_factor): a value that stopped changing"),
        TagFilterProxy::Outcome::Stale);
    m_olderThan = new QLineEdit;
    m_olderThan->setObjectName(QStringLiteral("olderThan"));
    m_olderThan->setPlaceholderText(tr("Older than…"));
    m_olderThan->setToolTip(
        tr("Show only tags whose last value arrived at least this long ago: 30, 30 s, 5 min, "
           "1.5 h. Tags without a value have no age and are not shown. Empty: off."));
    m_olderThan->setClearButtonEnabled(true);
    m_olderThan->setFixedWidth(
        m_olderThan->fontMetrics().horizontalAdvance(QStringLiteral("Older than… 00 min")) + 30);
    // The fields get a row of their own: beside seven buttons a docked panel squeezes them
    // to a few pixels.
    bar->addStretch(1);
    auto* fields = new QHBoxLayout;
    fields->addWidget(m_olderThan);
    m_filter = new QLineEdit;
    m_filter->setObjectName(QStringLiteral("tagFilter"));
    m_filter->setPlaceholderText(tr("Filter tags (instance, tag, value, subscribe result, error)"));
    m_filter->setClearButtonEnabled(true);
    fields->addWidget(m_filter, 1);
    m_shown = new QLabel;
    m_shown->setObjectName(QStringLiteral("tagsShown"));
    fields->addWidget(m_shown);

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
    m_view->setColumnWidth(TagTableModel::Quality, 140);
    m_view->setColumnWidth(TagTableModel::SourceTimestamp, 150);
    m_view->setColumnWidth(TagTableModel::Age, 80);
    m_view->setColumnWidth(TagTableModel::SourceAge, 90);
    m_view->setColumnWidth(TagTableModel::ItemHandle, 90);
    m_view->setColumnWidth(TagTableModel::SubscribeResult, 160);
    m_view->setColumnWidth(TagTableModel::FirstValue, 110);

    auto* column = new QVBoxLayout(this);
    column->setContentsMargins(2, 2, 2, 2);
    column->addLayout(bar);
    column->addLayout(fields);
    column->addWidget(m_view, 1);

    connect(m_filter, &QLineEdit::textChanged, m_proxy, &TagFilterProxy::setText);
    connect(m_olderThan, &QLineEdit::textChanged, this, &TagsPanel::applyOlderThan);
    // Ages move with the clock, not with the rows: repaint what is shown (the proxy re-filters
    // and re-sorts itself when an age decides).
    connect(model, &TagTableModel::clockAdvanced, m_view->viewport(),
            qOverload<>(&QWidget::update));
    connect(model, &TagTableModel::qualityCountsChanged, this, &TagsPanel::updateCounts);
    connect(m_proxy, &QAbstractItemModel::rowsInserted, this, &TagsPanel::updateCounts);
    connect(m_proxy, &QAbstractItemModel::rowsRemoved, this, &TagsPanel::updateCounts);
    connect(m_proxy, &QAbstractItemModel::modelReset, this, &TagsPanel::updateCounts);
    connect(m_proxy, &QAbstractItemModel::layoutChanged, this, &TagsPanel::updateCounts);
    updateCounts();
}

// An unreadable age leaves the filter as it was and says so in the field's colour and tip.
void TagsPanel::applyOlderThan()
{
    const std::optional<double> seconds = TagFilterProxy::parseAge(m_olderThan->text());
    QPalette p = m_olderThan->palette();
    p.setColor(QPalette::Text,
               seconds ? palette().color(QPalette::Text) : qualityColor(QualityClass::Bad));
    m_olderThan->setPalette(p);
    m_olderThan->setProperty("invalid", !seconds);
    if (seconds)
        m_proxy->setOlderThan(*seconds);
    updateCounts();
}

void TagsPanel::showOutcome(TagFilterProxy::Outcome outcome, bool shown)
{
    if (shown) {
        // The other outcome buttons let go (without their toggled() undoing this one).
        const std::array<std::pair<TagFilterProxy::Outcome, QToolButton*>, 3> buttons{
            std::pair{TagFilterProxy::Outcome::FailedToAdd, m_failedToAdd},
            std::pair{TagFilterProxy::Outcome::NeverReceived, m_neverReceived},
            std::pair{TagFilterProxy::Outcome::Stale, m_stale}};
        for (const auto& [shownOutcome, other] : buttons) {
            if (shownOutcome == outcome)
                continue;
            const QSignalBlocker block(other);
            other->setChecked(false);
        }
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
    m_stale->setText(tr("Stale %1").arg(m_model->staleCount()));
    m_shown->setText(tr("%1 of %2").arg(m_proxy->rowCount()).arg(m_model->rowCount()));
}

} // namespace stormwatch
