// Prototype of another tiling of the skinny GEMM's warpgroup kernel (benchmark only, cuda sm_90a): b as the MMA's
// B operand. A workgroup takes 64 rows of a (the wgmma's A operand, m64) and `tile_m` rows of b (its B operand,
// n = tile_m, any of the wrapper's N, so tiles can be sized to the grid as cuBLAS does), the whole K, no bias, bf16;
// otherwise the committed kernel's loop (ring of `stages` slots of `panels` 64-K panels filled by bulk copies from
// thread 0, a block barrier per step, two warpgroups as k-groups) and a k-group sum through LDS. Grid:
// ceil(M / tile_m) x ceil(N / 64).
#pragma once

#include <string>
#include <vector>

#include "kernels/port/runtime.hpp"

namespace dsv4::bench::skinny_bt {
struct Config {
  int tile_m, stages, panels;
  bool multicast;  // N-halves paired in a cluster of two, each loading half of b's tile for both (N > 64 only)
  bool warp_specialized;  // a producer warp and per-stage full/empty barriers (panels = 1), no block barrier
};
// The instantiated configurations.
std::vector<Config> configs();
std::string describe(const Config& c);
// out[N, M] = a[N, K] b[M, K]^T (bf16, row-major, fp32 sums). Throws port::Error for a configuration with no
// instance or a shape it cannot run (K not a multiple of 8).
void run(const Config& c, const void* a, const void* b, void* out, int n, int m, int k, dsv4::port::Stream& s);
}  // namespace dsv4::bench::skinny_bt
