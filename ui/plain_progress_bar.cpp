#include "ui/plain_progress_bar.h"

#include <QPainter>
#include <algorithm>

namespace stormwatch {

void PlainProgressBar::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    const QPalette& pal = palette();
    const QRect frame = rect().adjusted(0, 0, -1, -1);
    p.setPen(pal.color(QPalette::Mid));
    p.setBrush(pal.color(QPalette::Base));
    p.drawRect(frame);
    const QRect inside = rect().adjusted(1, 1, -1, -1);
    const qint64 span = qint64(maximum()) - minimum();
    const double fraction =
        span > 0 ? std::clamp(double(qint64(value()) - minimum()) / double(span), 0.0, 1.0) : 0.0;
    const QRect done(inside.left(), inside.top(), int(inside.width() * fraction), inside.height());
    if (done.width() > 0)
        p.fillRect(done, pal.color(QPalette::Highlight));
    if (!isTextVisible())
        return;
    const QString label = text();
    p.setClipRect(done);
    p.setPen(pal.color(QPalette::HighlightedText));
    p.drawText(inside, Qt::AlignCenter, label);
    p.setClipRect(
        QRect(done.right() + 1, inside.top(), inside.right() - done.right(), inside.height()));
    p.setPen(pal.color(QPalette::Text));
    p.drawText(inside, Qt::AlignCenter, label);
}

} // namespace stormwatch
