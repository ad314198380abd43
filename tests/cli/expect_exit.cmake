# Runs COMMAND; passes when it exits with EXPECTED_EXIT and its output matches EXPECTED_TEXT.
# A program that could not run without a GPU says "no CUDA device"; the test then reports that line so a
# SKIP_REGULAR_EXPRESSION can mark it skipped rather than passed.
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
message("exit ${code}; stdout: ${out}; stderr: ${err}")
if(NOT code STREQUAL "${EXPECTED_EXIT}")
  message(FATAL_ERROR "expected exit ${EXPECTED_EXIT}, got ${code}")
endif()
if(NOT "${out}${err}" MATCHES "${EXPECTED_TEXT}")
  message(FATAL_ERROR "output does not match '${EXPECTED_TEXT}'")
endif()
