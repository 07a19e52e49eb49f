// Launcher of the warpgroup-MMA issue-rate probe (wgmma_rate.kernel.cpp), for bench_wgmma_rate.cpp.
#pragma once

#include "kernels/port/runtime.hpp"

namespace dsv4::bench::wgmma_rate {
// One case: `warpgroups` warpgroups per workgroup, one workgroup per SM (`blocks` of them), each warpgroup running
// `iters` steps of `panels` x 4 wgmma.m64nNk16 (both operands from LDS: a 64-row A tile and an N-row B tile per
// panel, the operand tiles of a step at distinct addresses), then commit and wait for all; with block_sync a block
// barrier after every step (the skinny kernel's loop shape). The accumulators' sum goes to sink[block].
struct Case {
  int n = 128, warpgroups = 2, panels = 2;
  bool block_sync = true;
};
// Throws port::Error for a case with no instance.
void run(const Case& c, int blocks, int iters, float* sink, dsv4::port::Stream& s);
}  // namespace dsv4::bench::wgmma_rate
