// Device code of the sm_90 skinny GEMM kernels (skinny_gemm_mma/_wgmma/_pw.kernel.cpp) on top of the portable
// kernel's (kernels/skinny_gemm/skinny_device.hpp: parameters, epilogue groups, the split-K readback): their
// parameters, their kernel lookups, the tile of a workgroup under a cluster reduction, and phase 2 of the split-K
// kernels (publish_tile: the fixed-order k-group sum, then the slab and finish_tile, the output, or the cluster
// exchange). Include from kernel TUs only, after kernels/port/hip_port.hpp and kernels/port/async_copy.hpp.
#pragma once

#include <cstdint>

#include "kernels/nvidia/port/cluster.hpp"
#include "kernels/nvidia/port/tensor_map.hpp"
#include "kernels/nvidia/skinny_gemm/sm90_plan.hpp"
#include "kernels/skinny_gemm/skinny_device.hpp"

namespace dsv4::kernels::skinny::detail {

// The portable parameters plus what only the tensor-core kernels read.
struct Sm90Params : KParams {
  int cluster_reduce;  // 1: the k_rnd shards of a tile are one cluster (Sm90Layout::cluster_reduce)
  int warps_m;         // warps (warpgroups) along M
  int warps_n;         // warps along N (m16n8k16 kernel)
  int panels;          // K panels per pipeline stage (32 elements; the warpgroup kernels: 64)
  // Bulk copies (warpgroup kernels): b as M x K (boxes of tile_m rows) and a as N x K with row stride lda (boxes of
  // the padded rows of a), 64 K elements per box (kernels/nvidia/port/tma.hpp).
  port::TensorMap2d tmap_b, tmap_a;
};
using Sm90KernelFn = void (*)(Sm90Params);

// The m16n8k16 kernel for a plan's warp tile (skinny_gemm_mma.kernel.cpp).
Sm90KernelFn mma_kernel(bool f16, int n_blocks, int m_tiles);
// The warpgroup (wgmma) kernel for a plan's warpgroup tile (8·n_blocks rows of a, 64·m64 rows of b per warpgroup)
// and ring slot count (skinny_gemm_wgmma.kernel.cpp).
Sm90KernelFn wgmma_kernel(bool f16, int n_blocks, int m64, int stages);
// The producer-warp kernel for 8·n_blocks rows of a and a ring of stages x panels (skinny_gemm_pw.kernel.cpp).
Sm90KernelFn producer_warp_kernel(bool f16, int n_blocks, int tile_m, int stages, int panels);

// tile_of_block with a cluster reduction: the shards of a tile are adjacent workgroups (one cluster), t = b / k_rnd,
// shard = b % k_rnd (the cluster rank).
__device__ __forceinline__ TileRef sm90_tile_of_block(const Sm90Params& p, int block) {
  if (!p.cluster_reduce) return tile_of_block(p, block);
  return tile_of(p, block / p.k_rnd, block % p.k_rnd);
}

// Phases 2-4 of a cluster-reduced plan (p.cluster_reduce): the tile's k_rnd shards are the workgroups of one cluster
// (rank = shard). Each sums its k-groups in ascending order into group 0 of its LDS partial; after a cluster barrier
// rank r takes every k_rnd-th of the tile's kEpiVec-output groups that will be stored, starting at r, sums it over
// the shards' LDS in shard order 0..k_rnd-1 from zero (the order and rounding of finish_tile's readback: the same
// bits as the workspace path) and stores it with the bias. A second barrier keeps every partial alive until all
// ranks have read it.
template <bool F16, class Put>
__device__ __forceinline__ void cluster_publish(const Sm90Params& p, port::lds_ptr<std::uint16_t> smem, const TileRef& t,
                                                int tid, int grp, int np, Put&& put) {
  const int TM = p.tile_m, KG = p.k_groups;
  const int outs = p.n_p2 * TM;
  auto red = port::lds_carve<float>(smem, 0, static_cast<std::size_t>(KG) * outs, "cluster_partial");
  put([&](int o, float v) { red[static_cast<std::ptrdiff_t>(grp) * outs + o] = v; });
  // Rows of the tile that are stored: inside the slice and inside N (np >= slice_rows on the warpgroup kernel).
  const int rows_left = p.n - t.n0;
  const int rows = np < p.slice_rows ? np : p.slice_rows;
  const int live_rows = rows < rows_left ? rows : rows_left;
  const int groups = live_rows * (TM / kEpiVec);
  if (KG > 1) {
    __syncthreads();
    for (int g = tid; g < groups; g += kBlockThreads) {  // in place: each group read and written by one thread
      const Out8 s = kgroup_sum8(red, KG, outs, g * kEpiVec);
      port::lds_store_as<float4>(red, g * kEpiVec, make_float4(s.v[0], s.v[1], s.v[2], s.v[3]));
      port::lds_store_as<float4>(red, g * kEpiVec + 4, make_float4(s.v[4], s.v[5], s.v[6], s.v[7]));
    }
  }
  port::cluster_sync();  // every shard's partial is in its LDS
  // Every shard's partial seen from here (mapped once); all of a group's remote loads are issued before the adds
  // (unrolled to the largest cluster), which still run in shard order.
  port::lds_ptr<float> peer[kMaxClusterShards];
DSV4_UNROLL
  for (int q = 0; q < kMaxClusterShards; ++q)
    if (q < p.k_rnd) peer[q] = port::cluster_lds(red, q);
  const std::int64_t m_tile0 = static_cast<std::int64_t>(t.m_tile) * TM;
  for (int g = t.ks + tid * p.k_rnd; g < groups; g += kBlockThreads * p.k_rnd) {
    const int o = g * kEpiVec;
    if (m_tile0 + (o & (TM - 1)) >= p.m) continue;
    float4 lo[kMaxClusterShards], hi[kMaxClusterShards];
DSV4_UNROLL
    for (int q = 0; q < kMaxClusterShards; ++q)
      if (q < p.k_rnd) {
        lo[q] = port::lds_load_as<float4>(peer[q], o);
        hi[q] = port::lds_load_as<float4>(peer[q], o + 4);
      }
    Out8 s{};
DSV4_UNROLL
    for (int q = 0; q < kMaxClusterShards; ++q)
      if (q < p.k_rnd) {
        s.v[0] += lo[q].x, s.v[1] += lo[q].y, s.v[2] += lo[q].z, s.v[3] += lo[q].w;
        s.v[4] += hi[q].x, s.v[5] += hi[q].y, s.v[6] += hi[q].z, s.v[7] += hi[q].w;
      }
    store_output8<F16>(p, t, o, s);
  }
  port::cluster_sync();  // no workgroup exits while another may still read its partial
}

// Phase 2 of both tensor-core kernels: the k-groups' accumulators are summed in ascending group order through LDS
// (or stored straight when there is one group), and the shard's partial tile goes to its slab; a one-shard plan
// (k_rnd == 1) has nothing to combine, so its tile goes to the output with the bias instead. `put(store)` calls
// store(o, v) for every accumulator of the calling thread (o = n * tile_m + m_local, n < np); rows n >= np of the
// tile are zero. Ends with phases 3-4 (finish_tile) when there is a split. Every thread calls it; the main loop's
// LDS is no longer in use.
template <bool F16, class Put>
__device__ __forceinline__ void publish_tile(const Sm90Params& p, port::lds_ptr<std::uint16_t> smem, const TileRef& t,
                                             int tid, int grp, int np, Put&& put) {
  if (p.cluster_reduce) {
    cluster_publish<F16>(p, smem, t, tid, grp, np, put);
    return;
  }
  const int TM = p.tile_m, KG = p.k_groups;
  const int outs = p.n_p2 * TM;
  float* slab = slab_of(p, t.ks, t.index, outs);
  const bool direct = p.k_rnd == 1;
  if (KG == 1 && !direct) {
    put([&](int o, float v) { port::global_store(slab + o, v); });
    for (int o = np * TM + tid; o < outs; o += kBlockThreads) port::global_store(slab + o, 0.f);
  } else {
    auto red = port::lds_carve<float>(smem, 0, static_cast<std::size_t>(KG) * outs, "kgroup_reduce");
    put([&](int o, float v) { red[static_cast<std::ptrdiff_t>(grp) * outs + o] = v; });
    __syncthreads();
    for (int o = tid * kEpiVec; o < outs; o += kBlockThreads * kEpiVec) {
      const Out8 s = (o >> p.tm_shift) < np ? kgroup_sum8(red, KG, outs, o) : Out8{};
      if (direct) store_output8<F16>(p, t, o, s);
      else store_slab8(slab, o, s);
    }
    if (direct) return;
  }
  finish_tile<F16>(p, smem, t, tid);
}

}  // namespace dsv4::kernels::skinny::detail
