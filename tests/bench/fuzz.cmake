# libFuzzer harness for the scenario parser: built only when the compiler takes
# -fsanitize=fuzzer (clang; Debian's clang has libFuzzer), so a g++ build skips it. The
# tests/bench/*.cmake files are where the tests add executables that are not Qt Test
# suites; the parser's always-on fuzz replay is the scenario.parser_fuzz ctest.
# How to run it: tests/scenario/fuzz_scenario_parser.cpp.
if(TARGET stormwatch_scenario)
  include(CheckCXXSourceCompiles)
  set(CMAKE_REQUIRED_FLAGS -fsanitize=fuzzer)
  set(CMAKE_REQUIRED_LINK_OPTIONS -fsanitize=fuzzer)
  check_cxx_source_compiles([[
    #include <cstddef>
    #include <cstdint>
    extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }
  ]] STORMWATCH_HAS_LIBFUZZER)
  unset(CMAKE_REQUIRED_FLAGS)
  unset(CMAKE_REQUIRED_LINK_OPTIONS)
  if(STORMWATCH_HAS_LIBFUZZER)
    add_executable(fuzz_scenario_parser ${CMAKE_CURRENT_LIST_DIR}/../scenario/fuzz_scenario_parser.cpp)
    target_link_libraries(fuzz_scenario_parser PRIVATE stormwatch_scenario Qt6::Core)
    target_include_directories(fuzz_scenario_parser PRIVATE ${CMAKE_CURRENT_LIST_DIR}/../scenario)
    target_compile_options(fuzz_scenario_parser PRIVATE -fsanitize=fuzzer)
    target_link_options(fuzz_scenario_parser PRIVATE -fsanitize=fuzzer)
    stormwatch_warnings(fuzz_scenario_parser)
  endif()
endif()
