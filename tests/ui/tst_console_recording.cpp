// The console's recordings, driven through the window's intents (File › Record runs, File ›
// Open recording): a played run recorded to a file and shown again read-only with the same
// series, tags, log and markers; Back to live leaves it; a file that is not a recording and
// a path that cannot be written are refused with their reason, the shown run untouched. A
// recording of the live run on a site's two gateways reopens with its Gateway chooser.

#include "gateway/mock_gateway_server.h"
#include "models/series_store.h"
#include "recording/recording.h"
#include "scenario/run_host.h"
#include "scenario/scenario_parser.h"
#include "scenario/site.h"
#include "scenario/site_live.h"
#include "support_fake_view.h"
#include "support_two_gateway_site.h"
#include "ui/console_controller.h"
#include "ui/main_window.h"
#include "ui/main_window_view.h"
#include "ui/plot_panel.h"

#include <QComboBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace stormwatch;
using stormwatch::test::FakeView;

namespace {

constexpr int kTimeoutMs = 60000;

struct Shown {
    QList<SubscriptionKey> subscriptions;
    QVector<QVector<QPointF>> series; // every subscription metric, then the gateway's
    int goodTags = 0;
    int tags = 0;
};

Shown shown(FakeView& view)
{
    Shown s;
    SeriesStore* store = view.store();
    s.subscriptions = store->subscriptions();
    for (const SubscriptionKey& key : s.subscriptions)
        for (int m = 0; m < kSubMetricCount; ++m)
            s.series << store->series(key, SubMetric(m));
    for (int m = 0; m < kGatewayMetricCount; ++m)
        s.series << store->gatewaySeries(GatewayMetric(m));
    s.goodTags = view.goodTags();
    s.tags = int(view.tags.size());
    return s;
}

// The value of every series at its last point, and where it is: what the plots end on.
QVector<QPointF> lastPoints(const Shown& s)
{
    QVector<QPointF> last;
    for (const auto& series : s.series)
        last << (series.isEmpty() ? QPointF(-1, -1) : series.back());
    return last;
}

} // namespace

