// The prototype of skinny_bt.hpp (b as the B operand; its producer-warp kernel also with b as the A operand):
// kernels and launcher.
#include <tuple>
#include <type_traits>

#include "bench/kernels/nvidia/skinny_bt/skinny_bt.hpp"
#include "kernels/port/hip_port.hpp"
#include "kernels/nvidia/port/cluster.hpp"
#include "kernels/port/grid_dependency.hpp"
#include "kernels/nvidia/port/named_barrier.hpp"
#include "kernels/nvidia/port/tma.hpp"
#include "kernels/nvidia/port/wgmma.hpp"
#include "kernels/common/bf16_fp16_convert.hpp"

namespace dsv4::bench::skinny_bt {

#if defined(DSV4_BACKEND_CUDA)
namespace {

constexpr int kPanelK = 64;

struct Params {
  port::TensorMap2d tmap_a, tmap_b;
  std::uint16_t* out;
  std::uint64_t* trace;  // null, or kTraceWords per workgroup (see skinny_bt.hpp)
  int n, m, k;
};

__device__ __forceinline__ std::uint64_t global_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Padded row strides of the k-group sum's LDS (floats in red, bf16 pairs in tile; see store_tile).
template <int TM>
constexpr int kRedStride = TM + ((8 - TM) % 32 + 32) % 32;
template <int TM>
constexpr int kTileStride = TM / 2 + ((4 - TM / 2) % 32 + 32) % 32;

// Two floats as a bf16 pair, round to nearest even (the hardware conversion: one instruction where the portable
// bit arithmetic of kernels/common/bf16_fp16_convert.hpp takes ~20).
__device__ __forceinline__ std::uint32_t pack_bf16x2(float lo, float hi) {
  std::uint32_t r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}

// The k-group sum and the store of a workgroup's 64 x TM output tile, split between the two consumer warpgroups:
// each leaves the half of its partial that the other one sums in `red` (LDS, 64 x TM floats); after `sync` each
// adds the other's half to its own half (a commutative add: the same sums whichever warpgroup makes them) and
// leaves them as bf16 in `tile` (LDS, after red); after another `sync` all 256 threads store the tile in 16-byte
// pieces of rows (M % 8 == 0). (Warpgroup 0 alone summing, converting with kernels/common/bf16_fp16_convert.hpp and storing 4-byte
// pieces took ~4000 cycles a workgroup: ~2 us of every launch, one warp per scheduler.)
template <int TM, class Sync>
__device__ __forceinline__ void store_tile(const Params& p, const float (&acc)[TM / 2], port::lds_ptr<float> red,
                                           port::lds_ptr<std::uint32_t> tile, int tid, int n0, int m0, Sync&& sync) {
  constexpr int H = TM / 4;  // accumulators per thread in each half (even: whole pairs)
  // Padded row strides (floats in red, bf16 pairs in tile) that put a warp's 8 rows x 4 pairs of one access in
  // distinct banks: with TM floats a row, TM = 128 made every access an 8-way conflict (TM = 112: 4-way), and the
  // epilogue took 2000-5000 cycles on the SM's one LDS wavefront per cycle.
  constexpr int RS = kRedStride<TM>, TS = kTileStride<TM>;
  const int grp = tid / 128, w = (tid % 128) / 32, g = (tid % 32) / 4, t = tid % 4;
  auto row_of = [&](int j) { return 16 * w + g + 8 * ((j % 4) / 2); };
  auto col_of = [&](int j) { return 8 * (j / 4) + 2 * t + j % 2; };
  // Accumulator indices stay compile-time constants (a run-time index would put acc in local memory): one
  // instance of each step per half.
  auto give = [&](auto half) {
#pragma unroll
    for (int j = half * H; j < (half + 1) * H; j += 2)
      *reinterpret_cast<float2*>(&red[row_of(j) * RS + col_of(j)]) = make_float2(acc[j], acc[j + 1]);
  };
  auto sum = [&](auto half) {
#pragma unroll
    for (int j = half * H; j < (half + 1) * H; j += 2) {
      const float2 o = *reinterpret_cast<const float2*>(&red[row_of(j) * RS + col_of(j)]);
      tile[row_of(j) * TS + col_of(j) / 2] = pack_bf16x2(acc[j] + o.x, acc[j + 1] + o.y);
    }
  };
  if (grp == 0) give(std::integral_constant<int, 1>{});
  else give(std::integral_constant<int, 0>{});
  sync();
  if (grp == 0) sum(std::integral_constant<int, 0>{});
  else sum(std::integral_constant<int, 1>{});
  sync();
  constexpr int kPieces = TM / 8;  // 16-byte pieces per output row
  for (int c = tid; c < 64 * kPieces; c += 256) {
    const int r = c / kPieces, q = c % kPieces, n = n0 + r, m = m0 + 8 * q;
    if (n >= p.n || m >= p.m) continue;
    const std::uint32_t* src = &tile[r * TS + 4 * q];
    *reinterpret_cast<uint4*>(p.out + static_cast<std::size_t>(n) * p.m + m) = make_uint4(src[0], src[1], src[2], src[3]);
  }
}

// The b-as-A layout's k-group sum and store: the accumulators are a 64 (rows of b) x NN (rows of a) tile, the
// transpose of the output's. The same split sum through `red` as store_tile, then the bf16 sums go to `tile16`
// transposed (NN rows of 64 outputs, padded to 72) and all 256 consumer threads store 16-byte pieces of out's rows.
__device__ __forceinline__ std::uint16_t to_bf16(float v) {
  std::uint16_t r;
  asm("cvt.rn.bf16.f32 %0, %1;\n" : "=h"(r) : "f"(v));
  return r;
}
constexpr int kBaTileStride = 72;  // bf16 per row of the transposed tile: 144 bytes, 16-byte aligned rows

template <int NN, class Sync>
__device__ __forceinline__ void store_tile_ba(const Params& p, const float (&acc)[NN / 2], port::lds_ptr<float> red,
                                              port::lds_ptr<std::uint16_t> tile16, int tid, int m0, Sync&& sync) {
  constexpr int H = NN / 4, RS = kRedStride<NN>;
  const int grp = tid / 128, w = (tid % 128) / 32, g = (tid % 32) / 4, t = tid % 4;
  auto row_of = [&](int j) { return 16 * w + g + 8 * ((j % 4) / 2); };  // row of b (output column)
  auto col_of = [&](int j) { return 8 * (j / 4) + 2 * t + j % 2; };     // row of a (output row)
  auto give = [&](auto half) {
#pragma unroll
    for (int j = half * H; j < (half + 1) * H; j += 2)
      *reinterpret_cast<float2*>(&red[row_of(j) * RS + col_of(j)]) = make_float2(acc[j], acc[j + 1]);
  };
  auto sum = [&](auto half) {
#pragma unroll
    for (int j = half * H; j < (half + 1) * H; j += 2) {
      const float2 o = *reinterpret_cast<const float2*>(&red[row_of(j) * RS + col_of(j)]);
      tile16[col_of(j) * kBaTileStride + row_of(j)] = to_bf16(acc[j] + o.x);
      tile16[(col_of(j) + 1) * kBaTileStride + row_of(j)] = to_bf16(acc[j + 1] + o.y);
    }
  };
  if (grp == 0) give(std::integral_constant<int, 1>{});
  else give(std::integral_constant<int, 0>{});
  sync();
  if (grp == 0) sum(std::integral_constant<int, 0>{});
  else sum(std::integral_constant<int, 1>{});
  sync();
  for (int c = tid; c < NN * 8; c += 256) {
    const int n = c / 8, m = m0 + 8 * (c % 8);
    if (n >= p.n || m >= p.m) continue;
    const uint4 v = *reinterpret_cast<const uint4*>(&tile16[n * kBaTileStride + 8 * (c % 8)]);
    *reinterpret_cast<uint4*>(p.out + static_cast<std::size_t>(n) * p.m + m) = v;
  }
}

// Cluster pieces of the multicast variants that kernels/nvidia/port/cluster.hpp does not have yet (raw PTX: a prototype):
// the cluster barrier split into arrive and wait, a multicast bulk copy, and (below) an arrival on a peer's barrier.
__device__ __forceinline__ void cluster_arrive() { asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory"); }
// The box at (row, col) of `map` into the same LDS offset of every workgroup of the cluster in `mask`, completing
// its bytes on each one's barrier at the same offset.
__device__ __forceinline__ void tma_load_multicast(std::uint16_t* dst, const port::TensorMap2d& map, int col, int row,
                                                   std::uint64_t* bar, unsigned short mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%2, "
      "%3}], [%4], %5;\n" ::"r"(static_cast<unsigned>(__cvta_generic_to_shared(dst))),
      "l"(reinterpret_cast<std::uint64_t>(&map)), "r"(col), "r"(row),
      "r"(static_cast<unsigned>(__cvta_generic_to_shared(bar))), "h"(mask)
      : "memory");
}

// The workgroup's N-half (its cluster rank with MC) and the first rows of b and a it multiplies: the grid is
// M-tiles x N-halves, or with MC 2 x M-tiles along x (an M-tile's halves in one cluster).
template <int TM, bool MC>
__device__ __forceinline__ std::tuple<int, int, int> origin_of() {
  const int half = MC ? port::cluster_rank() : 0;
  return {half, static_cast<int>(MC ? blockIdx.x / 2 : blockIdx.x) * TM, static_cast<int>(MC ? half : blockIdx.y) * 64};
}

// MC: the two N-halves of an M-tile are one cluster of two workgroups (grid x = 2 x M-tiles); each loads its own
// rows of a and half of the b tile, multicast to both; a slot is refilled after a split cluster barrier (arrive
// after the step's MMAs, wait before the refill) instead of the block barrier.
template <int TM, int S, int P, bool MC>
__global__ void __launch_bounds__(256, 1) bt_kernel(const DSV4_GRID_CONSTANT Params p) {
  static_assert(P % 2 == 0, "two warpgroups split each step's panels");
  static_assert(!MC || (TM / 2) % 8 == 0, "each half of a multicast b tile is whole swizzle atoms");
  constexpr int ROWS = 64 + TM, PANEL = ROWS * kPanelK, STAGE = P * PANEL;
  DSV4_LDS_DYNAMIC(std::uint16_t, smem);
  const int tid = static_cast<int>(threadIdx.x), grp = tid / 128;
  const auto [half, m0, n0] = origin_of<TM, MC>();
  const int skip = port::lds_align_skip(smem);
  auto ring = port::lds_carve<std::uint16_t>(smem, static_cast<std::size_t>(skip) * 2, static_cast<std::size_t>(S) * STAGE,
                                             "bt_ring");
  auto bars = port::lds_carve<std::uint64_t>(smem, static_cast<std::size_t>(skip) * 2 + static_cast<std::size_t>(S) * STAGE * 2,
                                             S, "bt_bars");
  if (tid == 0) {
    port::tma_prefetch_descriptor(p.tmap_a);
    port::tma_prefetch_descriptor(p.tmap_b);
    for (int s = 0; s < S; ++s) port::mbarrier_init(bars, s, 1);
    port::mbarrier_init_fence();
  }
  if constexpr (MC) {  // the peer's barriers exist before any multicast lands on them
    port::cluster_sync();
  } else {
    __syncthreads();
  }
  const int nsteps = (p.k + P * kPanelK - 1) / (P * kPanelK);
  auto issue = [&](int step) {
    if (tid != 0 || step >= nsteps) return;
    const int slot = step % S;
    port::mbarrier_arrive_expect_tx(bars, slot, STAGE * 2);
    const int k0 = step * P * kPanelK;
    for (int q = 0; q < P; ++q) {
      const std::ptrdiff_t panel = static_cast<std::ptrdiff_t>(slot) * STAGE + static_cast<std::ptrdiff_t>(q) * PANEL;
      port::tma_load_2d(ring, panel, p.tmap_a, k0 + q * kPanelK, n0, bars, slot);
      if constexpr (MC)
        tma_load_multicast(ring + panel + (64 + half * (TM / 2)) * kPanelK, p.tmap_b, k0 + q * kPanelK,
                           m0 + half * (TM / 2), bars + slot, 0x3);
      else
        port::tma_load_2d(ring, panel + 64 * kPanelK, p.tmap_b, k0 + q * kPanelK, m0, bars, slot);
    }
  };
  float acc[TM / 2];
#pragma unroll
  for (int i = 0; i < TM / 2; ++i) acc[i] = 0.f;
  for (int s = 0; s < S - 1; ++s) issue(s);
  if constexpr (MC) cluster_arrive();
  for (int it = 0; it < nsteps; ++it) {
    port::mbarrier_wait(bars, it % S, (it / S) & 1);
    if constexpr (MC) cluster_wait();  // both workgroups' MMAs of step it - 1 are done: its slot may be refilled
    else __syncthreads();
    issue(it + S - 1);
    const std::ptrdiff_t slot0 = static_cast<std::ptrdiff_t>(it % S) * STAGE;
    port::wgmma_pin(acc);
    port::wgmma_fence();
#pragma unroll
    for (int i = 0; i < P / 2; ++i) {
      const std::ptrdiff_t panel = slot0 + static_cast<std::ptrdiff_t>(grp + 2 * i) * PANEL;
#pragma unroll
      for (int k16 = 0; k16 < kPanelK / 16; ++k16)
        port::wgmma_m64k16<port::MmaElem::bf16, TM>(acc, ring, panel, ring, panel + 64 * kPanelK, k16, true);
    }
    port::wgmma_commit();
    port::wgmma_wait<0>();
    port::wgmma_pin(acc);
    if constexpr (MC) cluster_arrive();
  }
  if constexpr (MC) cluster_wait();  // no multicast lands in this workgroup's ring any more
  __syncthreads();  // every MMA has read its operands: the ring's LDS is free
  if (tid == 0)
    for (int s = 0; s < S; ++s) port::mbarrier_inval(bars, s);
  store_tile<TM>(p, acc, port::lds_carve<float>(smem, static_cast<std::size_t>(skip) * 2, 64 * kRedStride<TM>, "bt_kreduce"),
                 port::lds_carve<std::uint32_t>(smem, static_cast<std::size_t>(skip) * 2 + 64 * kRedStride<TM> * 4,
                                                64 * kTileStride<TM>, "bt_tile"),
                 tid, n0, m0, [] { __syncthreads(); });
}

// Warp-specialized variant (cuBLAS's pipeline): warp 8 is the producer (its thread 0 refills each stage as soon as
// its "empty" barrier completes), warpgroups 0-1 the consumers, taking alternate stages of one 64-K panel: wait on
// the stage's "full" barrier, four MMAs, keep that batch in flight and release the stage consumed before it (all
// 128 threads arrive on its "empty" barrier). No block barrier in the loop; the k-group sum after it syncs the
// consumers through a named barrier while the producer warp has left.
// With MC, the N-halves of an M-tile are a cluster of two: each producer loads its own rows of a and half of the b
// tile, multicast to both workgroups, so a slot's "empty" barrier collects the releases of both workgroups'
// consumers (lane 0 of each consumer warp arrives on its own and on the peer's barrier: 8 arrivals). The peer's
// arrival is at the default cta scope: .release.cluster made it a cluster-wide fence per stage and warp (2x the time
// on the H200).
// The LDS address of `bar` in the cluster's shared window of workgroup `peer` (mapa), computed once.
__device__ __forceinline__ unsigned peer_address(const std::uint64_t* bar, unsigned peer) {
  unsigned remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n"
               : "=r"(remote)
               : "r"(static_cast<unsigned>(__cvta_generic_to_shared(bar))), "r"(peer));
  return remote;
}
// Lane 0 of the warp arrives on the local barrier at `local` and the peer's at `remote` (cta scope), as predicated
// instructions of one asm block: a divergent branch around the arrivals made ptxas serialize the warpgroup's MMAs
// in flight across it (C7515).
__device__ __forceinline__ void mbarrier_arrive_pair(unsigned local, unsigned remote, bool lane0) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.u32 p, %2, 0;\n@p mbarrier.arrive.shared::cta.b64 _, [%0];\n"
      "@p mbarrier.arrive.shared::cluster.b64 _, [%1];\n}\n" ::"r"(local),
      "r"(remote), "r"(static_cast<unsigned>(lane0))
      : "memory");
}

