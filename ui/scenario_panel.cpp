#include "ui/scenario_panel.h"

#include "scenario/scenario_parser.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <cmath>

namespace stormwatch {

namespace {
constexpr int kProgressSteps = 1000;
}

ScenarioPanel::ScenarioPanel(QWidget* parent) : QWidget(parent)
{
    // What the window runs now: the choices below are what Play plays next, and after a
    // playback they still name it, which read as the current run once back to live.
    m_now = new QLabel;
    m_now->setObjectName(QStringLiteral("nowRunning"));
    m_now->setWordWrap(true);
    m_scenario = new QComboBox;
    m_scenario->setObjectName(QStringLiteral("scenario"));
    m_scenario->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_scenario->setMinimumContentsLength(12);
    m_open = new QPushButton(tr("Open file…"));
    m_open->setObjectName(QStringLiteral("openScenario"));
    m_variant = new QComboBox;
    m_variant->setObjectName(QStringLiteral("variant"));
    // The description says what to look for and runs to several sentences: scrollable, so
    // the dock can stay short.
    m_description = new QTextBrowser;
    m_description->setObjectName(QStringLiteral("scenarioDescription"));
    m_description->setFrameShape(QFrame::NoFrame);
    m_description->setMinimumHeight(m_description->fontMetrics().lineSpacing() * 4);
    m_description->viewport()->setAutoFillBackground(false);
    m_speed = new QComboBox;
    m_speed->setObjectName(QStringLiteral("speed"));
    m_speed->addItem(tr("Live (gRPC)"), -1.0);
    m_speed->addItem(QStringLiteral("1×"), 1.0);
    m_speed->addItem(QStringLiteral("10×"), 10.0);
    m_speed->addItem(QStringLiteral("60×"), 60.0);
    m_speed->addItem(tr("max"), 0.0);
    m_speed->setCurrentIndex(2);
    m_speed->setToolTip(tr("Live runs the timeline in real time against the embedded gateway "
                           "over gRPC; the others replay it in virtual time"));
    m_play = new QPushButton(tr("Play"));
    m_play->setObjectName(QStringLiteral("play"));
    m_play->setToolTip(tr("Play (Space)"));
    m_pause = new QPushButton(tr("Pause"));
    m_pause->setObjectName(QStringLiteral("pause"));
    m_pause->setToolTip(tr("Pause or resume a virtual playback (Space)"));
    m_pause->setEnabled(false);
    m_stop = new QPushButton(tr("Stop"));
    m_stop->setObjectName(QStringLiteral("stop"));
    m_stop->setToolTip(tr("Stop (Space for a live run)"));
    m_stop->setEnabled(false);
    m_progress = new QProgressBar;
    m_progress->setObjectName(QStringLiteral("progress"));
    m_progress->setRange(0, kProgressSteps);
    m_progress->setValue(0);
    m_progress->setTextVisible(true);
    m_progress->setFormat(tr("stopped"));
    m_compare = new QPushButton(tr("Compare variants…"));
    m_compare->setObjectName(QStringLiteral("compare"));
    m_compare->setToolTip(tr("Run every variant in virtual time and show them side by side"));

    auto* pick = new QHBoxLayout;
    pick->addWidget(m_scenario, 1);
    pick->addWidget(m_open);
    // The buttons on a row of their own: beside the speed they made the dock 430 px wide,
    // too much of a 1024 px screen.
    auto* transport = new QHBoxLayout;
    transport->addWidget(m_play);
    transport->addWidget(m_pause);
    transport->addWidget(m_stop);
    auto* form = new QFormLayout;
    form->addRow(tr("Scenario"), pick);
    form->addRow(tr("Variant"), m_variant);
    form->addRow(tr("Speed"), m_speed);
    auto* column = new QVBoxLayout(this);
    column->addWidget(m_now);
    column->addLayout(form);
    column->addLayout(transport);
    column->addWidget(m_description, 1);
    column->addWidget(m_progress);
    column->addWidget(m_compare);

    connect(m_scenario, &QComboBox::activated, this, &ScenarioPanel::onScenarioChosen);
    connect(m_open, &QPushButton::clicked, this, &ScenarioPanel::openFile);
    connect(m_play, &QPushButton::clicked, this, &ScenarioPanel::requestPlay);
    connect(m_pause, &QPushButton::clicked, this, &ScenarioPanel::pauseToggled);
    connect(m_stop, &QPushButton::clicked, this, &ScenarioPanel::stopRequested);
    connect(m_compare, &QPushButton::clicked, this,
            [this] { emit compareRequested(currentScenario()); });
}

void ScenarioPanel::setScenarioNames(const QStringList& bundled)
{
    const QString current = currentScenario();
    m_scenario->clear();
    for (const QString& name : bundled)
        m_scenario->addItem(name, name);
    if (!current.isEmpty() && m_scenario->findData(current) < 0 && QFileInfo::exists(current))
        m_scenario->addItem(QFileInfo(current).fileName(), current);
    const int keep = m_scenario->findData(current);
    if (keep >= 0)
        m_scenario->setCurrentIndex(keep);
    if (!bundled.isEmpty() && (current.isEmpty() || keep < 0))
        loadScenario(bundled.front());
}

bool ScenarioPanel::loadScenario(const QString& nameOrPath)
{
    QList<ScenarioError> errors;
    const auto scenario = stormwatch::loadScenario(nameOrPath, &errors);
    int index = m_scenario->findData(nameOrPath);
    if (!scenario) {
        QStringList lines;
        for (const ScenarioError& e : errors)
            lines << e.toString();
        // A file that does not load is not listed: the list holds what can be played. The
        // previous choice stays selected (and playable), the errors are shown.
        const QSignalBlocker block(m_scenario);
        if (index >= 0 && QFileInfo::exists(nameOrPath))
            m_scenario->removeItem(index);
        const bool previous = m_scenario->currentIndex() >= 0 && m_variant->count() > 0;
        m_description->setPlainText(
            tr("Cannot load %1:\n%2").arg(nameOrPath, lines.join('\n')) +
            (previous ? tr("\n\nStill selected: %1").arg(m_scenario->currentText()) : QString()));
        m_play->setEnabled(previous && !isPlaying());
        m_compare->setEnabled(previous);
        return false;
    }
    if (index < 0) {
        const QString shown =
            QFileInfo::exists(nameOrPath) ? QFileInfo(nameOrPath).fileName() : nameOrPath;
        m_scenario->addItem(shown, nameOrPath);
        m_scenario->setItemData(m_scenario->count() - 1, nameOrPath, Qt::ToolTipRole);
        index = m_scenario->count() - 1;
    }
    m_scenario->setCurrentIndex(index);
    // A narrow dock cuts a long name at the arrow: the whole of it on hover.
    m_scenario->setToolTip(nameOrPath);
    const QString previousVariant = currentVariant();
    m_variant->clear();
    QStringList variants;
    for (const VariantSpec& v : scenario->variants)
        variants << v.name;
    if (variants.isEmpty())
        variants = defaultVariantNames();
    m_variant->addItems(variants);
    if (variants.contains(previousVariant))
        m_variant->setCurrentText(previousVariant);
    m_scenarioText = scenario->description.isEmpty()
                         ? scenario->name
                         : QStringLiteral("%1 — %2").arg(scenario->name, scenario->description);
    if (!m_siteShown)
        m_description->setPlainText(m_scenarioText);
    m_description->setToolTip(tr("%1 s, %2 instance(s), %3 timeline event(s)")
                                  .arg(scenario->durationS)
                                  .arg(scenario->instances.size())
                                  .arg(scenario->timeline.size()));
    m_play->setEnabled(!isPlaying() && !m_siteShown);
    m_compare->setEnabled(!m_siteShown);
    return true;
}

void ScenarioPanel::selectPlayed(const QString& scenario, const QString& variant)
{
    if (currentScenario() != scenario && !loadScenario(scenario))
        return;
    if (const int i = m_variant->findText(variant); i >= 0)
        m_variant->setCurrentIndex(i);
}

void ScenarioPanel::onScenarioChosen(int index)
{
    loadScenario(m_scenario->itemData(index).toString());
}

void ScenarioPanel::openFile()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open scenario"), QString(),
                                                      tr("Scenario files (*.json);;All files (*)"));
    if (!path.isEmpty())
        loadScenario(path);
}

