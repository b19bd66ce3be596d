#include "app/console.h"

#include "client/grpc_gateway_port.h"
#include "client/lever_set.h"
#include "models/event_log_model.h"
#include "models/tag_table_model.h"
#include "ui/console_controller.h"
#include "ui/console_view.h"
#include "ui/main_window.h"

#include <QApplication>
#include <QTextStream>
#include <QTimer>

#include <cmath>

namespace stormwatch {

namespace {

QTextStream& err()
{
    static QTextStream s(stderr);
    return s;
}

// MainWindow as the controller sees it: its setters, models and store, and its signals
// re-emitted as the view's intents.
class MainWindowView final : public ConsoleView {
public:
    explicit MainWindowView(MainWindow& window) : m_window(window)
    {
        QObject::connect(&window, &MainWindow::leversChanged, &m_intents, &ConsoleIntents::leversChanged);
        QObject::connect(&window, &MainWindow::faultRequested, &m_intents, &ConsoleIntents::faultRequested);
        QObject::connect(&window, &MainWindow::capabilityToggled, &m_intents, &ConsoleIntents::capabilityToggled);
        QObject::connect(&window, &MainWindow::redeployRequested, &m_intents, &ConsoleIntents::redeployRequested);
        QObject::connect(&window, &MainWindow::playRequested, &m_intents, &ConsoleIntents::playRequested);
        QObject::connect(&window, &MainWindow::stopRequested, &m_intents, &ConsoleIntents::stopRequested);
        QObject::connect(&window, &MainWindow::pauseToggled, &m_intents, &ConsoleIntents::pauseToggled);
        QObject::connect(&window, &MainWindow::compareRequested, &m_intents, &ConsoleIntents::compareRequested);
    }

    QWidget* widget() override { return &m_window; }
    ConsoleIntents* intents() override { return &m_intents; }
    SeriesStore* store() override { return m_window.store(); }
    void applyTagChanges(const QVector<TagChange>& changes) override { m_window.tagModel()->applyChanges(changes); }
    void clearTags() override { m_window.tagModel()->clear(); }
    void appendLog(const QVector<LogEntry>& entries) override { m_window.logModel()->append(entries); }
    void setConnectionInfo(const QVector<ConnectionInfo>& infos) override { m_window.setConnectionInfo(infos); }
    void setGatewaySummary(const QString& address, const QString& state) override
    {
        m_window.setGatewaySummary(address, state);
    }
    void setFaultsAvailable(bool available, const QString& why) override { m_window.setFaultsAvailable(available, why); }
    void setLevers(const LeverSet& levers) override { m_window.setLevers(levers); }
    void setScenarioNames(const QStringList& bundled) override { m_window.setScenarioNames(bundled); }
    void selectScenario(const QString& nameOrPath) override { m_window.loadScenario(nameOrPath); }
    void setPlaybackState(bool playing, double progress, const QString& label) override
    {
        m_window.setPlaybackState(playing, progress, label);
    }
    void setInstances(const QStringList& names) override { m_window.setInstances(names); }
    void showError(const QString& title, const QString& text) override { m_window.showError(title, text); }

private:
    MainWindow& m_window;
    ConsoleIntents m_intents;
};

// Bad input names the option and the rule; empty when fine.
QString portOptions(const ConsoleOptions& o, GrpcPortOptions* port)
{
    const bool tls = !o.tlsCa.isEmpty() || !o.tlsCert.isEmpty() || !o.tlsKey.isEmpty();
    if (o.gateway.isEmpty()) {
        if (tls || !o.tokenFile.isEmpty())
            return QStringLiteral("--tls-ca, --tls-cert, --tls-key and --token-file need --gateway HOST:PORT");
        return {};
    }
    port->address = o.gateway.toStdString();
    if (tls)
        port->tls = TlsFiles{o.tlsCa.toStdString(), o.tlsCert.toStdString(), o.tlsKey.toStdString()};
    port->tokenFile = o.tokenFile.toStdString();
    return GrpcGatewayPort::validate(*port);
}

} // namespace

int runConsoleWindow(const ConsoleOptions& o)
{
    GrpcPortOptions port;
    if (const QString bad = portOptions(o, &port); !bad.isEmpty()) {
        err() << bad << '\n';
        return 2;
    }
    std::optional<LeverSet> levers;
    if (!o.levers.isEmpty()) {
        QString why;
        levers = leverPreset(o.levers, &why);
        if (!levers) {
            err() << "bad --levers \"" << o.levers << "\": " << why << '\n';
            return 2;
        }
    }
    if (!std::isfinite(o.screenshotAfterS) || o.screenshotAfterS < 0) {
        err() << "bad --screenshot-after-s: must be a number of seconds >= 0\n";
        return 2;
    }

    MainWindow window;
    if (!o.settingsFile.isEmpty())
        window.setSettingsFile(o.settingsFile);
    window.restoreSettings();
    MainWindowView view(window);
    ConsoleController controller(&view);
    QString error;
    if (!controller.setDemoScenario(o.scenario, &error)) {
        err() << "bad --scenario \"" << o.scenario << "\": " << error << '\n';
        return 2;
    }
    controller.setInitialLevers(levers.value_or(window.levers()));
    controller.loadDemoScenario();
    const bool started = o.gateway.isEmpty() ? controller.startEmbedded(&error) : controller.startExternal(port, &error);
    if (!started) {
        err() << error << '\n';
        return 1;
    }
    window.show();

    int code = 0;
    if (!o.screenshot.isEmpty()) {
        QTimer::singleShot(std::chrono::milliseconds(std::llround(o.screenshotAfterS * 1000)), &window, [&] {
            if (!window.grab().save(o.screenshot)) {
                err() << "cannot write the screenshot to \"" << o.screenshot << "\"\n";
                code = 1;
            }
            window.close();
            QApplication::quit();
        });
    }
    const int loop = QApplication::exec();
    return code ? code : loop;
}

} // namespace stormwatch
