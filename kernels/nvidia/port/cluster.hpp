// Thread-block clusters, kernel side (sm_90; include from kernel TUs after hip_port.hpp). A launch with
// LaunchConfig::cluster_blocks = C > 1 groups workgroups [c·C, (c+1)·C) along x into cluster c: they are scheduled
// together (on one GPC) and may read and write each other's LDS (distributed shared memory).
//   cluster_rank():   the workgroup's rank in its cluster (blockIdx.x % C for these 1-D clusters).
//   cluster_blocks(): C.
//   cluster_sync():   a barrier of every thread of every workgroup of the cluster, ordering LDS accesses across
//                     them (release / acquire at cluster scope). Before a workgroup reads another's LDS, a
//                     cluster_sync must separate the owner's writes from the read; before a workgroup exits, one
//                     must separate other workgroups' reads of its LDS from the exit.
//   cluster_sync_diverged(): the same barrier for a thread whose warp may be diverged (e.g. a producer warp whose
//                     lane 0 is still issuing copies while lanes 1-31 wait): the non-.aligned instruction form on
//                     cuda; the same per-thread barrier on sim.
//   cluster_lds(p, r): the LDS pointer p (an array of the caller's LDS) seen in workgroup r's LDS: the same array,
//                     offset and type there. Only element access and lds_load_as / lds_store_as may use it.
// sim checks both rules (a read of another workgroup's LDS written since the last cluster_sync, or of a workgroup
// that has exited, fails the launch), deadlocks at the barrier, and runs the workgroups of a cluster interleaved.
// hip (CDNA has no clusters; launches with C > 1 are refused): rank 0 of 1, cluster_sync is __syncthreads and
// cluster_lds(p, 0) is p, which is exactly what a cluster of one means.
#pragma once

#include <source_location>

#include "kernels/port/hip_port.hpp"

namespace dsv4::port {

#if defined(DSV4_BACKEND_SIM)
namespace sim::detail {  // kernels/nvidia/backend/sim/cluster_sync.cpp
int cluster_rank();
int cluster_blocks();
void cluster_sync(const std::source_location& loc);
// The cluster's block `rank` (nullptr: the current block itself).
BlockExec* cluster_block(int rank);
}  // namespace sim::detail
#endif

#if defined(DSV4_BACKEND_SIM)
inline int cluster_rank() { return sim::detail::cluster_rank(); }
inline int cluster_blocks() { return sim::detail::cluster_blocks(); }
inline void cluster_sync(const std::source_location& loc = std::source_location::current()) {
  sim::detail::cluster_sync(loc);
}
inline void cluster_sync_diverged(const std::source_location& loc = std::source_location::current()) {
  sim::detail::cluster_sync(loc);
}
template <class T>
lds_ptr<T> cluster_lds(lds_ptr<T> p, int rank) {
  sim::detail::BlockExec* remote = sim::detail::cluster_block(rank);
  return lds_ptr<T>(sim::detail::cluster_array(remote, p.array()), p.byte_offset(), remote);
}
#elif defined(DSV4_BACKEND_CUDA)
__device__ __forceinline__ int cluster_rank() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return static_cast<int>(r);
#else
  return 0;
#endif
}
__device__ __forceinline__ int cluster_blocks() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_nctarank;\n" : "=r"(r));
  return static_cast<int>(r);
#else
  return 1;
#endif
}
__device__ __forceinline__ void cluster_sync() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
#else
  __syncthreads();
#endif
}
__device__ __forceinline__ void cluster_sync_diverged() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
#else
  __syncthreads();
#endif
}
template <class T>
__device__ __forceinline__ lds_ptr<T> cluster_lds(lds_ptr<T> p, int rank) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  T* r;  // a generic address in the cluster's shared window: ordinary loads and stores reach it
  asm volatile("mapa.u64 %0, %1, %2;\n" : "=l"(r) : "l"(p), "r"(rank));
  return r;
#else
  return p;
#endif
}
#else  // hip
__device__ __forceinline__ int cluster_rank() { return 0; }
__device__ __forceinline__ int cluster_blocks() { return 1; }
__device__ __forceinline__ void cluster_sync() { __syncthreads(); }
__device__ __forceinline__ void cluster_sync_diverged() { __syncthreads(); }
template <class T>
__device__ __forceinline__ lds_ptr<T> cluster_lds(lds_ptr<T> p, int) { return p; }
#endif

}  // namespace dsv4::port
