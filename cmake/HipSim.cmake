# dsv4check_add_sim_executable(<name> SOURCES <.hip/.cu/.cpp files> [DEFINES ...] [INCLUDES ...] [LIBRARIES ...]
#                              [ARCH gfx950|gfx942|gfx90a])
# Builds unmodified HIP files into a host executable whose kernels run on the sim with every check (hipsim/). Each
# source goes through hipsim/tools/chevrons.py (<<<>>>, extern __shared__ and inline asm, lines kept), then clang++-22 as host
# C++20 with the sim's HIP headers first on the include path (and the source's own folder for #include "..."
# of its neighbours: the rewritten copy lives in the build tree), -D__<arch>__ -D__HIP_PLATFORM_AMD__, the include
# directories of the executable (its LIBRARIES' usage requirements: dsv4check::reference gives "reference/...")
# and the hipsim pass plugin; the objects link against dsv4check::hipsim. ARCH (default gfx950) picks the arch
# profile the kernels run on.
#
# Used in this tree (included from the top CMakeLists.txt after hipsim/) and from the CMake package
# (dsv4check-config.cmake), which sets these before including this file:
#   DSV4_HIPSIM_INCLUDE_DIR  the sim's hip/hip_runtime.h, hip_bf16.h, hip_fp16.h
#   DSV4_HIPSIM_CHEVRONS     hipsim/tools/chevrons.py (asm_stmts.py, which it imports, lies beside it)
#   DSV4_CLANGXX22, DSV4_HIPSIM_PYTHON, DSV4_HIPSIM_AVAILABLE
# and the targets dsv4check::hipsim (runtime) and dsv4check::hipsim_pass (the plugin module).
set(DSV4_HIPSIM_ARCHES gfx950 gfx942 gfx90a)
if(NOT DEFINED DSV4_HIPSIM_INCLUDE_DIR)
  get_filename_component(DSV4_HIPSIM_INCLUDE_DIR ${CMAKE_CURRENT_LIST_DIR}/../hipsim/include ABSOLUTE)
  get_filename_component(DSV4_HIPSIM_CHEVRONS ${CMAKE_CURRENT_LIST_DIR}/../hipsim/tools/chevrons.py ABSOLUTE)
endif()

# Include directories clang++-22 must not get as -I: the compiler's own (a -I/usr/include breaks libstdc++'s
# #include_next), as a regex for $<FILTER>.
set(_dsv4_hipsim_implicit_dirs /usr/include /usr/local/include ${CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES})
set(DSV4_HIPSIM_IMPLICIT_INCLUDE_REGEX "")
foreach(d ${_dsv4_hipsim_implicit_dirs})
  string(REGEX REPLACE "([][+.*()^$?|\\\\])" "\\\\\\1" d "${d}")
  string(APPEND DSV4_HIPSIM_IMPLICIT_INCLUDE_REGEX "|${d}")
endforeach()
string(SUBSTRING "${DSV4_HIPSIM_IMPLICIT_INCLUDE_REGEX}" 1 -1 DSV4_HIPSIM_IMPLICIT_INCLUDE_REGEX)
set(DSV4_HIPSIM_IMPLICIT_INCLUDE_REGEX "^(${DSV4_HIPSIM_IMPLICIT_INCLUDE_REGEX})/?$")

function(dsv4check_add_sim_executable name)
  cmake_parse_arguments(A "" "ARCH" "SOURCES;DEFINES;INCLUDES;LIBRARIES" ${ARGN})
  if(NOT DSV4_HIPSIM_AVAILABLE OR NOT TARGET dsv4check::hipsim OR NOT TARGET dsv4check::hipsim_pass)
    message(FATAL_ERROR "dsv4check_add_sim_executable(${name}): hipsim is not available in this build (sim backend, clang++-22, llvm-22-dev)")
  endif()
  if(NOT A_ARCH)
    set(A_ARCH gfx950)
  endif()
  if(NOT A_ARCH IN_LIST DSV4_HIPSIM_ARCHES)
    string(REPLACE ";" ", " known "${DSV4_HIPSIM_ARCHES}")
    message(FATAL_ERROR "dsv4check_add_sim_executable(${name}): unknown ARCH '${A_ARCH}' (known: ${known})")
  endif()
  if(NOT A_SOURCES)
    message(FATAL_ERROR "dsv4check_add_sim_executable(${name}): no SOURCES")
  endif()
  set(target_incs "$<REMOVE_DUPLICATES:$<FILTER:$<TARGET_PROPERTY:${name},INCLUDE_DIRECTORIES>,EXCLUDE,${DSV4_HIPSIM_IMPLICIT_INCLUDE_REGEX}>>")
  set(flags -x c++ -std=c++20 -O1 -g -fno-threadsafe-statics -Wno-unknown-pragmas -Wno-unused-command-line-argument -Wno-psabi
      -fpass-plugin=$<TARGET_FILE:dsv4check::hipsim_pass> -I${DSV4_HIPSIM_INCLUDE_DIR}
      "$<$<BOOL:${target_incs}>:-I$<JOIN:${target_incs},$<SEMICOLON>-I>>"
      -D__${A_ARCH}__ -D__HIP_PLATFORM_AMD__=1 "-DDSV4_HIPSIM_ARCH=\"${A_ARCH}\"")
  foreach(d ${A_DEFINES})
    list(APPEND flags -D${d})
  endforeach()
  foreach(i ${A_INCLUDES})
    get_filename_component(i ${i} ABSOLUTE)
    list(APPEND flags -I${i})
  endforeach()
  set(objs)
  set(work ${CMAKE_CURRENT_BINARY_DIR}/hipsim/${name})
  get_filename_component(rewrite_tools ${DSV4_HIPSIM_CHEVRONS} DIRECTORY)  # chevrons.py and the asm_stmts.py it imports
  foreach(src ${A_SOURCES})
    get_filename_component(abs ${src} ABSOLUTE)
    get_filename_component(base ${src} NAME)
    get_filename_component(src_dir ${abs} DIRECTORY)
    set(rewritten ${work}/${base}.cpp)
    set(obj ${work}/${base}.o)
    add_custom_command(OUTPUT ${rewritten}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${work}
      COMMAND ${DSV4_HIPSIM_PYTHON} ${DSV4_HIPSIM_CHEVRONS} ${abs} ${rewritten}
      DEPENDS ${abs} ${DSV4_HIPSIM_CHEVRONS} ${rewrite_tools}/asm_stmts.py VERBATIM)
    add_custom_command(OUTPUT ${obj}
      COMMAND ${DSV4_CLANGXX22} ${flags} -iquote ${src_dir} -MD -MF ${obj}.d -c ${rewritten} -o ${obj}
      DEPENDS ${rewritten} $<TARGET_FILE:dsv4check::hipsim_pass> DEPFILE ${obj}.d
      COMMENT "hipsim: compiling ${src} for the sim (${A_ARCH})" VERBATIM COMMAND_EXPAND_LISTS)
    list(APPEND objs ${obj})
  endforeach()
  add_executable(${name} ${objs})
  set_target_properties(${name} PROPERTIES LINKER_LANGUAGE CXX)
  target_link_libraries(${name} PRIVATE dsv4check::hipsim ${A_LIBRARIES})
  get_target_property(pass_target dsv4check::hipsim_pass ALIASED_TARGET)
  if(pass_target)  # in this tree: build the plugin before compiling (any generator)
    add_dependencies(${name} ${pass_target})
  endif()
endfunction()
