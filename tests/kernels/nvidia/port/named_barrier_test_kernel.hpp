// Launcher of the named-barrier test kernel (named_barrier_test_kernel.kernel.cpp), for test_port_named_barrier.cpp.
#pragma once

#include "kernels/port/runtime.hpp"

namespace dsv4::test::namedk {
// Misuses (sim: reported; on a GPU races or hangs).
enum class Misuse {
  none,
  missing_sync,       // group 0 reads its neighbours' words without the barrier after their writes: a hazard
  count_mismatch,     // half of group 1 waits for 64 threads, the other half for 96: the launch fails
  reserved_id,        // group 1 uses barrier 0 (the block barrier's): the launch fails
};
// One workgroup of 128 threads in two groups of 64 (warps 0-1 and 2-3), each synchronised by its own named barrier
// (ids 1 and 2) and never by a block barrier: for each of `rounds` rounds, thread t of group g writes
// in[g * 64 + t] + round to LDS word g * 64 + t, then (after its group's barrier) reads word g * 64 + (t + 1) % 64
// into out[(round * 2 + g) * 64 + t], then waits on the barrier again before the next round's write.
void exchange(const int* in, int* out, int rounds, dsv4::port::Stream& s, Misuse misuse = Misuse::none);
}  // namespace dsv4::test::namedk
