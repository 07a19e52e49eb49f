// Launcher of the warpgroup MMA wrapper's test kernel (wgmma_test_kernel.kernel.cpp), for test_port_wgmma.cpp.
#pragma once

#include <cstdint>

#include "kernels/port/runtime.hpp"

namespace dsv4::test::wgmmak {
// One warpgroup (128 threads) computes D = A·B (+ C when accumulate) with four port::wgmma_m64k16 calls over
// K = 64: A [64][64] and B [n][64] (row n holds B[·][n], K contiguous) are raw bf16 (f16 = false) or fp16 codes
// that the kernel stores into LDS as swizzled K-major tiles (kernels/nvidia/port/wgmma.hpp); C and D are [64][n] fp32,
// read and written in the accumulator layout given there. n is 8, 16, 32, 64 or 128.
// zero_b_before_wait (a misuse, for the sim only): every thread zeroes the B tile after the batch is committed and
// before the wait that retires it; the hardware may have read B or not by then, the sim reads it at the wait.
void wgmma_tile(const std::uint16_t* a, const std::uint16_t* b, const float* c, float* d, int n, bool f16,
                bool accumulate, dsv4::port::Stream& s, bool zero_b_before_wait = false);
}  // namespace dsv4::test::wgmmak
