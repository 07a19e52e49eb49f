// Launchers of the portability layer's backend-neutral test kernels (port_test_kernels.kernel.cpp).
#pragma once

#include "kernels/port/runtime.hpp"

namespace dsv4::test::portk {
// y[i] = a * x[i] + y[i], grid of ceil(n / 256) blocks of 256.
void axpy(float a, const float* x, float* y, int n, dsv4::port::Stream& s);
// One block of `threads` (a multiple of the wave size, <= 1024): out[blockIdx] = sum of x over the block's slice
// x[b*threads, (b+1)*threads), reduced with __shfl_xor inside waves and a static-LDS array across waves; also
// atomicAdd of each block sum into *total.
void block_sum(const float* x, float* out, float* total, int blocks, int threads, dsv4::port::Stream& s);
// Dynamic LDS of `n` floats: thread t stores x[t] at slot t, barrier, writes slot n-1-t into y[t] (one block, n <= 1024).
void reverse_in_lds(const float* x, float* y, int n, dsv4::port::Stream& s);
// *lanes = warpSize, *ballot_count = popcount of __ballot(lane is odd) in wave 0.
void wave_facts(int* lanes, int* ballot_count, dsv4::port::Stream& s);
}  // namespace dsv4::test::portk
