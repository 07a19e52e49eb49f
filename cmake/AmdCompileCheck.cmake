# AMD compile check (issues 11, 31): compiles every kernel translation unit (kernels/**/*.kernel.cpp, the convention
# of kernels/port/README.md, and whatever TUs a test folder hands to dsv4_amd_device_objects, e.g. tests/hipsim) to a
# device-only AMDGPU code object per arch with Debian's clang-22, the HIP 5.2 headers and rocm-device-libs 5.2, with
# the HIP branch of kernels/port/hip_port.hpp (DSV4_BACKEND_HIP). Each object comes with its notes (LDS, VGPRs, SGPRs,
# scratch, spills) that `dsv4check kernels` checks against per-arch budgets.
#
# clang-22 with the 5.2 headers and libraries needs three adjustments, each probed here rather than assumed:
# __AMDGCN_WAVEFRONT_SIZE (the headers use it, clang >= 20 no longer defines it) is defined as 64 (all CDNA archs
# are wave64); hip.bc (__atomic_work_item_fence, used by __syncthreads/__threadfence) is linked when clang does not
# link it itself; code object v5 is asked for (clang-22's default v6 wants oclc_abi_version_600.bc, ROCm >= 6.3).
# Debian's device libraries stop at gfx90a/gfx940: the ISA-version bitcode of a newer target (gfx942: 9402, gfx950:
# 9500) is made at build time from oclc_isa_version_90a.bc in a build-tree device-lib folder that links every
# shipped library. An arch the compiler does not know is not built; its ctest reports Skipped with the reason.
#
# Provides: DSV4_AMD_COMPILE_CHECK (AUTO/ON/OFF), DSV4_AMD_ENABLED, DSV4_AMD_ARCHS (built), DSV4_AMD_SKIPPED_ARCHS + _REASON_<arch>,
#           DSV4_AMD_SKIP_REASON (why the whole check is OFF), dsv4_amd_device_objects(<target> OUTPUT_DIR <dir>
#           SOURCES <tu>... [ALL] [FLAGS <flag>...]), target dsv4_amd_objects (kernels/ objects in
#           DSV4_AMD_OBJECTS_DIR/<arch>). The budget ctests are in tests/kernels/amd/.
set(DSV4_AMD_WANTED_ARCHS gfx90a gfx942 gfx950 CACHE STRING "AMD archs the compile check builds for")
set(DSV4_AMD_LLVM_VERSION 22 CACHE STRING "LLVM major version of the AMD compile check's clang, lld and llvm tools")
set(_v ${DSV4_AMD_LLVM_VERSION})

# A tool found for another LLVM version (an older build folder) is looked up again.
foreach(pair "DSV4_AMD_CLANGXX;clang++" "DSV4_AMD_LLD;ld.lld" "DSV4_AMD_LLVM_DIS;llvm-dis" "DSV4_AMD_LLVM_AS;llvm-as"
             "DSV4_AMD_READELF;llvm-readelf")
  list(GET pair 0 var)
  list(GET pair 1 tool)
  if(${var})
    get_filename_component(found_name "${${var}}" NAME)
    if(NOT found_name STREQUAL "${tool}-${_v}")
      unset(${var} CACHE)
    endif()
  endif()
  find_program(${var} NAMES ${tool}-${_v})
endforeach()
find_path(DSV4_AMD_SYSTEM_DEVICE_LIBS oclc_isa_version_90a.bc
          PATHS /usr/lib/x86_64-linux-gnu/amdgcn/bitcode /usr/lib/amdgcn/bitcode NO_DEFAULT_PATH)
find_path(DSV4_AMD_HIP_INCLUDE hip/hip_runtime.h)

set(_amd_missing "")
foreach(v DSV4_AMD_CLANGXX DSV4_AMD_LLD DSV4_AMD_LLVM_DIS DSV4_AMD_LLVM_AS DSV4_AMD_READELF
          DSV4_AMD_SYSTEM_DEVICE_LIBS DSV4_AMD_HIP_INCLUDE)
  if(NOT ${v})
    list(APPEND _amd_missing ${v})
  endif()
endforeach()
# AUTO (default): ON exactly when the toolchain is found; re-evaluated at every configure, so installing the
# packages later (tools/scripts/deps.sh --with-amd) turns the check on in an existing build folder.
set(DSV4_AMD_COMPILE_CHECK AUTO CACHE STRING
    "Compile every kernel for AMD targets and check LDS/register budgets: ON, OFF or AUTO (ON when found)")
