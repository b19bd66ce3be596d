#include "ui/gateway_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>
#include <algorithm>

namespace stormwatch {

namespace {

QDoubleSpinBox* spin(const QString& name, double min, double max, double value, int decimals,
                     const QString& prefix, const QString& suffix)
{
    auto* s = new QDoubleSpinBox;
    s->setObjectName(name);
    s->setRange(min, max);
    s->setDecimals(decimals);
    s->setValue(value);
    s->setPrefix(prefix);
    s->setSuffix(suffix);
    s->setMaximumWidth(110); // three columns fit the dock's default width
    return s;
}

} // namespace

GatewayPanel::GatewayPanel(QWidget* parent) : QWidget(parent)
{
    m_advertise = new QCheckBox(tr("Advertise bulk-subscribe-supervisory"));
    m_advertise->setObjectName(QStringLiteral("advertiseBulkSupervisory"));
    m_advertise->setChecked(true);
    m_advertise->setToolTip(tr("Off = an old gateway: Lever 2 falls back to AddItemBulk + "
                               "N × AdviseSupervisory at the next session open"));
    // clicked, not toggled: from partly checked (All, gateways differing) a click to
    // checked does not toggle, and a reflected state must not emit.
    connect(m_advertise, &QCheckBox::clicked, this, &GatewayPanel::capabilityClicked);

    m_reason = new QLabel;
    m_reason->setObjectName(QStringLiteral("faultsUnavailable"));
    m_reason->setWordWrap(true);
    m_reason->hide();

    // Which gateway the capability and the faults hit, on a run with several (a site's);
    // hidden otherwise. Above both, since it applies to both.
    m_gatewayLabel = new QLabel(tr("Gateway"));
    m_gateway = new QComboBox;
    m_gateway->setObjectName(QStringLiteral("faultGateway"));
    m_gateway->setToolTip(tr("The gateway the capability and the fault buttons hit: one of the "
                             "run's, or all of them"));
    m_gateway->setFocusPolicy(
        Qt::StrongFocus); // the wheel changes it only once focused (window rule)
    m_gatewayLabel->setBuddy(m_gateway);
    connect(m_gateway, &QComboBox::currentIndexChanged, this, &GatewayPanel::showChosenCapability);
    auto* chooserRow = new QHBoxLayout;
    chooserRow->addWidget(m_gatewayLabel);
    chooserRow->addWidget(m_gateway, 1);
    setGateways({});

    m_faults = new QGroupBox(tr("Faults"));
    auto* grid = new QGridLayout(m_faults);
    grid->setColumnStretch(0, 1);
    for (const TimelineActionInfo& info : timelineActions())
        if (info.inConsole)
            addFault(grid, info);

    auto* content = new QWidget;
    auto* column = new QVBoxLayout(content);
    column->addLayout(chooserRow);
    column->addWidget(m_advertise);
    column->addWidget(m_reason);
    column->addWidget(m_faults);
    column->addStretch();
    auto* scroll = new QScrollArea;
    scroll->setWidget(content);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(scroll);
}

void GatewayPanel::addFault(QGridLayout* grid, const TimelineActionInfo& info)
{
    const QString name = QString::fromLatin1(info.name);
    const TimelineAction action = info.action;
    FaultRow row{action};
    row.button = new QPushButton(tr(info.title));
    row.button->setObjectName(QStringLiteral("fault_") + name);
    row.button->setToolTip(tr(info.description));
    const int r = grid->rowCount();
    grid->addWidget(row.button, r, 0);
    if (info.params & (kParamDuration | kParamDowntime)) {
        const bool downtime = info.params & kParamDowntime;
        row.duration = spin(
            name + (downtime ? QStringLiteral("_downtime") : QStringLiteral("_duration")), 0.1,
            3600, info.consoleDefault, 1, downtime ? tr("down ") : QString(), QStringLiteral(" s"));
        row.duration->setToolTip(downtime ? tr("Downtime") : tr("Duration"));
        grid->addWidget(row.duration, r, 1);
    }
    if (info.params & kParamFactor)
        row.parameter = spin(name + QStringLiteral("_factor"), scenario_limits::kSlowFactor.min,
                             scenario_limits::kSlowFactor.max, 20, 1, QStringLiteral("× "), {});
    else if (info.params & kParamProbability)
        row.parameter =
            spin(name + QStringLiteral("_probability"), scenario_limits::kProbability.min,
                 scenario_limits::kProbability.max, 0.5, 2, QStringLiteral("p "), {});
    if (row.parameter)
        grid->addWidget(row.parameter, r, 2);
    m_rows.push_back(row);
    connect(row.button, &QPushButton::clicked, this,
            [this, action] { emit faultRequested(faultFor(action)); });
}

QPushButton* GatewayPanel::faultButton(TimelineAction action) const
{
    for (const FaultRow& row : m_rows) {
        if (row.action == action)
            return row.button;
    }
    return nullptr;
}

void GatewayPanel::setGateways(const QStringList& names)
{
    // The controller calls this at every refresh (20 times a second live): rebuilding an
    // unchanged list would reset an open list's highlight under the person's arrow keys.
    if (m_gateway->count() == names.size() + 1) {
        bool same = true;
        for (int i = 0; same && i < names.size(); ++i)
            same = m_gateway->itemData(i + 1).toString() == names.at(i);
        if (same)
            return;
    }
    const QString chosen = chosenGateway();
    const QSignalBlocker block(m_gateway);
    m_gateway->clear();
    m_gateway->addItem(tr("All gateways"), QString());
    for (const QString& name : names)
        m_gateway->addItem(name, name);
    const int keep = m_gateway->findData(chosen);
    m_gateway->setCurrentIndex(keep < 0 ? 0 : keep);
    const bool several = names.size() > 1;
    m_gateway->setVisible(several);
    m_gatewayLabel->setVisible(several);
    // A gateway new to the chooser has what the checkbox said of every gateway (advertised
    // when they differed: a gateway's default).
    const bool all = m_advertise->checkState() != Qt::Unchecked;
    QMap<QString, bool> advertised;
    for (const QString& name : names)
        advertised[name] = m_advertisedBy.value(name, all);
    m_advertisedBy = advertised;
    showChosenCapability();
}

void GatewayPanel::capabilityClicked()
{
    const bool advertise = m_advertise->isChecked(); // from partly checked, a click checks
    const QString chosen = chosenGateway();
    if (chosen.isEmpty()) {
        for (bool& a : m_advertisedBy)
            a = advertise;
        showChosenCapability();
        emit capabilityToggled(advertise);
        return;
    }
    m_advertisedBy[chosen] = advertise;
    TimelineEvent e;
    e.atS = 0;
    e.action = TimelineAction::SetCapability;
    e.advertiseBulkSupervisory = advertise;
    e.gateway = chosen;
    emit faultRequested(e);
}

void GatewayPanel::showChosenCapability()
{
    const QString chosen = chosenGateway();
    Qt::CheckState state = m_advertise->checkState() == Qt::Unchecked ? Qt::Unchecked : Qt::Checked;
    if (!chosen.isEmpty()) {
        state = m_advertisedBy.value(chosen, true) ? Qt::Checked : Qt::Unchecked;
    } else if (m_gateway->isVisibleTo(this) && !m_advertisedBy.isEmpty()) {
        const auto on = std::count(m_advertisedBy.cbegin(), m_advertisedBy.cend(), true);
        state = on == m_advertisedBy.size() ? Qt::Checked
                : on == 0                   ? Qt::Unchecked
                                            : Qt::PartiallyChecked;
    }
    const QSignalBlocker block(m_advertise);
    m_advertise->setTristate(state == Qt::PartiallyChecked); // a click leaves it for checked
    m_advertise->setCheckState(state);
}

QString GatewayPanel::chosenGateway() const
{
    return m_gateway->isVisibleTo(this) ? m_gateway->currentData().toString() : QString();
}

TimelineEvent GatewayPanel::faultFor(TimelineAction action) const
{
    TimelineEvent e;
    e.atS = 0;
    e.action = action;
    e.gateway = chosenGateway();
    for (const FaultRow& row : m_rows) {
        if (row.action != action)
            continue;
        const unsigned params = timelineActionInfo(action).params;
        if (params & kParamDowntime)
            e.downtimeS = row.duration->value();
        else if (params & kParamDuration)
            e.durationS = row.duration->value();
        if (params & kParamFactor)
            e.factor = row.parameter->value();
        else if (params & kParamProbability)
            e.probability = row.parameter->value();
    }
    return e;
}

void GatewayPanel::setFaultsAvailable(bool available, const QString& reasonWhenNot)
{
    m_available = available;
    m_faults->setEnabled(available);
    m_advertise->setEnabled(available);
    m_gateway->setEnabled(available);
    m_reason->setText(available ? QString() : reasonWhenNot);
    m_reason->setVisible(!available);
}

QString GatewayPanel::unavailableReason() const
{
    return m_available ? QString() : m_reason->text();
}

void GatewayPanel::setAdvertiseBulkSupervisory(bool advertise)
{
    for (bool& a : m_advertisedBy)
        a = advertise;
    const QSignalBlocker block(m_advertise);
    m_advertise->setTristate(false);
    m_advertise->setChecked(advertise);
}

} // namespace stormwatch
