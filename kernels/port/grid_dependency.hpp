// Programmatic dependent launch, kernel side (sm_90 griddepcontrol; include from kernel TUs after hip_port.hpp).
// A kernel launched with LaunchConfig::overlap_previous may start (be scheduled, run its prologue) while the previous
// kernel on its stream is still running: that hides the launch gap between back-to-back kernels.
//   wait_for_previous_grid(): blocks the calling thread until the previous kernel has completed and its writes are
//     visible. Every thread calls it before its first global memory access (including TMA, async copies, atomics);
//     the sim backend fails the launch at a global access that precedes it.
//   allow_next_grid(): the calling workgroup lets the next kernel on the stream (if launched with overlap_previous)
//     be scheduled before this one ends; that kernel still waits for this one's completion in its own
//     wait_for_previous_grid(), so it is only an early start, never an overlap of memory accesses. Where to call it
//     is a tuning choice: early, the next kernel's workgroups take SMs this grid leaves idle (which can slow a long
//     one-wave streaming kernel); after the main loop it costs nothing.
// hip and sim: wait has only its sim check; both are no-ops on the GPU side of hip (plain launches).
#pragma once

#include "kernels/port/hip_port.hpp"

namespace dsv4::port {

__device__ __forceinline__ void wait_for_previous_grid() {
#if defined(DSV4_BACKEND_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#elif defined(DSV4_BACKEND_SIM)
  sim::detail::wait_previous_grid();
#endif
}

__device__ __forceinline__ void allow_next_grid() {
#if defined(DSV4_BACKEND_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

}  // namespace dsv4::port
