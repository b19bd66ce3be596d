# The UI thread's longest stall under 488 tags at 10 Hz (not a CTest test: it runs for
# tens of seconds and prints figures).
#   build/tests/bench/bench_ui_stall [--seconds N] [--levers PRESET] [--compare SCENARIO]
if(TARGET stormwatch_ui)
  add_executable(bench_ui_stall ${CMAKE_CURRENT_LIST_DIR}/bench_ui_stall.cpp)
  target_link_libraries(bench_ui_stall PRIVATE stormwatch_ui)
  stormwatch_warnings(bench_ui_stall)
  add_dependencies(bench bench_ui_stall)
endif()
