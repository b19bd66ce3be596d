#pragma once
// MainWindow as the ConsoleController sees it: its setters, models and store, and every
// one of its intent signals re-emitted on the view's ConsoleIntents.

#include "ui/console_view.h"

namespace stormwatch {

class MainWindow;

class MainWindowView final : public ConsoleView {
public:
    explicit MainWindowView(MainWindow& window);

    QWidget* widget() override;
    ConsoleIntents* intents() override { return &m_intents; }
    SeriesStore* store() override;
    void applyTagChanges(const QVector<TagChange>& changes) override;
    void clearTags() override;
    void setTagClock(double runS, qint64 wallMs) override;
    void appendLog(const QVector<LogEntry>& entries) override;
    void setConnectionInfo(const QVector<ConnectionInfo>& infos) override;
    void setGatewaySummary(const QString& address, const QString& recoveryState) override;
    void setFaultsAvailable(bool available, const QString& reasonWhenNot) override;
    void setLevers(const LeverSet& levers) override;
    void setScenarioNames(const QStringList& bundled) override;
    void selectScenario(const QString& nameOrPath) override;
    void setRunState(const RunState& state) override;
    void setInstances(const QStringList& names) override;
    void showError(const QString& title, const QString& text) override;
    void fitWholeRun() override;
    void addMarkers(const QVector<RunHost::Marker>& markers) override;
    void clearMarkers() override;
    void setRunCaption(const RunCaption& caption) override;
    void setRecordingFile(const QString& path) override;
    void setInstancesByConnection(const QMap<QString, QStringList>& byConnection) override;
    void setRunGateways(const QMap<QString, QList<int>>& instancesByGateway) override;
    void setFaultGateways(const QStringList& names) override;

private:
    MainWindow& m_window;
    ConsoleIntents m_intents;
};

} // namespace stormwatch
