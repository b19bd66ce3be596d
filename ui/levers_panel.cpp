#include "ui/levers_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QScrollArea>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace stormwatch {

namespace {

const QString kCustom = QStringLiteral("custom");

QCheckBox* check(const QString& name, const QString& text, const QString& tip)
{
    auto* box = new QCheckBox(text);
    box->setObjectName(name);
    box->setToolTip(tip);
    return box;
}

QDoubleSpinBox* seconds(const QString& name, double min, double max, const QString& tip)
{
    auto* spin = new QDoubleSpinBox;
    spin->setObjectName(name);
    spin->setRange(min, max);
    spin->setDecimals(1);
    spin->setSuffix(QStringLiteral(" s"));
    spin->setToolTip(tip);
    spin->setKeyboardTracking(false); // one change per finished edit, not per keystroke
    return spin;
}

} // namespace

LeversPanel::LeversPanel(QWidget* parent) : QWidget(parent)
{
    build();
    showLevers(m_levers);
}

void LeversPanel::build()
{
    m_preset = new QComboBox;
    m_preset->setObjectName(QStringLiteral("leverPreset"));
    m_preset->addItems(leverPresetNames());
    m_preset->addItem(kCustom);
    m_preset->setToolTip(tr("Lever presets; shows \"custom\" once a lever is edited"));

    for (const SwitchLever& lever : switchLevers())
        m_switches.push_back(
            check(QString::fromLatin1(lever.key), tr(lever.label), tr(lever.description)));
    m_sendTimeout = check(QStringLiteral("sendCommandTimeout"), tr("Send command timeout"),
                          tr("Lever 3: command_timeout sent at OpenSession; off = the "
                             "gateway's default (30 s)"));
    m_timeoutMs = new QSpinBox;
    m_timeoutMs->setObjectName(QStringLiteral("sessionCommandTimeoutMs"));
    m_timeoutMs->setRange(1, lever_limits::kMaxSessionCommandTimeoutMs);
    m_timeoutMs->setSingleStep(5000);
    m_timeoutMs->setSuffix(QStringLiteral(" ms"));
    m_timeoutMs->setKeyboardTracking(false);
    auto* note = new QLabel(tr("Applies at the next session open."));
    note->setObjectName(QStringLiteral("leverNote"));

    m_recovery = check(QStringLiteral("recoveryEnabled"), tr("Recovery gate"),
                       tr("After failures, calls are not sent for a while and fail at once "
                          "as temporarily unavailable"));
    m_strategy = new QComboBox;
    m_strategy->setObjectName(QStringLiteral("recoveryStrategy"));
    for (auto s : {RecoveryConfig::Strategy::Instant, RecoveryConfig::Strategy::None,
                   RecoveryConfig::Strategy::Simple, RecoveryConfig::Strategy::Exponential})
        m_strategy->addItem(QString::fromLatin1(toString(s)), int(s));
    m_strategy->setToolTip(tr("instant: no period; none: closed until reset; simple: recovery "
                              "seconds after the last failure; exponential: growing periods"));
    m_failHandler = new QComboBox;
    m_failHandler->setObjectName(QStringLiteral("recoveryFailHandler"));
    for (auto h : {RecoveryConfig::FailHandler::Simple, RecoveryConfig::FailHandler::Windowed})
        m_failHandler->addItem(QString::fromLatin1(toString(h)), int(h));
    m_failHandler->setToolTip(tr("simple: every failure counts; windowed: K failures inside "
                                 "the window enter recovery"));
    m_recoverySeconds =
        seconds(QStringLiteral("recoverySeconds"), 0.1, lever_limits::kMaxRecoverySeconds,
                tr("simple: recovery lasts this long after the last failure"));
    m_initialSeconds = seconds(QStringLiteral("recoveryInitialSeconds"), 0.1,
                               lever_limits::kMaxRecoverySeconds, tr("exponential: first period"));
    m_maxSeconds =
        seconds(QStringLiteral("recoveryMaxSeconds"), 0.1, lever_limits::kMaxRecoverySeconds,
                tr("exponential: longest period (≥ initial)"));
    m_multiplier = new QDoubleSpinBox;
    m_multiplier->setObjectName(QStringLiteral("recoveryMultiplier"));
    m_multiplier->setRange(1, lever_limits::kMaxMultiplier);
    m_multiplier->setSingleStep(0.5);
    m_multiplier->setPrefix(QStringLiteral("× "));
    m_multiplier->setKeyboardTracking(false);
    m_failures = new QSpinBox;
    m_failures->setObjectName(QStringLiteral("failuresToEnterRecovery"));
    m_failures->setRange(1, 1000);
    m_failures->setKeyboardTracking(false);
    m_failures->setToolTip(tr("windowed: failures inside the window that enter recovery"));
    m_windowSeconds = seconds(QStringLiteral("failuresWindowSeconds"), 0.1,
                              lever_limits::kMaxRecoverySeconds, tr("windowed: the window length"));

    auto* lever1 = new QGroupBox(tr("Lever 1 — subscribe guard"));
    auto* l1 = new QVBoxLayout(lever1);
    auto* lever2 = new QGroupBox(tr("Lever 2 — load"));
    auto* l2 = new QVBoxLayout(lever2);
    auto* other = new QGroupBox(tr("Follow-ups"));
    auto* o = new QVBoxLayout(other);
    auto* budget = new QGroupBox(tr("Retry budget"));
    auto* b = new QVBoxLayout(budget);
    for (std::size_t i = 0; i < m_switches.size(); ++i) {
        switch (switchLevers()[i].group) {
        case LeverGroup::Lever1:
            l1->addWidget(m_switches[i]);
            break;
        case LeverGroup::Lever2:
            l2->addWidget(m_switches[i]);
            break;
        case LeverGroup::FollowUps:
            o->addWidget(m_switches[i]);
            break;
        case LeverGroup::RetryBudget:
            b->addWidget(m_switches[i]);
            break;
        }
    }
    auto* lever3 = new QGroupBox(tr("Lever 3 — session command timeout"));
    auto* l3 = new QFormLayout(lever3);
    l3->addRow(m_sendTimeout, m_timeoutMs);
    l3->addRow(note);
    auto* recovery = new QGroupBox(tr("Recovery period"));
    auto* r = new QFormLayout(recovery);
    r->addRow(m_recovery);
    r->addRow(tr("Strategy"), m_strategy);
    r->addRow(tr("Recovery"), m_recoverySeconds);
    r->addRow(tr("Initial"), m_initialSeconds);
    r->addRow(tr("Max"), m_maxSeconds);
    r->addRow(tr("Multiplier"), m_multiplier);
    r->addRow(tr("Fail handler"), m_failHandler);
    r->addRow(tr("Failures (K)"), m_failures);
    r->addRow(tr("Window"), m_windowSeconds);

    auto* content = new QWidget;
    auto* column = new QVBoxLayout(content);
    auto* presetRow = new QFormLayout;
    presetRow->addRow(tr("Preset"), m_preset);
    column->addLayout(presetRow);
    for (QWidget* w :
         std::initializer_list<QWidget*>{lever1, lever2, lever3, recovery, other, budget})
        column->addWidget(w);
    column->addStretch();
    auto* scroll = new QScrollArea;
    scroll->setWidget(content);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(scroll);

    connect(m_preset, &QComboBox::activated, this, &LeversPanel::onPresetChosen);
    for (QCheckBox* box : m_switches)
        connect(box, &QCheckBox::toggled, this, &LeversPanel::onEdited);
    for (QCheckBox* box : {m_sendTimeout, m_recovery})
        connect(box, &QCheckBox::toggled, this, &LeversPanel::onEdited);
    for (QComboBox* combo : {m_strategy, m_failHandler})
        connect(combo, &QComboBox::currentIndexChanged, this, &LeversPanel::onEdited);
    for (QDoubleSpinBox* spin :
         {m_recoverySeconds, m_initialSeconds, m_maxSeconds, m_multiplier, m_windowSeconds})
        connect(spin, &QDoubleSpinBox::valueChanged, this, &LeversPanel::onEdited);
    for (QSpinBox* spin : {m_timeoutMs, m_failures})
        connect(spin, &QSpinBox::valueChanged, this, &LeversPanel::onEdited);
}