// DRAIN: a consumer waits for its stage's MMAs and releases that stage at once (it holds one slot; the other
// warpgroup's MMAs keep the tensor pipe busy meanwhile) instead of keeping the batch in flight and releasing the
// stage before it (two slots held per warpgroup).
// BA: b as the MMA's A operand instead (cuBLAS's layout for N <= 32): a workgroup takes 64 rows of b and all TM
// (= 8, 16 or 32 >= N) rows of a as the B operand, so the grid is ceil(M / 64) and a stage is [b 64 rows][a TM rows].
// P: 64-K panels per stage, each operand's P panels fetched by one bulk copy (port::tma_load_panels), because the
// copies' issue rate limited the producer (~300 cycles a stage of two 2-D copies).
template <int TM, int S, bool MC, bool DRAIN, bool BA = false, int P = 1>
__global__ void __launch_bounds__(288, 1) bt_ws_kernel(const DSV4_GRID_CONSTANT Params p) {
  static_assert(!(BA && MC), "the b-as-A layout has no N-halves to pair");
  static_assert(P == 1 || !MC, "several panels per copy: not with multicast halves");
  constexpr int ROWS = 64 + TM, STAGE = P * ROWS * kPanelK;
  DSV4_LDS_DYNAMIC(std::uint16_t, smem);
  const int tid = static_cast<int>(threadIdx.x), grp = tid / 128;
  const auto [half, m0, n0] = origin_of<TM, MC>();
  const int skip = port::lds_align_skip(smem);
  auto ring = port::lds_carve<std::uint16_t>(smem, static_cast<std::size_t>(skip) * 2, static_cast<std::size_t>(S) * STAGE,
                                             "bt_ws_ring");
  const std::size_t bars_at = static_cast<std::size_t>(skip) * 2 + static_cast<std::size_t>(S) * STAGE * 2;
  auto full = port::lds_carve<std::uint64_t>(smem, bars_at, S, "bt_ws_full");
  auto empty = port::lds_carve<std::uint64_t>(smem, bars_at + S * 8, S, "bt_ws_empty");
  if (tid == 0) {
    port::tma_prefetch_descriptor(p.tmap_a);
    port::tma_prefetch_descriptor(p.tmap_b);
    for (int s = 0; s < S; ++s) {
      port::mbarrier_init(full, s, 1);
      port::mbarrier_init(empty, s, MC ? 8 : 128);
    }
    port::mbarrier_init_fence();
  }
  if constexpr (MC) {  // the peer's barriers exist before any multicast or remote arrival reaches them
    port::cluster_sync();
  } else {
    __syncthreads();
  }
  const int nsteps = (p.k + P * kPanelK - 1) / (P * kPanelK);
  std::uint64_t* trace = p.trace ? p.trace + static_cast<std::size_t>(blockIdx.x + gridDim.x * blockIdx.y) * kTraceWords
                                 : nullptr;
  const std::uint64_t start_ns = trace ? global_ns() : 0, start_clock = trace ? clock64() : 0;
  // Launched with programmatic dependent launch: everything above (LDS carve-up, barriers, descriptor prefetch)
  // overlaps the previous kernel's end; nothing global before this wait.
  port::wait_for_previous_grid();
  if (trace && tid == 0) {
    trace[0] = start_ns;
    trace[1] = start_clock;
  }
  if (grp == 2) {  // the producer warp: lane 0 issues, lanes 1-31 leave (exited threads do not take part in the
                   // cluster barrier; a whole warp polling the empty barriers measured ~5 % slower)
    if (tid != 256) return;
    for (int i = 0; i < nsteps; ++i) {
      const int slot = i % S;
      if (i >= S) port::mbarrier_wait(empty, slot, (i / S - 1) & 1);
      if (trace && i < kTraceStages) trace[kTraceIssue + i] = clock64();
      port::mbarrier_arrive_expect_tx(full, slot, STAGE * 2);
      const std::ptrdiff_t at = static_cast<std::ptrdiff_t>(slot) * STAGE;
      if constexpr (BA && P > 1) {
        port::tma_load_panels(ring, at, p.tmap_b, static_cast<int>(blockIdx.x) * 64, i * P, full, slot);
        port::tma_load_panels(ring, at + P * 64 * kPanelK, p.tmap_a, 0, i * P, full, slot);
      } else if constexpr (P > 1) {
        port::tma_load_panels(ring, at, p.tmap_a, n0, i * P, full, slot);
        port::tma_load_panels(ring, at + P * 64 * kPanelK, p.tmap_b, m0, i * P, full, slot);
      } else if constexpr (BA) {
        port::tma_load_2d(ring, at, p.tmap_b, i * kPanelK, static_cast<int>(blockIdx.x) * 64, full, slot);
        port::tma_load_2d(ring, at + 64 * kPanelK, p.tmap_a, i * kPanelK, 0, full, slot);
      } else {
        port::tma_load_2d(ring, at, p.tmap_a, i * kPanelK, n0, full, slot);
      }
      if constexpr (BA || P > 1) {
      } else if constexpr (MC)
        tma_load_multicast(ring + at + (64 + half * (TM / 2)) * kPanelK, p.tmap_b, i * kPanelK, m0 + half * (TM / 2),
                           full + slot, 0x3);
      else
        port::tma_load_2d(ring, at + 64 * kPanelK, p.tmap_b, i * kPanelK, m0, full, slot);
    }
    port::allow_next_grid();
    if constexpr (MC) {  // stay until the peer can no longer reach this workgroup's LDS: the barrier's non-.aligned
                         // form, as one lane of the warp runs it
      asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
    }
    return;
  }
  const unsigned empty_local = static_cast<unsigned>(__cvta_generic_to_shared(static_cast<std::uint64_t*>(empty))),
                 empty_peer = MC ? peer_address(empty, static_cast<unsigned>(half ^ 1)) : 0u;
  auto release = [&](int stage) {
    if constexpr (MC) {
      mbarrier_arrive_pair(empty_local + 8u * static_cast<unsigned>(stage % S), empty_peer + 8u * static_cast<unsigned>(stage % S),
                           tid % 32 == 0);
    } else {
      port::mbarrier_arrive(empty, stage % S);
    }
  };
  float acc[TM / 2];
#pragma unroll
  for (int i = 0; i < TM / 2; ++i) acc[i] = 0.f;
  int prev = -1;  // the stage whose MMAs are still in flight
  for (int i = grp; i < nsteps; i += 2) {
    const int slot = i % S;
    port::mbarrier_wait(full, slot, (i / S) & 1);
    if (trace && tid % 128 == 0 && i < kTraceStages) trace[kTraceLanded + i] = clock64();
    port::wgmma_pin(acc);
    port::wgmma_fence();
    const std::ptrdiff_t at = static_cast<std::ptrdiff_t>(slot) * STAGE;
#pragma unroll
    for (int q = 0; q < P; ++q)
#pragma unroll
      for (int k16 = 0; k16 < kPanelK / 16; ++k16)
        port::wgmma_m64k16<port::MmaElem::bf16, TM>(acc, ring, at + q * 64 * kPanelK, ring,
                                                    at + P * 64 * kPanelK + q * TM * kPanelK, k16, true);
    port::wgmma_commit();
    if constexpr (DRAIN) {
      port::wgmma_wait<0>();
      port::wgmma_pin(acc);
      release(i);
    } else {
      port::wgmma_wait<1>();  // the previous stage's MMAs are done: release it
      port::wgmma_pin(acc);
      if (prev >= 0) release(prev);
      prev = i;
    }
  }
  port::wgmma_wait<0>();
  port::wgmma_pin(acc);
  if (prev >= 0) release(prev);
  port::allow_next_grid();  // the next kernel may be scheduled from here (it waits for this one's end)
  if (trace && tid % 128 == 0) trace[4 + grp] = clock64();
  port::named_barrier_sync(1, 256);  // both consumers' MMAs are done: the ring's LDS is free
  if (trace && tid == 0) trace[6] = clock64();
  if constexpr (BA) {
    store_tile_ba<TM>(p, acc, port::lds_carve<float>(smem, static_cast<std::size_t>(skip) * 2, 64 * kRedStride<TM>, "ba_kreduce"),
                      port::lds_carve<std::uint16_t>(smem, static_cast<std::size_t>(skip) * 2 + 64 * kRedStride<TM> * 4,
                                                     TM * kBaTileStride, "ba_tile"),
                      tid, static_cast<int>(blockIdx.x) * 64, [] { port::named_barrier_sync(1, 256); });
  } else
  store_tile<TM>(p, acc, port::lds_carve<float>(smem, static_cast<std::size_t>(skip) * 2, 64 * kRedStride<TM>, "bt_ws_kreduce"),
                 port::lds_carve<std::uint32_t>(smem, static_cast<std::size_t>(skip) * 2 + 64 * kRedStride<TM> * 4,
                                                64 * kTileStride<TM>, "bt_ws_tile"),
                 tid, n0, m0, [&, sync_no = 0]() mutable {
                   if (trace && tid % 128 == 0) trace[8 + 4 * sync_no + grp] = clock64();
                   port::named_barrier_sync(1, 256);
                   if (trace && tid % 128 == 0) trace[10 + 4 * sync_no + grp] = clock64();
                   if (trace && tid == 0) trace[7] = clock64();
                   ++sync_no;
                 });
  if (trace && tid == 0) {
    trace[2] = global_ns();
    trace[3] = clock64();
  }
  if constexpr (MC) {
    port::cluster_sync();
  }
}

