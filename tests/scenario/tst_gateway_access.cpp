// polledStatsAccess: a live site reads each gateway's STA queue once a second, and a
// gateway that stops answering without refusing (a paused host, SIGSTOP) must not hold
// the run's thread — the engine, its timers and the other gateways' streams — for the
// read's deadline (review finding on c89170f). The inner access here blocks its reads
// until the test lets them go: a stats() that waited for it would hang the test.

#include "scenario/gateway_access.h"

#include <QElapsedTimer>
#include <QScopeGuard>
#include <QtTest>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

using namespace stormwatch;
namespace mock = mxgateway::mock::v1;

namespace {

class HangingAccess final : public GatewayAccess {
public:
    bool inject(const mock::FaultRequest&, QString* outcome) override
    {
        ++injected;
        if (outcome)
            *outcome = QStringLiteral("injected");
        return true;
    }
    bool setAdvertiseBulkSupervisory(bool, QString*) override { return true; }
    std::optional<mock::GatewayStats> stats() override
    {
        ++reads;
        std::unique_lock lock(mutex);
        released.wait(lock, [this] { return answer; });
        if (!answerWith)
            return std::nullopt;
        mock::GatewayStats s;
        s.set_sta_queue_depth(*answerWith);
        return s;
    }
    void answer_(std::optional<int> depth)
    {
        {
            const std::lock_guard lock(mutex);
            answer = true;
            answerWith = depth;
        }
        released.notify_all();
    }

    std::atomic<int> reads{0};
    std::atomic<int> injected{0};
    std::mutex mutex;
    std::condition_variable released;
    bool answer = false;
    std::optional<int> answerWith;
};

} // namespace

class TestGatewayAccess : public QObject {
    Q_OBJECT

private slots:
    void statsAnswerAtOnceWhileTheGatewayHangs()
    {
        auto owned = std::make_unique<HangingAccess>();
        HangingAccess* inner = owned.get();
        auto access = polledStatsAccess(std::move(owned), std::chrono::milliseconds(10));
        // Runs before `access` goes, even when a check fails: its thread must be let out.
        const auto letGo = qScopeGuard([inner] { inner->answer_(std::nullopt); });
        QTRY_VERIFY(inner->reads.load() >= 1); // the poller is inside a read that hangs
        QVERIFY(!access->stats());             // answered, nothing read yet
        QString outcome;
        QVERIFY(access->inject(mock::FaultRequest{}, &outcome)); // faults pass straight on
        QCOMPARE(inner->injected.load(), 1);
        QCOMPARE(outcome, QStringLiteral("injected"));

        QVERIFY(!access->statsCurrent());
        inner->answer_(7);
        QTRY_VERIFY(access->stats().has_value());
        QCOMPARE(access->stats()->sta_queue_depth(), 7);
        QVERIFY(access->statsCurrent());
        QTRY_VERIFY(inner->reads.load() >= 3); // read again every period
    }

    void aGatewayThatStopsAnsweringKeepsWhatItSaidLast()
    {
        auto owned = std::make_unique<HangingAccess>();
        HangingAccess* inner = owned.get();
        inner->answer_(4);
        auto access = polledStatsAccess(std::move(owned), std::chrono::milliseconds(10));
        QTRY_VERIFY(access->stats().has_value());
        QVERIFY(access->statsCurrent());
        inner->answer_(std::nullopt); // its reads fail from now on
        const int before = inner->reads.load();
        QTRY_VERIFY(inner->reads.load() >= before + 2);
        QVERIFY(access->stats().has_value());
        QCOMPARE(access->stats()->sta_queue_depth(), 4);
        // ... said as what it said last, not as read now: a run counts that sample unread.
        QVERIFY(!access->statsCurrent());
        access.reset(); // stops its thread (the inner's reads answer at once)
    }

    // A run's first sample waits for the poller's first read instead of racing it (on a
    // busy machine the sample at 0 s came first and the queue counted unread), but never
    // for longer than it is told: a hanging gateway only delays the start.
    void aRunCanAwaitTheFirstReadBounded()
    {
        auto owned = std::make_unique<HangingAccess>();
        HangingAccess* inner = owned.get();
        auto access = polledStatsAccess(std::move(owned), std::chrono::seconds(60));
        const auto letGo = qScopeGuard([inner] { inner->answer_(std::nullopt); });
        QElapsedTimer waited;
        waited.start();
        access->awaitFirstRead(std::chrono::milliseconds(100)); // the read hangs
        QVERIFY2(waited.elapsed() >= 90, qPrintable(QString::number(waited.elapsed())));
        QVERIFY(!access->stats());

        // Answered from another thread: the wait ends with that read, and the value is there
        // at once (the next poll is a minute away).
        std::thread answer([inner] { inner->answer_(9); });
        waited.restart();
        access->awaitFirstRead(std::chrono::seconds(30));
        answer.join();
        QVERIFY2(waited.elapsed() < 10'000, qPrintable(QString::number(waited.elapsed())));
        QVERIFY(access->stats().has_value());
        QCOMPARE(access->stats()->sta_queue_depth(), 9);
        QVERIFY(access->statsCurrent());
    }
};

QTEST_GUILESS_MAIN(TestGatewayAccess)
#include "tst_gateway_access.moc"
