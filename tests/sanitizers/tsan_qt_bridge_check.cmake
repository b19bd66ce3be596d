# CTest sanitizers.tsan_qt_bridge (TSan build only): runs tsan_qt_bridge_check in every
# mode; "-ok" modes must exit 0 (no report), "-race" modes 66 (TSan's exit code: a report).
# Reports go to stderr here, not to the run's sanitizer-logs (the races are on purpose).
foreach(mode invoke-ok invoke-race blocking-ok signal-ok signal-race wait-ok)
  set(ENV{TSAN_OPTIONS} "ignore_noninstrumented_modules=1:exitcode=66")
  execute_process(COMMAND ${CHECK} ${mode} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  if(mode MATCHES "-race$")
    set(expected 66)
  else()
    set(expected 0)
  endif()
  if(NOT rc EQUAL expected)
    message(FATAL_ERROR "tsan_qt_bridge_check ${mode}: exit ${rc}, expected ${expected}\n${err}")
  endif()
  message(STATUS "${mode}: exit ${rc} as expected")
endforeach()