using Fn = void (*)(Params);
struct Instance {
  Config c;
  Fn fn;
};
#define DSV4_BT(TM, S, P) \
  {{TM, S, P, false, false, false}, &bt_kernel<TM, S, P, false>}, {{TM, S, P, true, false, false}, &bt_kernel<TM, S, P, true>}
#define DSV4_BT_WS(TM, S)                                                                                        \
  {{TM, S, 1, false, true, false}, &bt_ws_kernel<TM, S, false, false>},                                            \
      {{TM, S, 1, true, true, false}, &bt_ws_kernel<TM, S, true, false>},                                          \
      {{TM, S, 1, false, true, true}, &bt_ws_kernel<TM, S, false, true>},                                          \
      {{TM, S, 1, true, true, true}, &bt_ws_kernel<TM, S, true, true>}
#define DSV4_BA_WS(NN, S)                                                                                        \
  {{NN, S, 1, false, true, true, true}, &bt_ws_kernel<NN, S, false, true, true>},                                  \
      {{NN, S, 1, false, true, false, true}, &bt_ws_kernel<NN, S, false, false, true>}
const std::vector<Instance>& instances() {
  static const std::vector<Instance> v = {
      {{64, 6, 2, false, true, true}, &bt_ws_kernel<64, 6, false, true, false, 2>},
      {{112, 4, 2, false, true, true}, &bt_ws_kernel<112, 4, false, true, false, 2>},
      {{128, 4, 2, false, true, true}, &bt_ws_kernel<128, 4, false, true, false, 2>},
      {{8, 8, 2, false, true, true, true}, &bt_ws_kernel<8, 8, false, true, true, 2>},
      {{16, 8, 2, false, true, true, true}, &bt_ws_kernel<16, 8, false, true, true, 2>},
      {{32, 8, 2, false, true, true, true}, &bt_ws_kernel<32, 8, false, true, true, 2>},
      {{8, 4, 4, false, true, true, true}, &bt_ws_kernel<8, 4, false, true, true, 4>},
      {{16, 4, 4, false, true, true, true}, &bt_ws_kernel<16, 4, false, true, true, 4>},
      {{32, 4, 4, false, true, true, true}, &bt_ws_kernel<32, 4, false, true, true, 4>},
      DSV4_BA_WS(8, 16), DSV4_BA_WS(8, 8), DSV4_BA_WS(16, 16), DSV4_BA_WS(16, 8), DSV4_BA_WS(32, 16), DSV4_BA_WS(32, 8),
      DSV4_BT(64, 4, 2),  DSV4_BT(64, 3, 4),  DSV4_BT(96, 4, 2),  DSV4_BT(112, 4, 2),
      DSV4_BT(128, 4, 2), DSV4_BT(128, 3, 2), DSV4_BT(192, 3, 2), DSV4_BT(256, 2, 2),
      DSV4_BT_WS(64, 8),  DSV4_BT_WS(64, 10), DSV4_BT_WS(96, 10), DSV4_BT_WS(112, 8), DSV4_BT_WS(112, 9),
      DSV4_BT_WS(112, 10), DSV4_BT_WS(128, 8), DSV4_BT_WS(128, 6),
  };
  return v;
}
#undef DSV4_BT_WS
#undef DSV4_BA_WS
#undef DSV4_BT

}  // namespace
#endif

