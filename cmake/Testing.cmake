# dsv4_add_gtest(<name> SOURCES ... LIBS ... LABELS ...): one GoogleTest executable whose tests are
# discovered into ctest with the given labels. A test that calls GTEST_SKIP is reported by ctest as
# "Skipped" (not as passed), so a GPU test skipped for want of a device never counts as a pass.
# DSV4_TEST_SKIP_LABELS (a list, default empty): a test executable carrying one of these labels is not built by
# `all` and its tests are not registered (the target still exists, so `cmake --build --target <it>` builds it and
# code that configures it keeps working). dsv4_tests_<label> builds the registered executables of one label.
include(GoogleTest)
set(DSV4_TEST_SKIP_LABELS "" CACHE STRING "Labels whose test executables are left out of `all` and of ctest")
# DSV4_TEST_TIMEOUT_SCALE: every gtest executable's TIMEOUT is multiplied by it (the asan preset sets 3: its code runs
# ~3x slower, so a test near its limit would time out there and nowhere else).
set(DSV4_TEST_TIMEOUT_SCALE 1 CACHE STRING "Multiplier of every gtest TIMEOUT (sanitizer builds run slower)")
function(dsv4_add_gtest name)
  cmake_parse_arguments(T "" "TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 600)
  endif()
  math(EXPR T_TIMEOUT "${T_TIMEOUT} * ${DSV4_TEST_TIMEOUT_SCALE}")
  set(skipped_label "")
  foreach(l ${T_LABELS})
    if(l IN_LIST DSV4_TEST_SKIP_LABELS)
      set(skipped_label ${l})
    endif()
  endforeach()
  if(skipped_label)
    add_executable(${name} EXCLUDE_FROM_ALL ${T_SOURCES})
    target_link_libraries(${name} PRIVATE dsv4_test_support ${T_LIBS})
    return()
  endif()
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE dsv4_test_support ${T_LIBS})
  dsv4_warnings(${name})
  # dsv4_tests_<label>: builds every test executable with that label (CI's asan stage builds a few labels only).
  foreach(l ${T_LABELS})
    if(NOT TARGET dsv4_tests_${l})
      add_custom_target(dsv4_tests_${l})
    endif()
    add_dependencies(dsv4_tests_${l} ${name})
  endforeach()
  gtest_discover_tests(${name}
    PROPERTIES TIMEOUT ${T_TIMEOUT} SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]"
    TEST_LIST ${name}_TESTS
    DISCOVERY_TIMEOUT 120)
  # Labels are a list, which does not survive gtest_discover_tests' PROPERTIES plumbing: apply them
  # from a ctest include file that runs after the discovered tests are defined.
  set(label_file ${CMAKE_CURRENT_BINARY_DIR}/${name}_labels.cmake)
  file(WRITE ${label_file}
       "if(DEFINED ${name}_TESTS)\n  set_tests_properties(\${${name}_TESTS} PROPERTIES LABELS \"${T_LABELS}\")\nendif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${label_file})
endfunction()

# dsv4_port_test(<name> <kernel TU> <timeout>): one test of the portability layer (tests/kernels/port,
# tests/kernels/nvidia/port): test_port_<name>.cpp with its kernel TU, labelled with the caller's ${port_labels}. The
# caller has called dsv4_enable_kernel_language().
function(dsv4_port_test name kernel_source timeout)
  dsv4_mark_kernel_sources(${kernel_source})
  dsv4_add_gtest(test_port_${name}
    SOURCES test_port_${name}.cpp ${kernel_source}
    LIBS dsv4_kernels
    LABELS "${port_labels}"
    TIMEOUT ${timeout})
endfunction()
