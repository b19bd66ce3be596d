# A storm's peak resident memory: 20 x 244 tags, levers-off, a 60 s wedge every hour, for
# 1, 2 and 4 virtual hours (one process per run). Prints its figures (not a pass/fail test).
if(TARGET stormwatch_scenario)
  add_executable(bench_memory ${CMAKE_CURRENT_LIST_DIR}/bench_memory.cpp)
  target_link_libraries(bench_memory PRIVATE stormwatch_scenario Qt6::Core)
  stormwatch_warnings(bench_memory)
  add_dependencies(bench bench_memory)
endif()
