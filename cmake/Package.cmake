# The CMake package: find_package(dsv4check CONFIG) from an install prefix (`cmake --install <build> --component
# dsv4check_sdk --prefix P`, then CMAKE_PREFIX_PATH=P) or from the build tree itself (dsv4check_DIR=<build dir>).
# It provides the imported targets dsv4check::reference, dsv4check::oracle (float64 references, op registry,
# oracle) and, where hipsim is built, dsv4check::kernels, dsv4check::hipsim, dsv4check::hipsim_pass, plus
# dsv4check_add_sim_executable (cmake/HipSim.cmake). Installed layout, under the prefix:
#   include/dsv4check/{reference,oracle,kernels}/...   the headers, as included here ("reference/tensor/tensor.hpp")
#   include/dsv4check/hipsim/include/hip/...          the sim's HIP headers (never on a consumer's plain include path)
#   lib/libdsv4_*.a, lib/dsv4check/hipsim_pass.so      the static libraries and the pass plugin
#   share/dsv4check/chevrons.py, asm_stmts.py          the source rewrite (<<<>>>, extern __shared__, inline asm)
#   lib/cmake/dsv4check/                               config, version, targets, HipSim.cmake
# Everything is in the component dsv4check_sdk, so a consumer's install copies nothing else.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(DSV4_PKG_COMPONENT dsv4check_sdk)
set(DSV4_PKG_INCLUDE_DIR ${CMAKE_INSTALL_INCLUDEDIR}/dsv4check)
set(DSV4_PKG_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/dsv4check)

add_library(dsv4check::reference ALIAS dsv4_reference)
add_library(dsv4check::oracle ALIAS dsv4_oracle)
add_library(dsv4check::kernels ALIAS dsv4_kernels)
set_target_properties(dsv4_reference PROPERTIES EXPORT_NAME reference)
set_target_properties(dsv4_oracle PROPERTIES EXPORT_NAME oracle)
set_target_properties(dsv4_stb PROPERTIES EXPORT_NAME stb)  # $<LINK_ONLY> dependency of the static oracle
set(pkg_targets dsv4_reference dsv4_oracle dsv4_stb)
set(DSV4_PKG_HIPSIM OFF)
if(DSV4_HIPSIM_AVAILABLE)
  set(DSV4_PKG_HIPSIM ON)
  set_target_properties(dsv4_kernels PROPERTIES EXPORT_NAME kernels)
  set_target_properties(dsv4_hipsim PROPERTIES EXPORT_NAME hipsim)
  set_target_properties(hipsim_pass PROPERTIES EXPORT_NAME hipsim_pass)
  list(APPEND pkg_targets dsv4_kernels dsv4_hipsim hipsim_pass)
endif()

install(TARGETS ${pkg_targets} EXPORT dsv4check_targets COMPONENT ${DSV4_PKG_COMPONENT}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/dsv4check
        INCLUDES DESTINATION ${DSV4_PKG_INCLUDE_DIR})

# Headers, keeping the source tree (one rule per folder: no empty folders in the prefix).
set(pkg_header_roots reference oracle)
if(DSV4_PKG_HIPSIM)
  list(APPEND pkg_header_roots kernels)
endif()
foreach(root ${pkg_header_roots})
  file(GLOB_RECURSE hdrs RELATIVE ${PROJECT_SOURCE_DIR} CONFIGURE_DEPENDS
       ${PROJECT_SOURCE_DIR}/${root}/*.hpp ${PROJECT_SOURCE_DIR}/${root}/*.h)
  set(dirs)
  foreach(h ${hdrs})
    get_filename_component(d ${h} DIRECTORY)
    list(APPEND dirs ${d})
    list(APPEND "pkg_hdrs_${d}" ${PROJECT_SOURCE_DIR}/${h})
  endforeach()
  list(REMOVE_DUPLICATES dirs)
  foreach(d ${dirs})
    install(FILES ${pkg_hdrs_${d}} DESTINATION ${DSV4_PKG_INCLUDE_DIR}/${d} COMPONENT ${DSV4_PKG_COMPONENT})
  endforeach()
endforeach()
if(DSV4_PKG_HIPSIM)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/hipsim/include/ DESTINATION ${DSV4_PKG_INCLUDE_DIR}/hipsim/include
          COMPONENT ${DSV4_PKG_COMPONENT})
  install(FILES ${PROJECT_SOURCE_DIR}/hipsim/tools/chevrons.py ${PROJECT_SOURCE_DIR}/hipsim/tools/asm_stmts.py DESTINATION ${CMAKE_INSTALL_DATADIR}/dsv4check
          COMPONENT ${DSV4_PKG_COMPONENT})
endif()
install(FILES ${PROJECT_SOURCE_DIR}/cmake/HipSim.cmake DESTINATION ${DSV4_PKG_CMAKE_DIR} COMPONENT ${DSV4_PKG_COMPONENT})

# Config files: one for the prefix, one for the build tree (same template; paths relative to each).
write_basic_package_version_file(${CMAKE_BINARY_DIR}/dsv4check-config-version.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
set(DSV4_PKG_HIPSIM_INCLUDE ${DSV4_PKG_INCLUDE_DIR}/hipsim/include)
set(DSV4_PKG_CHEVRONS ${CMAKE_INSTALL_DATADIR}/dsv4check/chevrons.py)
set(DSV4_PKG_HIPSIM_CMAKE ${DSV4_PKG_CMAKE_DIR}/HipSim.cmake)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/dsv4check-config.cmake.in
  ${CMAKE_BINARY_DIR}/pkg-install/dsv4check-config.cmake INSTALL_DESTINATION ${DSV4_PKG_CMAKE_DIR}
  PATH_VARS DSV4_PKG_HIPSIM_INCLUDE DSV4_PKG_CHEVRONS DSV4_PKG_HIPSIM_CMAKE NO_CHECK_REQUIRED_COMPONENTS_MACRO)
install(FILES ${CMAKE_BINARY_DIR}/pkg-install/dsv4check-config.cmake ${CMAKE_BINARY_DIR}/dsv4check-config-version.cmake
        DESTINATION ${DSV4_PKG_CMAKE_DIR} COMPONENT ${DSV4_PKG_COMPONENT})
install(EXPORT dsv4check_targets NAMESPACE dsv4check:: FILE dsv4check-targets.cmake DESTINATION ${DSV4_PKG_CMAKE_DIR}
        COMPONENT ${DSV4_PKG_COMPONENT})

set(DSV4_PKG_HIPSIM_INCLUDE ${PROJECT_SOURCE_DIR}/hipsim/include)
set(DSV4_PKG_CHEVRONS ${PROJECT_SOURCE_DIR}/hipsim/tools/chevrons.py)
set(DSV4_PKG_HIPSIM_CMAKE ${PROJECT_SOURCE_DIR}/cmake/HipSim.cmake)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/dsv4check-config.cmake.in
  ${CMAKE_BINARY_DIR}/dsv4check-config.cmake INSTALL_DESTINATION ${CMAKE_BINARY_DIR} INSTALL_PREFIX ${CMAKE_BINARY_DIR}
  PATH_VARS DSV4_PKG_HIPSIM_INCLUDE DSV4_PKG_CHEVRONS DSV4_PKG_HIPSIM_CMAKE NO_CHECK_REQUIRED_COMPONENTS_MACRO)
export(EXPORT dsv4check_targets NAMESPACE dsv4check:: FILE ${CMAKE_BINARY_DIR}/dsv4check-targets.cmake)
