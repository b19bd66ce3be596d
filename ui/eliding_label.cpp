#include "ui/eliding_label.h"

#include <QHelpEvent>
#include <QPainter>
#include <QStyle>
#include <QToolTip>

namespace stormwatch {

ElidingLabel::ElidingLabel(Qt::TextElideMode mode, int minimumChars, QWidget* parent)
    : QLabel(parent), m_mode(mode), m_minimumChars(minimumChars)
{
    setTextFormat(Qt::PlainText);
}

QString ElidingLabel::shownText() const
{
    return fontMetrics().elidedText(text(), m_mode, contentsRect().width());
}

QSize ElidingLabel::minimumSizeHint() const
{
    const QSize full = QLabel::minimumSizeHint();
    const int few = fontMetrics().horizontalAdvance(text().left(m_minimumChars) + QChar(0x2026)) +
                    contentsMargins().left() + contentsMargins().right();
    return QSize(std::min(full.width(), few), full.height());
}

void ElidingLabel::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    style()->drawItemText(&painter, contentsRect(), int(alignment()), palette(), isEnabled(),
                          shownText(), foregroundRole());
}

bool ElidingLabel::event(QEvent* event)
{
    // Elided, the tooltip says the whole text first, then what the label's own tooltip says.
    if (event->type() == QEvent::ToolTip && isElided()) {
        const auto* help = static_cast<QHelpEvent*>(event);
        QToolTip::showText(
            help->globalPos(),
            toolTip().isEmpty() ? text() : text() + QStringLiteral("\n\n") + toolTip(), this);
        return true;
    }
    return QLabel::event(event);
}

} // namespace stormwatch
