#pragma once
// A stand-in for MainWindow in the controller's tests: it records what the controller
// feeds it, and its intents are raised by the test.

#include "models/series_store.h"
#include "ui/console_view.h"

#include <QHash>
#include <QWidget>

namespace stormwatch::test {

class FakeView : public QWidget, public ConsoleView {
public:
    FakeView();

    QWidget* widget() override { return this; }
    ConsoleIntents* intents() override { return &m_intents; }
    SeriesStore* store() override { return &m_store; }

    void applyTagChanges(const QVector<TagChange>& changes) override;
    void clearTags() override { tags.clear(); }
    void setTagClock(double runS, qint64 wallMs) override
    {
        tagClockS = runS;
        tagClockWallMs = wallMs;
    }
    double tagClockS = -1;
    qint64 tagClockWallMs = -1;
    void appendLog(const QVector<LogEntry>& entries) override { log += entries; }
    void setConnectionInfo(const QVector<ConnectionInfo>& infos) override { connections = infos; }
    void setGatewaySummary(const QString& address, const QString& recoveryState) override;
    void setFaultsAvailable(bool available, const QString& reasonWhenNot) override;
    void setLevers(const LeverSet& l) override { levers = l; }
    void setScenarioNames(const QStringList& bundled) override { scenarioNames = bundled; }
    void selectScenario(const QString& nameOrPath) override { selectedScenario = nameOrPath; }
    void setRunState(const RunState& state) override;
    void setInstances(const QStringList& names) override
    {
        instances = names;
        instancesByConnection.clear();
    }
    void setInstancesByConnection(const QMap<QString, QStringList>& byConnection) override
    {
        instancesByConnection = byConnection;
        instances.clear();
        for (const QStringList& names : byConnection)
            instances << names;
    }
    void showError(const QString& title, const QString& text) override;
    void fitWholeRun() override { ++wholeRunFits; }
    void addMarkers(const QVector<RunHost::Marker>& m) override { markers += m; }
    void clearMarkers() override { markers.clear(); }
    void setRunCaption(const RunCaption& c) override { caption = c; }
    void setRecordingFile(const QString& path) override { recordingFile = path; }

    // Queries for the tests.
    int goodTags() const;
    bool logContains(const QString& text) const;
    QString connectionState(const QString& name) const;

    QHash<qint64, TagChange> tags;
    QVector<LogEntry> log;
    QVector<ConnectionInfo> connections;
    QString gatewayAddress, recoveryState;
    bool faultsAvailable = true;
    QString faultsReason;
    LeverSet levers;
    QStringList scenarioNames, instances;
    QString selectedScenario;
    RunState run;
    // Shorthands of `run`, as older tests read them.
    bool playing = false; // a playback is running
    double progress = -1;
    QString playbackLabel;
    QStringList errors;
    int wholeRunFits = 0; // fitWholeRun() calls
    QVector<RunHost::Marker> markers;
    RunCaption caption;
    QString recordingFile;                            // as the controller last set it
    QMap<QString, QStringList> instancesByConnection; // when the run has several connections

private:
    ConsoleIntents m_intents;
    SeriesStore m_store;
};

} // namespace stormwatch::test
