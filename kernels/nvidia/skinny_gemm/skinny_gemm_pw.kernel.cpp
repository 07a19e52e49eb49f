// Producer-warp kernel of the skinny GEMM (plan.producer_warp, sm_90; taken by its rule, producer_warp_preferred in
// sm90_plan.hpp, or forced with force_kernel = TensorCoreKernel::producer_warp): b as the warpgroup MMA's A operand,
// one workgroup per TM = 64 (or 128) rows of b and output-row slice, all NN = 8·n_blocks (8 to 128) padded rows of the
// slice's a as the B operand, the whole K or one of 2-8 K-shards of a cluster (see "Split K" below).
//   * Warp 8, lane 0 (the producer) fills a ring of S slots of P 64-K panels: for step i it waits for slot i % S's
//     "empty" barrier (from the second round on), announces the stage's bytes on its "full" barrier and issues one
//     bulk copy per operand (P panels at once with a panel map, port::tma_load_panels; a 2-D box when P = 1, which
//     also takes K % 64 != 0: the box past K arrives as zeros). Lanes 1-31 leave at once.
//   * The two consumer warpgroups take alternate steps (warpgroup g: steps g, g + 2, ...: two k-groups), wait for
//     the step's full barrier, run its MMAs, wait for them and release the slot at once (every thread arrives on
//     the empty barrier: 128 arrivals). With the wide tile (TM = kPwWideTileM = 128 rows of b, plan.tile_m) both
//     warpgroups read every slot, warpgroup g the MMAs of rows 64g.. of b (256 arrivals), and the epilogue has no
//     k-group sum: each places its half of the tile (place_halves).
//   * Epilogue (consumers, named barrier 1): the two k-groups are summed split in halves through LDS (each
//     warpgroup adds the other's half to its own: a commutative add, the same bits whichever warpgroup makes it),
//     the sums go to LDS transposed (NN rows of 64 outputs) and the consumer threads store groups of kEpiVec
//     outputs of a row with store_output8 (bias in fp32, one rounding, 16-byte stores when aligned).
//   * Split K (p.k_rnd = C > 1 shards of p.chunks_per_shard steps, Sm90Layout::cluster_reduce): the C workgroups of a tile
//     are one cluster (rank = shard); after a cluster barrier each rank sums every C-th group over all ranks' LDS
//     tiles in rank order from zero (bit-identical run to run) and stores it; a second cluster barrier keeps the
//     tiles alive until every rank has read them. The producer warp stays for both barriers.
// Why this shape of pipeline (several panels per copy, one polling lane, release right after the MMAs): the
// prototype's measurements in bench/kernels/RESULTS_skinny_h200.md.
// Invariants: every panel starts on a 1024-byte boundary (the ring does; a panel is (64 + NN) rows of 128 bytes);
// the epilogue's LDS (pw_red_stride and pw_tile_stride floats per row) lies inside the ring, which every consumer has
// finished reading at named barrier 1; the barriers lie after the ring. Bit-identical run to run.
#include <type_traits>

#include "kernels/port/hip_port.hpp"
#include "kernels/port/async_copy.hpp"  // skinny_device.hpp's readback (not used here)
#include "kernels/port/grid_dependency.hpp"
#include "kernels/nvidia/port/named_barrier.hpp"
#include "kernels/nvidia/port/tma.hpp"
#include "kernels/nvidia/port/wgmma.hpp"
#include "kernels/nvidia/skinny_gemm/sm90_device.hpp"

