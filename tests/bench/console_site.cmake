# The console on a site of real size (1,000 instances x 100 tags by default): time to all
# Good against the STA bound, UI stall at 1 Hz, tag filter time and memory (not a CTest test:
# it prints figures).
#   build/tests/bench/bench_console_site [--instances N] [--tags T] [--per-item-ms X]
if(TARGET stormwatch_ui)
  add_executable(bench_console_site ${CMAKE_CURRENT_LIST_DIR}/bench_console_site.cpp)
  target_link_libraries(bench_console_site PRIVATE stormwatch_ui)
  target_include_directories(bench_console_site PRIVATE ${CMAKE_CURRENT_LIST_DIR}/..) # test data helpers
  stormwatch_warnings(bench_console_site)
  add_dependencies(bench bench_console_site)
endif()
