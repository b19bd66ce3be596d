// Handle reuse at the real boundary: a real `mxgw-mock --reuse-handles` process over gRPC.
// Tag A is subscribed and removed, and tag B is subscribed right after, while A's RemoveItem
// is still in flight: the STA runs the remove, then B's subscribe, which is handed A's
// handle. B's first value (the mock sends only first values here: --data-hz 0) travels on
// the event stream, the two replies on their own calls, with no order between them. Whatever
// order they take, B gets a value: the connection learns that the gateway reuses handles
// from B's reply and advises B's item again; later, what is kept for a handle is dropped and
// the item advised again when the handle went to another tag. The same case runs in virtual time in
// integration.connection_routing (aReusedHandlesFirstValueIsNotLostAfterATimedOutRemove).
// Also at this boundary: a subscribe answered with the item its own remove is deleting (the
// virtual case is integration.handle_reuse's
// aSubscribeAnsweredWithAnItemBeingRemovedFailsTransiently).
#include "client/gateway_connection.h"
#include "client/grpc_gateway_port.h"
#include "client/qt_scheduler.h"
#include "integration/support_mock_process.h"

#include <QtTest>
#include <memory>
#include <optional>
#include <set>

using namespace stormwatch;
using testsupport::MockProcess;

namespace {

struct Got {
    int values = 0;
    std::int32_t handle = 0;
};

GatewayConnection::SubscriberId addRecorded(GatewayConnection& c, const std::string& tag,
                                            std::shared_ptr<Got> got)
{
    return c.addSubscriber(
        {tag},
        [got](const std::vector<TagUpdate>& updates) {
            for (const TagUpdate& u : updates) {
                ++got->values;
                got->handle = u.itemHandle;
            }
        },
        [](bool) {});
}

// A started connection to a running mock over gRPC, on a wall-clock scheduler.
struct LiveConnection {
    explicit LiveConnection(const MockProcess& mock) : port(scheduler, optionsFor(mock))
    {
        c.start();
    }
    static GrpcPortOptions optionsFor(const MockProcess& mock)
    {
        GrpcPortOptions options;
        options.address = mock.address();
        return options;
    }
    QtScheduler scheduler;
    GrpcGatewayPort port;
    GatewayConnection c{scheduler, port, ConnectionConfig{}, nullptr, [] { return 0.5; }};
};

} // namespace

class TestHandleReuseLive : public QObject {
    Q_OBJECT
private slots:
    void aReusedHandlesTagGetsAValueWhateverOrderTheCallsTake_data()
    {
        QTest::addColumn<bool>("reuse");
        QTest::newRow("--reuse-handles") << true;
        QTest::newRow("fresh handles") << false;
    }
    void aReusedHandlesTagGetsAValueWhateverOrderTheCallsTake()
    {
        QFETCH(bool, reuse);
        QStringList args{"--command-ms", "5", "--per-item-ms", "0.1", "--data-hz", "0"};
        if (reuse)
            args << "--reuse-handles";
        MockProcess mock(args);
        QVERIFY(mock.start());
        LiveConnection live(mock);
        GatewayConnection& c = live.c;

        // Over gRPC the two calls may also reach the mock's STA in the other order; then B
        // gets a new handle. Five rounds make the reuse case all but certain.
        // A reply that hands out a handle removed before is a reuse (B's of A's, or a later
        // A's of a handle whose remove was overtaken); each goes to another tag than the
        // removed one, so each item is advised again.
        std::set<std::int32_t> removed;
        int reuses = 0;
        auto handedOut = [&](std::int32_t handle) { reuses += int(removed.erase(handle)); };
        for (int round = 0; round < 5; ++round) {
            auto a = std::make_shared<Got>();
            const auto subA = addRecorded(c, "A" + std::to_string(round), a);
            bool aDone = false;
            c.subscribe(subA, [&aDone](const SubscribeOutcome& o) { aDone = o.success; });
            QTRY_VERIFY_WITH_TIMEOUT(aDone && a->values >= 1, 10000);
            const std::int32_t handleA = a->handle;
            handedOut(handleA);
            removed.insert(handleA);

            c.removeItems(subA); // in flight while B's subscribe is sent
            c.removeSubscriber(subA);
            auto b = std::make_shared<Got>();
            const auto subB = addRecorded(c, "B" + std::to_string(round), b);
            bool bDone = false;
            c.subscribe(subB, [&bDone](const SubscribeOutcome& o) { bDone = o.success; });
            QTRY_VERIFY_WITH_TIMEOUT(bDone, 10000);
            QTRY_VERIFY_WITH_TIMEOUT(b->values >= 1, 10000); // the point: never without a value
            handedOut(b->handle);
            QTRY_COMPARE_WITH_TIMEOUT(c.retiringHandles(), std::size_t(0), 10000);
        }
        QCOMPARE(reuses > 0, reuse);
        QCOMPARE(c.reusesHandles(), reuse);
        // The item that taught the connection is advised again (its first value may have
        // been dropped); later ones only when a value was kept for them, which depends on
        // whether their first value beat the reply. A reuse found after the remove was
        // answered and its window closed is not seen as one (nothing was dropped for it).
        if (reuse)
            QVERIFY(c.stats().readvises >= 1 && c.stats().readvises <= reuses);
        else
            QCOMPARE(c.stats().readvises, std::int64_t(0));
        c.stop();
    }

