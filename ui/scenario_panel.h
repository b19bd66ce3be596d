#pragma once
// The Scenario dock: pick a bundled scenario or open a file, pick a variant (the scenario's
// own, or every lever preset when it names none), read what to look for, choose the speed
// (live over gRPC, 1×, 10×, 60×, as fast as possible), play / stop, watch progress, and
// ask for a side-by-side comparison of the variants.

#include "ui/console_view.h"

#include <QStringList>
#include <QWidget>

class QComboBox;
class QLabel;
class QTextBrowser;
class QProgressBar;
class QPushButton;

namespace stormwatch {

class ScenarioPanel : public QWidget {
    Q_OBJECT
public:
    explicit ScenarioPanel(QWidget* parent = nullptr);

    void setScenarioNames(const QStringList& bundled);
    // Loads a bundled name or a file path, selects it, lists its variants and shows its
    // description. On failure the errors are shown and false is returned.
    bool loadScenario(const QString& nameOrPath);
    QString currentScenario() const; // bundled name or file path
    QString currentVariant() const;
    QStringList variants() const;
    double currentSpeed() const; // 1, 10, 60, 0 = max, -1 = live over gRPC
    void setSpeed(double speed);
    QString description() const;

    void setRunState(const RunState& state);
    const RunState& runState() const { return m_state; }
    bool isPlaying() const { return m_state.playback && m_state.running; }
    // Space: play when stopped; while playing, pause/resume a virtual run and stop a live one.
    void togglePlay();
    // File dialog, then loadScenario().
    void openFile();

signals:
    void playRequested(const QString& scenarioNameOrPath, const QString& variant, double speed);
    void stopRequested();
    void pauseToggled(); // pause or resume the pacing of a virtual playback
    void compareRequested(const QString& scenarioNameOrPath);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void onScenarioChosen(int index);
    void selectPlayed(const QString& scenario, const QString& variant);
    void fitProgressText();
    void requestPlay();

    RunState m_state;
    QLabel* m_now = nullptr; // what runs now (the choices below are for Play)
    QComboBox* m_scenario = nullptr;
    QPushButton* m_open = nullptr;
    QComboBox* m_variant = nullptr;
    QTextBrowser* m_description = nullptr;
    QComboBox* m_speed = nullptr;
    QPushButton* m_play = nullptr;
    QPushButton* m_pause = nullptr;
    QPushButton* m_stop = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_compare = nullptr;
    QString m_scenarioText; // the chosen scenario's description
    bool m_siteShown = false;
};

} // namespace stormwatch
