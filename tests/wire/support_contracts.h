#pragma once
// The wire suites' contract files: the published contract as shipped, copies written with
// numbers moved or elements taken away, and loading them.
#include "test_paths.h"
#include "wire/contract.h"

#include <QFile>
#include <QRegularExpression>
#include <QStringList>
#include <QTemporaryDir>
#include <QtGlobal>
#include <memory>
#include <string>

namespace contracts {

using stormwatch::wire::GatewayContract;

inline const QString kV1 = testpaths::contractFile(QStringLiteral("mxaccess-gateway-v1.proto"));

inline QString readText(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    return QString::fromUtf8(f.readAll());
}

inline QString writeText(const QTemporaryDir& dir, const QString& name, const QString& text)
{
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(text.toUtf8()) < 0)
        qFatal("cannot write %s", qPrintable(path));
    return path;
}

// Every field number of every message moved by `offset`; enum values are left alone (proto3
// wants each enum's first value 0).
inline QString renumberFields(const QString& text, int offset)
{
    static const QRegularExpression enumStart(QStringLiteral("^\\s*enum \\w+ \\{"));
    static const QRegularExpression number(QStringLiteral("(\\w+ = )(\\d+);"));
    QStringList out;
    bool inEnum = false;
    for (QString line : text.split('\n')) {
        if (line.contains(enumStart))
            inEnum = true;
        if (!inEnum && !line.trimmed().startsWith("//")) {
            QString renumbered;
            qsizetype from = 0;
            for (auto it = number.globalMatch(line); it.hasNext();) {
                const auto m = it.next();
                renumbered += line.mid(from, m.capturedStart() - from) + m.captured(1) +
                              QString::number(m.captured(2).toInt() + offset) + ";";
                from = m.capturedEnd();
            }
            line = renumbered + line.mid(from);
        }
        if (inEnum && line.contains('}'))
            inEnum = false;
        out << line;
    }
    return out.join('\n');
}

inline std::shared_ptr<const GatewayContract> load(const QString& path)
{
    std::string error;
    auto contract = GatewayContract::fromFile(path.toStdString(), error);
    if (!contract)
        qWarning("%s", error.c_str());
    return contract;
}

} // namespace contracts
