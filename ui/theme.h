#pragma once
// Light and dark themes: a Fusion palette plus a small stylesheet from the resources, applied
// application-wide so docks, dialogs and plots agree. Remembered by name in the settings.

#include <QIcon>
#include <QPalette>
#include <QString>

class QApplication;

namespace stormwatch {

enum class Theme { Light, Dark };

QString themeName(Theme theme);           // "light", "dark"
Theme themeFromName(const QString& name); // unknown ⇒ Light
QPalette themePalette(Theme theme);
QString themeStyleSheet(Theme theme); // from :/stormwatch/theme-<name>.qss
void applyTheme(Theme theme);         // palette + stylesheet on qApp
Theme currentTheme();                 // the last one applied (Light before any)
// The application icon (a storm cloud over a plot line), drawn so no SVG plugin is needed;
// installer/stormwatch.svg is the same picture.
QIcon appIcon();

} // namespace stormwatch
