#include "ui/theme.h"

#include <QApplication>
#include <QFile>
#include <QPainter>
#include <QPainterPath>
#include <QPixmap>
#include <QStyleFactory>

// The ui resources live in a static library: nothing references their initializer, so it is
// pulled in by name (Q_INIT_RESOURCE must be used outside any namespace).
static void initUiResources()
{
    Q_INIT_RESOURCE(stormwatch_ui);
}

namespace stormwatch {

namespace {
Theme g_current = Theme::Light; // UI thread only, like the application palette
} // namespace

Theme currentTheme()
{
    return g_current;
}

QString themeName(Theme theme)
{
    return theme == Theme::Dark ? QStringLiteral("dark") : QStringLiteral("light");
}

Theme themeFromName(const QString& name)
{
    return name == QLatin1String("dark") ? Theme::Dark : Theme::Light;
}

QPalette themePalette(Theme theme)
{
    if (theme == Theme::Light) {
        QPalette p(QColor(0xf3, 0xf4, 0xf6));
        p.setColor(QPalette::Base, Qt::white);
        p.setColor(QPalette::AlternateBase, QColor(0xf0, 0xf3, 0xf7));
        p.setColor(QPalette::Highlight, QColor(0x2f, 0x6f, 0xd0));
        p.setColor(QPalette::HighlightedText, Qt::white);
        p.setColor(QPalette::ToolTipBase, QColor(0xff, 0xff, 0xe8));
        p.setColor(QPalette::ToolTipText, Qt::black);
        return p;
    }
    const QColor window(0x2b, 0x2d, 0x31), base(0x1e, 0x1f, 0x22), text(0xdf, 0xe1, 0xe5);
    const QColor disabled(0x7a, 0x7d, 0x82);
    QPalette p;
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0x26, 0x28, 0x2c));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, QColor(0x35, 0x37, 0x3c));
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(0xff, 0x6b, 0x6b));
    p.setColor(QPalette::Highlight, QColor(0x3d, 0x7e, 0xe0));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x6c, 0xa8, 0xff));
    p.setColor(QPalette::ToolTipBase, QColor(0x3a, 0x3c, 0x41));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, disabled);
    p.setColor(QPalette::Light, QColor(0x45, 0x47, 0x4d));
    p.setColor(QPalette::Midlight, QColor(0x3c, 0x3e, 0x43));
    p.setColor(QPalette::Mid, QColor(0x24, 0x25, 0x29));
    p.setColor(QPalette::Dark, QColor(0x18, 0x19, 0x1b));
    p.setColor(QPalette::Shadow, Qt::black);
    for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, disabled);
    return p;
}

QString themeStyleSheet(Theme theme)
{
    initUiResources();
    QFile f(QStringLiteral(":/stormwatch/theme-%1.qss").arg(themeName(theme)));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(f.readAll());
}

void applyTheme(Theme theme)
{
    auto* app = qobject_cast<QApplication*>(QCoreApplication::instance());
    if (!app)
        return;
    g_current = theme;
    // Fusion draws from the palette alone, so both themes look the same on every desktop.
    if (QStyle* fusion = QStyleFactory::create(QStringLiteral("Fusion")))
        QApplication::setStyle(fusion);
    QApplication::setPalette(themePalette(theme));
    app->setStyleSheet(themeStyleSheet(theme));
}

QIcon appIcon()
{
    QIcon icon;
    for (int size : {16, 32, 64, 128, 256}) {
        QPixmap pm(size, size);
        pm.fill(Qt::transparent);
        QPainter p(&pm);
        p.setRenderHint(QPainter::Antialiasing);
        p.scale(size / 64.0, size / 64.0);
        // Cloud: three circles on a rounded base (same shapes as installer/stormwatch.svg).
        QPainterPath cloud;
        cloud.addEllipse(QPointF(22, 26), 11, 11);
        cloud.addEllipse(QPointF(36, 20), 14, 14);
        cloud.addEllipse(QPointF(48, 28), 9, 9);
        cloud.addRoundedRect(QRectF(10, 26, 46, 14), 7, 7);
        p.setPen(Qt::NoPen);
        p.setBrush(QColor(0x5b, 0x67, 0x7a));
        p.drawPath(cloud.simplified());
        // Lightning bolt.
        p.setBrush(QColor(0xf5, 0xb7, 0x00));
        p.drawPolygon(
            QPolygonF({{34, 36}, {26, 48}, {32, 48}, {28, 60}, {40, 44}, {34, 44}, {38, 36}}));
        // The plot line: a storm spike settling back.
        QPen line(QColor(0x2f, 0x9e, 0xe0), 3.5, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin);
        p.setPen(line);
        p.setBrush(Qt::NoBrush);
        p.drawPolyline(QPolygonF({{4, 54}, {14, 54}, {19, 44}, {24, 58}, {44, 52}, {60, 52}}));
        p.end();
        icon.addPixmap(pm);
    }
    return icon;
}

} // namespace stormwatch
