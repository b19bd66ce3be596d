# Virtual replay speed: 2 instances x 244 tags for 30 virtual minutes per lever preset.
# Prints its figures (not a pass/fail test).
if(TARGET stormwatch_scenario)
  add_executable(bench_replay ${CMAKE_CURRENT_LIST_DIR}/bench_replay.cpp)
  target_link_libraries(bench_replay PRIVATE stormwatch_scenario Qt6::Core)
  stormwatch_warnings(bench_replay)
  add_dependencies(bench bench_replay)
endif()
