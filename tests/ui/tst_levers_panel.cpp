// The Levers dock shows "what one lever does": a click on one switch, from any preset,
// changes exactly that lever of the set shown and nothing else, every switch of the lever
// table has its control, and every preset goes through the dock unchanged.
#include "client/lever_set.h"
#include "ui/levers_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QJsonObject>
#include <QSignalSpy>
#include <QSpinBox>
#include <QtTest>

using namespace stormwatch;

namespace {

LeverSet preset(const QString& name)
{
    return *leverPreset(name, nullptr);
}

// The keys whose values differ between two sets, as the file writes them.
QStringList changedKeys(const LeverSet& a, const LeverSet& b)
{
    const QJsonObject ja = leverSetToJson(a);
    const QJsonObject jb = leverSetToJson(b);
    QStringList keys;
    for (auto it = ja.begin(); it != ja.end(); ++it)
        if (jb.value(it.key()) != it.value())
            keys << it.key();
    return keys;
}

// A person's click: press and release on the box's indicator, in a shown window.
void click(QCheckBox* box)
{
    QTest::mouseClick(box, Qt::LeftButton, {}, QPoint(8, box->height() / 2));
}

} // namespace

class TestLeversPanel : public QObject {
    Q_OBJECT
private slots:
    void everySwitchHasItsControl()
    {
        LeversPanel panel;
        for (const SwitchLever& lever : switchLevers()) {
            auto* box = panel.findChild<QCheckBox*>(QString::fromLatin1(lever.key));
            QVERIFY2(box, lever.key);
            QCOMPARE(box->text(), QString::fromUtf8(lever.label));
            QCOMPARE(box->toolTip(), QString::fromUtf8(lever.description));
        }
    }

    void oneClickChangesExactlyThatLever_data()
    {
        QTest::addColumn<QString>("presetName");
        QTest::addColumn<QString>("key");
        for (const QString& name : leverPresetNames())
            for (const SwitchLever& lever : switchLevers())
                QTest::newRow(qPrintable(name + " / " + lever.key))
                    << name << QString::fromLatin1(lever.key);
    }

    void oneClickChangesExactlyThatLever()
    {
        QFETCH(QString, presetName);
        QFETCH(QString, key);
        LeversPanel panel;
        panel.resize(400, 900);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        const LeverSet before = preset(presetName);
        panel.setLevers(before);
        QSignalSpy spy(&panel, &LeversPanel::leversChanged);
        auto* box = panel.findChild<QCheckBox*>(key);
        QVERIFY(box);
        const bool wasChecked = box->isChecked();
        click(box);
        QCOMPARE(box->isChecked(), !wasChecked);
        QCOMPARE(spy.count(), 1);
        const LeverSet after = spy.at(0).at(0).value<LeverSet>();
        QCOMPARE(changedKeys(before, after), QStringList{key});
        QCOMPARE(panel.levers(), after);
        QCOMPARE(panel.presetText(), presetNameOf(after).value_or("custom"));
    }

    void everyPresetGoesThroughUnchanged_data()
    {
        QTest::addColumn<QString>("presetName");
        for (const QString& name : leverPresetNames())
            QTest::newRow(qPrintable(name)) << name;
    }

    // Shown, then picked from the combo: the set that comes out is the preset itself.
    void everyPresetGoesThroughUnchanged()
    {
        QFETCH(QString, presetName);
        LeversPanel panel;
        panel.setLevers(preset(presetName));
        QCOMPARE(panel.levers(), preset(presetName));
        QCOMPARE(panel.presetText(), presetName);
        // From another preset to this one through the combo.
        const QString other = presetName == "levers-off" ? "all" : "levers-off";
        panel.setLevers(preset(other));
        QSignalSpy spy(&panel, &LeversPanel::leversChanged);
        auto* combo = panel.findChild<QComboBox*>("leverPreset");
        QVERIFY(combo);
        combo->setFocus();
        QTest::keyClick(combo, Qt::Key_Home);
        while (combo->currentText() != presetName && combo->currentIndex() < combo->count() - 1)
            QTest::keyClick(combo, Qt::Key_Down);
        QCOMPARE(combo->currentText(), presetName);
        QVERIFY(spy.count() >= 1);
        QCOMPARE(spy.last().at(0).value<LeverSet>(), preset(presetName));
        QCOMPARE(panel.levers(), preset(presetName));
    }

    // The dock takes what a file may say: a session command timeout beyond ten minutes is
    // shown as it is, not clamped, and a click elsewhere does not change it.
    void aFileValueOutsideTheOldRangesIsKept()
    {
        LeversPanel panel;
        panel.resize(400, 900);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        LeverSet levers = preset("all");
        levers.sessionCommandTimeoutMs = 3'600'000;
        levers.recovery.multiplier = 50;
        panel.setLevers(levers);
        QSignalSpy spy(&panel, &LeversPanel::leversChanged);
        click(panel.findChild<QCheckBox*>("coalesce"));
        QCOMPARE(spy.count(), 1);
        const LeverSet after = spy.at(0).at(0).value<LeverSet>();
        QCOMPARE(after.sessionCommandTimeoutMs, 3'600'000);
        QCOMPARE(after.recovery.multiplier, 50.0);
        QCOMPARE(changedKeys(levers, after), QStringList{"coalesce"});
    }
};

QTEST_MAIN(TestLeversPanel)
#include "tst_levers_panel.moc"
