#pragma once
// Where a suite finds the repository's files and the built binaries it runs. CTest hands
// them over in the environment (tests/CMakeLists.txt) instead of compiling the paths in, so
// no object file depends on where the tree was cloned and the compiler cache serves a clean
// clone anywhere. A suite started by hand needs the same variables (`ctest -V` prints them).

#include <QString>
#include <QtGlobal>

namespace testpaths {

inline QString fromEnvironment(const char* name)
{
    const QString value = qEnvironmentVariable(name);
    if (value.isEmpty())
        qFatal("%s is not set: run the suite through ctest, which sets it", name);
    return value;
}

// A file of the repository: sourceFile("resources/sites/example-site.json").
inline QString sourceFile(const QString& relative)
{
    return fromEnvironment("STORMWATCH_SOURCE_DIR") + QLatin1Char('/') + relative;
}
// A file of the build tree: buildFile("tests/contracts/mxaccess-gateway-v1.protoset").
inline QString buildFile(const QString& relative)
{
    return fromEnvironment("STORMWATCH_BUILD_DIR") + QLatin1Char('/') + relative;
}
// A bundled gateway contract: contractFile("mxaccess-gateway-v1.proto").
inline QString contractFile(const QString& name)
{
    return sourceFile(QStringLiteral("resources/contracts/") + name);
}
inline QString mockBinary()
{
    return fromEnvironment("STORMWATCH_MXGW_MOCK");
}
inline QString stormwatchBinary()
{
    return fromEnvironment("STORMWATCH_BINARY");
}

} // namespace testpaths
