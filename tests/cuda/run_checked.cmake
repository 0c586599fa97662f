# Runs a test command and passes only when it exits with status 0 (or the
# given STATUS) AND its output (stdout and stderr together) matches PASS and
# does not match FAIL.
# CTest's PASS_REGULAR_EXPRESSION alone ignores the exit status, so a program
# that prints PASS and then fails at exit would pass; this script checks both.
#
#   cmake -DPASS=<regex> [-DFAIL=<regex>] [-DSTATUS=<n>] -P run_checked.cmake -- <command> [args...]
#
# The regular expressions are CMake's, as CTest's are.
if(NOT DEFINED PASS OR PASS STREQUAL "")
  message(FATAL_ERROR "run_checked.cmake: -DPASS=<regex> is required (an empty one matches anything)")
endif()

set(command)
set(after_separator FALSE)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE ${last})
  if(after_separator)
    list(APPEND command "${CMAKE_ARGV${i}}")
  elseif(CMAKE_ARGV${i} STREQUAL "--")
    set(after_separator TRUE)
  endif()
endforeach()
if(NOT command)
  message(FATAL_ERROR "run_checked.cmake: no command after --")
endif()

execute_process(COMMAND ${command} RESULT_VARIABLE status OUTPUT_VARIABLE output
                ERROR_VARIABLE output)
message("${output}")
list(GET command 0 program)
if(NOT DEFINED STATUS OR STATUS STREQUAL "")
  set(STATUS 0)
endif()
if(NOT status STREQUAL "${STATUS}")
  message(FATAL_ERROR "run_checked: ${program} exited with status ${status} (expected ${STATUS})")
endif()
if(DEFINED FAIL AND NOT FAIL STREQUAL "" AND output MATCHES "${FAIL}")
  message(FATAL_ERROR "run_checked: the output of ${program} matches the failure pattern '${FAIL}'")
endif()
if(NOT output MATCHES "${PASS}")
  message(FATAL_ERROR "run_checked: the output of ${program} does not match '${PASS}'")
endif()
message("run_checked: ${program} exited with ${STATUS} and its output matches '${PASS}'")
