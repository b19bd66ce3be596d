# Replay speed at site scale: the incident with instances x tags of 2 x 244, 8 x 244 and
# 2 x 5,000, every preset. Prints its figures (not a pass/fail test).
if(TARGET stormwatch_scenario)
  add_executable(bench_scale ${CMAKE_CURRENT_LIST_DIR}/bench_scale.cpp)
  target_link_libraries(bench_scale PRIVATE stormwatch_scenario Qt6::Core)
  stormwatch_warnings(bench_scale)
  add_dependencies(bench bench_scale)
endif()
