// The process's allocator set-up (glibc): large blocks keep coming from the system after a
// large free, and the pages of freed small blocks go back to the system when asked.
#include "scenario/process_memory.h"

#include <QFile>
#include <QtTest>
#include <malloc.h>
#include <memory>
#include <vector>

using namespace stormwatch;

namespace {

double residentMb()
{
    QFile f(QStringLiteral("/proc/self/status"));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray& line : f.readAll().split('\n'))
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').first().toDouble() / 1024.0;
    return -1;
}

} // namespace

class TestProcessMemory : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { setUpProcessMemory(); }

    // glibc raises its mmap threshold after the first large free, and serves the next large
    // blocks from its heaps, which keep their pages: set up, it does not.
    void largeBlocksStayMappedAfterALargeFree()
    {
        constexpr std::size_t kBlock = 4 * 1024 * 1024;
        void* first = std::malloc(kBlock);
        QVERIFY(first);
        std::memset(first, 1, kBlock);
        std::free(first);
        const std::size_t mappedBefore = mallinfo2().hblkhd;
        void* second = std::malloc(kBlock);
        QVERIFY(second);
        std::memset(second, 1, kBlock);
        QVERIFY2(
            mallinfo2().hblkhd >= mappedBefore + kBlock,
            qPrintable(
                QStringLiteral("mapped %1 -> %2 bytes").arg(mappedBefore).arg(mallinfo2().hblkhd)));
        std::free(second);
    }

    // 64 MB of small blocks freed (all but the last, which holds the heap's top): their pages
    // stay resident until returnFreedMemory gives them back.
    void freedSmallBlocksGoBackWhenAsked()
    {
        std::vector<std::unique_ptr<char[]>> blocks;
        constexpr std::size_t kSmall = 1024;
        for (int i = 0; i < 64 * 1024; ++i) {
            blocks.emplace_back(new char[kSmall]);
            std::memset(blocks.back().get(), 1, kSmall);
        }
        const double full = residentMb();
        std::unique_ptr<char[]> top = std::move(blocks.back());
        blocks.clear();
        const double freed = residentMb();
        returnFreedMemory();
        const double returned = residentMb();
        QVERIFY2(freed > full - 16, qPrintable(QStringLiteral("%1 -> %2 MB").arg(full).arg(freed)));
        QVERIFY2(returned < freed - 40, qPrintable(QStringLiteral("%1 MB resident after the free, "
                                                                  "%2 MB after returnFreedMemory")
                                                       .arg(freed)
                                                       .arg(returned)));
    }
};

QTEST_MAIN(TestProcessMemory)
#include "tst_process_memory.moc"