set_property(CACHE DSV4_AMD_COMPILE_CHECK PROPERTY STRINGS AUTO ON OFF)
if(DSV4_AMD_COMPILE_CHECK STREQUAL "AUTO")
  if(_amd_missing)
    set(DSV4_AMD_ENABLED OFF)
  else()
    set(DSV4_AMD_ENABLED ON)
  endif()
elseif(DSV4_AMD_COMPILE_CHECK)
  set(DSV4_AMD_ENABLED ON)
else()
  set(DSV4_AMD_ENABLED OFF)
endif()

if(NOT DSV4_AMD_ENABLED)
  if(_amd_missing)
    string(REPLACE ";" ", " _amd_missing_text "${_amd_missing}")
    string(CONCAT DSV4_AMD_SKIP_REASON "not found: ${_amd_missing_text}; `tools/scripts/deps.sh --with-amd` installs "
                  "clang-${_v}, lld-${_v}, llvm-${_v}, rocm-device-libs, libamdhip64-dev")
  else()
    set(DSV4_AMD_SKIP_REASON "DSV4_AMD_COMPILE_CHECK=${DSV4_AMD_COMPILE_CHECK}")
  endif()
  message(STATUS "AMD compile check: OFF (${DSV4_AMD_SKIP_REASON})")
  function(dsv4_amd_device_objects)
  endfunction()
  function(dsv4_amd_plain_hip_kernels name)
    add_test(NAME amd.${name} COMMAND sh -c "echo \"$1\"; exit 77" sh
             "SKIPPED amd.${name}: the AMD compile check is OFF (${DSV4_AMD_SKIP_REASON})")
    set_tests_properties(amd.${name} PROPERTIES LABELS "cpu;amd" SKIP_RETURN_CODE 77)
  endfunction()
  return()
endif()
if(_amd_missing)
  message(FATAL_ERROR "DSV4_AMD_COMPILE_CHECK=ON but not found: ${_amd_missing}. Run `tools/scripts/deps.sh "
                      "--with-amd` (or configure with -DDSV4_AMD_COMPILE_CHECK=OFF or AUTO).")
endif()

set(DSV4_AMD_DIR ${CMAKE_BINARY_DIR}/amd)
set(DSV4_AMD_DEVICE_LIBS ${DSV4_AMD_DIR}/device-libs)
set(DSV4_AMD_SCRIPTS ${PROJECT_SOURCE_DIR}/tools/scripts/amd)

# "gfx942" -> ISA version 9402 (major, minor, stepping; a letter stepping is hex: gfx90a -> 9010).
function(_dsv4_amd_isa_version arch out_var)
  string(REGEX MATCH "^gfx([0-9])([0-9a-f])([0-9a-f])$" m "${arch}")
  if(NOT m)
    message(FATAL_ERROR "AMD compile check: cannot read the ISA version of '${arch}'")
  endif()
  math(EXPR v "${CMAKE_MATCH_1} * 1000 + 0x${CMAKE_MATCH_2} * 100 + 0x${CMAKE_MATCH_3}")
  set(${out_var} ${v} PARENT_SCOPE)
endfunction()

