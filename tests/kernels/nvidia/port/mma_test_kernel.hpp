// Launcher of the MMA wrapper's test kernel (mma_test_kernel.kernel.cpp), for test_port_mma.cpp.
#pragma once

#include <cstdint>

#include "kernels/port/runtime.hpp"

namespace dsv4::test::mmak {
// One block of `threads` lanes (a multiple of 32); 32-lane group q computes D_q = A_q·B_q + C_q with one
// port::mma_m16n8k16 call, each lane loading its fragments from the row-major matrices at the positions the
// layout comment of kernels/nvidia/port/mma.hpp gives. a: [groups][16][16], b: [groups][16][8] (k rows, n columns),
// c and d: [groups][16][8] fp32; elements are raw bf16 (f16 = false) or fp16 codes.
void mma_groups(const std::uint16_t* a, const std::uint16_t* b, const float* c, float* d, int threads, bool f16,
                dsv4::port::Stream& s);
}  // namespace dsv4::test::mmak
