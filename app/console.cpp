#include "app/console.h"

#include "app/cli_streams.h"
#include "client/grpc_gateway_port.h"
#include "client/lever_set.h"
#include "scenario/site_live.h"
#include "ui/console_controller.h"
#include "ui/console_view.h"
#include "ui/main_window.h"
#include "ui/main_window_view.h"

#include <QApplication>
#include <QTimer>
#include <cmath>

namespace stormwatch {

namespace {

using cli::err;

// Bad input names the option and the rule; empty when fine.
QString portOptions(const ConsoleOptions& o, GrpcPortOptions* port)
{
    const bool tls = !o.tlsCa.isEmpty() || !o.tlsCert.isEmpty() || !o.tlsKey.isEmpty();
    if (o.gateway.isEmpty()) {
        const GrpcPortOptions defaults;
        if (tls || !o.tokenFile.isEmpty() || !o.gatewayContract.isEmpty() ||
            o.port.keepaliveTime != defaults.keepaliveTime ||
            o.port.keepaliveTimeout != defaults.keepaliveTimeout)
            return QStringLiteral("--tls-ca, --tls-cert, --tls-key, --token-file, "
                                  "--gateway-contract and --keepalive-* need "
                                  "--gateway HOST:PORT");
        return {};
    }
    port->address = o.gateway.toStdString();
    if (tls)
        port->tls =
            TlsFiles{o.tlsCa.toStdString(), o.tlsCert.toStdString(), o.tlsKey.toStdString()};
    port->tokenFile = o.tokenFile.toStdString();
    port->contractFile = o.gatewayContract.toStdString();
    // A contract that does not check is not a reason to keep the window shut: its connection
    // is refused (nothing is sent) and says why in the banner, the topology and the log.
    if (const QString bad = GrpcGatewayPort::validateTransport(*port); !bad.isEmpty())
        return bad;
    if (const QString refused = GrpcGatewayPort::validate(*port); !refused.isEmpty())
        err() << "gateway " << o.gateway << ": " << refused << " — nothing is sent to it\n";
    return {};
}

} // namespace

int runConsoleWindow(const ConsoleOptions& o)
{
    GrpcPortOptions port = o.port;
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

    // A site: its shape is the live run's, each connection on its own gateway.
    std::optional<Scenario> siteShape;
    SitePortOptions sitePorts;
    if (!o.site.isEmpty()) {
        if (!o.gateway.isEmpty() || !o.scenario.isEmpty()) {
            err() << "--site is not with --gateway or --scenario (the site names its gateways and "
                     "instances)\n";
            return 2;
        }
        QList<ScenarioError> errors;
        const auto site = loadSiteFile(o.site, &errors);
        if (!site) {
            for (const ScenarioError& e : errors)
                err() << e.toString() << '\n';
            return 2;
        }
        QString why;
        QStringList refused;
        const auto ports = sitePortOptions(*site, o.gatewayEndpoints, &why, &refused);
        if (!ports) {
            err() << why << '\n';
            return 2;
        }
        for (const QString& r : refused)
            err() << r << " — nothing is sent to it\n";
        siteShape = siteScenario(*site);
        sitePorts = *ports;
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
    if (siteShape)
        controller.setSite(*siteShape, sitePorts);
    controller.loadDemoScenario();
    // Before the live run starts, so the file holds it from its first step; File › Record
    // runs shows it checked, and a write failure is shown like any error of the window.
    if (!o.record.isEmpty() && !controller.setRecording(o.record, &error)) {
        err() << error << '\n';
        return 1;
    }
    const bool started = o.gateway.isEmpty() ? controller.startEmbedded(&error)
                                             : controller.startExternal(port, &error);
    if (!started) {
        err() << error << '\n';
        return 1;
    }
    window.show();
    if (!o.openRecording.isEmpty() && !controller.openRecording(o.openRecording, &error)) {
        err() << error << '\n';
        return 2;
    }
    if (!o.play.isEmpty()) {
        QStringList variants;
        for (const VariantSpec& v : controller.demoScenario().variants)
            variants << v.name;
        if (!variants.contains(o.play)) {
            err() << "bad --play \"" << o.play << "\": the scenario's variants are "
                  << variants.join(QStringLiteral(", ")) << '\n';
            return 2;
        }
        controller.play(controller.demoScenarioName(), o.play, o.playSpeed);
    }

    int code = 0;
    if (!o.screenshot.isEmpty()) {
        QTimer::singleShot(
            std::chrono::milliseconds(std::llround(o.screenshotAfterS * 1000)), &window, [&] {
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
