// Portable asynchronous global -> LDS copies in groups (the shape of sm_80+ `cp.async` and its commit/wait groups):
//   async_copy16(dst, elem, src, valid)  queue a 16-byte copy of *src to element `elem` of dst; !valid zero-fills
//                                        the 16 bytes without reading src (src must still be a valid address);
//   async_commit()                       close the calling thread's open group (also when it is empty);
//   async_wait<N>()                      block until at most N of the thread's committed groups are still pending.
// A thread may read what it copied only after the wait that covers the copy, and other threads only after a
// barrier that follows that wait. Include after kernels/port/hip_port.hpp, from kernel TUs only.
// Backends:
//   cuda: cp.async.cg.shared.global (16 bytes, L2 only; zero-fill through src-size 0), commit_group, wait_group N.
//   sim : the copies are deferred: each simulated thread keeps its queue of groups, and the wait performs the copies
//         of the groups it retires (global read and LDS write happen there, bounds- and race-checked as that
//         thread's accesses). A kernel that reads a stage before its wait, or without the barrier after another
//         thread's wait, reads stale LDS or is reported as a race. Copies never waited for are dropped at thread
//         exit (they cannot be observed by correct code).
//   hip : synchronous copy at the call (compile target only; no AMD kernel selects an async path yet).
#pragma once

#include <cstddef>
#include <cstdint>

namespace dsv4::port {

#if defined(DSV4_BACKEND_SIM)
namespace sim::detail {
void async_copy_issue(int array, std::int64_t byte_offset, const void* src, bool valid);
void async_copy_commit();
void async_copy_wait(int pending_allowed);
}  // namespace sim::detail
#endif

template <class T>
__device__ __forceinline__ void async_copy16(lds_ptr<T> dst, std::ptrdiff_t elem, const void* src, bool valid) {
#if defined(DSV4_BACKEND_SIM)
  sim::detail::preempt_global_access();
  sim::detail::async_copy_issue(dst.array(), dst.byte_offset() + std::int64_t(elem) * std::int64_t(sizeof(T)), src,
                                valid);
#elif defined(DSV4_BACKEND_CUDA) && defined(__CUDA_ARCH__)
  const unsigned saddr = static_cast<unsigned>(__cvta_generic_to_shared(dst + elem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(saddr), "l"(src), "r"(valid ? 16 : 0)
               : "memory");
#elif defined(DSV4_BACKEND_CUDA)
  (void)dst, (void)elem, (void)src, (void)valid;  // host pass of nvcc: never called
#else
  *reinterpret_cast<uint4*>(dst + elem) = valid ? *static_cast<const uint4*>(src) : make_uint4(0, 0, 0, 0);
#endif
}

__device__ __forceinline__ void async_commit() {
#if defined(DSV4_BACKEND_SIM)
  sim::detail::async_copy_commit();
#elif defined(DSV4_BACKEND_CUDA) && defined(__CUDA_ARCH__)
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

template <int N>
__device__ __forceinline__ void async_wait() {
  static_assert(N >= 0 && N < 8, "async_wait: pending groups must be 0..7");
#if defined(DSV4_BACKEND_SIM)
  sim::detail::async_copy_wait(N);
#elif defined(DSV4_BACKEND_CUDA) && defined(__CUDA_ARCH__)
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

}  // namespace dsv4::port
