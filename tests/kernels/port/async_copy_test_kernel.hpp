// Launchers of the test kernels for kernels/port/async_copy.hpp (async_copy_test_kernel.kernel.cpp).
#pragma once

#include <cstdint>

#include "kernels/port/runtime.hpp"

namespace dsv4::test::asyncc {
// One block of 256 threads stages `groups` groups of one 16-byte copy each into LDS (group g: src[g*256 + t] into
// slot g*256 + t, zero-filled where valid[g*256 + t] == 0), commits each group, waits for all, barrier, and writes
// slot (groups*256 - 1 - i) to dst[i] (so every element crosses threads).
void staged_reverse(const std::uint32_t* src, const int* valid, std::uint32_t* dst, int groups, dsv4::port::Stream& s);
// One block of 256 threads: each thread writes a marker to its LDS slot, barrier, issues 4 groups of one copy each
// (group g into slot g*256 + t) and records what it reads back from its slots:
//   seen[t*8 + 0..3] after async_wait<2> (groups 0 and 1 must have landed; on sim groups 2 and 3 still hold the
//   marker), seen[t*8 + 4..7] after async_wait<0> (all landed). Words are the first word of each slot.
void wait_counts(const std::uint32_t* src, std::uint32_t* seen, std::uint32_t marker, dsv4::port::Stream& s);
// Planted mistake: thread t copies into slot t, waits, and reads slot (t+1) % 256 without a barrier.
void read_neighbour_without_barrier(const std::uint32_t* src, std::uint32_t* dst, dsv4::port::Stream& s);
// Planted mistake: thread 0 copies 16 bytes to an LDS offset past the 4 KiB dynamic allocation.
void copy_past_lds_end(const std::uint32_t* src, dsv4::port::Stream& s);
}  // namespace dsv4::test::asyncc
