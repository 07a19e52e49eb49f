// Prototype of another tiling of the skinny GEMM's warpgroup kernel (benchmark only, cuda sm_90a): b as the MMA's
// B operand. A workgroup takes 64 rows of a (the wgmma's A operand, m64) and `tile_m` rows of b (its B operand,
// n = tile_m, any of the wrapper's N, so tiles can be sized to the grid as cuBLAS does), the whole K, no bias, bf16;
// otherwise the committed kernel's loop (ring of `stages` slots of `panels` 64-K panels filled by bulk copies from
// thread 0, a block barrier per step, two warpgroups as k-groups) and a k-group sum through LDS. Grid:
// ceil(M / tile_m) x ceil(N / 64).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/port/runtime.hpp"

namespace dsv4::bench::skinny_bt {
struct Config {
  int tile_m, stages, panels;
  bool multicast;  // N-halves paired in a cluster of two, each loading half of b's tile for both (N > 64 only)
  bool warp_specialized;  // a producer warp and per-stage full/empty barriers (panels = 1), no block barrier
  bool drain;  // producer warp only: a consumer drains its MMAs and releases the stage at once (one slot held)
};
// The instantiated configurations.
std::vector<Config> configs();
std::string describe(const Config& c);
// Timeline of a producer-warp run, kTraceWords words per workgroup (grid order): [0] start and [2] end in global ns,
// [1] and [3] the same in the SM's clock; [4] and [5] the clock when consumer warpgroups 0 and 1 left the main
// loop, [6] when both had, [7] when the k-group sum was in LDS; [kTraceIssue + i] the clock when stage i's copies were issued,
// [kTraceLanded + i] when its consumer's wait for them returned (first kTraceStages stages).
constexpr int kTraceWords = 256, kTraceIssue = 64, kTraceLanded = 128, kTraceStages = 64;
// out[N, M] = a[N, K] b[M, K]^T (bf16, row-major, fp32 sums). Throws port::Error for a configuration with no
// instance or a shape it cannot run (K not a multiple of 8). `trace`: null, or a device buffer of kTraceWords
// words per workgroup (producer-warp configurations fill it).
void run(const Config& c, const void* a, const void* b, void* out, int n, int m, int k, dsv4::port::Stream& s,
         std::uint64_t* trace = nullptr);
// Workgroups a run of `c` launches.
int workgroups(const Config& c, int n, int m);
}  // namespace dsv4::bench::skinny_bt
