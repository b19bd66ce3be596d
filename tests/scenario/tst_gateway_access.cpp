// polledStatsAccess: a live site reads each gateway's STA queue once a second, and a
// gateway that stops answering without refusing (a paused host, SIGSTOP) must not hold
// the run's thread — the engine, its timers and the other gateways' streams — for the
// read's deadline (review finding on c89170f). The inner access here blocks its reads
// until the test lets them go: a stats() that waited for it would hang the test.

#include "scenario/gateway_access.h"

#include <QScopeGuard>
#include <QtTest>

#include <atomic>
#include <condition_variable>
#include <mutex>

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

        inner->answer_(7);
        QTRY_VERIFY(access->stats().has_value());
        QCOMPARE(access->stats()->sta_queue_depth(), 7);
        QTRY_VERIFY(inner->reads.load() >= 3); // read again every period
    }

    void aGatewayThatStopsAnsweringKeepsWhatItSaidLast()
    {
        auto owned = std::make_unique<HangingAccess>();
        HangingAccess* inner = owned.get();
        inner->answer_(4);
        auto access = polledStatsAccess(std::move(owned), std::chrono::milliseconds(10));
        QTRY_VERIFY(access->stats().has_value());
        inner->answer_(std::nullopt); // its reads fail from now on
        const int before = inner->reads.load();
        QTRY_VERIFY(inner->reads.load() >= before + 2);
        QVERIFY(access->stats().has_value());
        QCOMPARE(access->stats()->sta_queue_depth(), 4);
        access.reset(); // stops its thread (the inner's reads answer at once)
    }
};

QTEST_GUILESS_MAIN(TestGatewayAccess)
#include "tst_gateway_access.moc"
