// Prototypes of other layouts of the skinny GEMM's warpgroup kernel (benchmark only, cuda sm_90a), timed beside the
// committed kernel by bench_skinny_gemm (DSV4_BENCH_BT):
// * b as the MMA's B operand: a workgroup takes 64 rows of a (the wgmma's A operand, m64) and `tile_m` rows of b (its
//   B operand, n = tile_m, so tiles can be sized to the grid as cuBLAS does), the whole K, no bias, bf16; either the
//   committed kernel's loop (ring of `stages` slots of `panels` 64-K panels filled by thread 0, a block barrier per
//   step, two warpgroups as k-groups; grid ceil(M / tile_m) x ceil(N / 64)) or a producer warp (below), optionally
//   with the two N-halves of an M-tile paired in a cluster that multicasts b's tile;
// * producer-warp kernels: warp 8 issues the copies of each stage as soon as its "empty" barrier completes, the two
//   consumer warpgroups take alternate stages, release them on "empty" barriers (drain: right after their own MMAs),
//   no block barrier; launched with programmatic dependent launch; `panels` > 1 fetches each operand's panels of a
//   stage with one 3-D bulk copy;
// * b as the A operand (b_as_a, N <= 32): 64 rows of b per workgroup (grid ceil(M / 64)), all tile_m >= N rows of a
//   as the B operand; the producer-warp kernel only.
// The b-as-A layout became a kernel of the plan (kernels/nvidia/skinny_gemm/skinny_gemm_pw.kernel.cpp, with bias,
// fp16, splits of K and sim tests); the b-as-B layouts here stay a prototype (measurements: RESULTS_skinny_h200.md).
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
  bool b_as_a = false;  // producer warp only: b as the A operand in 64-row tiles, tile_m = rows of a (>= N, <= 32)
};
// The instantiated configurations.
std::vector<Config> configs();
std::string describe(const Config& c);
// Timeline of a producer-warp run, kTraceWords words per workgroup (grid order): [0] start and [2] end in global ns,
// [1] and [3] the same in the SM's clock; [4] and [5] the clock when consumer warpgroups 0 and 1 left the main
// loop, [6] when both had, [7] when the k-group sum was in LDS, [8 + 4 s + g] and [10 + 4 s + g] when warpgroup
// g arrived at and left the k-group sum's barrier s (b-as-B layouts; a word left 0 was not recorded);
// [kTraceIssue + i] the clock when stage i's copies were issued, [kTraceLanded + i] when its consumer's wait for
// them returned (first kTraceStages stages).
constexpr int kTraceWords = 256, kTraceIssue = 64, kTraceLanded = 128, kTraceStages = 64;
// out[N, M] = a[N, K] b[M, K]^T (bf16, row-major, fp32 sums). Throws port::Error for a configuration with no
// instance or a shape it cannot run (K not a multiple of 8). `trace`: null, or a device buffer of kTraceWords
// words per workgroup (producer-warp configurations fill it).
void run(const Config& c, const void* a, const void* b, void* out, int n, int m, int k, dsv4::port::Stream& s,
         std::uint64_t* trace = nullptr);
// Workgroups a run of `c` launches.
int workgroups(const Config& c, int n, int m);
}  // namespace dsv4::bench::skinny_bt
