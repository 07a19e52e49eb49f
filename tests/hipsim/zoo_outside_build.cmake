# cmake -P script behind hipsim.zoo.outside_build_tree: the zoo's hipsim entries run from a copy of their executables
# outside the build tree, found through DSV4_HIPSIM_ZOO_DIR, and a DSV4_HIPSIM_ZOO_DIR without them is an error that
# names the variable.
#   -DCLI=<dsv4check>  -DWORK=<scratch folder, emptied first>  -DEXES=<the entry's executables, comma-separated>
#   -DBUG=<zoo id>
foreach(v CLI WORK EXES BUG)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "zoo_outside_build.cmake: -D${v}=... missing")
  endif()
endforeach()
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/copy ${WORK}/empty)
string(REPLACE "," ";" exes "${EXES}")
foreach(e ${exes})
  file(COPY ${e} DESTINATION ${WORK}/copy)
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -E env DSV4_HIPSIM_ZOO_DIR=${WORK}/copy ${CLI} zoo --bug ${BUG} --wide
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "\n${BUG} [^\n]* yes [^\n]* quiet ")
  message(FATAL_ERROR "zoo --bug ${BUG} from ${WORK}/copy: exit ${rc}\n${out}${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env DSV4_HIPSIM_ZOO_DIR=${WORK}/empty ${CLI} zoo --bug ${BUG}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT "${out}${err}" MATCHES "DSV4_HIPSIM_ZOO_DIR=${WORK}/empty must name the folder")
  message(FATAL_ERROR "zoo --bug ${BUG} with an empty DSV4_HIPSIM_ZOO_DIR: exit ${rc}, no error naming it\n${out}${err}")
endif()
message(STATUS "PASS: ${BUG} caught from a copy outside the build tree; an empty folder is an error naming the variable")
