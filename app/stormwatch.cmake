# The stormwatch executable: the console window and the headless command line.
# Included from app/CMakeLists.txt (mxgw-mock has its own mxgw_mock.cmake).
add_executable(stormwatch ${CMAKE_CURRENT_LIST_DIR}/stormwatch_main.cpp ${CMAKE_CURRENT_LIST_DIR}/recording_cli.cpp
  ${CMAKE_CURRENT_LIST_DIR}/recording_cli.h ${CMAKE_CURRENT_LIST_DIR}/contract_cli.cpp
  ${CMAKE_CURRENT_LIST_DIR}/contract_cli.h ${CMAKE_CURRENT_LIST_DIR}/watch_cli.cpp
  ${CMAKE_CURRENT_LIST_DIR}/watch_cli.h)
target_link_libraries(stormwatch PRIVATE stormwatch_scenario stormwatch_recording stormwatch_watch
  stormwatch_wire Qt6::Core)
target_compile_definitions(stormwatch PRIVATE STORMWATCH_VERSION="${PROJECT_VERSION}")
stormwatch_warnings(stormwatch)

# The window needs the ui/ target and its MainWindow; without them the binary is the
# headless CLI alone.
if(TARGET stormwatch_ui AND EXISTS ${CMAKE_SOURCE_DIR}/ui/main_window.h)
  set(STORMWATCH_CONSOLE ON CACHE INTERNAL "the console window is built")
  target_sources(stormwatch PRIVATE ${CMAKE_CURRENT_LIST_DIR}/console.cpp ${CMAKE_CURRENT_LIST_DIR}/console.h)
  target_link_libraries(stormwatch PRIVATE stormwatch_ui)
  target_compile_definitions(stormwatch PRIVATE STORMWATCH_CONSOLE=1)
else()
  set(STORMWATCH_CONSOLE OFF CACHE INTERNAL "the console window is built")
endif()
