# cmake -P script behind the hipsim.consumer.* tests: builds tests/hipsim/consumer (a project outside the tree)
# against dsv4check's CMake package and runs one of its executables.
#   -DMODE=installed   cmake --install BUILD --component dsv4check_sdk into WORK/prefix, CMAKE_PREFIX_PATH=it
#   -DMODE=build_tree  dsv4check_DIR=BUILD
# Other -D: BUILD (dsv4check's build dir), SOURCE (the consumer), WORK (scratch, emptied first), CXX and MAKE (the
# compiler and ninja of dsv4check's build), TARGETS (comma-separated), RUN (the executable to run after the build;
# its exit status must be 0). Optional: LDFLAGS (dsv4check's CMAKE_EXE_LINKER_FLAGS, e.g. a sanitizer's runtime).
# The consumer's configure must find the package where MODE says, nowhere else.
foreach(v MODE BUILD SOURCE WORK CXX MAKE TARGETS RUN)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "consumer_run.cmake: -D${v}=... missing")
  endif()
endforeach()

function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "consumer: ${what} failed (${rc}): ${ARGN}")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
if(MODE STREQUAL "installed")
  execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --component dsv4check_sdk --prefix ${WORK}/prefix
                  OUTPUT_QUIET RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "consumer: cmake --install ${BUILD} failed (${rc}); the package needs dsv4_reference, "
                        "dsv4_oracle, dsv4_kernels, dsv4_hipsim and hipsim_pass built (they are in `all`)")
  endif()
  set(where -DCMAKE_PREFIX_PATH=${WORK}/prefix)
  set(expect_dir "^${WORK}/prefix/")
elseif(MODE STREQUAL "build_tree")
  set(where -Ddsv4check_DIR=${BUILD})
  set(expect_dir "^${BUILD}/?$")
else()
  message(FATAL_ERROR "consumer_run.cmake: MODE must be installed or build_tree (got '${MODE}')")
endif()

step("configure" ${CMAKE_COMMAND} -S ${SOURCE} -B ${WORK}/build -G Ninja -DCMAKE_MAKE_PROGRAM=${MAKE}
     -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
     "-DCMAKE_EXE_LINKER_FLAGS=${LDFLAGS}" ${where})
file(STRINGS ${WORK}/build/CMakeCache.txt found REGEX "^dsv4check_DIR:")
string(REGEX REPLACE "^[^=]*=" "" found "${found}")
if(NOT found MATCHES "${expect_dir}")
  message(FATAL_ERROR "consumer: found dsv4check at '${found}', expected it ${MODE} (${expect_dir})")
endif()
message(STATUS "consumer: dsv4check package from ${found}")

string(REPLACE "," ";" TARGETS "${TARGETS}")
step("build" ${CMAKE_COMMAND} --build ${WORK}/build --target ${TARGETS})
step("run ${RUN}" ${WORK}/build/${RUN})
