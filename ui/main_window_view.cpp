#include "ui/main_window_view.h"

#include "models/event_log_model.h"
#include "models/tag_table_model.h"
#include "ui/gateway_panel.h"
#include "ui/main_window.h"
#include "ui/subscriptions_panel.h"

namespace stormwatch {

MainWindowView::MainWindowView(MainWindow& window) : m_window(window)
{
    QObject::connect(&window, &MainWindow::leversChanged, &m_intents,
                     &ConsoleIntents::leversChanged);
    QObject::connect(&window, &MainWindow::faultRequested, &m_intents,
                     &ConsoleIntents::faultRequested);
    QObject::connect(&window, &MainWindow::capabilityToggled, &m_intents,
                     &ConsoleIntents::capabilityToggled);
    QObject::connect(&window, &MainWindow::redeployRequested, &m_intents,
                     &ConsoleIntents::redeployRequested);
    QObject::connect(&window, &MainWindow::playRequested, &m_intents,
                     &ConsoleIntents::playRequested);
    QObject::connect(&window, &MainWindow::stopRequested, &m_intents,
                     &ConsoleIntents::stopRequested);
    QObject::connect(&window, &MainWindow::pauseToggled, &m_intents, &ConsoleIntents::pauseToggled);
    QObject::connect(&window, &MainWindow::compareRequested, &m_intents,
                     &ConsoleIntents::compareRequested);
    QObject::connect(&window, &MainWindow::recordRequested, &m_intents,
                     &ConsoleIntents::recordRequested);
    QObject::connect(&window, &MainWindow::openRecordingRequested, &m_intents,
                     &ConsoleIntents::openRecordingRequested);
}

QWidget* MainWindowView::widget()
{
    return &m_window;
}
SeriesStore* MainWindowView::store()
{
    return m_window.store();
}
void MainWindowView::applyTagChanges(const QVector<TagChange>& changes)
{
    m_window.tagModel()->applyChanges(changes);
}
void MainWindowView::clearTags()
{
    m_window.tagModel()->clear();
}
void MainWindowView::setTagClock(double runS, qint64 wallMs)
{
    m_window.tagModel()->setNow(runS, wallMs);
}
void MainWindowView::appendLog(const QVector<LogEntry>& entries)
{
    m_window.logModel()->append(entries);
}
void MainWindowView::setConnectionInfo(const QVector<ConnectionInfo>& infos)
{
    m_window.setConnectionInfo(infos);
}
void MainWindowView::setGatewaySummary(const QString& address, const QString& recoveryState)
{
    m_window.setGatewaySummary(address, recoveryState);
}
void MainWindowView::setFaultsAvailable(bool available, const QString& reasonWhenNot)
{
    m_window.setFaultsAvailable(available, reasonWhenNot);
}
void MainWindowView::setFaultGateways(const QStringList& names)
{
    m_window.gatewayPanel()->setGateways(names);
}
void MainWindowView::setLevers(const LeverSet& levers)
{
    m_window.setLevers(levers);
}
void MainWindowView::setScenarioNames(const QStringList& bundled)
{
    m_window.setScenarioNames(bundled);
}
void MainWindowView::selectScenario(const QString& nameOrPath)
{
    m_window.loadScenario(nameOrPath);
}
void MainWindowView::setRunState(const RunState& state)
{
    m_window.setRunState(state);
}
void MainWindowView::setInstances(const QStringList& names)
{
    m_window.setInstances(names);
}
void MainWindowView::setInstancesByConnection(const QMap<QString, QStringList>& byConnection)
{
    m_window.setInstancesByConnection(byConnection);
}
void MainWindowView::setRunGateways(const QMap<QString, QList<int>>& instancesByGateway)
{
    m_window.plots()->setGateways(instancesByGateway);
    m_window.subscriptionsPanel()->setGateways(instancesByGateway);
}
void MainWindowView::showError(const QString& title, const QString& text)
{
    m_window.showError(title, text);
}
void MainWindowView::fitWholeRun()
{
    m_window.fitWholeRun();
}
void MainWindowView::addMarkers(const QVector<RunHost::Marker>& markers)
{
    m_window.addMarkers(markers);
}
void MainWindowView::clearMarkers()
{
    m_window.clearMarkers();
}
void MainWindowView::setRecordingFile(const QString& path)
{
    m_window.setRecordingFile(path);
}
void MainWindowView::setRunCaption(const RunCaption& caption)
{
    m_window.setRunCaption(caption);
}

} // namespace stormwatch
