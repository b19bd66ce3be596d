// PlotPanel's toolbar: follow live, the time window and history kept, the gateway chooser,
// the Plots menu and the exports.
#include "ui/plot_panel.h"

#include <QAction>
#include <QComboBox>
#include <QFileDialog>
#include <QMenu>
#include <QMessageBox>
#include <QSpinBox>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

namespace stormwatch {

void PlotPanel::buildToolBar(QVBoxLayout* layout)
{
    auto* bar = m_toolBar = new QToolBar(this);
    m_followAction = bar->addAction(tr("Follow live"));
    m_followAction->setCheckable(true);
    m_followAction->setChecked(m_follow);
    m_followAction->setToolTip(
        tr("Scroll with new data (zooming or panning pauses it; Home resumes it)"));
    connect(m_followAction, &QAction::toggled, this, &PlotPanel::setFollowLive);
    // Reset zoom is Follow live turned on: a key (and View › Reset zoom), not a second
    // button, so the toolbar keeps room for the gateway chooser at 1024 px.
    auto* reset = new QAction(tr("Reset zoom"), this);
    connect(reset, &QAction::triggered, this, &PlotPanel::resetZoom);
    reset->setShortcut(Qt::Key_Home);
    reset->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    addAction(reset);
    QAction* fit = bar->addAction(tr("Fit whole run"), this, &PlotPanel::fitWholeRun);
    fit->setObjectName(QStringLiteral("plotFitWholeRun"));
    fit->setToolTip(tr("Show the whole run, from its first second to its last (W)"));
    m_windowSpin = new QSpinBox(bar);
    m_windowSpin->setRange(10, 24 * 3600);
    m_windowSpin->setSuffix(tr(" s window"));
    m_windowSpin->setValue(int(m_windowS));
    connect(m_windowSpin, &QSpinBox::valueChanged, this, [this](int s) { setWindowSeconds(s); });
    bar->addWidget(m_windowSpin);
    // History kept for zooming out; the store's owner drops older samples (memory bounded).
    m_retentionSpin = new QSpinBox(bar);
    m_retentionSpin->setObjectName(QStringLiteral("retentionMinutes"));
    m_retentionSpin->setRange(1, 24 * 60);
    m_retentionSpin->setPrefix(tr("keep "));
    m_retentionSpin->setSuffix(tr(" min"));
    m_retentionSpin->setToolTip(tr("How much history the plots keep (older samples are dropped)"));
    m_retentionSpin->setValue(int(std::lround(m_store->retentionSeconds() / 60.0)));
    connect(m_retentionSpin, &QSpinBox::valueChanged, this, &PlotPanel::retentionMinutesChanged);
    bar->addWidget(m_retentionSpin);
    // A run on several gateways: the plots of one of them (hidden with a single gateway).
    // Strong focus: the wheel never picks a gateway on its own (eventFilter).
    m_gatewayCombo = new QComboBox(bar);
    m_gatewayCombo->setObjectName(QStringLiteral("plotGateway"));
    m_gatewayCombo->setFocusPolicy(Qt::StrongFocus);
    // A site's names run to 128 characters: the toolbar keeps its width (the list shows
    // them whole, the tooltip the chosen one).
    m_gatewayCombo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_gatewayCombo->setMinimumContentsLength(8);
    m_gatewayCombo->installEventFilter(this);
    connect(m_gatewayCombo, &QComboBox::activated, this,
            [this](int index) { setGatewayFilter(m_gatewayCombo->itemData(index).toString()); });
    m_gatewayComboAction = bar->addWidget(m_gatewayCombo);
    m_gatewayComboAction->setVisible(false);
    buildPlotsMenu();
    auto* plots = new QToolButton(bar);
    plots->setObjectName(QStringLiteral("plotsButton"));
    plots->setText(tr("Plots"));
    plots->setToolTip(tr("Choose which plots are drawn"));
    plots->setMenu(m_plotsMenu);
    plots->setPopupMode(QToolButton::InstantPopup);
    bar->addWidget(plots);
    bar->addSeparator();
    // One Export button for both files: the toolbar fits the plot area's width at 1024 px
    // (with the gateway chooser) without folding into "»".
    auto* exports = new QMenu(tr("Export"), this);
    QAction* png = exports->addAction(tr("Plots as PNG image…"), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export plots"), QString(),
                                                          tr("PNG images (*.png)"));
        QString error;
        if (!path.isEmpty() && !exportPng(path, &error))
            QMessageBox::warning(this, tr("Export plots"), error);
    });
    png->setObjectName(QStringLiteral("plotExportPng"));
    QAction* csv = exports->addAction(tr("Visible range as CSV…"), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export visible range"),
                                                          QString(), tr("CSV files (*.csv)"));
        QString error;
        if (!path.isEmpty() && !exportCsv(path, &error))
            QMessageBox::warning(this, tr("Export visible range"), error);
    });
    csv->setObjectName(QStringLiteral("plotExportCsv"));
    auto* exportButton = new QToolButton(bar);
    exportButton->setObjectName(QStringLiteral("plotExportButton"));
    exportButton->setText(tr("Export"));
    exportButton->setToolTip(
        tr("Export the plots as a PNG image, or the visible range of their series as CSV"));
    exportButton->setMenu(exports);
    exportButton->setPopupMode(QToolButton::InstantPopup);
    bar->addWidget(exportButton);
    layout->addWidget(bar);
}

} // namespace stormwatch
