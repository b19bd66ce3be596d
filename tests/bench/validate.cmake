# Scenario validation time for big files (50,000 timeline entries, 20,000 connections),
# best of N. Prints its figures (not a pass/fail test).
#   build/tests/bench/bench_validate [--repeat N]
if(TARGET stormwatch_scenario)
  add_executable(bench_validate ${CMAKE_CURRENT_LIST_DIR}/bench_validate.cpp)
  target_link_libraries(bench_validate PRIVATE stormwatch_scenario Qt6::Core)
  stormwatch_warnings(bench_validate)
  add_dependencies(bench bench_validate)
endif()
