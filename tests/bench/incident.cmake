# The incident's replay speed: every variant of the bundled incident-2026-08-26 scenario on
# the virtual runner, best of N. Prints its figures (not a pass/fail test).
if(TARGET stormwatch_scenario)
  add_executable(bench_incident ${CMAKE_CURRENT_LIST_DIR}/bench_incident.cpp)
  target_link_libraries(bench_incident PRIVATE stormwatch_scenario Qt6::Core)
  stormwatch_warnings(bench_incident)
  add_dependencies(bench bench_incident)
endif()
