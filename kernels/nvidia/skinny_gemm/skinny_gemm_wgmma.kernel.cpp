// Warpgroup kernel of the split-K skinny GEMM (plan.wgmma, sm_90): one workgroup of two warpgroups per (M-tile,
// K-shard), the same protocol as the other kernels with a different phase 1:
//   1. The tile's rows of b and the 8·NB (padded) rows of a are staged in LDS by bulk tensor copies
//      (kernels/nvidia/port/tma.hpp: thread 0 issues two boxes per panel, one transaction barrier per slot) into a ring of
//      S slots (3 or 4: the plan's mma_stages) of `panels` panels of 64 K elements, each panel a swizzled K-major tile
//      (kernels/nvidia/port/wgmma.hpp: 128-byte rows, chunk c of row r at chunk c ^ (r % 8)), zeros past M, N and K.
//      Step i waits for its slot's barrier phase, one block barrier, then thread 0 issues step i + stages - 1 into
//      the slot step i - 1 used (its MMAs were waited for), then every warpgroup computes:
//      warpgroup (wgm, grp) multiplies its MW tiles of 64 rows of b by all 8·NB rows of a with m64nNk16
//      warpgroup MMAs on the panels grp, grp + k_groups, ... (b is the MMA's A operand, a its B operand, the
//      accumulator the transposed output tile), and waits for them before the next barrier.
//      (The main-loop designs measured slower than this one, and what cuBLAS does instead:
//      bench/kernels/RESULTS_skinny_h200.md.)
//   2-4. publish_tile (sm90_device.hpp): k-groups reduced in ascending order, the shard's partial to its slab and
//      the split-K protocol, or with a cluster reduction to the other shards through the cluster's LDS
//      (cluster_publish), or, with one shard, the tile straight to the output.
// Timing diagnostics (benchmark builds only; the results are wrong): -DSKINNY_DIAG_NO_LOAD keeps only the prologue's
// bulk copies (the main loop's barriers and MMAs alone), -DSKINNY_DIAG_NO_MMA drops the MMAs (the copies alone),
// -DSKINNY_DIAG_NO_A drops a's boxes (b's copies and the MMAs, on whatever the LDS holds where a would be); the
// cuda targets bench_skinny_gemm_diag_{no_load,no_mma,no_a} (bench/kernels/CMakeLists.txt) build them.
// Invariants: every panel starts on a 1024-byte boundary of the LDS window (the ring starts on one and a panel is a
// multiple of 8 rows of 128 bytes); a box is at most 256 rows (tile_m, padded N) and a step never crosses the
// shard's K end (the step divides the chunk). Sums are in a fixed order per plan: bit-identical run to run.
#include <type_traits>

#include "kernels/port/hip_port.hpp"
#include "kernels/port/grid_dependency.hpp"
#include "kernels/port/async_copy.hpp"  // finish_tile's readback
#include "kernels/nvidia/port/mma.hpp"
#include "kernels/nvidia/port/tma.hpp"
#include "kernels/nvidia/port/wgmma.hpp"
#include "kernels/nvidia/skinny_gemm/sm90_device.hpp"