std::vector<Config> configs() {
  std::vector<Config> out;
#if defined(DSV4_BACKEND_CUDA)
  for (const Instance& i : instances()) out.push_back(i.c);
#endif
  return out;
}

int workgroups(const Config& c, int n, int m) {
  if (c.b_as_a) return (m + 63) / 64;
  const int m_tiles = (m + c.tile_m - 1) / c.tile_m, halves = (n + 63) / 64;
  return c.multicast ? 2 * m_tiles : m_tiles * halves;
}

std::string describe(const Config& c) {
  return "bt tile_m=" + std::to_string(c.tile_m) + " ring=" + std::to_string(c.stages) + "x" + std::to_string(c.panels) +
         (c.multicast ? " multicast" : "") + (c.warp_specialized ? " producer-warp" : "") + (c.drain ? " drain" : "") +
         (c.b_as_a ? " b-as-A" : "");
}

void run(const Config& c, const void* a, const void* b, void* out, int n, int m, int k, port::Stream& s,
         std::uint64_t* trace) {
#if defined(DSV4_BACKEND_CUDA)
  const Instance* inst = nullptr;
  for (const Instance& i : instances())
    if (i.c.tile_m == c.tile_m && i.c.stages == c.stages && i.c.panels == c.panels && i.c.multicast == c.multicast &&
        i.c.warp_specialized == c.warp_specialized && i.c.drain == c.drain && i.c.b_as_a == c.b_as_a)
      inst = &i;
  if (!inst) throw port::Error("skinny_bt: no instance for " + describe(c));
  if (k % 8 != 0 || m % 8 != 0) throw port::Error("skinny_bt: K and M must be multiples of 8");
  if (c.multicast && n <= 64) throw port::Error("skinny_bt: multicast pairs two N-halves (N > 64)");
  Params p;
  if (c.b_as_a && n > c.tile_m) throw port::Error("skinny_bt: the b-as-A layout takes N <= its tile of a");
  if (c.panels > 1 && c.warp_specialized) {
    if (k % kPanelK != 0) throw port::Error("skinny_bt: several panels per copy need K % 64 == 0");
    p.tmap_a = port::make_tensor_map_panels(a, n, k, static_cast<std::int64_t>(k) * 2, c.b_as_a ? c.tile_m : 64, c.panels);
    p.tmap_b = port::make_tensor_map_panels(b, m, k, static_cast<std::int64_t>(k) * 2, c.b_as_a ? 64 : c.tile_m, c.panels);
  } else {
    p.tmap_a = port::make_tensor_map_2d(a, n, k, static_cast<std::int64_t>(k) * 2, c.b_as_a ? c.tile_m : 64);
    p.tmap_b = port::make_tensor_map_2d(b, m, k, static_cast<std::int64_t>(k) * 2,
                                        c.b_as_a ? 64 : c.multicast ? c.tile_m / 2 : c.tile_m);
  }
  p.out = static_cast<std::uint16_t*>(out);
  p.trace = trace;
  p.n = n;
  p.m = m;
  p.k = k;
  const std::size_t lds = static_cast<std::size_t>(c.stages) * c.panels * (64 + c.tile_m) * kPanelK * 2 +
                          static_cast<std::size_t>(c.stages) * 16 + port::kSwizzle128Align;
  const unsigned m_tiles = static_cast<unsigned>((m + c.tile_m - 1) / c.tile_m), halves = static_cast<unsigned>((n + 63) / 64);
  const port::Dim3 grid = c.b_as_a      ? port::Dim3(static_cast<unsigned>((m + 63) / 64))
                          : c.multicast ? port::Dim3(2 * m_tiles)
                                        : port::Dim3(m_tiles, halves);
  port::LaunchConfig cfg{grid, port::Dim3(c.warp_specialized ? 288 : 256), lds, &s, "skinny_bt_prototype",
                         {port::reads(a, static_cast<std::size_t>(n) * k * 2, "a"),
                          port::reads(b, static_cast<std::size_t>(m) * k * 2, "b"),
                          port::writes(out, static_cast<std::size_t>(n) * m * 2, "out")}};
  if (c.multicast) cfg.cluster_blocks = 2;
  cfg.overlap_previous = c.warp_specialized;  // the producer-warp kernel waits for the previous grid
  port::launch(inst->fn, cfg, p);
#else
  (void)c, (void)a, (void)b, (void)out, (void)n, (void)m, (void)k, (void)s, (void)trace;
  throw port::Error("skinny_bt: a cuda (sm_90a) prototype");
#endif
}

}  // namespace dsv4::bench::skinny_bt
