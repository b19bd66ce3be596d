// The scenario parser under hostile input, in every build: the checked-in corpus
// (tests/scenario/corpus/: the bundled scenarios and the hostile cases found so far) and a
// few thousand deterministic mutations of it (fixed seed) go through parseScenario(), which
// must never crash, must return a Scenario or errors with a "$" path
// (parser_fuzz_checks.h), and must stay within a bounded time per input.
// The libFuzzer harness (fuzz_scenario_parser.cpp) runs the same checks open-ended where
// clang's -fsanitize=fuzzer is available.

#include "parser_fuzz_checks.h"
#include "test_paths.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QtTest>
#include <algorithm>

using namespace stormwatch;

namespace {

constexpr int kMutations = 4000;
constexpr std::uint64_t kSeed = 15; // the number; any fixed value will do
// Generous for a sanitizer build on a busy 2-core machine: a parse of any input here takes
// a few ms in the release build, and a quadratic rule would take seconds.
constexpr double kMaxMsPerInput = 2000;

struct CorpusFile {
    QString name;
    QByteArray bytes;
};

QList<CorpusFile> corpus()
{
    QList<CorpusFile> files;
    const QString dir = testpaths::sourceFile(QStringLiteral("tests/scenario/corpus"));
    for (const QFileInfo& f : QDir(dir).entryInfoList(QDir::Files, QDir::Name)) {
        QFile file(f.filePath());
        if (file.open(QIODevice::ReadOnly))
            files.append({f.fileName(), file.readAll()});
    }
    return files;
}

} // namespace

class TestParserFuzz : public QObject {
    Q_OBJECT
private slots:
    void corpusHasTheBundledScenariosAndTheHostileCases();
    void corpusReplays();
    void mutationsReplay();
    void checksCatchABrokenPromise();
};

void TestParserFuzz::corpusHasTheBundledScenariosAndTheHostileCases()
{
    const QList<CorpusFile> files = corpus();
    QStringList names;
    for (const CorpusFile& f : files)
        names << f.name;
    for (const QString& bundled : bundledScenarioNames())
        QVERIFY2(names.contains("bundled-" + bundled + ".json"),
                 qPrintable("missing bundled-" + bundled));
    for (const char* hostile :
         {"wedge-duration-1e308.json", "command-ms-1e16.json", "number-trailing-dot.json",
          "seed-2p53-plus-1.json", "alarm-interval-2p30.json", "retry-1ms.json"})
        QVERIFY2(names.contains(hostile), hostile);
}

void TestParserFuzz::corpusReplays()
{
    int valid = 0;
    for (const CorpusFile& f : corpus()) {
        QElapsedTimer t;
        t.start();
        const QString broken = fuzz::checkParse(f.bytes);
        const double ms = double(t.nsecsElapsed()) / 1e6;
        QVERIFY2(broken.isEmpty(), qPrintable(f.name + ": " + broken));
        QVERIFY2(ms < kMaxMsPerInput, qPrintable(QString("%1 took %2 ms").arg(f.name).arg(ms)));
        // the bundled ones (and only the files named valid-*) are valid scenarios
        const bool shouldParse = f.name.startsWith("bundled-") || f.name.startsWith("valid-");
        QList<ScenarioError> errors;
        const bool parsed = parseScenario(f.bytes, f.name, &errors).has_value();
        QVERIFY2(parsed == shouldParse,
                 qPrintable(f.name + (parsed ? ": parsed" : ": " + errors.value(0).toString())));
        valid += parsed ? 1 : 0;
    }
    QVERIFY(valid >= bundledScenarioNames().size());
}

void TestParserFuzz::mutationsReplay()
{
    const QList<CorpusFile> files = corpus();
    QVERIFY(!files.isEmpty());
    QList<QByteArray> inputs;
    for (const CorpusFile& f : files)
        inputs << f.bytes;
    fuzz::Random random(kSeed);
    double slowest = 0;
    int parsed = 0;
    QElapsedTimer total;
    total.start();
    for (int i = 0; i < kMutations; ++i) {
        const QByteArray& base = inputs[random.below(inputs.size())];
        const QByteArray input = fuzz::mutate(base, inputs, random);
        QElapsedTimer t;
        t.start();
        const QString broken = fuzz::checkParse(input);
        const double ms = double(t.nsecsElapsed()) / 1e6;
        slowest = std::max(slowest, ms);
        if (!broken.isEmpty() || ms >= kMaxMsPerInput) {
            // Keep the input: it belongs in the corpus once fixed.
            const QString path = QDir::temp().filePath(QString("stormwatch-fuzz-%1.json").arg(i));
            QFile out(path);
            if (out.open(QIODevice::WriteOnly))
                out.write(input);
            QFAIL(qPrintable(
                QString("mutation %1 (saved as %2): %3")
                    .arg(i)
                    .arg(path, broken.isEmpty() ? QString("took %1 ms").arg(ms) : broken)));
        }
        QList<ScenarioError> ignored;
        parsed += parseScenario(input, "m.json", &ignored).has_value() ? 1 : 0;
    }
    qInfo("%d mutations in %.0f ms (slowest %.1f ms), %d of them still valid scenarios", kMutations,
          double(total.nsecsElapsed()) / 1e6, slowest, parsed);
}

// The checks themselves: an input that parses and one that does not both pass, and the
// mutator is deterministic.
void TestParserFuzz::checksCatchABrokenPromise()
{
    QVERIFY(fuzz::checkParse("").isEmpty());
    QVERIFY(fuzz::checkParse("{\"name\": 1.}").isEmpty());
    fuzz::Random a(kSeed), b(kSeed);
    const QByteArray input = "{\"name\": \"x\", \"duration_s\": 10}";
    for (int i = 0; i < 100; ++i)
        QCOMPARE(fuzz::mutate(input, {input}, a), fuzz::mutate(input, {input}, b));
}

QTEST_GUILESS_MAIN(TestParserFuzz)
#include "tst_parser_fuzz.moc"
