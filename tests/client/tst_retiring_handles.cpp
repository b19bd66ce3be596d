// The item handles a connection is removing: when each stops retiring (its remove answered,
// a later command answered after a timed-out remove, handed out again, evicted past the
// bound), the values kept for a handle that may be reused, and the kept-bytes budget.

#include "client/retiring_handles.h"

#include <QtTest>
#include <algorithm>
#include <map>

using namespace stormwatch;
using Entry = RetiringHandles::Entry;

namespace {

struct Released {
    double value = 0;
    std::string text;
    bool hasText = false;
};

// A RetiringHandles with its budget and what it released, by handle.
struct Harness {
    std::size_t keptBytes = 0;
    std::map<std::int32_t, Released> released;
    RetiringHandles retiring;
    explicit Harness(std::size_t maxEntries = 100, std::size_t maxKeptBytes = 1 << 20)
        : retiring(keptBytes, maxKeptBytes, maxEntries,
                   [this](std::int32_t handle, const Entry& v, std::string text, bool hasText) {
                       released[handle] = Released{v.value, std::move(text), hasText};
                   })
    {
    }
};

MxEventBatch numberEvent(std::int32_t handle, double value)
{
    MxEventBatch event;
    event.kind = MxEventBatch::Kind::DataChanges;
    MxChange c;
    c.itemHandle = handle;
    c.quality = 192;
    c.kind = MxValueKind::Double;
    c.number = value;
    c.sourceTimestampUs = 1000;
    event.changes.push_back(c);
    return event;
}

MxEventBatch textEvent(std::int32_t handle, const std::string& text)
{
    MxEventBatch event = numberEvent(handle, 0);
    event.changes.front().kind = MxValueKind::String;
    event.changes.front().text = 0;
    event.texts.push_back(text);
    return event;
}

void keep(RetiringHandles& r, const MxEventBatch& event, std::uint64_t newestOp)
{
    r.keep(event.changes.front(), event, *r.find(event.changes.front().itemHandle), newestOp);
}

} // namespace

class TestRetiringHandles : public QObject {
    Q_OBJECT

private slots:
    void anAnsweredRemoveEndsRetiringAndIsListedAsLeft()
    {
        Harness h;
        QVERIFY(!h.retiring.retire(7, 10));
        QVERIFY(h.retiring.contains(7));
        QCOMPARE(h.retiring.size(), std::size_t(1));
        h.retiring.removeAnswered(7);
        QVERIFY(!h.retiring.contains(7));
        QCOMPARE(h.retiring.left(), std::vector<std::int32_t>{7});
    }

    void retiringAgainReplacesTheEntry()
    {
        Harness h;
        h.retiring.retire(7, 10);
        QVERIFY(h.retiring.retire(7, 20)); // replaced: a pointer to the old entry is gone
        QCOMPARE(h.retiring.find(7)->removeSeq, std::uint64_t(20));
        QCOMPARE(h.retiring.size(), std::size_t(1));
    }

    // The STA is one FIFO: a command answered after a timed-out remove was sent means the
    // remove has run.
    void aTimedOutRemoveStaysUntilALaterCommandIsAnswered()
    {
        Harness h;
        h.retiring.retire(7, 10);
        h.retiring.retire(8, 12);
        h.retiring.removeTimedOut(7);
        h.retiring.removeTimedOut(8);
        QCOMPARE(h.retiring.timedOut(), std::size_t(2));
        h.retiring.answered(10); // sent before 10 ran; 10 itself is the remove
        QVERIFY(h.retiring.contains(7));
        h.retiring.answered(11);
        QVERIFY(!h.retiring.contains(7));
        QVERIFY(h.retiring.contains(8));
        QCOMPARE(h.retiring.timedOut(), std::size_t(1));
        h.retiring.answered(13);
        QVERIFY(h.retiring.empty());
        QCOMPARE(h.retiring.timedOut(), std::size_t(0));
    }

    void aRemoveThatTimesOutAfterALaterAnswerHasRun()
    {
        Harness h;
        h.retiring.retire(7, 10);
        h.retiring.answered(11);
        h.retiring.removeTimedOut(7);
        QVERIFY(!h.retiring.contains(7));
    }

