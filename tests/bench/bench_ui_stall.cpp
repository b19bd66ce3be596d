// The UI thread's longest stall while the console shows 488 tags updating at 10 Hz: the
// real MainWindow, ConsoleController, run host thread and embedded mock gateway, as
// `stormwatch` starts them, offscreen. A 2 ms probe timer on the UI thread measures how
// late it fires; the largest lateness is the longest the window could not react.
// Target: < 50 ms. The slowest event deliveries on the UI thread are listed with what
// received them (class, object name, event type), to tell where a stall comes from. With
// --compare SCENARIO, a playback at max speed runs at the same time:
// the console's compare view plays SCENARIO's variants in virtual time on its own thread and
// fills its tables and plots, started again each time it finishes, in
// the same window as Compare again does; --new-window closes that window and opens a new one
// each time instead (what Compare did before, for comparison).
//   bench_ui_stall [--seconds N] [--levers PRESET] [--compare SCENARIO [--new-window]]
#include "client/lever_set.h"
#include "models/tag_table_model.h"
#include "ui/compare_view.h"
#include "ui/console_controller.h"
#include "ui/main_window.h"
#include "ui/main_window_view.h"
#include "ui/plot_panel.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QMetaEnum>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QThread>
#include <QTimer>
#include <QWidget>
#include <algorithm>
#include <cstdio>
#include <vector>

using namespace stormwatch;

namespace {

constexpr int kProbeMs = 2;

// Probe timeouts so far: a delivery during which the probe fired ran a nested event loop
// and did not hold the UI thread.
qint64 g_probesFired = 0;

// Times every event the UI thread delivers (the outermost delivery only: a nested one is
// part of its caller's time) and keeps the slowest few, named by receiver and event type.
class TimingApplication : public QApplication {
public:
    using QApplication::QApplication;
    struct Slow {
        double ms = 0;
        QString what;
    };
    bool notify(QObject* receiver, QEvent* event) override
    {
        // notify() also runs for the workers' objects on their threads: only the UI
        // thread's deliveries are timed, and only it touches the members below.
        if (QThread::currentThread() != thread())
            return QApplication::notify(receiver, event);
        if (m_depth > 0 || !m_timing) {
            // What a slow delivery spent its time on: the deliveries directly inside it (a
            // window's UpdateRequest paints each dirty widget as a nested Paint event).
            if (m_depth != 1 || !m_timing) {
                ++m_depth;
                const bool r = QApplication::notify(receiver, event);
                --m_depth;
                return r;
            }
            QElapsedTimer t;
            t.start();
            const Who who(receiver, event->type());
            ++m_depth;
            const bool r = QApplication::notify(receiver, event);
            --m_depth;
            const double ms = double(t.nsecsElapsed()) / 1e6;
            if (ms >= 1)
                m_nested.push_back(Slow{ms, who.text()});
            return r;
        }
        QElapsedTimer t;
        t.start();
        const Who who(receiver, event->type());
        const qint64 probesBefore = g_probesFired;
        m_nested.clear();
        ++m_depth;
        const bool r = QApplication::notify(receiver, event);
        --m_depth;
        const double ms = double(t.nsecsElapsed()) / 1e6;
        if (ms >= 5 && g_probesFired == probesBefore &&
            (m_slow.size() < kKept || ms > m_slow.back().ms)) {
            QString what = who.text();
            std::sort(m_nested.begin(), m_nested.end(),
                      [](const Slow& a, const Slow& b) { return a.ms > b.ms; });
            for (std::size_t i = 0; i < m_nested.size() && i < 3; ++i)
                what += QStringLiteral("\n                 %1 ms in %2")
                            .arg(m_nested[i].ms, 5, 'f', 2)
                            .arg(m_nested[i].what);
            m_slow.push_back(Slow{ms, what});
            std::sort(m_slow.begin(), m_slow.end(),
                      [](const Slow& a, const Slow& b) { return a.ms > b.ms; });
            if (m_slow.size() > kKept)
                m_slow.pop_back();
        }
        return r;
    }
    // What received an event, taken before the delivery (the receiver may be gone after it)
    // and cheap to take: formatted only for the slow ones.
    struct Who {
        const char* cls;
        QString name;
        const char* parentCls = nullptr; // a scroll area's viewport says little: its view
        QString parentName;
        QEvent::Type type;
        Who(QObject* receiver, QEvent::Type t)
            : cls(receiver->metaObject()->className()), name(receiver->objectName()), type(t)
        {
            // A nameless or inner widget (a table's scroll bar sits in an unnamed container)
            // is named by the first ancestor that is not one.
            if (!name.isEmpty() && !name.startsWith(QLatin1String("qt_scrollarea_")))
                return;
            for (QObject* up = receiver->parent(); up && !parentCls; up = up->parent()) {
                const QString upName = up->objectName();
                if (upName.startsWith(QLatin1String("qt_scrollarea_")) ||
                    (upName.isEmpty() && up->metaObject() == &QWidget::staticMetaObject))
                    continue;
                parentCls = up->metaObject()->className();
                parentName = upName;
            }
        }
        QString text() const
        {
            const char* typeName = QMetaEnum::fromType<QEvent::Type>().valueToKey(type);
            QString who = QStringLiteral("%1 %2").arg(QString::fromLatin1(cls), name);
            if (parentCls)
                who += QStringLiteral(" of %1 %2").arg(QString::fromLatin1(parentCls), parentName);
            return QStringLiteral("%1 (%2)").arg(who, typeName ? QString::fromLatin1(typeName)
                                                               : QString::number(type));
        }
    };
    void setTiming(bool on) { m_timing = on; }
    const std::vector<Slow>& slowest() const { return m_slow; }

private:
    static constexpr std::size_t kKept = 8;
    int m_depth = 0;
    bool m_timing = false;
    std::vector<Slow> m_slow;
    std::vector<Slow> m_nested; // inside the outermost delivery in progress
};

// 2 instances × 244 tags, every tag changing 10 times a second, no faults.
const char* kScenario = R"({
  "name": "ui-stall-488-tags-10hz",
  "description": "488 tags at 10 Hz for the UI stall benchmark.",
  "duration_s": 600,
  "seed": 1,
  "gateway": {"command_ms": 1, "per_item_ms": 0.01, "data_hz": 10},
  "connections": [{"name": "gw1", "write_user_id": 0}],
  "instances": [
    {"name": "Z28061", "connection": "gw1", "tags": 244},
    {"name": "Z28062", "connection": "gw1", "tags": 244}
  ],
  "timeline": [],
  "variants": ["all"]
})";