QString LeversPanel::presetText() const
{
    return m_preset->currentText();
}

void LeversPanel::setLevers(const LeverSet& levers)
{
    // The controller says it again at every refresh (20 times a second live): the widgets
    // already show it, and a spin box set to its own value still repaints.
    if (levers == m_levers)
        return;
    m_levers = levers;
    showLevers(levers);
}

void LeversPanel::showLevers(const LeverSet& levers)
{
    m_updating = true;
    for (std::size_t i = 0; i < m_switches.size(); ++i)
        m_switches[i]->setChecked(levers.*switchLevers()[i].member);
    m_sendTimeout->setChecked(levers.sessionCommandTimeoutMs > 0);
    if (levers.sessionCommandTimeoutMs > 0)
        m_timeoutMs->setValue(levers.sessionCommandTimeoutMs);
    else if (m_timeoutMs->value() == m_timeoutMs->minimum())
        m_timeoutMs->setValue(LeverSet{}.sessionCommandTimeoutMs); // a useful value to turn on
    const RecoveryConfig& rc = levers.recovery;
    m_recovery->setChecked(rc.enabled);
    m_strategy->setCurrentIndex(m_strategy->findData(int(rc.strategy)));
    m_failHandler->setCurrentIndex(m_failHandler->findData(int(rc.failHandler)));
    m_recoverySeconds->setValue(rc.recoverySeconds);
    m_initialSeconds->setValue(rc.initialSeconds);
    m_maxSeconds->setValue(rc.maxSeconds);
    m_multiplier->setValue(rc.multiplier);
    m_failures->setValue(rc.failuresToEnterRecovery);
    m_windowSeconds->setValue(rc.failuresWindowSeconds);
    const auto preset = presetNameOf(levers);
    m_preset->setCurrentIndex(m_preset->findText(preset ? *preset : kCustom));
    updateEnabled();
    m_updating = false;
}

