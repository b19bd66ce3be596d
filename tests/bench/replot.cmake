# Replot benchmark of the PlotPanel (not a CTest test: it takes seconds and prints figures).
#   build/tests/bench/bench_replot [--png out.png]
if(TARGET stormwatch_ui)
  add_executable(bench_replot ${CMAKE_CURRENT_LIST_DIR}/bench_replot.cpp)
  target_link_libraries(bench_replot PRIVATE stormwatch_ui)
  target_include_directories(bench_replot PRIVATE ${CMAKE_CURRENT_LIST_DIR}/..) # test data helpers
  stormwatch_warnings(bench_replot)
endif()