namespace dsv4::kernels::skinny::detail {

#if !defined(DSV4_BACKEND_HIP)  // wgmma exists on sm_90 only
namespace {

template <bool F16, int NB, int MW, int S>  // S ring slots: a template argument (a run-time count is slower)
__global__ void __launch_bounds__(256, wgmma_blocks_per_sm(NB, MW))
    skinny_gemm_wgmma_kernel(const DSV4_GRID_CONSTANT Sm90Params p) {
  constexpr int NN = 8 * NB;  // rows of a per warpgroup (all of the padded N)
  constexpr port::MmaElem E = F16 ? port::MmaElem::f16 : port::MmaElem::bf16;
  constexpr int PK = kWgmmaPanelK;  // 64 elements: one 128-byte swizzled row
  DSV4_LDS_DYNAMIC(std::uint16_t, smem);
  const int tid = static_cast<int>(threadIdx.x);
  const TileRef tr = sm90_tile_of_block(p, static_cast<int>(blockIdx.x));  // M-tile, output-row slice, K-shard
  const int TM = p.tile_m;
  const int rows = TM + NN;  // staged rows per panel: b rows, then a rows
  const int P = p.panels, KG = p.k_groups;
  const int panels_per_group = P / KG;  // the plan keeps P a multiple of KG
  const int wg = tid / 128;
  const int wgm = wg % p.warps_m, grp = wg / p.warps_m;
  const std::int64_t m0 = static_cast<std::int64_t>(tr.m_tile) * TM;
  const int panel_elems = rows * PK;
  const int stage_elems = P * panel_elems;
  const int skip = port::lds_align_skip(smem);  // the ring starts on a 1024-byte boundary of the window
  auto ring = port::lds_carve<std::uint16_t>(smem, static_cast<std::size_t>(skip) * 2,
                                             static_cast<std::size_t>(S) * stage_elems, "wgmma_stage_ring");
  // One transaction barrier per ring slot, after the ring; thread 0 issues every bulk copy.
  auto bars = port::lds_carve<std::uint64_t>(
      smem, static_cast<std::size_t>(skip) * 2 + static_cast<std::size_t>(S) * stage_elems * 2, S, "wgmma_slot_barriers");
  if (tid == 0) {
    port::tma_prefetch_descriptor(p.tmap_b);  // kernel parameters: safe before the previous grid completes
    port::tma_prefetch_descriptor(p.tmap_a);
    for (int s = 0; s < S; ++s) port::mbarrier_init(bars, s, 1);
    port::mbarrier_init_fence();
  }
  __syncthreads();
  // The prologue above touches no global memory: with overlap_previous it runs while the previous kernel finishes.
  port::wait_for_previous_grid();

  const std::int64_t k_begin = static_cast<std::int64_t>(tr.ks) * p.chunks_per_shard * p.k_chunk;
  const std::int64_t shard_end = k_begin + static_cast<std::int64_t>(p.chunks_per_shard) * p.k_chunk;
  const std::int64_t k_end = shard_end < p.k ? shard_end : p.k;
  const int step_k = P * PK;
  const int nsteps = static_cast<int>((k_end - k_begin + step_k - 1) / step_k);
  // Per step, thread 0 announces the stage's bytes and issues two boxes per panel: tile_m rows of b, NN rows of
  // a (rows past M and N, and K past the tensor, arrive as zeros). A shard's steps never cross its end: the step
  // (P·64) divides the chunk (the plan's invariant), so only the tensor's own K end clips.
#ifdef SKINNY_DIAG_NO_A
  const unsigned stage_bytes = static_cast<unsigned>(P * TM * PK) * 2;  // b's boxes only
#else
  const unsigned stage_bytes = static_cast<unsigned>(stage_elems) * 2;
#endif
  auto issue = [&](int step) {
    if (tid != 0 || step >= nsteps) return;
#ifdef SKINNY_DIAG_NO_LOAD
    if (step >= S - 1) return;
#endif
    const int slot = step % S;
    port::mbarrier_arrive_expect_tx(bars, slot, stage_bytes);
    const int k0 = static_cast<int>(k_begin) + step * step_k;
    for (int q = 0; q < P; ++q) {
      const std::ptrdiff_t panel = static_cast<std::ptrdiff_t>(slot) * stage_elems + static_cast<std::ptrdiff_t>(q) * panel_elems;
      port::tma_load_2d(ring, panel, p.tmap_b, k0 + q * PK, static_cast<int>(m0), bars, slot);
#ifndef SKINNY_DIAG_NO_A
      port::tma_load_2d(ring, panel + static_cast<std::ptrdiff_t>(TM) * PK, p.tmap_a, k0 + q * PK, tr.n0, bars, slot);
#endif
    }
  };

  float acc[MW][NN / 2];
DSV4_UNROLL
  for (int mw = 0; mw < MW; ++mw)
DSV4_UNROLL
    for (int i = 0; i < NN / 2; ++i) acc[mw][i] = 0.f;

  // ---- 1. pipelined main loop ----
  for (int s = 0; s < S - 1; ++s) issue(s);
  // Each warpgroup's panels per step are a compile-time count in each copy of the loop: with a run-time trip
  // count ptxas injects a warpgroup.arrive at the head of that loop (C7519), which costs time.
  auto main_loop = [&](auto ppg) {
    constexpr int PPG = decltype(ppg)::value;
    for (int it = 0; it < nsteps; ++it) {
#ifdef SKINNY_DIAG_NO_LOAD
      if (it < S - 1)
#endif
      port::mbarrier_wait(bars, it % S, (it / S) & 1);  // step it's bulk copies have landed
      __syncthreads();            // everyone's; everyone's MMAs on step it - 1's slot have completed
      issue(it + S - 1);
      const std::ptrdiff_t slot0 = static_cast<std::ptrdiff_t>(it % S) * stage_elems;
DSV4_UNROLL
      for (int mw = 0; mw < MW; ++mw) port::wgmma_pin(acc[mw]);
      port::wgmma_fence();
#ifndef SKINNY_DIAG_NO_MMA
DSV4_UNROLL
      for (int i = 0; i < PPG; ++i) {
        const std::ptrdiff_t base = slot0 + static_cast<std::ptrdiff_t>(grp + i * KG) * panel_elems;
DSV4_UNROLL
        for (int k16 = 0; k16 < PK / 16; ++k16)
DSV4_UNROLL
          for (int mw = 0; mw < MW; ++mw)  // rows of a past N are zeros in LDS: no branch around the MMAs
            port::wgmma_m64k16<E, NN>(acc[mw], ring, base + static_cast<std::ptrdiff_t>(wgm * MW + mw) * 64 * PK, ring,
                                      base + static_cast<std::ptrdiff_t>(TM) * PK, k16, true);
      }
#endif
      port::wgmma_commit();
      port::wgmma_wait<0>();
DSV4_UNROLL
      for (int mw = 0; mw < MW; ++mw) port::wgmma_pin(acc[mw]);
    }
  };
  static_assert(kWgmmaMaxPanels == 4, "one copy of the main loop per panel count");
  switch (panels_per_group) {  // 1, 2 or 4: the plan's P and KG are powers of two, P <= kWgmmaMaxPanels
    case 1: main_loop(std::integral_constant<int, 1>{}); break;
    case 2: main_loop(std::integral_constant<int, 2>{}); break;
    default: main_loop(std::integral_constant<int, 4>{}); break;
  }
  // The next kernel on the stream may be scheduled from here (it waits for this one's end before touching memory).
  // (Not at the start: one-wave grids that leave SMs idle are slower then, RESULTS_skinny_h200.md.)
  port::allow_next_grid();
  if (tid == 0)  // every copy was waited for; the barriers' LDS is reused below
    for (int s = 0; s < S; ++s) port::mbarrier_inval(bars, s);
  __syncthreads();

  // ---- 2-4. k-group reduction, the shard's partial tile, the split-K protocol ----
  publish_tile<F16>(p, smem, tr, tid, grp, NN, [&](auto&& store) {
DSV4_UNROLL
    for (int mw = 0; mw < MW; ++mw)
DSV4_UNROLL
      for (int j = 0; j < NN / 2; ++j) {
        const int ml = (wgm * MW + mw) * 64 + port::wgmma_acc_row(tid, j);
        store(port::wgmma_acc_col(tid, j) * TM + ml, acc[mw][j]);
      }
  });
}

template <bool F16, int MW, int S>
Sm90KernelFn pick_n(int n_blocks) {
  switch (n_blocks) {
    case 1: return &skinny_gemm_wgmma_kernel<F16, 1, MW, S>;
    case 2: return &skinny_gemm_wgmma_kernel<F16, 2, MW, S>;
    case 4: return &skinny_gemm_wgmma_kernel<F16, 4, MW, S>;
    case 8: return &skinny_gemm_wgmma_kernel<F16, 8, MW, S>;
    case 16: return &skinny_gemm_wgmma_kernel<F16, 16, MW, S>;
    default: return nullptr;
  }
}

template <bool F16, int S>
Sm90KernelFn pick_m(int n_blocks, int m64) {
  if (m64 == 1) return pick_n<F16, 1, S>(n_blocks);
  if (m64 == 2) return pick_n<F16, 2, S>(n_blocks);
  return nullptr;
}

template <bool F16>
Sm90KernelFn pick(int n_blocks, int m64, int stages) {
  static_assert(kWgmmaStages == 4 && kWgmmaMinStages == 3, "one instance per slot count");
  if (stages == 3) return pick_m<F16, 3>(n_blocks, m64);
  if (stages == 4) return pick_m<F16, 4>(n_blocks, m64);
  return nullptr;
}

}  // namespace

Sm90KernelFn wgmma_kernel(bool f16, int n_blocks, int m64, int stages) {
  const Sm90KernelFn k = f16 ? pick<true>(n_blocks, m64, stages) : pick<false>(n_blocks, m64, stages);
  if (!k)
    throw port::Error("skinny_gemm: no warpgroup kernel is instantiated for the tile " + std::to_string(64 * m64) +
                      "x" + std::to_string(8 * n_blocks) + " with " + std::to_string(stages) + " ring slots");
  return k;
}
#endif  // !DSV4_BACKEND_HIP

}  // namespace dsv4::kernels::skinny::detail
