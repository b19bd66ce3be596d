#pragma once
// A status-bar label that may be narrower than its text: it paints the text elided (where
// the mode says) instead of cut off at its edge, and its tooltip then starts with the whole
// text. text() stays the whole text; a 1024 px status bar cut the gateway's address and the
// end of "1 of 2 sessions, gw-packaging unreachable" mid-character.

#include <QLabel>

namespace stormwatch {

class ElidingLabel : public QLabel {
    Q_OBJECT
public:
    // Squeezed, it keeps at least its first `minimumChars` characters (and the ellipsis).
    ElidingLabel(Qt::TextElideMode mode, int minimumChars, QWidget* parent = nullptr);

    // What is painted: text() elided to the width the label has.
    QString shownText() const;
    bool isElided() const { return shownText() != text(); }
    // The first minimumChars characters: the status bar may squeeze it that far.
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;

private:
    Qt::TextElideMode m_mode;
    int m_minimumChars;
};

} // namespace stormwatch
