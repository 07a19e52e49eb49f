// cuda backend, kernel side: nvcc compiles kernel files as CUDA; the HIP names in use are mapped here to CUDA
// (Debian's HIP nvidia_detail headers do not build with CUDA 13, so they are not used). Wave size 32.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace dsv4::port {
template <class T>
using lds_ptr = T*;
}

#define DSV4_LDS(T, name, N) __shared__ __align__(16) T name[N]
#define DSV4_LDS_DYNAMIC(T, name)                                   \
  extern __shared__ __align__(16) unsigned char dsv4_dynamic_lds[]; \
  T* const name = reinterpret_cast<T*>(dsv4_dynamic_lds)

// CUDA still declares the pre-Volta __shfl/__ballot/__any/__all (deprecated, unusable on sm_90), so the HIP names
// are macros onto the layer's own functions. CUDA headers that declare those names are included first.
namespace dsv4::port::cuda_detail {
inline constexpr unsigned kFullMask = 0xffffffffu;
template <class T>
__device__ __forceinline__ T shfl(T v, int src_lane, int width = warpSize) {
  return __shfl_sync(kFullMask, v, src_lane, width);
}
template <class T>
__device__ __forceinline__ T shfl_xor(T v, int lane_mask, int width = warpSize) {
  return __shfl_xor_sync(kFullMask, v, lane_mask, width);
}
template <class T>
__device__ __forceinline__ T shfl_down(T v, unsigned delta, int width = warpSize) {
  return __shfl_down_sync(kFullMask, v, delta, width);
}
template <class T>
__device__ __forceinline__ T shfl_up(T v, unsigned delta, int width = warpSize) {
  return __shfl_up_sync(kFullMask, v, delta, width);
}
__device__ __forceinline__ unsigned long long ballot(int pred) {
  return static_cast<unsigned long long>(__ballot_sync(kFullMask, pred));
}
__device__ __forceinline__ int any(int pred) { return __any_sync(kFullMask, pred); }
__device__ __forceinline__ int all(int pred) { return __all_sync(kFullMask, pred); }
__device__ __forceinline__ int lane_id() { return static_cast<int>(threadIdx.x & 31u); }
}  // namespace dsv4::port::cuda_detail

#define __shfl(...) ::dsv4::port::cuda_detail::shfl(__VA_ARGS__)
#define __shfl_xor(...) ::dsv4::port::cuda_detail::shfl_xor(__VA_ARGS__)
#define __shfl_down(...) ::dsv4::port::cuda_detail::shfl_down(__VA_ARGS__)
#define __shfl_up(...) ::dsv4::port::cuda_detail::shfl_up(__VA_ARGS__)
#define __ballot(p) ::dsv4::port::cuda_detail::ballot(p)
#define __any(p) ::dsv4::port::cuda_detail::any(p)
#define __all(p) ::dsv4::port::cuda_detail::all(p)
#define __lane_id() ::dsv4::port::cuda_detail::lane_id()
