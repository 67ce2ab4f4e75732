# cmake -DSOURCE_DIR=... -DOUT=... -P commit_stamp.cmake: writes OUT, a header defining
# SPMVKIT_COMMIT as the source tree's commit (12 digits; "+changes" where tracked files differ
# from it; "unknown" without git), rewriting it only when that changed. Run at every build (a
# target of CMakeLists.txt), so that the benchmark reports the commit it was built from, not the
# one the build folder was configured at.
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT commit)
  set(commit "unknown")
else()
  execute_process(COMMAND git status --porcelain --untracked-files=no WORKING_DIRECTORY ${SOURCE_DIR}
                  OUTPUT_VARIABLE changes OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(changes)
    string(APPEND commit "+changes")
  endif()
endif()
set(text "#define SPMVKIT_COMMIT \"${commit}\"\n")
set(old "")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT old STREQUAL text)
  file(WRITE ${OUT} "${text}")
endif()
