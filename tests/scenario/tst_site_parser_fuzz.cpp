// The site-file parser under hostile input, in every
// build: its checked-in corpus (tests/scenario/corpus-site/: valid sites, the tag CSV and
// hostile cases) and deterministic mutations of the site files and of the CSV (the same
// mutator and seed as the scenario parser's replay, parser_fuzz_checks.h) go through
// parseSite(), which must never crash, must return a Site or errors (never both, never
// neither), each error one line of bounded length with a "$" path, within a bounded time.

#include "parser_fuzz_checks.h"
#include "scenario/site.h"
#include "test_paths.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>

using namespace stormwatch;

namespace {

constexpr int kMutations = 3000;
constexpr std::uint64_t kSeed = 15;
constexpr double kMaxMsPerInput =
    2000; // generous for sanitizer builds; a parse takes well under 1 ms

// Empty when the outcome keeps every promise, otherwise what broke.
QString checkSite(const QByteArray& input, const QString& file)
{
    QList<ScenarioError> errors;
    const auto site = parseSite(input, file, &errors);
    if (site && !errors.isEmpty())
        return QStringLiteral("a Site and %1 errors").arg(errors.size());
    if (!site && errors.isEmpty())
        return QStringLiteral("neither a Site nor an error");
    if (const QString broken =
            fuzz::checkErrors(errors, file, fuzz::kMaxErrorLineChars + file.size());
        !broken.isEmpty())
        return broken;
    if (site) {
        // What a Site holds keeps the file's rules: a parse cannot smuggle past them.
        for (const SiteInstance& i : site->instances) {
            if (!site->gateway(i.gateway))
                return QStringLiteral("instance \"%1\" on an unknown gateway").arg(i.name.left(80));
            if (i.tags.isEmpty() || i.tags.size() > site_limits::kMaxTagsPerInstance)
                return QStringLiteral("instance \"%1\" with %2 tags")
                    .arg(i.name.left(80))
                    .arg(i.tags.size());
            for (const SiteTag& t : i.tags)
                if (t.address.isEmpty() || t.address.size() > site_limits::kMaxTagAddressLength)
                    return QStringLiteral("a tag address of %1 characters").arg(t.address.size());
        }
        for (const SiteGateway& g : site->gateways)
            if (!checkEndpoint(g.endpoint).isEmpty())
                return QStringLiteral("gateway \"%1\" with endpoint \"%2\"")
                    .arg(g.name.left(80), g.endpoint.left(80));
    }
    return {};
}

struct CorpusFile {
    QString name;
    QByteArray bytes;
};

QList<CorpusFile> corpus(const QString& suffix)
{
    QList<CorpusFile> files;
    const QString dir = testpaths::sourceFile(QStringLiteral("tests/scenario/corpus-site"));
    for (const QFileInfo& f : QDir(dir).entryInfoList({"*" + suffix}, QDir::Files, QDir::Name)) {
        QFile file(f.filePath());
        if (file.open(QIODevice::ReadOnly))
            files.append({f.fileName(), file.readAll()});
    }
    return files;
}

bool writeFile(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

} // namespace

class TestSiteParserFuzz : public QObject {
    Q_OBJECT
private slots:
    void corpusReplays();
    void mutationsReplay();
    void checksPassInputsThatKeepThePromise();
};

void TestSiteParserFuzz::corpusReplays()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QList<CorpusFile> csv = corpus(".csv");
    QCOMPARE(csv.size(), 1);
    QVERIFY(writeFile(dir.filePath("tags.csv"), csv[0].bytes));
    const QList<CorpusFile> sites = corpus(".json");
    QVERIFY(sites.size() >= 8);
    for (const CorpusFile& f : sites) {
        const QString file = dir.filePath(f.name);
        QElapsedTimer t;
        t.start();
        const QString broken = checkSite(f.bytes, file);
        const double ms = double(t.nsecsElapsed()) / 1e6;
        QVERIFY2(broken.isEmpty(), qPrintable(f.name + ": " + broken));
        QVERIFY2(ms < kMaxMsPerInput, qPrintable(QString("%1 took %2 ms").arg(f.name).arg(ms)));
        QList<ScenarioError> errors;
        const bool parsed = parseSite(f.bytes, file, &errors).has_value();
        QVERIFY2(parsed == f.name.startsWith("valid-"),
                 qPrintable(f.name + (parsed ? ": parsed" : ": " + errors.value(0).toString())));
    }
}

void TestSiteParserFuzz::mutationsReplay()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QByteArray csv = corpus(".csv").value(0).bytes;
    QList<QByteArray> sites;
    for (const CorpusFile& f : corpus(".json"))
        sites << f.bytes;
    QByteArray withCsv;
    for (const CorpusFile& f : corpus(".json"))
        if (f.name == "valid-csv.json")
            withCsv = f.bytes;
    QVERIFY(!withCsv.isEmpty());
    fuzz::Random random(kSeed);
    double slowest = 0;
    int parsed = 0;
    const QString file = dir.filePath("m.json");
    for (int i = 0; i < kMutations; ++i) {
        // Two in three mutate a site file (the CSV as shipped); one in three keeps the site
        // that reads the CSV and mutates the CSV.
        const bool mutateCsv = random.below(3) == 0;
        const QByteArray site =
            mutateCsv ? withCsv : fuzz::mutate(sites[random.below(sites.size())], sites, random);
        const QByteArray tags = mutateCsv ? fuzz::mutate(csv, {csv}, random) : csv;
        QVERIFY(writeFile(dir.filePath("tags.csv"), tags));
        QElapsedTimer t;
        t.start();
        const QString broken = checkSite(site, file);
        const double ms = double(t.nsecsElapsed()) / 1e6;
        slowest = std::max(slowest, ms);
        if (!broken.isEmpty() || ms >= kMaxMsPerInput) {
            const QString saved = QDir::temp().filePath(QString("stormwatch-site-fuzz-%1").arg(i));
            writeFile(saved + ".json", site);
            writeFile(saved + ".csv", tags);
            QFAIL(qPrintable(
                QString("mutation %1 (saved as %2.json/.csv): %3")
                    .arg(i)
                    .arg(saved, broken.isEmpty() ? QString("took %1 ms").arg(ms) : broken)));
        }
        QList<ScenarioError> ignored;
        parsed += parseSite(site, file, &ignored).has_value() ? 1 : 0;
    }
    qInfo("%d site mutations (slowest %.1f ms), %d of them still valid sites", kMutations, slowest,
          parsed);
    QVERIFY(parsed > 0); // the mutations do not only produce garbage: the valid paths are exercised
}

void TestSiteParserFuzz::checksPassInputsThatKeepThePromise()
{
    QVERIFY(checkSite("", "x.json").isEmpty());
    QVERIFY(checkSite("{\"name\": 1.}", "x.json").isEmpty());
    QVERIFY(checkSite(corpus(".json").value(0).bytes, "x.json").isEmpty());
}

QTEST_GUILESS_MAIN(TestSiteParserFuzz)
#include "tst_site_parser_fuzz.moc"
