// PlainProgressBar (the compare window's): shows what a progress bar shows — the part done
// in the highlight colour from the left, the rest in the base colour, the percentage — in
// both themes' palettes.
#include "ui/plain_progress_bar.h"
#include "ui/theme.h"

#include <QApplication>
#include <QImage>
#include <QtTest>

using namespace stormwatch;

namespace {
// The colour in the middle of the bar's height at a fraction of its width.
QColor colourAt(const QImage& image, double fraction)
{
    return image.pixelColor(int(image.width() * fraction), image.height() / 2 - 6);
}
} // namespace

class TestPlainProgressBar : public QObject {
    Q_OBJECT
private slots:
    void showsThePartDoneInBothThemes_data()
    {
        QTest::addColumn<int>("theme");
        QTest::newRow("light") << int(Theme::Light);
        QTest::newRow("dark") << int(Theme::Dark);
    }

    void showsThePartDoneInBothThemes()
    {
        QFETCH(int, theme);
        applyTheme(Theme(theme));
        PlainProgressBar bar;
        bar.setRange(0, 1000);
        bar.resize(400, 40);
        bar.show();
        QVERIFY(QTest::qWaitForWindowExposed(&bar));
        const QColor highlight = bar.palette().color(QPalette::Highlight);
        const QColor base = bar.palette().color(QPalette::Base);
        QVERIFY(highlight != base);

        bar.setValue(300);
        QCOMPARE(bar.text(), QStringLiteral("30%"));
        QImage image = bar.grab().toImage();
        QCOMPARE(colourAt(image, 0.1), highlight); // done
        QCOMPARE(colourAt(image, 0.25), highlight);
        QCOMPARE(colourAt(image, 0.35), base); // not yet
        QCOMPARE(colourAt(image, 0.9), base);
        // The percentage is drawn: some pixel of the middle is neither colour.
        bool text = false;
        for (int x = image.width() / 2 - 20; x < image.width() / 2 + 20 && !text; ++x)
            for (int y = 4; y < image.height() - 4 && !text; ++y)
                text = image.pixelColor(x, y) != base && image.pixelColor(x, y) != highlight;
        QVERIFY(text);

        bar.setValue(1000);
        image = bar.grab().toImage();
        QCOMPARE(colourAt(image, 0.9), highlight);
        bar.setValue(0);
        image = bar.grab().toImage();
        QCOMPARE(colourAt(image, 0.1), base);
        bar.reset(); // no value: nothing done
        image = bar.grab().toImage();
        QCOMPARE(colourAt(image, 0.1), base);
    }
};

QTEST_MAIN(TestPlainProgressBar)
#include "tst_plain_progress_bar.moc"