    // A guard's subscribe in flight when its instance's items are removed (a redeploy): the
    // mock's STA runs the subscribe first, which answers with the existing item's handle, then
    // the remove deletes that item. Confirmed, the tag would be routed to a deleted item and
    // never get a value again; it must fail (not for good) so that subscribing again brings a
    // live item, whose values arrive. Over gRPC the two calls may also reach the STA in the
    // other order (then the subscribe makes a new item and succeeds): rounds make the
    // interesting order all but certain, and every round must end with values flowing.
    void aSubscribeAnsweredWithAnItemBeingRemovedFailsTransiently()
    {
        MockProcess mock(
            QStringList{"--command-ms", "150", "--per-item-ms", "0.1", "--data-hz", "5"});
        QVERIFY(mock.start());
        LiveConnection live(mock);
        GatewayConnection& c = live.c;
        int transientFailures = 0;
        for (int round = 0; round < 4; ++round) {
            auto got = std::make_shared<Got>();
            const auto sub = addRecorded(c, "X" + std::to_string(round), got);
            bool done = false;
            c.subscribe(sub, [&done](const SubscribeOutcome& o) { done = o.success; });
            QTRY_VERIFY_WITH_TIMEOUT(done && got->values >= 1, 10000);
            const std::int32_t handle = got->handle;

            std::optional<SubscribeOutcome> outcome;
            c.subscribe(sub,
                        [&outcome](const SubscribeOutcome& o) { outcome = o; }); // queued first
            c.removeItems(sub);                                                  // then this
            QTRY_VERIFY_WITH_TIMEOUT(outcome.has_value(), 10000);
            if (!outcome->success) {
                QCOMPARE(outcome->tags.size(), std::size_t(1));
                QVERIFY(!outcome->tags[0].definitive);
                QVERIFY2(outcome->tags[0].error.find("item " + std::to_string(handle) +
                                                     " is being removed") != std::string::npos,
                         outcome->tags[0].error.c_str());
                ++transientFailures;
                QTRY_COMPARE_WITH_TIMEOUT(c.retiringHandles(), std::size_t(0), 10000);
                QVERIFY(!c.routed(sub, 0));
                bool again = false;
                c.subscribe(sub, [&again](const SubscribeOutcome& o) { again = o.success; });
                QTRY_VERIFY_WITH_TIMEOUT(again, 10000);
            }
            QTRY_COMPARE_WITH_TIMEOUT(c.retiringHandles(), std::size_t(0), 10000);
            QVERIFY(c.routed(sub, 0));
            // The point: the tag's item is alive, so its values keep coming.
            const int before = got->values;
            QTRY_VERIFY_WITH_TIMEOUT(got->values >= before + 3, 10000);
            c.removeItems(sub);
            c.removeSubscriber(sub);
        }
        QVERIFY2(transientFailures > 0, "the subscribe never reached the STA before its remove");
        c.stop();
    }
};

QTEST_GUILESS_MAIN(TestHandleReuseLive)
#include "tst_handle_reuse_live.moc"
