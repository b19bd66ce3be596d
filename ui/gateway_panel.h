#pragma once
// The Gateway dock: the capability fallback (advertise bulk-subscribe-supervisory, i.e. "an
// old gateway") and one button per mock fault, each with its duration and parameter. The
// mock is driven through its control service, so against a real gateway the whole panel is
// disabled and says why. A run on several gateways (a site's) adds a gateway chooser: a
// fault or the capability hits the chosen gateway, or every one ("All gateways"); the
// checkbox shows the chosen gateway's capability (partly checked: All, and they differ).

#include "scenario/scenario.h"

#include <QMap>
#include <QWidget>

class QCheckBox;
class QComboBox;
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
    void setAdvertiseBulkSupervisory(bool advertise); // every gateway's; no signal
    // The run's gateways by name (RunHost::gatewayNames). The chooser is shown only with
    // more than one; the choice is kept while it still names a gateway of the run.
    void setGateways(const QStringList& names);
    QComboBox* gatewayChooser() const { return m_gateway; }
    // "" = every gateway, else the chosen one's name.
    QString chosenGateway() const;

    // The fault a button would request now, from its spin boxes and the gateway chooser
    // (atS = 0: "now").
    TimelineEvent faultFor(TimelineAction action) const;
    QPushButton* faultButton(TimelineAction action) const;

signals:
    // The checkbox with no gateway chosen: every gateway of the run. With one chosen, the
    // same set_capability goes as faultRequested naming it (the path that carries a gateway).
    void capabilityToggled(bool advertiseBulkSupervisory);
    void faultRequested(const stormwatch::TimelineEvent& fault);

private:
    struct FaultRow {
        TimelineAction action;
        QPushButton* button = nullptr;
        QDoubleSpinBox* duration = nullptr;  // duration_s, or downtime_s for a restart
        QDoubleSpinBox* parameter = nullptr; // slow factor / drop probability
    };
    void addFault(QGridLayout* grid, const TimelineActionInfo& info);
    void capabilityClicked();
    void showChosenCapability(); // the checkbox shows the chosen gateway's (or all) state

    bool m_available = true;
    QCheckBox* m_advertise = nullptr;
    QWidget* m_faults = nullptr;
    QLabel* m_reason = nullptr;
    QLabel* m_gatewayLabel = nullptr;
    QComboBox* m_gateway = nullptr;
    QVector<FaultRow> m_rows;
    QMap<QString, bool> m_advertisedBy; // per gateway of the chooser, as last set here
};

} // namespace stormwatch