// Runs the event loop until `done` or `timeoutMs`.
template <typename F> bool waitFor(F&& done, int timeoutMs)
{
    QElapsedTimer t;
    t.start();
    while (!done() && t.elapsed() < timeoutMs)
        QApplication::processEvents(QEventLoop::AllEvents, 20);
    return done();
}

double percentile(std::vector<double> v, double p)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, std::size_t(p * double(v.size())))];
}

} // namespace

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    TimingApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true); // never the user's settings
    double seconds = 20;
    QString levers = QStringLiteral("all");
    QString compareScenario;
    const QStringList args = app.arguments();
    const bool newWindow = args.contains(QLatin1String("--new-window"));
    for (int i = 1; i + 1 < args.size(); ++i) {
        if (args[i] == QLatin1String("--seconds"))
            seconds = args[i + 1].toDouble();
        else if (args[i] == QLatin1String("--levers"))
            levers = args[i + 1];
        else if (args[i] == QLatin1String("--compare"))
            compareScenario = args[i + 1];
    }
    if (seconds <= 0 || !leverPreset(levers, nullptr)) {
        std::fprintf(stderr, "usage: bench_ui_stall [--seconds N>0] [--levers PRESET] [--compare "
                             "SCENARIO [--new-window]]\n");
        return 2;
    }

    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("ui-stall.json"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(kScenario) < 0)
        return 1;
    file.close();

    MainWindow window;
    window.setSettingsFile(dir.filePath(QStringLiteral("settings.ini")));
    MainWindowView view(window);
    ConsoleController controller(&view);
    QString error;
    if (!controller.setDemoScenario(path, &error)) {
        std::fprintf(stderr, "scenario: %s\n", qPrintable(error));
        return 1;
    }
    controller.setInitialLevers(*leverPreset(levers, nullptr));
    controller.loadDemoScenario();
    if (!controller.startEmbedded(&error)) {
        std::fprintf(stderr, "%s\n", qPrintable(error));
        return 1;
    }
    window.resize(1600, 1000);
    window.show();

    TagTableModel* tags = window.tagModel();
    QElapsedTimer startup;
    startup.start();
    if (!waitFor([&] { return tags->count(QualityClass::Good) == 488; }, 20000)) {
        std::fprintf(stderr, "the 488 tags did not all go Good within 20 s (%d Good)\n",
                     tags->count(QualityClass::Good));
        return 1;
    }
    const double goodAfterMs = double(startup.elapsed());

    // Count the tag updates that reach the table, to show the load is real.
    qint64 cellsChanged = 0;
    QObject::connect(
        tags, &QAbstractItemModel::dataChanged,
        [&](const QModelIndex& a, const QModelIndex& b) { cellsChanged += b.row() - a.row() + 1; });

    std::vector<double> lateMs;
    QElapsedTimer clock;
    clock.start();
    qint64 last = clock.nsecsElapsed();
    QTimer probe;
    probe.setObjectName(QStringLiteral("bench: probe"));
    probe.setTimerType(Qt::PreciseTimer);
    probe.setInterval(kProbeMs);
    QObject::connect(&probe, &QTimer::timeout, [&] {
        const qint64 now = clock.nsecsElapsed();
        lateMs.push_back(std::max(0.0, double(now - last) / 1e6 - kProbeMs));
        last = now;
        ++g_probesFired;
    });
    const int replotsBefore = window.plots()->replotCount();
    // The playback beside the live run: started again as soon as it is over.
    int comparesDone = 0;
    double longestCompareOpenMs = 0; // opening a compare view (its window) on the UI thread
    QTimer compareWatch;
    auto openCompare = [&] {
        QElapsedTimer t;
        t.start();
        if (newWindow)
            delete controller.compareView();
        controller.compare(compareScenario);
        longestCompareOpenMs = std::max(longestCompareOpenMs, double(t.nsecsElapsed()) / 1e6);
    };
    if (!compareScenario.isEmpty()) {
        openCompare();
        if (!controller.compareView()) {
            std::fprintf(stderr, "--compare %s: no compare view\n", qPrintable(compareScenario));
            return 1;
        }
        compareWatch.setInterval(100);
        compareWatch.setObjectName(QStringLiteral("bench: compare again"));
        QObject::connect(&compareWatch, &QTimer::timeout, [&] {
            CompareView* view = controller.compareView();
            if (view && view->done()) {
                ++comparesDone;
                openCompare();
            }
        });
        compareWatch.start();
    }
    probe.start();
    app.setTiming(true);
    QEventLoop loop;
    QTimer::singleShot(int(seconds * 1000), Qt::PreciseTimer, &loop, &QEventLoop::quit);
    loop.exec();
    probe.stop();
    app.setTiming(false);
    compareWatch.stop();
    const double wallS = double(clock.elapsed()) / 1000.0;
    const int replots = window.plots()->replotCount() - replotsBefore;

    std::printf(
        "bench_ui_stall: 488 tags at 10 Hz, levers %s, %.1f s measured (all Good after %.0f ms)\n",
        qPrintable(levers), wallS, goodAfterMs);
    std::printf("  table rows updated   %.0f /s (offered 4,880 /s)\n",
                double(cellsChanged) / wallS);
    std::printf("  replots              %.1f /s\n", double(replots) / wallS);
    if (!compareScenario.isEmpty())
        std::printf("  playback beside it   %s at max speed (compare view), %d finished, "
                    "%s took up to %.1f ms\n",
                    qPrintable(compareScenario), comparesDone,
                    newWindow ? "a new window each time, opening one"
                              : "one window, starting a run",
                    longestCompareOpenMs);
    std::printf("  probe lateness (ms)  p50 %.2f  p99 %.2f  max %.2f  (%zu probes of %d ms)\n",
                percentile(lateMs, 0.5), percentile(lateMs, 0.99),
                lateMs.empty() ? 0.0 : *std::max_element(lateMs.begin(), lateMs.end()),
                lateMs.size(), kProbeMs);
    std::printf("  longest UI stall     %.2f ms (target < 50 ms)\n",
                lateMs.empty() ? 0.0 : *std::max_element(lateMs.begin(), lateMs.end()));
    std::printf("  slowest event deliveries on the UI thread (receiver, event):\n");
    for (const TimingApplication::Slow& s : app.slowest())
        std::printf("    %7.2f ms  %s\n", s.ms, qPrintable(s.what));
    return 0;
}
