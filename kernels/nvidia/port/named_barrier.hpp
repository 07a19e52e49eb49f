// Named barriers, kernel side (include from kernel TUs after hip_port.hpp): a barrier among some of the block's
// warps, e.g. the consumer warpgroups of a warp-specialized kernel while the producer warp goes on.
//   named_barrier_sync(id, threads): wait until `threads` threads (whole warps: a multiple of 32) have arrived at
//                     barrier `id` (1..kSm90NamedBarriers - 1; 0 is __syncthreads'), ordering the LDS accesses
//                     of the arrivals (each one's earlier accesses happen before every arrival's later ones).
// cuda: bar.sync id, threads. sim (kernels/nvidia/backend/sim/named_barrier.cpp): blocks the thread until the count is
// reached; the arrivals exchange their clocks for the LDS race check (happens_before.hpp); an id out of range, a
// count that is not whole warps or differs between arrivals fails the launch; a count never reached is a deadlock
// report naming the barrier. hip: not provided (CDNA has no named barriers): a compile-time error if used.
#pragma once

#include <source_location>

#include "kernels/port/hip_port.hpp"

namespace dsv4::port {

#if defined(DSV4_BACKEND_SIM)
namespace sim::detail {  // kernels/nvidia/backend/sim/named_barrier.cpp
void named_barrier_sync(int id, int threads, const std::source_location& loc);
}  // namespace sim::detail
inline void named_barrier_sync(int id, int threads, const std::source_location& loc = std::source_location::current()) {
  sim::detail::named_barrier_sync(id, threads, loc);
}
#elif defined(DSV4_BACKEND_CUDA)
__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
#if defined(__CUDA_ARCH__)
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
#else
  (void)id, (void)threads;
#endif
}
#endif

}  // namespace dsv4::port
