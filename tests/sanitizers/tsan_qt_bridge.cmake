# Included by the "tsan" preset only (CMAKE_PROJECT_INCLUDE, right after project()): links
# tsan_qt_bridge.cpp into every executable of the build, so ThreadSanitizer sees the
# happens-before edges of Qt's cross-thread hand-offs (see that file). The other builds
# never read this file.
find_package(Qt6 6.4 REQUIRED COMPONENTS Core)
add_library(stormwatch_tsan_qt_bridge OBJECT ${CMAKE_CURRENT_LIST_DIR}/tsan_qt_bridge.cpp)
target_link_libraries(stormwatch_tsan_qt_bridge PUBLIC Qt6::Core ${CMAKE_DL_LIBS})
target_compile_options(stormwatch_tsan_qt_bridge PRIVATE -Wall -Wextra -Werror)

function(_stormwatch_tsan_bridge_executables dir)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target ${targets})
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "EXECUTABLE")
      target_link_libraries(${target} PRIVATE stormwatch_tsan_qt_bridge)
    endif()
  endforeach()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub ${subdirs})
    _stormwatch_tsan_bridge_executables(${sub})
  endforeach()
endfunction()

function(_stormwatch_tsan_bridge_all)
  _stormwatch_tsan_bridge_executables(${CMAKE_SOURCE_DIR})
  # The bridge's own check: real races across its hand-offs are still reported.
  add_executable(tsan_qt_bridge_check ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/tsan_qt_bridge_check.cpp)
  set_target_properties(tsan_qt_bridge_check PROPERTIES AUTOMOC ON)
  target_link_libraries(tsan_qt_bridge_check PRIVATE stormwatch_tsan_qt_bridge)
  target_compile_options(tsan_qt_bridge_check PRIVATE -Wall -Wextra -Werror)
  add_test(NAME sanitizers.tsan_qt_bridge
           COMMAND ${CMAKE_COMMAND} -DCHECK=$<TARGET_FILE:tsan_qt_bridge_check>
                   -P ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/tsan_qt_bridge_check.cmake)
  set_tests_properties(sanitizers.tsan_qt_bridge PROPERTIES LABELS sanitizers TIMEOUT 120)
endfunction()
cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR} CALL _stormwatch_tsan_bridge_all)