class TestConsoleRecording : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QLoggingCategory::setFilterRules(QStringLiteral("stormwatch.*.warning=false"));
    }

    void aRecordedPlaybackReopensAsItWasShown()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("session.sqlite"));
        FakeView view;
        view.store()->setRetentionSeconds(7200); // the window's "keep" setting (2 h: the run fits)
        ConsoleController c(&view);
        QString error;
        QVERIFY2(c.startEmbedded(&error), qPrintable(error));

        emit view.intents()->recordRequested(file);
        QCOMPARE(view.recordingFile, file);
        QVERIFY(view.errors.isEmpty());
        QSignalSpy finished(&c, &ConsoleController::playbackFinished);
        emit view.intents()->playRequested(QStringLiteral("incident-2026-08-26"),
                                           QStringLiteral("levers-off"), 0);
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, kTimeoutMs);
        const Shown played = shown(view);
        const int markersPlayed = int(view.markers.size());
        QVERIFY(!played.subscriptions.isEmpty());
        QVERIFY(played.tags > 0);
        QVERIFY(markersPlayed >= 4); // the wedge and the redeploys

        emit view.intents()->recordRequested(QString()); // File › Record runs unchecked
        QVERIFY(view.recordingFile.isEmpty());

        emit view.intents()->openRecordingRequested(file);
        QVERIFY2(view.errors.isEmpty(), qPrintable(view.errors.join('\n')));
        const Shown reopened = shown(view);
        QCOMPARE(reopened.subscriptions, played.subscriptions);
        QCOMPARE(reopened.tags, played.tags);
        QCOMPARE(reopened.goodTags, played.goodTags);
        // The plots end where the played run ended, on the same values.
        QCOMPARE(lastPoints(reopened), lastPoints(played));
        QCOMPARE(int(view.markers.size()), markersPlayed);
        QVERIFY(view.run.playback && !view.run.running);
        QVERIFY2(view.run.label.contains(QStringLiteral("recording")), qPrintable(view.run.label));
        QVERIFY(view.logContains(QStringLiteral("session.sqlite")));
        QVERIFY(!c.host()->running());                   // read-only: nothing runs
        QCOMPARE(view.store()->retentionSeconds(), 0.0); // shown whole
        QVERIFY(!view.faultsAvailable);

        emit view.intents()->stopRequested(); // Back to live
        QTRY_VERIFY_WITH_TIMEOUT(c.host()->running() && c.host()->live(), kTimeoutMs);
        QVERIFY(!view.run.playback);
        QVERIFY(!view.run.label.contains(QStringLiteral("recording")));
        QCOMPARE(view.store()->retentionSeconds(), 7200.0); // the window's setting is back
    }

    void aFileThatIsNotARecordingIsRefusedAndTheShownRunStays()
    {
        QTemporaryDir dir;
        const QString bad = dir.filePath(QStringLiteral("notes.sqlite"));
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("these are my notes, not a database\n");
        f.close();
        FakeView view;
        ConsoleController c(&view);
        QString error;
        QVERIFY2(c.startEmbedded(&error), qPrintable(error));
        const RunState before = view.run;

        emit view.intents()->openRecordingRequested(bad);
        QCOMPARE(view.errors.size(), 1);
        QVERIFY2(view.errors.first().contains(QStringLiteral("notes.sqlite")),
                 qPrintable(view.errors.first()));
        QCOMPARE(view.run, before);
        QVERIFY(c.host()->running() && c.host()->live());
    }

    // ... and a recording in progress goes on when the new path cannot be written.
    void aPathThatCannotBeWrittenIsRefusedWithItsReason()
    {
        QTemporaryDir dir;
        FakeView view;
        ConsoleController c(&view);
        emit view.intents()->recordRequested(
            dir.filePath(QStringLiteral("no-such-folder/run.sqlite")));
        QCOMPARE(view.errors.size(), 1);
        QVERIFY2(view.errors.first().contains(QStringLiteral("no-such-folder")),
                 qPrintable(view.errors.first()));
        QVERIFY(view.recordingFile.isEmpty());
        QVERIFY(c.recordingPath().isEmpty());

        const QString good = dir.filePath(QStringLiteral("good.sqlite"));
        emit view.intents()->recordRequested(good);
        QCOMPARE(c.recordingPath(), good);
        emit view.intents()->recordRequested(
            dir.filePath(QStringLiteral("no-such-folder/other.sqlite")));
        QCOMPARE(view.errors.size(), 2);
        QCOMPARE(c.recordingPath(), good); // still recording where it was
        QCOMPARE(view.recordingFile, good);
    }

    // `stormwatch --site two-gateways.json`, File › Record runs toggled on mid-run, then File ›
    // Open recording: the recorded source is the open-ended live run (30 days, beyond a
    // scenario file's limit) started mid-run, and the reopened plots still offer each gateway.
    void aRecordedLiveSiteRunReopensWithItsGatewayChooser()
    {
        gateway::MockGatewayServer gatewayA, gatewayB;
        QVERIFY2(gatewayA.start("127.0.0.1:0"), gatewayA.lastError().c_str());
        QVERIFY2(gatewayB.start("127.0.0.1:0"), gatewayB.lastError().c_str());
        QString error;
        const auto site = testsupport::twoGatewaySite(
            QString::fromStdString(gatewayA.address()), QString::fromStdString(gatewayB.address()),
            QJsonArray{
                QJsonObject{
                    {"name", "Pumps"}, {"gateway", "A"}, {"tags", QJsonArray{"P1.PV", "P2.PV"}}},
                QJsonObject{{"name", "Tanks"}, {"gateway", "B"}, {"tags", QJsonArray{"T1.PV"}}}},
            &error);
        QVERIFY2(site, qPrintable(error));

        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("site.sqlite"));
        MainWindow w;
        w.setSettingsFile(dir.filePath("s.ini"));
        w.restoreSettings();
        MainWindowView view(w);
        ConsoleController c(&view);
        c.setSite(site->shape, site->ports);
        QVERIFY2(c.startEmbedded(&error), qPrintable(error));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        PlotPanel* plots = w.plots();
        QCOMPARE(plots->gateways(), (QStringList{"A", "B"}));
        QVERIFY(c.host()->openEnded());

        // Recorded from a second into the run, for a couple of seconds.
        SeriesStore* store = w.store();
        QTRY_VERIFY_WITH_TIMEOUT(store->latestTime() > 1, kTimeoutMs);
        emit view.intents()->recordRequested(file);
        QCOMPARE(c.recordingPath(), file);
        const double from = store->latestTime();
        QTRY_VERIFY_WITH_TIMEOUT(store->latestTime() > from + 2, kTimeoutMs);
        emit view.intents()->recordRequested(QString());
        {
            // What a scenario file may not hold: the case at hand.
            const auto recording = Recording::open(file, &error);
            QVERIFY2(recording, qPrintable(error));
            QCOMPARE(recording->runs().size(), 1);
            const QJsonObject source = recording->runs().last().source;
            QVERIFY(source.value("duration_s").toDouble() > scenario_limits::kMaxRunS);
            QVERIFY(source.contains("started_mid_run_at_s"));
        }

        emit view.intents()->openRecordingRequested(file);
        QVERIFY(!c.host()->running());
        QVERIFY2(store->gatewayNames() == (QStringList{"A", "B"}),
                 qPrintable(store->gatewayNames().join(',')));
        QCOMPARE(plots->gateways(), (QStringList{"A", "B"}));
        QTRY_VERIFY(plots->gatewayChooser()->isVisible());
        QCOMPARE(plots->gatewayChooser()->count(), 3); // All gateways, A, B
    }
};

QTEST_MAIN(TestConsoleRecording)
#include "tst_console_recording.moc"
