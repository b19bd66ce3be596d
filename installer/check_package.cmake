# ctest installer.deb: builds the DEB into a scratch directory exactly as `cpack -G DEB` does
# from the build directory, then checks it holds what a user needs and that its metadata
# validates. Run with -DCPACK_CONFIG=... -DOUT=... [-DAPPSTREAMCLI=...] [-DDESKTOP_VALIDATE=...]
file(REMOVE_RECURSE "${OUT}")
execute_process(COMMAND cpack -G DEB --config "${CPACK_CONFIG}" -B "${OUT}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cpack failed (${rc}):\n${out}\n${err}")
endif()
file(GLOB debs "${OUT}/stormwatch_*.deb")
list(LENGTH debs count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "expected one stormwatch_*.deb in ${OUT}, found: ${debs}")
endif()

execute_process(COMMAND dpkg-deb -c "${debs}" OUTPUT_VARIABLE listing RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "dpkg-deb -c failed on ${debs}")
endif()
foreach(path
    usr/bin/stormwatch
    usr/bin/mxgw-mock
    usr/share/applications/stormwatch.desktop
    usr/share/icons/hicolor/scalable/apps/stormwatch.svg
    usr/share/metainfo/io.stormwatch.stormwatch.metainfo.xml
    usr/share/stormwatch/scenarios/subscribe-storm.json)
  string(REGEX MATCH " \\./${path}\n" found "${listing}")
  if(NOT found)
    message(FATAL_ERROR "package lacks /${path}; it holds:\n${listing}")
  endif()
endforeach()

execute_process(COMMAND dpkg-deb -f "${debs}" Package Maintainer Depends OUTPUT_VARIABLE fields)
foreach(expected "Package: stormwatch" "Maintainer: stormwatch maintainers" "libqt6core6")
  string(FIND "${fields}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "control fields lack '${expected}':\n${fields}")
  endif()
endforeach()

# Metadata validators, where the machine has them (appstream, desktop-file-utils).
execute_process(COMMAND dpkg-deb -x "${debs}" "${OUT}/root")
if(APPSTREAMCLI)
  execute_process(COMMAND "${APPSTREAMCLI}" validate --no-net
                          "${OUT}/root/usr/share/metainfo/io.stormwatch.stormwatch.metainfo.xml"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "appstreamcli validate failed:\n${out}\n${err}")
  endif()
endif()
if(DESKTOP_VALIDATE)
  execute_process(COMMAND "${DESKTOP_VALIDATE}" "${OUT}/root/usr/share/applications/stormwatch.desktop"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "desktop-file-validate failed:\n${out}\n${err}")
  endif()
endif()
file(REMOVE_RECURSE "${OUT}")
