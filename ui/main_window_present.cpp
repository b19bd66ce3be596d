// MainWindow: what it shows to others — exports with a title, the time markers, presenter
// mode, the compact layout of a small screen, and scenario files dropped on the window.
#include "models/series_store.h"
#include "scenario/scenario_parser.h"
#include "ui/ab_view.h"
#include "ui/main_window.h"
#include "ui/scenario_panel.h"

#include <QButtonGroup>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QMenuBar>
#include <QMimeData>
#include <QRadioButton>
#include <QSettings>
#include <QStatusBar>
#include <QTimer>
#include <QVBoxLayout>
#include <memory>

namespace stormwatch {

namespace {

// Asks for the range (and, for images, the size) before the file name: an export says
// what it covers by an explicit choice, never by what happened to be on screen.
struct ExportChoice {
    bool accepted = false;
    PlotPanel::Range range = PlotPanel::Range::Visible;
    QSize size;
};

ExportChoice askExport(QWidget* parent, const QString& title, bool withSize)
{
    QDialog dialog(parent);
    dialog.setWindowTitle(title);
    auto* form = new QFormLayout(&dialog);
    auto* visible = new QRadioButton(QObject::tr("Visible range"));
    auto* whole = new QRadioButton(QObject::tr("Whole run"));
    whole->setChecked(true);
    auto* rangeBox = new QWidget;
    auto* rangeRow = new QVBoxLayout(rangeBox);
    rangeRow->setContentsMargins(0, 0, 0, 0);
    rangeRow->addWidget(whole);
    rangeRow->addWidget(visible);
    form->addRow(QObject::tr("Range"), rangeBox);
    QComboBox* size = nullptr;
    if (withSize) {
        size = new QComboBox;
        size->addItem(QObject::tr("1920 × 1080 (full HD slide)"), QSize(1920, 1080));
        size->addItem(QObject::tr("1280 × 720 (HD)"), QSize(1280, 720));
        size->addItem(QObject::tr("As shown on screen"), QSize());
        form->addRow(QObject::tr("Size"), size);
    }
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    QObject::connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    form->addRow(buttons);
    ExportChoice choice;
    choice.accepted = dialog.exec() == QDialog::Accepted;
    choice.range = whole->isChecked() ? PlotPanel::Range::WholeRun : PlotPanel::Range::Visible;
    if (size)
        choice.size = size->currentData().toSize();
    return choice;
}

} // namespace

bool MainWindow::exportPng(const QString& path, PlotPanel::ExportOptions options)
{
    if (options.title.isEmpty())
        options.title = m_runCaption.text();
    return m_plots->exportPng(path, nullptr, options);
}

bool MainWindow::exportCsv(const QString& path, PlotPanel::Range range)
{
    if (m_store->pointCount() == 0)
        return false; // nothing recorded yet: no file rather than an empty table
    PlotPanel::CsvOptions options;
    options.range = range;
    options.title = m_runCaption.text();
    options.runStart = m_runCaption.start;
    return m_plots->exportCsv(path, nullptr, options);
}

void MainWindow::exportPngInteractive()
{
    const ExportChoice choice = askExport(this, tr("Export plots as PNG"), true);
    if (!choice.accepted)
        return;
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export plots as PNG"),
                                     QStringLiteral("stormwatch.png"), tr("PNG images (*.png)"));
    PlotPanel::ExportOptions options;
    options.range = choice.range;
    options.size = choice.size;
    if (!path.isEmpty() && !exportPng(path, options))
        showError(tr("Export failed"), tr("Could not write %1").arg(path));
}

void MainWindow::exportCsvInteractive()
{
    const ExportChoice choice = askExport(this, tr("Export series as CSV"), false);
    if (!choice.accepted)
        return;
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export series as CSV"),
                                     QStringLiteral("stormwatch.csv"), tr("CSV files (*.csv)"));
    if (!path.isEmpty() && !exportCsv(path, choice.range))
        showError(tr("Export failed"),
                  tr("Could not write %1 (or there is nothing to export yet)").arg(path));
}

void MainWindow::addMarkers(const QVector<RunHost::Marker>& markers)
{
    QVector<PlotPanel::Marker> shown;
    for (const RunHost::Marker& m : markers)
        shown.push_back(PlotPanel::Marker{m.tS, m.label});
    m_plots->addMarkers(shown);
}

void MainWindow::clearMarkers()
{
    m_plots->clearMarkers();
}

void MainWindow::setRunCaption(const RunCaption& caption)
{
    if (caption == m_runCaption)
        return;
    m_runCaption = caption;
    updateCaption();
}

void MainWindow::updateCaption()
{
    // In presenter mode the toolbar is hidden: the caption says which gateway is plotted.
    const QString gateway = m_plots->gatewayFilter();
    m_caption->setText(gateway.isEmpty() ? m_runCaption.text()
                                         : tr("%1 — gateway %2").arg(m_runCaption.text(), gateway));
}

void MainWindow::setPresenterMode(bool on)
{
    if (on == m_presenting)
        return;
    m_presenting = on;
    {
        const QSignalBlocker block(m_presenterAction);
        m_presenterAction->setChecked(on);
    }
    m_leavePresenter->setEnabled(on);
    if (on) {
        m_statePresenting = saveState();
        for (QDockWidget* d : findChildren<QDockWidget*>())
            d->hide();
        menuBar()->hide();
        statusBar()->hide();
        QFont font = m_caption->font();
        font.setPointSizeF(QFont().pointSizeF() * 1.6);
        font.setBold(true);
        m_caption->setFont(font);
        updateCaption();
        m_caption->show();
    } else {
        m_caption->hide();
        menuBar()->show();
        statusBar()->show();
        restoreState(m_statePresenting);
    }
    m_plots->setPresentation(on);
}

