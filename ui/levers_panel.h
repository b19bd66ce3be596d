#pragma once
// The Levers dock: a preset combo (levers-off / lever1 / lever1+2 / all, "custom" once edited)
// and one control per lever, recovery gate parameters included. Any
// edit by the user emits the whole LeverSet; setLevers() only reflects a set.

#include "client/lever_set.h"

#include <QWidget>

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
    QCheckBox* m_inflightGuard = nullptr;
    QCheckBox* m_backoff = nullptr;
    QCheckBox* m_confirmedFlag = nullptr;
    QCheckBox* m_bulkSupervisory = nullptr;
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
    QCheckBox* m_alarmGuard = nullptr;
    QCheckBox* m_coalesce = nullptr;
};

} // namespace stormwatch
