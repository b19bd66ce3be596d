#pragma once
// A progress bar painted flat: the groove in the base colour with a 1 px frame, the part done
// in the highlight colour, the percentage centred (highlighted text over the part done).
// Fusion's bar under the application's style sheet (gradients, antialiased rounded paths)
// cost the compare window's UI thread 1–6 ms a paint, ten times a second during a replay,
// and up to ~28 ms on a busy machine; this one is a few rectangles and one short text.

#include <QProgressBar>

namespace stormwatch {

class PlainProgressBar : public QProgressBar {
    Q_OBJECT
public:
    using QProgressBar::QProgressBar;

protected:
    void paintEvent(QPaintEvent* event) override;
};

} // namespace stormwatch
