// Warpgroup-MMA issue-rate probe (cuda, sm_90a): how many bf16 wgmma.m64nNk16 FLOPs an SM sustains from LDS operands
// at the skinny GEMM's shapes (N = a's rows per MMA), by warpgroups per workgroup, MMAs per commit, and with or
// without a block barrier per step. No global memory in the loop: the LDS operands are filled once.
#include <string>

#include "bench/kernels/nvidia/wgmma_rate/wgmma_rate.hpp"
#include "kernels/port/hip_port.hpp"
#include "kernels/nvidia/port/wgmma.hpp"

namespace dsv4::bench::wgmma_rate {

#if defined(DSV4_BACKEND_CUDA)
namespace {

constexpr int kPanelK = 64;  // one 128-byte swizzled row per operand row

template <int N, int WG, int P, bool SYNC>
__global__ void __launch_bounds__(128 * WG, 1) rate_kernel(int iters, float* sink) {
  DSV4_LDS_DYNAMIC(std::uint16_t, smem);
  const int tid = static_cast<int>(threadIdx.x);
  const int skip = port::lds_align_skip(smem);
  constexpr int panel_elems = (64 + N) * kPanelK;  // A tile (64 rows) then B tile (N rows)
  auto tiles = port::lds_carve<std::uint16_t>(smem, static_cast<std::size_t>(skip) * 2,
                                              static_cast<std::size_t>(P) * WG * panel_elems, "rate_tiles");
  for (int i = tid; i < P * WG * panel_elems; i += 128 * WG)  // small non-zero bf16 values
    tiles[i] = static_cast<std::uint16_t>(0x3c00 | ((i * 2654435761u) >> 27));
  port::lds_fence_for_mma();
  __syncthreads();
  const int wg = tid / 128;
  float acc[N / 2];
#pragma unroll
  for (int i = 0; i < N / 2; ++i) acc[i] = 0.f;
  for (int it = 0; it < iters; ++it) {
    port::wgmma_pin(acc);
    port::wgmma_fence();
#pragma unroll
    for (int p = 0; p < P; ++p) {
      const std::ptrdiff_t base = static_cast<std::ptrdiff_t>(wg * P + p) * panel_elems;
#pragma unroll
      for (int k16 = 0; k16 < kPanelK / 16; ++k16)
        port::wgmma_m64k16<port::MmaElem::bf16, N>(acc, tiles, base, tiles, base + 64 * kPanelK, k16, true);
    }
    port::wgmma_commit();
    port::wgmma_wait<0>();
    port::wgmma_pin(acc);
    if constexpr (SYNC) __syncthreads();
  }
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < N / 2; ++i) s += acc[i];
  if (s == 12345.f) sink[blockIdx.x] = s;  // keeps the MMAs alive; never true for these inputs
}

using Fn = void (*)(int, float*);

template <int N, int WG, int P>
Fn pick_sync(bool sync) { return sync ? &rate_kernel<N, WG, P, true> : &rate_kernel<N, WG, P, false>; }
template <int N, int WG>
Fn pick_p(int p, bool sync) {
  switch (p) {
    case 1: return pick_sync<N, WG, 1>(sync);
    case 2: return pick_sync<N, WG, 2>(sync);
    case 4: return pick_sync<N, WG, 4>(sync);
    default: return nullptr;
  }
}
template <int N>
Fn pick_wg(int wg, int p, bool sync) {
  return wg == 1 ? pick_p<N, 1>(p, sync) : wg == 2 ? pick_p<N, 2>(p, sync) : wg == 3 ? pick_p<N, 3>(p, sync) : nullptr;
}
Fn pick(const Case& c) {
  switch (c.n) {
    case 32: return pick_wg<32>(c.warpgroups, c.panels, c.block_sync);
    case 64: return pick_wg<64>(c.warpgroups, c.panels, c.block_sync);
    case 128: return pick_wg<128>(c.warpgroups, c.panels, c.block_sync);
    case 256: return pick_wg<256>(c.warpgroups, c.panels, c.block_sync);
    default: return nullptr;
  }
}

}  // namespace
#endif

void run(const Case& c, int blocks, int iters, float* sink, port::Stream& s) {
#if defined(DSV4_BACKEND_CUDA)
  const Fn k = pick(c);
  if (!k) throw port::Error("wgmma_rate: no instance for N=" + std::to_string(c.n));
  const std::size_t lds = static_cast<std::size_t>(c.panels) * c.warpgroups * (64 + c.n) * kPanelK * 2 + port::kSwizzle128Align;
  port::LaunchConfig cfg{port::Dim3(static_cast<unsigned>(blocks)), port::Dim3(static_cast<unsigned>(128 * c.warpgroups)),
                         lds, &s, "wgmma_rate", {port::writes(sink, static_cast<std::size_t>(blocks) * 4, "sink")}};
  port::launch(k, cfg, iters, sink);
#else
  (void)c, (void)blocks, (void)iters, (void)sink, (void)s;
  throw port::Error("wgmma_rate: a cuda (sm_90a) probe");
#endif
}

}  // namespace dsv4::bench::wgmma_rate