    // Past the bound the oldest timed-out remove goes first; with none timed out, a new
    // handle is not retired at all.
    void theBoundEvictsTheOldestTimedOutRemoveFirst()
    {
        Harness h(2);
        h.retiring.retire(1, 1);
        h.retiring.retire(2, 2);
        h.retiring.retire(3, 3);
        QVERIFY(!h.retiring.contains(3)); // only removes in flight: no room
        h.retiring.removeTimedOut(2);
        h.retiring.removeTimedOut(1);
        h.retiring.retire(3, 3);
        QVERIFY(h.retiring.contains(3));
        QVERIFY(!h.retiring.contains(2)); // timed out first
        QVERIFY(h.retiring.contains(1));
        QCOMPARE(h.retiring.left(), std::vector<std::int32_t>{2});
    }

    // A value is kept only for a subscribe sent after the remove: one sent before gets the
    // old item's handle back, never a reuse.
    void aValueIsKeptOnlyForASubscribeSentAfterTheRemove()
    {
        Harness h;
        h.retiring.retire(7, 10);
        keep(h.retiring, numberEvent(7, 1.5), 9);
        QVERIFY(!h.retiring.find(7)->hasValue);
        keep(h.retiring, numberEvent(7, 2.5), 11);
        keep(h.retiring, numberEvent(7, 3.5), 11); // the latest is the one to deliver
        QVERIFY(h.retiring.find(7)->hasValue);
        QCOMPARE(h.retiring.values(), std::size_t(1));
        h.retiring.handedOut(7);
        QVERIFY(!h.retiring.contains(7));
        QCOMPARE(h.released.at(7).value, 3.5);
        QVERIFY(h.retiring.left().empty()); // handed out, not "left": the caller re-routes it
        QCOMPARE(h.retiring.values(), std::size_t(0));
    }

    void aKeptTextCountsInTheSharedBudgetUntilReleased()
    {
        Harness h(100, 10);
        h.retiring.retire(7, 10);
        keep(h.retiring, textEvent(7, "OPEN"), 11);
        QCOMPARE(h.keptBytes, std::size_t(4));
        keep(h.retiring, textEvent(7, "TOO LONG A TEXT"), 11); // over the budget: not kept
        QCOMPARE(h.keptBytes, std::size_t(4));
        keep(h.retiring, numberEvent(7, 2), 11); // a number now: the text goes
        QCOMPARE(h.keptBytes, std::size_t(0));
        keep(h.retiring, textEvent(7, "SHUT"), 11);
        h.retiring.removeAnswered(7);
        QCOMPARE(h.keptBytes, std::size_t(0));
        QVERIFY(h.released.at(7).hasText);
        QCOMPARE(h.released.at(7).text, std::string("SHUT"));
    }

    void droppingValuesKeepsTheEntries()
    {
        Harness h;
        h.retiring.retire(7, 10);
        h.retiring.retire(8, 10);
        keep(h.retiring, numberEvent(7, 1), 11);
        keep(h.retiring, textEvent(8, "OPEN"), 11);
        QCOMPARE(h.retiring.values(), std::size_t(2));
        h.retiring.dropValues();
        QCOMPARE(h.retiring.values(), std::size_t(0));
        QVERIFY(h.retiring.contains(7) && h.retiring.contains(8));
        h.retiring.removeAnswered(7);
        QVERIFY(h.released.empty()); // nothing was left to release
    }

    void clearForgetsEverythingOfTheSession()
    {
        Harness h;
        h.retiring.retire(7, 10);
        h.retiring.removeTimedOut(7);
        h.retiring.answered(5);
        h.retiring.clear();
        QVERIFY(h.retiring.empty());
        QCOMPARE(h.retiring.timedOut(), std::size_t(0));
        h.retiring.retire(7, 3); // a new session's numbering: no stale answer counts
        h.retiring.removeTimedOut(7);
        QVERIFY(h.retiring.contains(7));
    }
};

QTEST_GUILESS_MAIN(TestRetiringHandles)
#include "tst_retiring_handles.moc"
