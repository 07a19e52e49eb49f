# Compiler warnings and the helper that makes one static library out of a source folder.
function(dsv4_warnings target)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unused-parameter>)
  endif()
endfunction()

# dsv4_folder_library(<target> <folder>): every .cpp below <folder> (recursively, re-globbed at build time),
# public include root = the repository root, so includes read "reference/formats/codec.hpp" (installed: the package's
# include/dsv4check, cmake/Package.cmake).
function(dsv4_folder_library target folder)
  file(GLOB_RECURSE srcs CONFIGURE_DEPENDS ${folder}/*.cpp)
  if(NOT srcs)  # a folder whose sources have not landed yet still yields a linkable library
    set(srcs ${CMAKE_CURRENT_BINARY_DIR}/${target}_empty.cpp)
    file(WRITE ${srcs} "// placeholder: ${folder} has no sources yet\n")
  endif()
  add_library(${target} STATIC ${srcs})
  target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>)
  dsv4_warnings(${target})
endfunction()
