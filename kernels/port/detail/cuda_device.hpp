// cuda backend, kernel side: nvcc compiles kernel files as CUDA; the HIP names in use are mapped here to CUDA
// (Debian's HIP nvidia_detail headers do not build with CUDA 13, so they are not used). Wave size 32.
#pragma once

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

#define DSV4_FULL_MASK 0xffffffffu
template <class T>
__device__ __forceinline__ T __shfl(T v, int src_lane, int width = warpSize) {
  return __shfl_sync(DSV4_FULL_MASK, v, src_lane, width);
}
template <class T>
__device__ __forceinline__ T __shfl_xor(T v, int lane_mask, int width = warpSize) {
  return __shfl_xor_sync(DSV4_FULL_MASK, v, lane_mask, width);
}
template <class T>
__device__ __forceinline__ T __shfl_down(T v, unsigned delta, int width = warpSize) {
  return __shfl_down_sync(DSV4_FULL_MASK, v, delta, width);
}
template <class T>
__device__ __forceinline__ T __shfl_up(T v, unsigned delta, int width = warpSize) {
  return __shfl_up_sync(DSV4_FULL_MASK, v, delta, width);
}
__device__ __forceinline__ unsigned long long __ballot(int pred) {
  return static_cast<unsigned long long>(__ballot_sync(DSV4_FULL_MASK, pred));
}
__device__ __forceinline__ int __any(int pred) { return __any_sync(DSV4_FULL_MASK, pred); }
__device__ __forceinline__ int __all(int pred) { return __all_sync(DSV4_FULL_MASK, pred); }
__device__ __forceinline__ int __lane_id() { return static_cast<int>(threadIdx.x & 31u); }
