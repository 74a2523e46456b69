#===- ExpectToolError.cmake - a tool fails cleanly on a bad file ---------===#
#
# cmake -DTOOL=<exe> -DCOMMAND=<subcommand> -DINPUT=<path|empty|garbage>
#       -DEXPECT=<regex> -DWORK_DIR=<dir> -P ExpectToolError.cmake
#
# Runs `TOOL COMMAND INPUT` and passes only if it exits with a non-zero code
# (not a crash, not success) and its stderr matches EXPECT. INPUT "empty" and
# "garbage" are written to WORK_DIR first.
#
#===----------------------------------------------------------------------===#

# New policies: the old CMP0053 would expand "@INPUT@" below by itself.
cmake_minimum_required(VERSION 3.20)

if(INPUT STREQUAL "empty")
  set(INPUT ${WORK_DIR}/tool_error_empty.tilec)
  file(WRITE ${INPUT} "")
elseif(INPUT STREQUAL "garbage")
  set(INPUT ${WORK_DIR}/tool_error_garbage.tilec)
  file(WRITE ${INPUT} "garbage, not a bundle")
endif()

execute_process(COMMAND ${TOOL} ${COMMAND} ${INPUT}
  RESULT_VARIABLE rc
  OUTPUT_VARIABLE out
  ERROR_VARIABLE err)
# A crash (an uncaught exception aborts) comes back as text, not a number.
if(NOT rc MATCHES "^[0-9]+$" OR rc EQUAL 0)
  message(FATAL_ERROR "expected a clean failure, got '${rc}'\n${out}${err}")
endif()
string(REPLACE "@INPUT@" "${INPUT}" EXPECT "${EXPECT}")
if(NOT err MATCHES "${EXPECT}")
  message(FATAL_ERROR "stderr does not match '${EXPECT}':\n${err}")
endif()
