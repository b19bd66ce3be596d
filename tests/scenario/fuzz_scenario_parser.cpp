// libFuzzer harness for the scenario parser. Built only where the compiler takes
// -fsanitize=fuzzer (clang; see tests/bench/fuzz.cmake): every input goes through
// parseScenario() and the promises in parser_fuzz_checks.h; a broken one aborts, which
// libFuzzer reports with the input. For example, in a clang build (instrumenting the
// libraries too, with the sanitizers):
//
//   cmake -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ \
//         -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined"
//   cmake --build build-fuzz --target fuzz_scenario_parser
//   mkdir -p /tmp/new-corpus
//   build-fuzz/tests/bench/fuzz_scenario_parser -max_total_time=300 -timeout=2 \
//         /tmp/new-corpus tests/scenario/corpus
//
// (New inputs go to the first directory; copy the interesting ones into the checked-in
// corpus, where the tst_parser_fuzz ctest replays them in every build.)

#include "parser_fuzz_checks.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const QByteArray input(reinterpret_cast<const char*>(data), qsizetype(size));
    const QString broken = stormwatch::fuzz::checkParse(input);
    if (!broken.isEmpty()) {
        std::fprintf(stderr, "parser promise broken: %s\n", broken.toUtf8().constData());
        std::abort();
    }
    return 0;
}