void MainWindow::resizeEvent(QResizeEvent* event)
{
    QMainWindow::resizeEvent(event);
    if (isVisible())
        fitToScreenSize();
}

// A narrow window tabs the side docks into one column on the left and the tags with the
// log at the bottom: four side docks beside the plots left them ~280 px of 1024.
void MainWindow::fitToScreenSize()
{
    const bool compact = width() < kCompactWidth;
    if (compact == m_compact || m_presenting)
        return;
    m_compact = compact;
    const auto dock = [this](const char* name) {
        return findChild<QDockWidget*>(QLatin1String(name));
    };
    QDockWidget* scenario = dock("dockScenario");
    QDockWidget* levers = dock("dockLevers");
    QDockWidget* gateway = dock("dockGateway");
    QDockWidget* topology = dock("dockTopology");
    QDockWidget* subscriptions = dock("dockSubscriptions");
    QDockWidget* tags = dock("dockTags");
    QDockWidget* log = dock("dockLog");
    if (compact) {
        addDockWidget(Qt::LeftDockWidgetArea, gateway);
        tabifyDockWidget(scenario, levers);
        tabifyDockWidget(scenario, gateway);
        tabifyDockWidget(scenario, topology);
        tabifyDockWidget(scenario, subscriptions);
        tabifyDockWidget(tags, log);
        (m_manySubscriptions ? subscriptions : scenario)->raise();
        log->raise();
        // Sizes hold once the new arrangement is laid out.
        QTimer::singleShot(0, this, [this, scenario, tags] {
            resizeDocks({scenario}, {std::min(300, width() * 3 / 10)}, Qt::Horizontal);
            resizeDocks({tags}, {std::max(120, height() / 5)}, Qt::Vertical);
        });
        return;
    }
    // Wide again: the side docks go back beside the plots.
    for (QDockWidget* d : {levers, gateway, topology, subscriptions, log})
        removeDockWidget(d);
    addDockWidget(Qt::LeftDockWidgetArea, scenario);
    splitDockWidget(scenario, levers, Qt::Vertical);
    addDockWidget(Qt::RightDockWidgetArea, gateway);
    splitDockWidget(gateway, topology, Qt::Vertical);
    tabifyDockWidget(topology, subscriptions);
    addDockWidget(Qt::BottomDockWidgetArea, tags);
    splitDockWidget(tags, log, Qt::Horizontal);
    for (QDockWidget* d : {levers, gateway, topology, subscriptions, log})
        d->show();
    (m_manySubscriptions ? subscriptions : topology)->raise();
    QTimer::singleShot(0, this, [this, scenario, gateway, tags, log] {
        resizeDocks({scenario, gateway}, {340, 380}, Qt::Horizontal);
        resizeDocks({tags}, {height() / 4}, Qt::Vertical);
        resizeDocks({tags, log}, {width() * 2 / 5, width() * 3 / 5}, Qt::Horizontal);
    });
}

void MainWindow::showAb()
{
    const QString scenario = m_scenario->currentScenario();
    QList<ScenarioError> errors;
    const auto loaded = stormwatch::loadScenario(scenario, &errors);
    if (!loaded) {
        showError(tr("A/B side by side"), tr("no scenario to run: %1").arg(scenario));
        return;
    }
    QStringList variants;
    for (const VariantSpec& v : loaded->variants)
        variants << v.name;
    const QString a =
        m_scenario->currentVariant().isEmpty() ? variants.value(0) : m_scenario->currentVariant();
    QString b;
    for (const QString& v : variants)
        if (v != a && b.isEmpty())
            b = v;
    if (a.isEmpty() || b.isEmpty()) {
        showError(tr("A/B side by side"), tr("%1 has fewer than two variants").arg(loaded->name));
        return;
    }
    showAb(scenario, a, b);
}

void MainWindow::showAb(const QString& scenarioNameOrPath, const QString& a, const QString& b)
{
    QList<ScenarioError> errors;
    const auto scenario = stormwatch::loadScenario(scenarioNameOrPath, &errors);
    if (!scenario) {
        showError(tr("A/B side by side"), tr("cannot load %1").arg(scenarioNameOrPath));
        return;
    }
    if (!m_ab) {
        m_ab = new AbView;
        m_ab->setTheme(m_theme);
        std::unique_ptr<QSettings> settings(openSettings());
        for (int side = 0; side < 2; ++side)
            m_ab->panel(side)->setShownPlotsText(settings->value(abShownPlotsKey(side)).toString());
        static_cast<QVBoxLayout*>(centralWidget()->layout())->addWidget(m_ab, 1);
        connect(m_ab, &AbView::closeRequested, this, [this] {
            m_ab->hide();
            m_plotArea->show();
        });
    }
    m_plotArea->hide();
    m_ab->show();
    m_ab->start(*scenario, a, b);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.size() == 1 && urls.front().isLocalFile() &&
        urls.front().toLocalFile().endsWith(QLatin1String(".json"), Qt::CaseInsensitive))
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.size() != 1 || !urls.front().isLocalFile())
        return;
    event->acceptProposedAction();
    if (auto* d = findChild<QDockWidget*>(QStringLiteral("dockScenario"))) {
        d->show();
        d->raise();
    }
    loadScenario(urls.front().toLocalFile()); // its errors show in the Scenario dock
}

} // namespace stormwatch
