#pragma once
// The Gateway dock: the capability fallback (advertise bulk-subscribe-supervisory, i.e. "an
// old gateway") and one button per mock fault, each with its duration and parameter. The
// mock is driven through its control service, so against a real gateway the whole panel is
// disabled and says why.

#include "scenario/scenario.h"

#include <QWidget>

class QCheckBox;
class QDoubleSpinBox;
class QGridLayout;
class QLabel;
class QPushButton;

namespace stormwatch {

class GatewayPanel : public QWidget {
    Q_OBJECT
public:
    explicit GatewayPanel(QWidget* parent = nullptr);

    void setFaultsAvailable(bool available, const QString& reasonWhenNot);
    bool faultsAvailable() const { return m_available; }
    QString unavailableReason() const;
    void setAdvertiseBulkSupervisory(bool advertise); // no signal

    // The fault a button would request now, from its spin boxes (atS = 0: "now").
    TimelineEvent faultFor(TimelineAction action) const;
    QPushButton* faultButton(TimelineAction action) const;

signals:
    void capabilityToggled(bool advertiseBulkSupervisory);
    void faultRequested(const stormwatch::TimelineEvent& fault);

private:
    struct FaultRow {
        TimelineAction action;
        QPushButton* button = nullptr;
        QDoubleSpinBox* duration = nullptr;  // duration_s, or downtime_s for a restart
        QDoubleSpinBox* parameter = nullptr; // slow factor / drop probability
    };
    void addFault(QGridLayout* grid, TimelineAction action, const QString& text,
                  const QString& tip, bool hasDuration, double defaultDuration,
                  QDoubleSpinBox* parameter = nullptr);

    bool m_available = true;
    QCheckBox* m_advertise = nullptr;
    QWidget* m_faults = nullptr;
    QLabel* m_reason = nullptr;
    QVector<FaultRow> m_rows;
};

} // namespace stormwatch
