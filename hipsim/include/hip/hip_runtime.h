// The sim's <hip/hip_runtime.h>: what HIP's device and host names mean when an unmodified .hip/.cu file is compiled
// by clang++-22 as host C++ with the hipsim pass plugin (cmake/HipSim.cmake) and linked against hipsim/runtime.
// Kernels run as fibers on the sim executor (kernels/backend/sim); every LDS and global access is checked there.
// `__shared__` puts a variable into section dsv4_lds, which the pass relocates into each block's LDS; `__global__`
// functions are never inlined, so launches call them as functions of their own.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <source_location>
#include <tuple>
#include <type_traits>
#include <utility>

#include "hipsim/abi.h"

#define __HIPSIM__ 1
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#define __HIP__ 1
#define __global__ __attribute__((noinline))
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __launch_bounds__(...)
#define __constant__
#define __shared__ __attribute__((section("dsv4_lds"))) static
#define __hipsim_dynamic_shared __attribute__((section("dsv4_lds_dyn")))
#define HIP_DYNAMIC_SHARED(type, var) extern __hipsim_dynamic_shared type var[];
#define HIP_KERNEL_NAME(...) __VA_ARGS__
#ifndef __HIP_MEMORY_SCOPE_WAVEFRONT
#define __HIP_MEMORY_SCOPE_SINGLETHREAD 1
#define __HIP_MEMORY_SCOPE_WAVEFRONT 2
#define __HIP_MEMORY_SCOPE_WORKGROUP 3
#define __HIP_MEMORY_SCOPE_AGENT 4
#define __HIP_MEMORY_SCOPE_SYSTEM 5
#endif

#ifdef DSV4_HIPSIM_ARCH
// The arch profile the executable runs on (cmake ARCH): read by the runtime at its first call.
extern "C" __attribute__((weak)) const char __hipsim_arch[] = DSV4_HIPSIM_ARCH;
#endif

#include "hipsim/vector_types.h"

// ---- coordinates ----
struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
  constexpr dim3(__hipsim_uint3 u) : x(u.x), y(u.y), z(u.z) {}
  constexpr operator __hipsim_uint3() const { return {x, y, z}; }
};
#define threadIdx (__hipsim_coord(0))
#define blockIdx (__hipsim_coord(1))
#define blockDim (__hipsim_coord(2))
#define gridDim (__hipsim_coord(3))
static constexpr int warpSize = 64;  // every CDNA profile

inline void __syncthreads(std::source_location loc = std::source_location::current()) { __hipsim_syncthreads(&loc); }
inline void __threadfence() { __hipsim_fence(); }
inline void __threadfence_block() { __hipsim_fence(); }
inline void __threadfence_system() { __hipsim_fence(); }
inline int __lane_id() { return __hipsim_lane(); }

// ---- wave operations (all lanes of the wave meet; a lane that skips one is a wave_divergence finding) ----
namespace hipsim_detail {
enum WaveOp { shfl, shfl_xor, shfl_up, shfl_down, ballot, any, all };  // = port::sim::detail::WaveOp
template <class T>
inline T exchange(int op, T v, int src, const std::source_location& loc) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 16, "__shfl of a type over 16 bytes");
  T out;
  __hipsim_wave_exchange(op, &v, sizeof(T), src, &out, &loc);
  return out;
}
inline int lane_base(int width) { return __hipsim_lane() & ~(width - 1); }
}  // namespace hipsim_detail

// Source lanes follow HIP: a source outside the caller's width-segment reads the caller's own value.
template <class T>
T __shfl(T v, int src_lane, int width = warpSize, std::source_location loc = std::source_location::current()) {
  return hipsim_detail::exchange(hipsim_detail::shfl, v, hipsim_detail::lane_base(width) + (src_lane & (width - 1)), loc);
}
template <class T>
T __shfl_xor(T v, int lane_mask, int width = warpSize, std::source_location loc = std::source_location::current()) {
  const int self = __hipsim_lane(), base = hipsim_detail::lane_base(width);
  int src = self ^ lane_mask;
  if (src < base || src >= base + width) src = self;
  return hipsim_detail::exchange(hipsim_detail::shfl_xor, v, src, loc);
}
template <class T>
T __shfl_down(T v, unsigned delta, int width = warpSize, std::source_location loc = std::source_location::current()) {
  const int self = __hipsim_lane();
  const int src = (self & (width - 1)) + int(delta) >= width ? self : self + int(delta);
  return hipsim_detail::exchange(hipsim_detail::shfl_down, v, src, loc);
}
template <class T>
T __shfl_up(T v, unsigned delta, int width = warpSize, std::source_location loc = std::source_location::current()) {
  const int self = __hipsim_lane();
  const int src = self - int(delta) < hipsim_detail::lane_base(width) ? self : self - int(delta);
  return hipsim_detail::exchange(hipsim_detail::shfl_up, v, src, loc);
}
inline unsigned long long __ballot(int pred, std::source_location loc = std::source_location::current()) {
  return __hipsim_wave_vote(hipsim_detail::ballot, pred, &loc);
}
inline int __any(int pred, std::source_location loc = std::source_location::current()) {
  return __hipsim_wave_vote(hipsim_detail::any, pred, &loc) != 0;
}
inline int __all(int pred, std::source_location loc = std::source_location::current()) {
  return __hipsim_wave_vote(hipsim_detail::all, pred, &loc) != 0;
}

// ---- atomics (the pass sees them as atomic accesses: no race findings among atomics) ----
template <class T> inline T atomicAdd(T* p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
template <class T> inline T atomicSub(T* p, T v) { return __atomic_fetch_sub(p, v, __ATOMIC_RELAXED); }
template <class T> inline T atomicExch(T* p, T v) { return __atomic_exchange_n(p, v, __ATOMIC_RELAXED); }
template <class T> inline T atomicMax(T* p, T v) { return __atomic_fetch_max(p, v, __ATOMIC_RELAXED); }
template <class T> inline T atomicMin(T* p, T v) { return __atomic_fetch_min(p, v, __ATOMIC_RELAXED); }
template <class T> inline T atomicAnd(T* p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_RELAXED); }
template <class T> inline T atomicOr(T* p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_RELAXED); }
template <class T> inline T atomicCAS(T* p, T expected, T desired) {
  __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return expected;
}

#include "hipsim/host_api.h"
#include "hipsim/unsupported.h"  // user code only: the runtime does not include it
#include "hipsim/launch.h"
#include "hipsim/amdgcn_lane.h"
#include "hipsim/amdgcn_dpp.h"
#include "hipsim/bf16_libcall.h"
#include "hipsim/amdgcn_mfma.h"
#include "hipsim/amdgcn_mem.h"
#include "hipsim/amdgcn_asm.h"
#include "hipsim/amdgcn_dot.h"
