// Kernel-side portability header: include it (only) from kernel translation units (`*.kernel.cpp`). Kernel code then
// reads as ordinary HIP: __global__, __device__, threadIdx/blockIdx/blockDim/gridDim, warpSize, __syncthreads(),
// __threadfence(), atomicAdd/Sub/Exch/CAS/Max/Min/Or/And, __shfl/__shfl_xor/__shfl_up/__shfl_down, __ballot,
// __any, __all, float2/float4/int4/uint4 + make_*. What differs per backend is decided here by the macro
// DSV4_BACKEND_SIM / DSV4_BACKEND_CUDA / DSV4_BACKEND_HIP (set by kernels/CMakeLists.txt):
//   sim : g++ C++; indices are the current fiber's, barriers/wave ops are fiber sync points (kernels/backend/sim).
//   cuda: nvcc; HIP names mapped to CUDA here (wave size 32). hip: the real HIP headers.
// Two things always go through the layer, because the simulator must see them:
//   * LDS:  DSV4_LDS(T, name, N) static arrays, DSV4_LDS_DYNAMIC(T, name) the dynamic region; both give a
//           dsv4::port::lds_ptr<T> (a plain T* on GPUs, a bounds-checked handle on sim). Use name[i] (read/assign,
//           +=, ...), name + k, lds_load_as/lds_store_as (vector accesses), global_to_lds, lds_carve, lds_atomic_add.
//           Never take &name[i] or reinterpret_cast an lds_ptr; on sim name[i] is a proxy, not a T&.
//   * Launches: dsv4::port::launch(kernel, LaunchConfig{grid, block, dyn_lds, &stream, "name", {ranges}}, args...)
//           -- no <<<...>>>. Every launch is checked (error names kernel, grid, block, call).
// Optional: global_load(p)/global_store(p, v) are plain accesses, plus a preemption point on sim (random schedule).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/port/runtime.hpp"

#if defined(DSV4_BACKEND_SIM)
#include "kernels/port/detail/sim_device.hpp"
#elif defined(DSV4_BACKEND_CUDA)
#include "kernels/port/detail/cuda_device.hpp"
#elif defined(DSV4_BACKEND_HIP)
#include "kernels/port/detail/hip_device.hpp"
#else
#error "kernels/port/hip_port.hpp: define one of DSV4_BACKEND_SIM, DSV4_BACKEND_CUDA, DSV4_BACKEND_HIP"
#endif

namespace dsv4::port {

// Vector LDS access: read/write a V (e.g. float4, uint4) at element index `elem` of an lds_ptr<T>
// (byte offset elem * sizeof(T)). `lds_store_vec` is the same as lds_store_as.
template <class V, class T>
__device__ __forceinline__ V lds_load_as(lds_ptr<T> base, std::ptrdiff_t elem);
template <class V, class T>
__device__ __forceinline__ void lds_store_as(lds_ptr<T> base, std::ptrdiff_t elem, const V& v);
template <class V, class T>
__device__ __forceinline__ void lds_store_vec(lds_ptr<T> base, std::ptrdiff_t elem, const V& v) {
  lds_store_as<V>(base, elem, v);
}
// Global -> LDS copy of one V per calling thread (the portable form of buffer/global_load_lds): reads *src,
// writes it at element `elem` of dst. CDNA semantics on sim: an out-of-range LDS destination is dropped (and
// reported).
template <class V, class T>
__device__ __forceinline__ void global_to_lds(lds_ptr<T> dst, std::ptrdiff_t elem, const V* src);
// A named sub-array of `count` U starting `byte_offset` bytes into base (carving the dynamic region); on sim it
// gets its own bounds and name in reports.
template <class U, class T>
__device__ __forceinline__ lds_ptr<U> lds_carve(lds_ptr<T> base, std::size_t byte_offset, std::size_t count,
                                                const char* name);
// atomicAdd on an LDS element; returns the old value.
template <class T>
__device__ __forceinline__ T lds_atomic_add(lds_ptr<T> base, std::ptrdiff_t elem, T v);
// Global memory accesses that the sim's random schedule may preempt at (Options::preempt_global).
template <class T>
__device__ __forceinline__ T global_load(const T* p);
template <class T>
__device__ __forceinline__ void global_store(T* p, const T& v);

// Launch `kernel` (a __global__ function) with cfg; args are converted to the kernel's parameter types.
template <class... P, class... A>
void launch(void (*kernel)(P...), const LaunchConfig& cfg, A&&... args);

}  // namespace dsv4::port

#if defined(DSV4_BACKEND_SIM)
#include "kernels/port/detail/sim_device_impl.hpp"
#elif defined(DSV4_BACKEND_CUDA) || defined(DSV4_BACKEND_HIP)
#include "kernels/port/detail/gpu_device_impl.hpp"
#endif
