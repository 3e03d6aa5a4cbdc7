# ctest: docs/config-reference.md is exactly what `servesim describe --markdown`
# prints, so the reference cannot fall behind the key declarations; and --out
# writes those same bytes.
# Arguments: -DSERVESIM=<binary> -DREFERENCE=<docs/config-reference.md> -DWORK=<scratch folder>
execute_process(COMMAND "${SERVESIM}" describe --markdown OUTPUT_VARIABLE generated RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "servesim describe --markdown failed: ${rc}")
endif()
if(NOT EXISTS "${REFERENCE}")
  message(FATAL_ERROR "${REFERENCE} is missing: run ./build/servesim describe --markdown --out docs/config-reference.md")
endif()
file(READ "${REFERENCE}" committed)
if(NOT generated STREQUAL committed)
  message(FATAL_ERROR "${REFERENCE} is stale (the key declarations changed): regenerate it with\n"
                      "  ./build/servesim describe --markdown --out docs/config-reference.md")
endif()
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
execute_process(COMMAND "${SERVESIM}" describe --markdown --out "${WORK}/reference.md" RESULT_VARIABLE rc)
file(READ "${WORK}/reference.md" written)
if(NOT rc EQUAL 0 OR NOT written STREQUAL generated)
  message(FATAL_ERROR "servesim describe --markdown --out wrote other bytes than it prints (exit ${rc})")
endif()