QString ScenarioPanel::currentScenario() const
{
    return m_scenario->currentData().toString();
}

QString ScenarioPanel::currentVariant() const
{
    return m_variant->currentText();
}

QStringList ScenarioPanel::variants() const
{
    QStringList names;
    for (int i = 0; i < m_variant->count(); ++i)
        names << m_variant->itemText(i);
    return names;
}

double ScenarioPanel::currentSpeed() const
{
    return m_speed->currentData().toDouble();
}

void ScenarioPanel::setSpeed(double speed)
{
    const int index = m_speed->findData(speed);
    if (index >= 0)
        m_speed->setCurrentIndex(index);
}

QString ScenarioPanel::description() const
{
    return m_description->toPlainText();
}

void ScenarioPanel::requestPlay()
{
    if (currentScenario().isEmpty())
        return;
    emit playRequested(currentScenario(), currentVariant(), currentSpeed());
}

void ScenarioPanel::togglePlay()
{
    if (isPlaying() && !m_state.live)
        emit pauseToggled();
    else if (isPlaying())
        emit stopRequested(); // live time cannot be paused
    else if (m_play->isEnabled())
        requestPlay();
}

void ScenarioPanel::setRunState(const RunState& state)
{
    // A playback that starts or ends (from this dock, --play, a test, a file opened or
    // dropped while it ran) leaves the played scenario and variant selected; in between the
    // person's own choice stands.
    const bool moved = state.playback && !state.scenario.isEmpty() &&
                       (!m_state.playback || state.running != m_state.running ||
                        state.scenario != m_state.scenario || state.variant != m_state.variant);
    m_state = state;
    if (moved)
        selectPlayed(state.scenario, state.variant);
    const bool playing = isPlaying();
    const QString played =
        QStringLiteral("%1 / %2").arg(QFileInfo(state.scenario).fileName(), state.variant);
    // A site's live run: the dock describes the site, and the scenario controls are off (a
    // scenario plays on a mock gateway of its own, which would end the site's run).
    const bool site = !state.playback && !state.site.isEmpty();
    if (site)
        m_description->setPlainText(state.siteSummary);
    else if (m_siteShown)
        m_description->setPlainText(m_scenarioText);
    m_siteShown = site;
    m_now->setText(site ? tr("Now: site %1, live. Scenarios are off while it is shown: start "
                             "stormwatch without --site to play or compare them.")
                              .arg(state.site)
                   : !state.playback
                       ? tr("Now: the live run. Play plays the scenario chosen below.")
                   : playing ? tr("Now playing: %1").arg(played)
                             : tr("Shown: %1, a playback that is over.").arg(played));
    m_play->setEnabled(!playing && !site && m_variant->count() > 0);
    m_compare->setEnabled(!site && m_variant->count() > 0);
    // Stop ends a running playback; once it is over the same button returns to live.
    m_stop->setEnabled(state.playback);
    m_stop->setText(state.playback && !state.running ? tr("Back to live") : tr("Stop"));
    m_stop->setToolTip(state.playback && !state.running
                           ? tr("Return to the live run on the gateway")
                           : tr("Stop the playback (Space for a live one)"));
    // Live time (the live run, or a scenario played live) cannot be paused.
    m_pause->setEnabled(playing && !state.live);
    m_pause->setText(playing && state.paused ? tr("Resume") : tr("Pause"));
    for (QWidget* w : std::initializer_list<QWidget*>{m_scenario, m_open, m_variant, m_speed})
        w->setEnabled(!playing && !site);
    if (state.playback)
        setSpeed(state.speed); // the speed the shown run plays at, not the last choice
    // An unbounded run: the bar stays empty and the label carries the elapsed time.
    const bool bounded = state.progress >= 0;
    m_progress->setValue(bounded ? int(std::lround(std::min(state.progress, 1.0) * kProgressSteps))
                                 : 0);
    m_progress->setFormat(!state.label.isEmpty() ? state.label
                          : bounded              ? QStringLiteral("%p%")
                                                 : tr("live"));
    m_progress->setToolTip(state.label);
    fitProgressText();
}

// The run's label is long ("… finished (Back to live returns to the live run)"): in a
// narrow dock it is elided to one line, the whole of it in the tooltip.
void ScenarioPanel::fitProgressText()
{
    const QString full = m_progress->toolTip();
    if (full.isEmpty())
        return;
    const int room = m_progress->width() - 16;
    m_progress->setFormat(m_progress->isVisible() && room > 40
                              ? m_progress->fontMetrics().elidedText(full, Qt::ElideMiddle, room)
                              : full);
}

void ScenarioPanel::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    fitProgressText();
}

} // namespace stormwatch