LeverSet LeversPanel::readWidgets() const
{
    LeverSet s = m_levers; // the set shown: what no control here stands for stays as it is
    for (std::size_t i = 0; i < m_switches.size(); ++i)
        s.*switchLevers()[i].member = m_switches[i]->isChecked();
    s.sessionCommandTimeoutMs = m_sendTimeout->isChecked() ? m_timeoutMs->value() : 0;
    RecoveryConfig& rc = s.recovery;
    rc.enabled = m_recovery->isChecked();
    rc.strategy = RecoveryConfig::Strategy(m_strategy->currentData().toInt());
    rc.failHandler = RecoveryConfig::FailHandler(m_failHandler->currentData().toInt());
    // Spin boxes round to their decimals: keep the exact value when the user left it alone,
    // so a preset's set compares equal to itself.
    const RecoveryConfig& old = m_levers.recovery;
    auto keep = [](const QDoubleSpinBox* spin, double exact) {
        return std::abs(spin->value() - exact) < 0.5 * std::pow(10.0, -spin->decimals())
                   ? exact
                   : spin->value();
    };
    rc.recoverySeconds = keep(m_recoverySeconds, old.recoverySeconds);
    rc.initialSeconds = keep(m_initialSeconds, old.initialSeconds);
    rc.maxSeconds = std::max(keep(m_maxSeconds, old.maxSeconds), rc.initialSeconds);
    rc.multiplier = keep(m_multiplier, old.multiplier);
    rc.failuresToEnterRecovery = m_failures->value();
    rc.failuresWindowSeconds = keep(m_windowSeconds, old.failuresWindowSeconds);
    return s;
}

void LeversPanel::onEdited()
{
    if (m_updating)
        return;
    const LeverSet next = readWidgets();
    updateEnabled();
    if (next == m_levers)
        return;
    m_levers = next;
    // readWidgets raises Max to at least Initial: show the value in effect, not the one typed.
    if (m_maxSeconds->value() <
        next.recovery.maxSeconds - 0.5 * std::pow(10.0, -m_maxSeconds->decimals()))
        showLevers(next);
    const auto preset = presetNameOf(next);
    m_updating = true;
    m_preset->setCurrentIndex(m_preset->findText(preset ? *preset : kCustom));
    m_updating = false;
    emit leversChanged(m_levers);
}

void LeversPanel::onPresetChosen(int index)
{
    const QString name = m_preset->itemText(index);
    const auto preset = leverPreset(name, nullptr);
    if (!preset) { // "custom" picked by hand: nothing to apply
        const auto current = presetNameOf(m_levers);
        m_preset->setCurrentIndex(m_preset->findText(current ? *current : kCustom));
        return;
    }
    if (*preset == m_levers)
        return;
    setLevers(*preset);
    emit leversChanged(m_levers);
}

void LeversPanel::updateEnabled()
{
    const bool on = m_recovery->isChecked();
    const auto strategy = RecoveryConfig::Strategy(m_strategy->currentData().toInt());
    const bool windowed = RecoveryConfig::FailHandler(m_failHandler->currentData().toInt()) ==
                          RecoveryConfig::FailHandler::Windowed;
    m_strategy->setEnabled(on);
    m_failHandler->setEnabled(on);
    m_recoverySeconds->setEnabled(on && strategy == RecoveryConfig::Strategy::Simple);
    for (QWidget* w : std::initializer_list<QWidget*>{m_initialSeconds, m_maxSeconds, m_multiplier})
        w->setEnabled(on && strategy == RecoveryConfig::Strategy::Exponential);
    m_failures->setEnabled(on && windowed);
    m_windowSeconds->setEnabled(on && windowed);
    m_timeoutMs->setEnabled(m_sendTimeout->isChecked());
}

} // namespace stormwatch
