// The window's recording actions: File › Record runs… (a checkable toggle that asks for a
// file) and File › Open recording…; the controller does the work (ConsoleIntents).
#include "main_window.h"

#include <QAction>
#include <QDateTime>
#include <QFileDialog>
#include <QSignalBlocker>

namespace stormwatch {

namespace {
const QString kFilter = QStringLiteral("stormwatch recordings (*.sqlite);;All files (*)");
}

void MainWindow::createRecordingActions()
{
    auto* open = new QAction(tr("Open &recording…"), this);
    open->setObjectName(QStringLiteral("actionOpenRecording"));
    open->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    open->setToolTip(
        tr("Show a recorded run read-only: its plots, tag table and log (Back to live leaves it)"));
    addAction(open);
    connect(open, &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open recording"), {}, kFilter);
        if (!path.isEmpty())
            emit openRecordingRequested(path);
    });

    m_recordAction = new QAction(tr("&Record runs…"), this);
    m_recordAction->setObjectName(QStringLiteral("actionRecord"));
    m_recordAction->setCheckable(true);
    m_recordAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    m_recordAction->setToolTip(tr("Record the shown run and every run after it to one file"));
    addAction(m_recordAction);
    connect(m_recordAction, &QAction::triggered, this, [this](bool on) {
        if (!on) {
            emit recordRequested(QString());
            return;
        }
        const QString suggested =
            QStringLiteral("stormwatch-%1.sqlite")
                .arg(QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")));
        const QString path =
            QFileDialog::getSaveFileName(this, tr("Record runs to"), suggested, kFilter);
        if (path.isEmpty()) {
            const QSignalBlocker blocker(m_recordAction);
            m_recordAction->setChecked(false); // nothing chosen: nothing is recorded
            return;
        }
        emit recordRequested(path);
    });
}

void MainWindow::setRecordingFile(const QString& path)
{
    if (!m_recordAction)
        return;
    const QSignalBlocker blocker(m_recordAction);
    m_recordAction->setChecked(!path.isEmpty());
    m_recordAction->setToolTip(path.isEmpty()
                                   ? tr("Record the shown run and every run after it to one file")
                                   : tr("Recording to %1 (click to stop)").arg(path));
}

} // namespace stormwatch
