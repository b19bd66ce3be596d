#pragma once
// The Levers dock: a preset combo (levers-off / lever1 / lever1+2 / all, "custom" once edited)
// and one control per lever, recovery gate parameters included; the switches come from the
// lever table (switchLevers). An edit changes that one lever of the set shown and emits the
// whole LeverSet; setLevers() only reflects a set.

#include "client/lever_set.h"

#include <QWidget>
#include <vector>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QSpinBox;

namespace stormwatch {

class LeversPanel : public QWidget {
    Q_OBJECT
public:
    explicit LeversPanel(QWidget* parent = nullptr);

    LeverSet levers() const { return m_levers; }
    void setLevers(const LeverSet& levers); // no signal
    QString presetText() const;             // the preset shown, or "custom"

signals:
    void leversChanged(const stormwatch::LeverSet& levers);

private:
    void build();
    void showLevers(const LeverSet& levers);
    LeverSet readWidgets() const;
    void onEdited();
    void onPresetChosen(int index);
    void updateEnabled();

    LeverSet m_levers;
    bool m_updating = false;
    QComboBox* m_preset = nullptr;
    // One check box per switchLevers() row, in its order (object name: the lever's key).
    std::vector<QCheckBox*> m_switches;
    QCheckBox* m_sendTimeout = nullptr;
    QSpinBox* m_timeoutMs = nullptr;
    QCheckBox* m_recovery = nullptr;
    QComboBox* m_strategy = nullptr;
    QComboBox* m_failHandler = nullptr;
    QDoubleSpinBox* m_recoverySeconds = nullptr;
    QDoubleSpinBox* m_initialSeconds = nullptr;
    QDoubleSpinBox* m_maxSeconds = nullptr;
    QDoubleSpinBox* m_multiplier = nullptr;
    QSpinBox* m_failures = nullptr;
    QDoubleSpinBox* m_windowSeconds = nullptr;
};

} // namespace stormwatch
