// The window's status bar: the gateway and its recovery gate, the session(s) and what the
// gateway said at OpenSession; and the banner when no connection reaches the gateway.
#include "models/topology_model.h"
#include "ui/eliding_label.h"
#include "ui/main_window.h"

#include <QLabel>
#include <QStatusBar>
#include <optional>

namespace stormwatch {

void MainWindow::createStatusBar()
{
    // The address and the sessions can be long (a site's gateways): in a narrow window they
    // are elided, whole in the tooltip, while the short ones stay whole.
    // The sessions keep more of their text than the address ("1 of 2 sessions, gw-packaging").
    auto label = [this](const QString& name, const QString& text, const QString& tip,
                        std::optional<Qt::TextElideMode> elide = std::nullopt,
                        int minimumChars = 0) {
        QLabel* l = elide ? new ElidingLabel(*elide, minimumChars) : new QLabel;
        l->setText(text);
        l->setObjectName(name);
        l->setToolTip(tip);
        statusBar()->addPermanentWidget(l);
        return l;
    };
    m_statusGateway = label(QStringLiteral("statusGateway"), tr("no gateway"),
                            tr("Gateway address"), Qt::ElideMiddle, 8); // the port stays
    m_statusSession = label(QStringLiteral("statusSession"), tr("no session"),
                            tr("Session id from OpenSession"), Qt::ElideRight, 30);
    m_statusCapabilities = label(QStringLiteral("statusCapabilities"), tr("0 capabilities"),
                                 tr("No capabilities advertised yet"));
    m_statusProtocol =
        label(QStringLiteral("statusProtocol"), tr("protocol –"), tr("gateway_protocol_version"));
    m_statusTimeout = label(QStringLiteral("statusTimeout"), tr("cmd timeout –"),
                            tr("The command timeout the gateway echoed at OpenSession "
                               "(default_command_timeout)"));
    m_statusRecovery =
        label(QStringLiteral("statusRecovery"), tr("recovery –"), tr("The recovery gate's state"));
}

void MainWindow::setConnectionInfo(const QVector<ConnectionInfo>& infos)
{
    m_connections = infos;
    m_topologyModel->setConnections(infos);
    updateInstancesTree();
    updateGatewayState();
    if (infos.isEmpty()) {
        m_statusSession->setText(tr("no session"));
        return;
    }
    const ConnectionInfo& c = infos.front();
    // What the last session said (capabilities, timeout) is stale while there is none: greyed.
    const bool current = c.state == QLatin1String("connected");
    for (QLabel* label : {m_statusCapabilities, m_statusProtocol, m_statusTimeout})
        label->setEnabled(current);
    if (infos.size() == 1) {
        m_statusSession->setText(
            tr("session %1").arg(c.sessionId.isEmpty() ? c.state : c.sessionId));
        m_statusSession->setToolTip({});
    } else {
        // Several connections (a site's gateways): how many have a session and which one has
        // not, in a few words (a 1024 px status bar); every one in the tooltip.
        QStringList all;
        const ConnectionInfo* down = nullptr;
        int up = 0;
        for (const ConnectionInfo& i : infos) {
            all << QStringLiteral("%1: %2").arg(i.name,
                                                i.sessionId.isEmpty() ? i.state : i.sessionId);
            if (!i.sessionId.isEmpty())
                ++up;
            else if (!down)
                down = &i;
        }
        m_statusSession->setText(down ? tr("%1 of %2 sessions, %3 %4")
                                            .arg(up)
                                            .arg(infos.size())
                                            .arg(down->name, down->state)
                                      : tr("%1 sessions").arg(infos.size()));
        m_statusSession->setToolTip(all.join(QLatin1Char('\n')));
    }
    m_statusCapabilities->setText(tr("%n capabilities", nullptr, int(c.capabilities.size())));
    m_statusCapabilities->setToolTip(c.capabilities.isEmpty()
                                         ? tr("No capabilities advertised")
                                         : c.capabilities.join(QLatin1Char('\n')));
    m_statusProtocol->setText(c.protocolVersion > 0 ? tr("protocol v%1").arg(c.protocolVersion)
                                                    : tr("protocol –"));
    QString timeout = c.echoedCommandTimeoutS >= 0
                          ? tr("cmd timeout %1 s").arg(c.echoedCommandTimeoutS)
                          : tr("cmd timeout –");
    if (c.inFlightCeilingS >= 0)
        timeout += tr(", ceiling %1 s").arg(c.inFlightCeilingS);
    m_statusTimeout->setText(timeout);
    m_statusTimeout->setToolTip(
        tr("The gateway's command timeout for this session, as it echoed it, and Lever 1's "
           "in-flight ceiling: the longest one subscribe may stay unanswered before another is "
           "sent; at least the command timeout plus TagSubscribeInFlightCeilingMarginMs."));
}

void MainWindow::setGatewaySummary(const QString& address, const QString& recoveryState)
{
    // Said again at every refresh (20 times a second live); a style sheet set anew re-polishes
    // the label and lays the window out again even when it is the same.
    if (m_gatewaySummaryShown && address == m_gatewayAddress && recoveryState == m_recoveryState)
        return;
    m_gatewaySummaryShown = true;
    m_gatewayAddress = address;
    m_recoveryState = recoveryState;
    m_statusGateway->setText(address.isEmpty() ? tr("no gateway") : tr("gateway %1").arg(address));
    m_statusRecovery->setText(tr("recovery: %1").arg(recoveryState));
    m_statusRecovery->setStyleSheet(QStringLiteral("color: %1; font-weight: bold;")
                                        .arg(TopologyModel::stateColor(recoveryState).name()));
    updateGatewayState();
}

void MainWindow::updateGatewayState()
{
    // A gateway none of whose connections can open a session is unreachable, whatever the
    // recovery gate says; the banner says so without stopping anything (not modal).
    QStringList unreachable, refused, refusedWhole, unresponsive;
    for (const ConnectionInfo& c : m_connections) {
        const QString line =
            c.error.isEmpty() ? c.name : QStringLiteral("%1: %2").arg(c.name, c.error);
        if (c.state == QLatin1String("unreachable")) {
            unreachable << line;
        } else if (c.state == QLatin1String("unresponsive")) {
            unresponsive << c.name;
        } else if (c.state == QLatin1String("refused")) {
            // A contract's check lists what the message has instead: the banner keeps the
            // first words, the tooltip, the topology and the log have it all.
            constexpr qsizetype kShown = 200;
            refused << (line.size() > kShown ? line.left(kShown) + QChar(0x2026) : line);
            refusedWhole << line;
        }
    }
    const bool down = !m_connections.isEmpty() && unreachable.size() == m_connections.size();
    m_topologyModel->setGateway(m_gatewayAddress,
                                down ? QStringLiteral("unreachable") : m_recoveryState);
    if (!refused.isEmpty()) {
        // Said first: nothing will change it but the user (a contract file or a key to fix).
        m_bannerText->setText(
            tr("<b>Nothing is sent to %1</b> — %2. Check the gateway's contract with "
               "stormwatch --check-contract FILE.")
                .arg(refused.size() == m_connections.size()
                         ? tr("the gateway")
                         : tr("%n connection(s)", nullptr, int(refused.size())),
                     refused.join(QStringLiteral("; ")).toHtmlEscaped()));
        m_bannerText->setToolTip(refusedWhole.join(QLatin1Char('\n')));
        m_banner->show();
        m_unreachableBanner = true;
    } else if (down) {
        m_bannerText->setToolTip(QString());
        m_bannerText->setText(
            tr("<b>Gateway %1 unreachable</b> — %2. The client keeps retrying with "
               "its reconnect backoff.")
                .arg(m_gatewayAddress.toHtmlEscaped(),
                     unreachable.join(QStringLiteral("; ")).toHtmlEscaped()));
        m_banner->show();
        m_unreachableBanner = true;
    } else if (!unresponsive.isEmpty()) {
        m_bannerText->setToolTip(QString());
        m_bannerText->setText(
            tr("<b>%1 not answering</b> — a command went unanswered and nothing else came. "
               "The session is kept; its tags show their last usable values (Uncertain) "
               "until the gateway answers.")
                .arg(unresponsive.join(QStringLiteral(", ")).toHtmlEscaped()));
        m_banner->show();
        m_unreachableBanner = true;
    } else if (m_unreachableBanner) {
        m_bannerText->setToolTip(QString());
        m_banner->hide();
        m_unreachableBanner = false;
    }
}

} // namespace stormwatch
