# The CMake package as a user receives it (included from tests/hipsim/CMakeLists.txt; label `hipsim;cpu`): the
# consumer project tests/hipsim/consumer is configured outside the tree against an install of the package into a
# scratch prefix (hipsim.consumer.installed) and against this build tree (hipsim.consumer.build_tree), built and
# run: its kernel must PASS dsv4check's oracle. The planted-bug variant built by the build-tree test must be
# reported by the sim (hipsim.consumer.finds_planted_bug); an unknown ARCH is refused from the package with the list
# (hipsim.consumer.unknown_arch, configure only).
set(consumer_args -DBUILD=${CMAKE_BINARY_DIR} -DSOURCE=${CMAKE_CURRENT_SOURCE_DIR}/consumer
    -DCXX=${CMAKE_CXX_COMPILER} -DMAKE=${CMAKE_MAKE_PROGRAM} -DRUN=consumer_gemv "-DLDFLAGS=${CMAKE_EXE_LINKER_FLAGS}")
set(consumer_work ${CMAKE_CURRENT_BINARY_DIR}/consumer)
add_test(NAME hipsim.consumer.installed
  COMMAND ${CMAKE_COMMAND} ${consumer_args} -DMODE=installed -DWORK=${consumer_work}/installed
          -DTARGETS=consumer_gemv -P ${CMAKE_CURRENT_SOURCE_DIR}/consumer_run.cmake)
add_test(NAME hipsim.consumer.build_tree
  COMMAND ${CMAKE_COMMAND} ${consumer_args} -DMODE=build_tree -DWORK=${consumer_work}/build_tree
          -DTARGETS=consumer_gemv,consumer_gemv_bug_lds -P ${CMAKE_CURRENT_SOURCE_DIR}/consumer_run.cmake)
add_test(NAME hipsim.consumer.finds_planted_bug COMMAND ${consumer_work}/build_tree/build/consumer_gemv_bug_lds)
set_tests_properties(hipsim.consumer.installed hipsim.consumer.build_tree PROPERTIES
  PASS_REGULAR_EXPRESSION "\nPASS\n" FAIL_REGULAR_EXPRESSION "finding")
set_tests_properties(hipsim.consumer.build_tree PROPERTIES FIXTURES_SETUP hipsim_consumer_build_tree)
set_tests_properties(hipsim.consumer.finds_planted_bug PROPERTIES FIXTURES_REQUIRED hipsim_consumer_build_tree
  PASS_REGULAR_EXPRESSION "lds_out_of_range in kernel 'gemv_bf16' \\(launch 1\\) block \\(0,0,0\\) thread \\(0,0,0\\) array '[^']*gemv_bf16[^']*::xs' offset 512 size 4 \\(array 512 B\\): write of 4 B at byte offset 512 of a 512 B array \\(outside the block's LDS: dropped\\) at [^\n]*consumer/gemv_bf16.hip:26\n.*FAIL")
add_test(NAME hipsim.consumer.unknown_arch
  COMMAND ${CMAKE_COMMAND} -S ${CMAKE_CURRENT_SOURCE_DIR}/consumer -B ${consumer_work}/unknown_arch -G Ninja
          -DCMAKE_MAKE_PROGRAM=${CMAKE_MAKE_PROGRAM} -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}
          -Ddsv4check_DIR=${CMAKE_BINARY_DIR} -DCONSUMER_ARCH=gfx1100)
set_tests_properties(hipsim.consumer.unknown_arch PROPERTIES PASS_REGULAR_EXPRESSION
  "dsv4check_add_sim_executable\\(consumer_gemv\\):[ \n]+unknown[ \n]+ARCH[ \n]+'gfx1100'[ \n]+\\(known:[ \n]+gfx950,[ \n]+gfx942,[ \n]+gfx90a\\)")
set_tests_properties(hipsim.consumer.installed hipsim.consumer.build_tree hipsim.consumer.finds_planted_bug
  hipsim.consumer.unknown_arch PROPERTIES LABELS "hipsim;cpu" TIMEOUT 300)
