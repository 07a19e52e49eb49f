// hip backend, kernel side: the real HIP headers already define every HIP name kernels use; only the layer's LDS
// macros are added. Compiled by hipcc/clang with --offload-arch=gfx942,gfx950 (no toolchain in this container).
#pragma once

#include <hip/hip_runtime.h>

#include <cstddef>
#include <cstdint>

namespace dsv4::port {
template <class T>
using lds_ptr = T*;
}

#define DSV4_LDS(T, name, N) __shared__ __attribute__((aligned(16))) T name[N]
#define DSV4_LDS_DYNAMIC(T, name)                                                   \
  extern __shared__ __attribute__((aligned(16))) unsigned char dsv4_dynamic_lds[]; \
  T* const name = reinterpret_cast<T*>(dsv4_dynamic_lds)
