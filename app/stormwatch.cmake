# The stormwatch executable: the headless command line now, the console window later.
# Included from app/CMakeLists.txt (mxgw-mock has its own mxgw_mock.cmake).
add_executable(stormwatch ${CMAKE_CURRENT_LIST_DIR}/stormwatch_main.cpp)
target_link_libraries(stormwatch PRIVATE stormwatch_scenario Qt6::Core)
target_compile_definitions(stormwatch PRIVATE STORMWATCH_VERSION="${PROJECT_VERSION}")
stormwatch_warnings(stormwatch)
