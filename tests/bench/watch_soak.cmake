# The watch service's loop in virtual time: the example site on the run host, FleetMetrics
# following its steps and serialized as a scrape would, a gateway killed every hour. Prints
# resident memory per virtual 10 minutes (not a pass/fail test).
if(TARGET stormwatch_watch)
  add_executable(bench_watch_soak ${CMAKE_CURRENT_LIST_DIR}/bench_watch_soak.cpp)
  target_link_libraries(bench_watch_soak PRIVATE stormwatch_watch Qt6::Core)
  stormwatch_warnings(bench_watch_soak)
  add_dependencies(bench bench_watch_soak)
endif()
