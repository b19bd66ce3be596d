# Per-target include roots: a target exposes its own headers and nothing else.
#
# Sources include project headers as "<folder>/<header>.h" (e.g. "client/options.h"). Each
# target gets a generated include root in the build tree, ${CMAKE_BINARY_DIR}/include/<target>/,
# that holds one symlink named like its folder:
#
#   build/include/stormwatch_client/client -> <src>/client                 (the whole folder)
#   build/include/stormwatch_scheduler/client/scheduler.h -> <src>/client/scheduler.h   (HEADERS:
#                                                          only the listed files, for a target
#                                                          that owns part of a folder)
#
# That root is the target's PUBLIC include directory, so "client/x.h" resolves exactly in
# the targets that link stormwatch_client (directly or through a PUBLIC link), and nowhere
# else: the repository root is no longer on anybody's include path. Nothing is copied, so an
# edited header is seen at once and compiler diagnostics point into the source tree. A
# same-folder include ("gateway_port.h") resolves next to the including file, through the
# symlink as well; the folder itself is also a PRIVATE include directory of its target.
#
# What a folder may include at all (client/ nothing of gateway/, ...) is checked by
# scripts/check-includes.sh (CTest: layering.includes); see docs/ARCHITECTURE.md, "Layers".
#
#   stormwatch_target_headers(<target> <folder> [PRIVATE] [HEADERS h1.h h2.h ...])
#     PRIVATE  the root is a PRIVATE include directory (executables: app/)
#     HEADERS  link only these files of <folder> (no PRIVATE include of the folder: the
#              target's sources reach their own headers next to them)
function(stormwatch_target_headers target folder)
  cmake_parse_arguments(ARG "PRIVATE" "" "HEADERS" ${ARGN})
  set(src ${PROJECT_SOURCE_DIR}/${folder})
  set(root ${CMAKE_BINARY_DIR}/include/${target})
  set(link ${root}/${folder})

  if(ARG_HEADERS)
    # A real directory of per-file links; a whole-folder link left by an older layout goes.
    if(IS_SYMLINK ${link})
      file(REMOVE ${link})
    endif()
    file(MAKE_DIRECTORY ${link})
    file(GLOB present LIST_DIRECTORIES true ${link}/*)
    foreach(entry ${present})
      get_filename_component(name ${entry} NAME)
      if(NOT name IN_LIST ARG_HEADERS)
        file(REMOVE ${entry}) # a link to a header the target no longer owns
      endif()
    endforeach()
    foreach(header ${ARG_HEADERS})
      _stormwatch_symlink(${src}/${header} ${link}/${header})
    endforeach()
  else()
    file(MAKE_DIRECTORY ${root})
    _stormwatch_symlink(${src} ${link})
  endif()

  if(ARG_PRIVATE)
    target_include_directories(${target} PRIVATE ${root})
  else()
    target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${root}>)
  endif()
  if(NOT ARG_HEADERS)
    target_include_directories(${target} PRIVATE ${src})
  endif()
endfunction()

# (Re)creates `link` -> `to` unless it already points there (an untouched link keeps the
# build from seeing anything new). Never follows or deletes what a link points to.
function(_stormwatch_symlink to link)
  if(IS_SYMLINK ${link})
    file(READ_SYMLINK ${link} current)
    if(current STREQUAL to)
      return()
    endif()
    file(REMOVE ${link})
  elseif(EXISTS ${link})
    message(FATAL_ERROR "${link} exists and is not a symlink; remove it (it is generated)")
  endif()
  file(CREATE_LINK ${to} ${link} SYMBOLIC)
endfunction()
