# ctest: install into a fresh prefix and check that the installed binary finds the
# catalogs it was installed with (PREFIX/share/servesim), not the source tree.
# Arguments: -DBUILD_DIR=... -DPREFIX=...
file(REMOVE_RECURSE "${PREFIX}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}"
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed: ${rc}")
endif()
foreach(f bin/servesim share/servesim/hardware/h100-sxm.yaml share/servesim/models/llama-3.1-8b.yaml
          share/servesim/scenarios/quickstart.yaml)
  if(NOT EXISTS "${PREFIX}/${f}")
    message(FATAL_ERROR "not installed: ${PREFIX}/${f}")
  endif()
endforeach()
# --help names the catalog folder in use: the installed one (SERVESIM_HOME unset).
execute_process(COMMAND "${CMAKE_COMMAND}" -E env --unset=SERVESIM_HOME "${PREFIX}/bin/servesim" --help
                OUTPUT_VARIABLE help RESULT_VARIABLE rc)
string(FIND "${help}" "Catalogs: ${PREFIX}/share/servesim" at)
if(at EQUAL -1)
  message(FATAL_ERROR "installed servesim does not use ${PREFIX}/share/servesim:\n${help}")
endif()
# And it reads them: a GPU from the installed catalog.
execute_process(COMMAND "${CMAKE_COMMAND}" -E env --unset=SERVESIM_HOME "${PREFIX}/bin/servesim" list gpus
                OUTPUT_VARIABLE gpus RESULT_VARIABLE rc)
string(FIND "${gpus}" "h100-sxm" at)
if(NOT rc EQUAL 0 OR at EQUAL -1)
  message(FATAL_ERROR "installed servesim list gpus failed (${rc}):\n${gpus}")
endif()
# A moved tree without catalogs: the error says where it looked and how to fix it.
file(REMOVE_RECURSE "${PREFIX}/share/servesim/hardware")
execute_process(COMMAND "${CMAKE_COMMAND}" -E env "SERVESIM_HOME=${PREFIX}/share/servesim" "${PREFIX}/bin/servesim"
                        list gpus
                ERROR_VARIABLE err RESULT_VARIABLE rc)
string(FIND "${err}" "SERVESIM_HOME" at)
if(NOT rc EQUAL 1 OR at EQUAL -1)
  message(FATAL_ERROR "missing catalog: expected exit 1 and a SERVESIM_HOME hint, got ${rc}:\n${err}")
endif()
file(REMOVE_RECURSE "${PREFIX}")
