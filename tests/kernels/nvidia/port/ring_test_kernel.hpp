// Launcher of the producer/consumer ring test kernel (ring_test_kernel.kernel.cpp), for test_port_mbarrier_ring.cpp.
#pragma once

#include <cstdint>

#include "kernels/port/runtime.hpp"

namespace dsv4::test::ringk {
// Misuses of the ring protocol (sim: reported LDS hazards; on a GPU they are silent races).
enum class Misuse {
  none,
  read_before_full_wait,   // consumers read a slot before waiting for its "full" phase
  release_before_read,     // consumers arrive on a slot's "empty" barrier before reading it
};
// One workgroup: warp 0's thread 0 produces `steps` steps of kRingWords words into a ring of `slots` LDS slots
// (words in[step * kRingWords + w]), each slot guarded by a "full" barrier (1 arrival: the producer's) and an
// "empty" barrier (one arrival per consumer thread); the `consumers` threads after warp 0 each read words
// (c + 32 j) % kRingWords, j < kRingReads, of every step and write their sum to out[step * consumers + c].
// No block barrier between the ring's first fill and the end: only the transaction barriers order the accesses.
inline constexpr int kRingWords = 128;
inline constexpr int kRingReads = 4;
void run_ring(const std::uint32_t* in, std::uint32_t* out, int steps, int slots, int consumers, dsv4::port::Stream& s,
              Misuse misuse = Misuse::none);
}  // namespace dsv4::test::ringk
