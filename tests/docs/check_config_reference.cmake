# ctest: docs/config-reference.md is exactly what `servesim describe --markdown`
# prints, so the reference cannot fall behind the key declarations.
# Arguments: -DSERVESIM=<binary> -DREFERENCE=<docs/config-reference.md>
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