namespace dsv4::kernels::skinny::detail {

#if !defined(DSV4_BACKEND_HIP)  // wgmma and named barriers exist on sm_90 only
namespace {

constexpr int kConsumers = 256;   // two warpgroups
constexpr int kProducer = 256;    // thread index of the producer lane
constexpr int kEpilogueBarrier = 1;

// The k-group sum (tile_m = 64): acc holds the 64 (rows of b: outputs m0..m0+63) x NN (rows of a: outputs n) tile
// of this warpgroup's k-group in the wgmma accumulator layout (port::wgmma_acc_row/col); afterwards `tile` (LDS, NN
// rows of pw_tile_stride(64) floats) holds the workgroup's fp32 sums transposed, row n = output row n.
template <int NN>
__device__ __forceinline__ void sum_kgroups(const float (&acc)[NN / 2], port::lds_ptr<float> red,
                                            port::lds_ptr<float> tile, int tid) {
  constexpr int H = NN / 4;  // accumulators per thread in each half (even: whole pairs)
  constexpr int RS = pw_red_stride(NN), TS = pw_tile_stride(kPwTileM);
  const int grp = tid / 128;
  auto row_of = [&](int j) { return port::wgmma_acc_row(tid, j); };  // m - m0
  auto col_of = [&](int j) { return port::wgmma_acc_col(tid, j); };  // n
  // Accumulator indices stay compile-time constants (a run-time index would put acc in local memory).
  auto give = [&](auto half) {
DSV4_UNROLL
    for (int j = half * H; j < (half + 1) * H; j += 2)
      port::lds_store_as<float2>(red, row_of(j) * RS + col_of(j), make_float2(acc[j], acc[j + 1]));
  };
  auto sum = [&](auto half) {
DSV4_UNROLL
    for (int j = half * H; j < (half + 1) * H; j += 2) {
      const float2 o = port::lds_load_as<float2>(red, row_of(j) * RS + col_of(j));
      tile[col_of(j) * TS + row_of(j)] = acc[j] + o.x;
      tile[(col_of(j) + 1) * TS + row_of(j)] = acc[j + 1] + o.y;
    }
  };
  if (grp == 0) give(std::integral_constant<int, 1>{});
  else give(std::integral_constant<int, 0>{});
  port::named_barrier_sync(kEpilogueBarrier, kConsumers);
  if (grp == 0) sum(std::integral_constant<int, 0>{});
  else sum(std::integral_constant<int, 1>{});
  port::named_barrier_sync(kEpilogueBarrier, kConsumers);
}

// The wide tile (tile_m = 128): warpgroup g's accumulators are rows 64g..64g+63 of b; `tile` (LDS, NN rows of
// pw_tile_stride(128) floats) gets them transposed. Consecutive threads' columns are 2 rows of 132 floats apart:
// 8 banks, so a warp's 8 x 4 stores hit 32 distinct banks.
template <int NN>
__device__ __forceinline__ void place_halves(const float (&acc)[NN / 2], port::lds_ptr<float> tile, int tid) {
  constexpr int TS = pw_tile_stride(kPwWideTileM);
  const int base = 64 * (tid / 128);
DSV4_UNROLL
  for (int j = 0; j < NN / 2; ++j) tile[port::wgmma_acc_col(tid, j) * TS + base + port::wgmma_acc_row(tid, j)] = acc[j];
  port::named_barrier_sync(kEpilogueBarrier, kConsumers);
}

// The store of the tile's groups of kEpiVec outputs of one row (gi = n · 8 + q: outputs m0 + 8q .. m0 + 8q + 7 of
// row n), groups first, first + step, ...: each summed over `shards` LDS tiles in shard order from zero (one
// shard: the tile itself) and stored with the bias by store_output8.
template <bool F16, int NN, int TM>
__device__ __forceinline__ void store_groups(const Sm90Params& p, const TileRef& tr, const port::lds_ptr<float>* tiles,
                                             int shards, int first, int step) {
  constexpr int kPerRow = TM / kEpiVec, kGroups = NN * kPerRow, TS = pw_tile_stride(TM);
  for (int gi = first; gi < kGroups; gi += step) {
    const int n = gi / kPerRow, q = gi % kPerRow;  // n: the row in the slice (output row tr.n0 + n)
    if (tr.n0 + n >= p.n) break;  // groups go row by row: the rest are padding rows of a
    Out8 s{};
    for (int r = 0; r < shards; ++r) add_lds8(s, tiles[r], n * TS + q * kEpiVec);
    store_output8<F16>(p, tr, n * TM + q * kEpiVec, s);
  }
}

template <bool F16, int NN, int TM, int S, int P>
__global__ void __launch_bounds__(kPwThreads, 1) skinny_gemm_pw_kernel(const DSV4_GRID_CONSTANT Sm90Params p) {
  static_assert(NN == 8 || NN == 16 || NN == 32 || NN == 64 || NN == 128, "rows of a: one wgmma n of 8 to 128");
  static_assert(TM == kPwTileM || TM == kPwWideTileM, "rows of b: one warpgroup's 64 (k-groups) or both's 128");
  constexpr bool kWide = TM == kPwWideTileM;  // both warpgroups read every slot, each its 64 rows of b
  constexpr port::MmaElem E = F16 ? port::MmaElem::f16 : port::MmaElem::bf16;
  constexpr int PK = kWgmmaPanelK;
  constexpr int STAGE = P * (TM + NN) * PK;  // elements per slot: P panels of b, then P panels of a
  DSV4_LDS_DYNAMIC(std::uint16_t, smem);
  const int tid = static_cast<int>(threadIdx.x), grp = tid / 128;
  const int skip = port::lds_align_skip(smem);
  const std::size_t ring_at = static_cast<std::size_t>(skip) * 2, bars_at = ring_at + std::size_t{S} * STAGE * 2;
  auto ring = port::lds_carve<std::uint16_t>(smem, ring_at, static_cast<std::size_t>(S) * STAGE, "pw_stage_ring");
  auto full = port::lds_carve<std::uint64_t>(smem, bars_at, S, "pw_full_barriers");
  auto empty = port::lds_carve<std::uint64_t>(smem, bars_at + S * 8, S, "pw_empty_barriers");
  if (tid == 0) {
    port::tma_prefetch_descriptor(p.tmap_b);  // kernel parameters: safe before the previous grid completes
    port::tma_prefetch_descriptor(p.tmap_a);
    for (int s = 0; s < S; ++s) {
      port::mbarrier_init(full, s, 1);
      port::mbarrier_init(empty, s, kWide ? kConsumers : 128);
    }
    port::mbarrier_init_fence();
  }
  __syncthreads();  // the last block-wide barrier: the producer's lanes 1-31 leave below
  // Launched with programmatic dependent launch: the prologue above overlaps the previous kernel's end; nothing
  // global before this wait.
  port::wait_for_previous_grid();
  // Cluster split (p.k_rnd shards: the cluster's ranks; p.k_rnd = 1 without): this workgroup's 64-row tile and its
  // steps [step0, step0 + nsteps) of the K loop (p.chunks_per_shard steps of P panels per shard).
  // Output-row slices (p.n_slices of p.slice_rows = NN rows of a; the slices of a tile are adjacent workgroups, so
  // its b is read from DRAM about once): this workgroup's rows of a start at n0.
  const int shards = p.k_rnd, ks = shards > 1 ? port::cluster_rank() : 0;
  const int unit = static_cast<int>(blockIdx.x) / shards;  // output tile: 64-row tile of b x slice
  const int tile = unit / p.n_slices, n0 = (unit % p.n_slices) * p.slice_rows;
  const int all_steps = (p.k + P * PK - 1) / (P * PK);
  const int step0 = ks * p.chunks_per_shard;
  const int nsteps = (all_steps - step0 < p.chunks_per_shard ? all_steps - step0 : p.chunks_per_shard);
  const int m0 = tile * TM;

  if (tid >= kConsumers) {  // the producer warp
    if (tid == kProducer) {
      for (int i = 0; i < nsteps; ++i) {
        const int slot = i % S, kp = (step0 + i) * P;  // the step's first 64-K panel
        if (i >= S) port::mbarrier_wait(empty, slot, (i / S - 1) & 1);  // both readers of round i / S - 1 are done
        port::mbarrier_arrive_expect_tx(full, slot, STAGE * 2);
        const std::ptrdiff_t at = static_cast<std::ptrdiff_t>(slot) * STAGE;
        if constexpr (P > 1) {
          port::tma_load_panels(ring, at, p.tmap_b, m0, kp, full, slot);
          port::tma_load_panels(ring, at + P * TM * PK, p.tmap_a, n0, kp, full, slot);
        } else {
          port::tma_load_2d(ring, at, p.tmap_b, kp * PK, m0, full, slot);
          port::tma_load_2d(ring, at + TM * PK, p.tmap_a, kp * PK, n0, full, slot);
        }
      }
      port::allow_next_grid();
    }
    if (shards == 1) return;  // lanes 1-31 leave at once
    // A cluster split: the warp takes part in the consumers' two cluster barriers (the sim counts every thread of
    // the cluster), lanes 1-31 while lane 0 may still be issuing.
    port::cluster_sync_diverged();
    port::cluster_sync_diverged();
    return;
  }

  float acc[NN / 2];
DSV4_UNROLL
  for (int j = 0; j < NN / 2; ++j) acc[j] = 0.f;
  // k-groups (tile_m = 64): warpgroup g takes steps g, g + 2, ...; the wide tile: every step, rows 64g.. of b.
  const int first_step = kWide ? 0 : grp, step_stride = kWide ? 1 : 2;
  const int b_row0 = kWide ? 64 * grp : 0;
  for (int i = first_step; i < nsteps; i += step_stride) {
    const int slot = i % S;
    port::mbarrier_wait(full, slot, (i / S) & 1);
    port::wgmma_pin(acc);
    port::wgmma_fence();
    const std::ptrdiff_t at = static_cast<std::ptrdiff_t>(slot) * STAGE;
DSV4_UNROLL
    for (int q = 0; q < P; ++q)
DSV4_UNROLL
      for (int k16 = 0; k16 < PK / 16; ++k16)  // rows of a past N and K past the tensor are zeros in LDS
        port::wgmma_m64k16<E, NN>(acc, ring, at + (q * TM + b_row0) * PK, ring, at + P * TM * PK + q * NN * PK, k16,
                                  true);
    port::wgmma_commit();
    port::wgmma_wait<0>();
    port::wgmma_pin(acc);
    port::mbarrier_arrive(empty, slot);  // release: this thread's reads of the slot are done
  }
  port::allow_next_grid();  // the next kernel may be scheduled from here (it waits for this one's end)
  port::named_barrier_sync(kEpilogueBarrier, kConsumers);  // both warpgroups' MMAs are done: the ring is free
  const std::size_t red_floats = kWide ? 0 : std::size_t{kPwTileM} * pw_red_stride(NN);
  auto tile_sums = port::lds_carve<float>(smem, ring_at + red_floats * 4,
                                          static_cast<std::size_t>(NN) * pw_tile_stride(TM), "pw_output_tile");
  if constexpr (kWide) place_halves<NN>(acc, tile_sums, tid);
  else sum_kgroups<NN>(acc, port::lds_carve<float>(smem, ring_at, red_floats, "pw_kgroup_exchange"), tile_sums, tid);
  const TileRef tr{unit, tile, n0, ks};
  if (shards == 1) {
    store_groups<F16, NN, TM>(p, tr, &tile_sums, 1, tid, kConsumers);
    return;
  }
  // Cluster split: after a cluster barrier rank ks sums every shards-th group, from group ks, over all ranks' tiles
  // in rank order (shard order) and stores it; a second barrier keeps every tile alive until all have read it.
  port::cluster_sync();
  port::lds_ptr<float> peers[kMaxClusterShards];
  for (int r = 0; r < shards; ++r) peers[r] = port::cluster_lds(tile_sums, r);
  store_groups<F16, NN, TM>(p, tr, peers, shards, ks + shards * tid, shards * kConsumers);
  port::cluster_sync();
}

// One instance per row count of a, tile of b and ring of pw_ring (both forms).
template <bool F16, int NN, int TM>
Sm90KernelFn pick_ring(int stages, int panels) {
  constexpr PwRing wide = pw_ring(NN, true, TM), deep = pw_ring(NN, false, TM);
  if (stages == wide.stages && panels == wide.panels)
    return &skinny_gemm_pw_kernel<F16, NN, TM, wide.stages, wide.panels>;
  if (stages == deep.stages && panels == deep.panels)
    return &skinny_gemm_pw_kernel<F16, NN, TM, deep.stages, deep.panels>;
  return nullptr;
}

template <bool F16, int TM>
Sm90KernelFn pick_rows(int n_blocks, int stages, int panels) {
  switch (n_blocks) {
    case 1: return pick_ring<F16, 8, TM>(stages, panels);
    case 2: return pick_ring<F16, 16, TM>(stages, panels);
    case 4: return pick_ring<F16, 32, TM>(stages, panels);
    case 8: return pick_ring<F16, 64, TM>(stages, panels);
    case 16: return pick_ring<F16, 128, TM>(stages, panels);
    default: return nullptr;
  }
}

template <int TM>
Sm90KernelFn pick(bool f16, int n_blocks, int stages, int panels) {
  return f16 ? pick_rows<true, TM>(n_blocks, stages, panels) : pick_rows<false, TM>(n_blocks, stages, panels);
}

}  // namespace

Sm90KernelFn producer_warp_kernel(bool f16, int n_blocks, int tile_m, int stages, int panels) {
  Sm90KernelFn k = nullptr;
  if (tile_m == kPwTileM) k = pick<kPwTileM>(f16, n_blocks, stages, panels);
  if (tile_m == kPwWideTileM) k = pick<kPwWideTileM>(f16, n_blocks, stages, panels);
  if (!k)
    throw port::Error("skinny_gemm: no producer-warp kernel is instantiated for " + std::to_string(8 * n_blocks) +
                      " rows of a and " + std::to_string(tile_m) + " rows of b with a ring of " +
                      std::to_string(stages) + "x" + std::to_string(panels) + " panels");
  return k;
}
#endif  // !DSV4_BACKEND_HIP

}  // namespace dsv4::kernels::skinny::detail
