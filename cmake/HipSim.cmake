# dsv4check_add_sim_executable(<name> SOURCES <.hip/.cu/.cpp files> [DEFINES ...] [INCLUDES ...] [LIBRARIES ...]
#                              [ARCH gfx950|gfx942])
# Builds unmodified HIP files into a host executable whose kernels run on the sim with every check (hipsim/). Each
# source goes through hipsim/tools/chevrons.py (<<<>>>, extern __shared__ and inline asm, lines kept), then clang++-22
# as host C++20 with the sim's HIP headers first on the include path, -D__<arch>__ -D__HIP_PLATFORM_AMD__, and the
# hipsim pass plugin; the objects link against dsv4_hipsim. ARCH (default gfx950) picks the arch profile the kernels
# run on.
set(DSV4_HIPSIM_ARCHES gfx950 gfx942)
set(DSV4_HIPSIM_DIR ${CMAKE_CURRENT_LIST_DIR}/../hipsim)

function(dsv4check_add_sim_executable name)
  cmake_parse_arguments(A "" "ARCH" "SOURCES;DEFINES;INCLUDES;LIBRARIES" ${ARGN})
  if(NOT DSV4_HIPSIM_AVAILABLE)
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
  get_filename_component(hipsim_dir ${DSV4_HIPSIM_DIR} ABSOLUTE)
  set(flags -x c++ -std=c++20 -O1 -g -fno-threadsafe-statics -Wno-unknown-pragmas -Wno-unused-command-line-argument
      -fpass-plugin=$<TARGET_FILE:hipsim_pass> -I${hipsim_dir}/include -I${PROJECT_SOURCE_DIR}
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
  foreach(src ${A_SOURCES})
    get_filename_component(abs ${src} ABSOLUTE)
    get_filename_component(base ${src} NAME)
    set(rewritten ${work}/${base}.cpp)
    set(obj ${work}/${base}.o)
    add_custom_command(OUTPUT ${rewritten}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${work}
      COMMAND ${DSV4_HIPSIM_PYTHON} ${hipsim_dir}/tools/chevrons.py ${abs} ${rewritten}
      DEPENDS ${abs} ${hipsim_dir}/tools/chevrons.py ${hipsim_dir}/tools/asm_stmts.py VERBATIM)
    add_custom_command(OUTPUT ${obj}
      COMMAND ${DSV4_CLANGXX22} ${flags} -MD -MF ${obj}.d -c ${rewritten} -o ${obj}
      DEPENDS ${rewritten} hipsim_pass DEPFILE ${obj}.d
      COMMENT "hipsim: compiling ${src} for the sim (${A_ARCH})" VERBATIM COMMAND_EXPAND_LISTS)
    list(APPEND objs ${obj})
  endforeach()
  add_executable(${name} ${objs})
  set_target_properties(${name} PROPERTIES LINKER_LANGUAGE CXX)
  target_link_libraries(${name} PRIVATE dsv4_hipsim ${A_LIBRARIES})
endfunction()
