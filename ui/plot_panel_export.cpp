// PlotPanel: PNG and CSV exports, and the headless rendering of a finished variant.
#include "ui/plot_panel.h"
#include "ui/plot_panel_private.h"

#include <QApplication>
#include <QFileInfo>
#include <QSaveFile>

namespace stormwatch {

bool PlotPanel::exportPng(const QString& path, QString* error, QSize size)
{
    if (!size.isValid() || size.isEmpty())
        size = m_plot->size();
    // Reduce per column of the image, then back to the widget's own on the next tick.
    m_exportWidth = size.width();
    applyFollow();
    syncData();
    rescaleValueAxes();
    const bool written = m_plot->savePng(path, size.width(), size.height());
    m_exportWidth = 0;
    onAppended();
    if (written)
        return true;
    if (error)
        *error = tr("Could not write the PNG image %1").arg(QFileInfo(path).absoluteFilePath());
    return false;
}

bool PlotPanel::exportCsv(const QString& path, QString* error)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        if (error)
            *error = tr("Could not write %1: %2").arg(path, file.errorString());
        return false;
    }
    file.write(m_store->toCsv(xLower(), xUpper(), visibleSubscriptions()));
    if (!file.commit()) {
        if (error)
            *error = tr("Could not write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

bool PlotPanel::renderVariantPng(const SeriesStore& store, const QString& path, QSize size,
                                 QString* error)
{
    if (!qobject_cast<QApplication*>(QCoreApplication::instance())) {
        if (error)
            *error = tr("Rendering plots needs a QApplication (QT_QPA_PLATFORM=offscreen when "
                        "headless)");
        return false;
    }
    PlotPanel panel(&store);
    panel.resize(size);
    panel.showAll();
    return panel.exportPng(path, error, size);
}

} // namespace stormwatch
