# What recording costs: the incident replayed with and without a recorder (CPU and wall
# ratios), and the file size per virtual hour. Prints its figures (not a pass/fail test).
if(TARGET stormwatch_recording)
  add_executable(bench_recording ${CMAKE_CURRENT_LIST_DIR}/bench_recording.cpp
    ${CMAKE_CURRENT_LIST_DIR}/../recording/support_recording.cpp)
  target_include_directories(bench_recording PRIVATE ${CMAKE_CURRENT_LIST_DIR}/..)
  target_link_libraries(bench_recording PRIVATE stormwatch_recording Qt6::Test)
  stormwatch_warnings(bench_recording)
  add_dependencies(bench bench_recording)
endif()
