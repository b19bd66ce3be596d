# The console's resident memory while it plays bench_memory's storm at 60x, with the plots'
# retention at its default or shorter (not a CTest test: it runs for minutes and prints figures).
#   build/tests/bench/bench_console_memory [--minutes M] [--speed X] [--retention-min R]
if(TARGET stormwatch_ui)
  add_executable(bench_console_memory ${CMAKE_CURRENT_LIST_DIR}/bench_console_memory.cpp)
  target_link_libraries(bench_console_memory PRIVATE stormwatch_ui)
  stormwatch_warnings(bench_console_memory)
  add_dependencies(bench bench_console_memory)
endif()
