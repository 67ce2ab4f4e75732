# The layering check of DESIGN.md section 3 (cmake -DSOURCE_DIR=... -P check_includes.cmake,
# run by CTest as `include_layering`): formats are peers. Fails when
#  - a file under formats/<a>/ includes one under formats/<b>/ (b not a, not common/), except
#    formats/registry, the one place that knows every format;
#  - formats/common/ includes a format folder;
#  - tools/, bench/ or select/ include a format's internals (they reach formats through the
#    registry).
if(NOT SOURCE_DIR)
  message(FATAL_ERROR "check_includes.cmake: pass -DSOURCE_DIR=<repository root>")
endif()
file(GLOB_RECURSE files RELATIVE ${SOURCE_DIR}
     ${SOURCE_DIR}/formats/*.hpp ${SOURCE_DIR}/formats/*.cpp ${SOURCE_DIR}/formats/*.cu
     ${SOURCE_DIR}/formats/*.cuh ${SOURCE_DIR}/tools/*.hpp ${SOURCE_DIR}/tools/*.cpp
     ${SOURCE_DIR}/tools/*.cu ${SOURCE_DIR}/bench/*.hpp ${SOURCE_DIR}/bench/*.cpp
     ${SOURCE_DIR}/bench/*.cu ${SOURCE_DIR}/select/*.hpp ${SOURCE_DIR}/select/*.cpp)
set(violations "")
foreach(f IN LISTS files)
  string(REGEX MATCH "^([^/]+)/([^/]+)/" _ "${f}")
  set(top "${CMAKE_MATCH_1}")
  set(folder "${CMAKE_MATCH_2}")
  if(top STREQUAL "formats" AND folder STREQUAL "registry")
    continue()
  endif()
  file(STRINGS ${SOURCE_DIR}/${f} lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"formats/")
  foreach(line IN LISTS lines)
    string(REGEX MATCH "\"formats/([^/\"]+)/" _ "${line}")
    set(target "${CMAKE_MATCH_1}")
    if(top STREQUAL "formats")
      if(folder STREQUAL "common")
        set(bad TRUE)
      else()
        set(bad FALSE)
        if(NOT target STREQUAL folder AND NOT target STREQUAL "common")
          set(bad TRUE)
        endif()
      endif()
      if(folder STREQUAL "common" AND target STREQUAL "common")
        set(bad FALSE)
      endif()
    else()  # tools/, bench/, select/: no format internals at all
      set(bad TRUE)
    endif()
    if(bad)
      string(STRIP "${line}" line)
      list(APPEND violations "${f}: ${line}")
    endif()
  endforeach()
endforeach()
if(violations)
  list(LENGTH violations n)
  string(REPLACE ";" "\n  " text "${violations}")
  message(FATAL_ERROR "include layering: ${n} include(s) across format folders or into format "
                      "internals (DESIGN.md section 3):\n  ${text}")
endif()
message(STATUS "include layering: formats side by side, tools and bench through the registry")