# Build-tree device-lib folder: a link to every shipped bitcode library (made now), plus generated ones (at build).
file(MAKE_DIRECTORY ${DSV4_AMD_DEVICE_LIBS})
file(GLOB _amd_shipped_bc ${DSV4_AMD_SYSTEM_DEVICE_LIBS}/*.bc)
foreach(bc ${_amd_shipped_bc})
  get_filename_component(n ${bc} NAME)
  file(CREATE_LINK ${bc} ${DSV4_AMD_DEVICE_LIBS}/${n} SYMBOLIC)
endforeach()

# The adjustments of the header comment, each only when the probe says this clang needs it.
set(DSV4_AMD_COMPAT_FLAGS -mcode-object-version=5)
execute_process(COMMAND ${DSV4_AMD_CLANGXX} -x hip --offload-arch=gfx90a --offload-device-only -nogpuinc -nogpulib
                        -dM -E /dev/null
                OUTPUT_VARIABLE _amd_macros ERROR_QUIET)
if(NOT _amd_macros MATCHES "#define __AMDGCN_WAVEFRONT_SIZE ")
  list(APPEND DSV4_AMD_COMPAT_FLAGS -D__AMDGCN_WAVEFRONT_SIZE=64)
endif()
execute_process(COMMAND ${DSV4_AMD_CLANGXX} -### -x hip --offload-arch=gfx90a --offload-device-only
                        --rocm-path=/usr --rocm-device-lib-path=${DSV4_AMD_DEVICE_LIBS} -mcode-object-version=5
                        -c /dev/null -o /dev/null
                OUTPUT_VARIABLE _amd_driver ERROR_VARIABLE _amd_driver)
if(NOT _amd_driver MATCHES "/hip\\.bc")
  list(APPEND DSV4_AMD_COMPAT_FLAGS -Xclang -mlink-builtin-bitcode -Xclang ${DSV4_AMD_DEVICE_LIBS}/hip.bc)
endif()

set(DSV4_AMD_ARCHS "")
set(DSV4_AMD_SKIPPED_ARCHS "")
set(_amd_generated_bc "")
foreach(arch ${DSV4_AMD_WANTED_ARCHS})
  # Does the compiler know the arch? (clang-19 does not know gfx950.)
  execute_process(COMMAND ${DSV4_AMD_CLANGXX} -x hip --offload-arch=${arch} --offload-device-only -nogpuinc
                          -nogpulib -fsyntax-only /dev/null
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REGEX REPLACE "[;\n].*" "" err "${err}")
    list(APPEND DSV4_AMD_SKIPPED_ARCHS ${arch})
    set(DSV4_AMD_SKIPPED_REASON_${arch}
        "${DSV4_AMD_CLANGXX} does not know ${arch} (${err}); set DSV4_AMD_LLVM_VERSION to an LLVM that does")
    message(STATUS "AMD compile check: ${arch} SKIPPED: ${DSV4_AMD_SKIPPED_REASON_${arch}}")
    continue()
  endif()
  string(SUBSTRING ${arch} 3 -1 isa_suffix)
  if(NOT EXISTS ${DSV4_AMD_SYSTEM_DEVICE_LIBS}/oclc_isa_version_${isa_suffix}.bc)
    _dsv4_amd_isa_version(${arch} isa_version)
    set(out ${DSV4_AMD_DEVICE_LIBS}/oclc_isa_version_${isa_suffix}.bc)
    if(IS_SYMLINK ${out})  # a stale link (from a device-lib package that had it) must not shadow the generated file
      file(REMOVE ${out})
    endif()
    add_custom_command(OUTPUT ${out}
      COMMAND ${DSV4_AMD_SCRIPTS}/make-isa-bitcode.sh ${DSV4_AMD_LLVM_DIS} ${DSV4_AMD_LLVM_AS}
              ${DSV4_AMD_SYSTEM_DEVICE_LIBS}/oclc_isa_version_90a.bc ${isa_version} ${out}
      DEPENDS ${DSV4_AMD_SCRIPTS}/make-isa-bitcode.sh
      COMMENT "AMD device libs: oclc_isa_version_${isa_suffix}.bc (ISA version ${isa_version})" VERBATIM)
    list(APPEND _amd_generated_bc ${out})
  endif()
  list(APPEND DSV4_AMD_ARCHS ${arch})
endforeach()
add_custom_target(dsv4_amd_device_libs DEPENDS ${_amd_generated_bc})
message(STATUS "AMD compile check: ON, archs ${DSV4_AMD_ARCHS} (${DSV4_AMD_CLANGXX})")

# dsv4_amd_device_objects(<target> OUTPUT_DIR <dir> SOURCES <tu>... [ALL] [FLAGS <clang flag>...]):
# <dir>/<arch>/<name>.{co,notes.txt,remarks.txt} for every built arch, <name> = the TU path below the source root
# with '/' -> '__' and without ".kernel.cpp"/".cpp". Any folder may call it for its own kernel TUs (a plain-HIP
# test kernel passes FLAGS with its include folders); `dsv4check kernels --objects <dir>/<arch>` then checks them.
function(dsv4_amd_device_objects target)
  cmake_parse_arguments(A "ALL" "OUTPUT_DIR" "SOURCES;FLAGS" ${ARGN})
  set(outputs "")
  foreach(src ${A_SOURCES})
    get_filename_component(src ${src} ABSOLUTE)
    file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${src})
    string(REGEX REPLACE "(\\.kernel)?\\.cpp$" "" stem "${rel}")
    string(REPLACE "/" "__" stem "${stem}")
    foreach(arch ${DSV4_AMD_ARCHS})
      set(prefix ${A_OUTPUT_DIR}/${arch}/${stem})
      add_custom_command(OUTPUT ${prefix}.co ${prefix}.notes.txt ${prefix}.remarks.txt
        COMMAND ${DSV4_AMD_SCRIPTS}/compile-device.sh ${DSV4_AMD_CLANGXX} ${DSV4_AMD_READELF} ${arch}
                ${DSV4_AMD_DEVICE_LIBS} ${src} ${prefix} -I${PROJECT_SOURCE_DIR} ${DSV4_AMD_COMPAT_FLAGS} ${A_FLAGS}
        DEPENDS ${src} ${DSV4_AMD_SCRIPTS}/compile-device.sh dsv4_amd_device_libs
        DEPFILE ${prefix}.d
        COMMENT "AMD ${arch}: ${rel}" VERBATIM)
      list(APPEND outputs ${prefix}.co)
      list(APPEND stems_${arch} ${stem})
    endforeach()
  endforeach()
  # MANIFEST.txt per arch: the objects that must exist, so `dsv4check kernels` notices one that was not built.
  foreach(arch ${DSV4_AMD_ARCHS})
    list(JOIN stems_${arch} "\n" lines)
    file(MAKE_DIRECTORY ${A_OUTPUT_DIR}/${arch})
    file(CONFIGURE OUTPUT ${A_OUTPUT_DIR}/${arch}/MANIFEST.txt CONTENT "${lines}\n")
  endforeach()
  if(A_ALL)
    add_custom_target(${target} ALL DEPENDS ${outputs})
  else()
    add_custom_target(${target} DEPENDS ${outputs})
  endif()
endfunction()

# dsv4_amd_plain_hip_kernels(<name> SOURCES <tu>... [FLAGS <flag>...]): plain-HIP kernel TUs (they include
# <hip/hip_runtime.h> and <hip/hip_bf16.h> themselves, not kernels/port/hip_port.hpp; e.g. tests/hipsim) compiled for
# every built arch into <current binary dir>/amd/<name>/<arch> (target dsv4_amd_<name>, part of `all`), and one
# ctest amd.<name>.<arch> per arch that checks their budgets with `dsv4check kernels --no-plans` (a plain kernel has
# no host plan, so its dynamic LDS counts as 0). HIP 5.2 has no
# <hip/hip_bf16.h>: kernels/backend/hip/compat/ is searched after every other include folder (-idirafter), so a
# real one (ROCm >= 5.7) wins and the compatibility header is used only where none exists. HIP 5.2's <hip/hip_fp16.h>
# needs two declarations under clang-22's HIP wrapper: compat/hip_fp16_clang_wrapper.h, force-included.
set(DSV4_AMD_PLAIN_HIP_FLAGS -idirafter ${PROJECT_SOURCE_DIR}/kernels/backend/hip/compat
    -include ${PROJECT_SOURCE_DIR}/kernels/backend/hip/compat/hip_fp16_clang_wrapper.h)
function(dsv4_amd_plain_hip_kernels name)
  cmake_parse_arguments(A "" "" "SOURCES;FLAGS" ${ARGN})
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/amd/${name})
  dsv4_amd_device_objects(dsv4_amd_${name} ALL OUTPUT_DIR ${dir} SOURCES ${A_SOURCES}
                          FLAGS ${DSV4_AMD_PLAIN_HIP_FLAGS} ${A_FLAGS})
  foreach(arch ${DSV4_AMD_ARCHS})
    add_test(NAME amd.${name}.${arch} COMMAND dsv4check kernels --arch ${arch} --objects ${dir}/${arch} --no-plans)
    set_tests_properties(amd.${name}.${arch} PROPERTIES LABELS "cpu;amd" TIMEOUT 60)
  endforeach()
  foreach(arch ${DSV4_AMD_SKIPPED_ARCHS})
    add_test(NAME amd.${name}.${arch} COMMAND sh -c "echo \"$1\"; exit 77" sh
             "SKIPPED amd.${name}.${arch}: ${DSV4_AMD_SKIPPED_REASON_${arch}}")
    set_tests_properties(amd.${name}.${arch} PROPERTIES LABELS "cpu;amd" SKIP_RETURN_CODE 77)
  endforeach()
endfunction()

# Every kernel TU of kernels/. Re-globbed at configure time; a new *.kernel.cpp needs a re-configure (any CMakeLists
# change or `cmake .` does it; CONFIGURE_DEPENDS makes Ninja re-check the glob on each build).
file(GLOB_RECURSE DSV4_AMD_KERNEL_TUS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/kernels/*.kernel.cpp)
# kernels/nvidia/ holds no AMD kernel (the sm_90 path, built for cuda and sim only), so no code object to check.
list(FILTER DSV4_AMD_KERNEL_TUS EXCLUDE REGEX "/kernels/nvidia/")
set(DSV4_AMD_OBJECTS_DIR ${DSV4_AMD_DIR}/objects)
dsv4_amd_device_objects(dsv4_amd_objects ALL OUTPUT_DIR ${DSV4_AMD_OBJECTS_DIR} SOURCES ${DSV4_AMD_KERNEL_TUS})
if(TARGET dsv4check)
  target_compile_definitions(dsv4check PRIVATE DSV4_AMD_OBJECTS_DIR="${DSV4_AMD_OBJECTS_DIR}")
endif()
