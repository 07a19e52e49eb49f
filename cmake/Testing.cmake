# dsv4_add_gtest(<name> SOURCES ... LIBS ... LABELS ...): one GoogleTest executable whose tests are
# discovered into ctest with the given labels. A test that calls GTEST_SKIP is reported by ctest as
# "Skipped" (not as passed), so a GPU test skipped for want of a device never counts as a pass.
include(GoogleTest)
function(dsv4_add_gtest name)
  cmake_parse_arguments(T "" "TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 600)
  endif()
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE dsv4_test_support ${T_LIBS})
  dsv4_warnings(${name})
  # A list value must reach set_tests_properties as one argument: escape its semicolons.
  string(REPLACE ";" "\\;" labels_arg "${T_LABELS}")
  gtest_discover_tests(${name}
    PROPERTIES LABELS "${labels_arg}" TIMEOUT ${T_TIMEOUT}
               SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]"
    DISCOVERY_TIMEOUT 120)
endfunction()
