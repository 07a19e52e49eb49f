// Device code shared by the skinny GEMM's kernels (skinny_gemm.kernel.cpp: the portable FMA kernel; the sm_90
// kernels of kernels/nvidia/skinny_gemm build on it): the kernel parameters, element conversions, the epilogue
// groups, and phases 3-4 of the split-K protocol (release, count, last-arriver readback through LDS in fixed shard
// order, epilogue). Include from kernel TUs only, after kernels/port/hip_port.hpp and kernels/port/async_copy.hpp.
// Invariant: the workgroup's fp32 partial tile is in its slab (output o = n * tile_m + m_local, all n < n_p2) before
// finish_tile is called; every thread of the workgroup calls it.
#pragma once

#include <cstdint>
#include <string>

#include "kernels/port/hip_port.hpp"
#include "kernels/port/runtime.hpp"
#include "kernels/common/bf16_fp16_convert.hpp"
#include "kernels/common/unroll.hpp"
#include "kernels/skinny_gemm/skinny_params.hpp"
#include "kernels/skinny_gemm/skinny_plan.hpp"

namespace dsv4::kernels::skinny::detail {

using common::bf16_to_f32;
using common::f16_to_f32;
using common::f32_to_bf16;
using common::f32_to_f16;

// port::launch of a skinny kernel with the plan named in its error.
template <class Params>
void launch_checked(const SkinnyPlan& plan, void (*kernel)(Params), const port::LaunchConfig& cfg, const Params& p) {
  try {
    port::launch(kernel, cfg, p);
  } catch (const port::Error& e) {
    throw port::Error(std::string(e.what()) + " [" + plan.describe() + "]");
  }
}


// The output tile a workgroup owns and its K-shard. Workgroup b: tile index t = b % (tiles_m · n_slices) (its
// counter and slab), shard b / (tiles_m · n_slices); M-tile t / n_slices and slice t % n_slices (the slices of an
// M-tile are adjacent workgroups), whose output rows start at n0 = slice · slice_rows.
struct TileRef {
  int index, m_tile, n0, ks;
};
__device__ __forceinline__ int output_tiles(const KParams& p) { return p.tiles_m * p.n_slices; }
__device__ __forceinline__ TileRef tile_of(const KParams& p, int t, int ks) {
  return {t, t / p.n_slices, (t % p.n_slices) * p.slice_rows, ks};
}
__device__ __forceinline__ TileRef tile_of_block(const KParams& p, int block) {
  const int tiles = output_tiles(p);
  return tile_of(p, block % tiles, block / tiles);
}
// The fp32 slab of shard `ks` of output tile `index` (outs = n_p2 · tile_m floats each), shard-major.
__device__ __forceinline__ float* slab_of(const KParams& p, int ks, int index, int outs) {
  return p.partials + (static_cast<std::int64_t>(ks) * output_tiles(p) + index) * outs;
}

template <bool F16>
__device__ __forceinline__ float to_f32(std::uint32_t h) {
  if constexpr (F16) return f16_to_f32(h);
  else return bf16_to_f32(h);
}
template <bool F16>
__device__ __forceinline__ std::uint16_t from_f32(float f) {
  if constexpr (F16) return f32_to_f16(f);
  else return f32_to_bf16(f);
}

// Epilogue of one output of the tile (o = n_local * tile_m + m_local): + bias in fp32, one rounding, store if in
// range (rows of the tile past its slice belong to the next slice's workgroup).
template <bool F16>
__device__ __forceinline__ void store_output(const KParams& p, const TileRef& t, int o, float v) {
  const int nl = o / p.tile_m;
  const int n = t.n0 + nl;
  const std::int64_t m = static_cast<std::int64_t>(t.m_tile) * p.tile_m + o % p.tile_m;
  if (nl >= p.slice_rows || n >= p.n || m >= p.m) return;
  if (p.bias_kind == 1) v += to_f32<F16>(p.bias[m]);
  else if (p.bias_kind == 2) v += to_f32<F16>(p.bias[static_cast<std::int64_t>(n) * p.m + m]);
  port::global_store(p.out + static_cast<std::int64_t>(n) * p.m + m, from_f32<F16>(v));
}

// The epilogues work on groups of kEpiVec consecutive outputs of one row n (o % kEpiVec == 0; tile_m >= 16 and
// n_p2 * tile_m >= 256 are powers of two, so a group never crosses a row and outs / kEpiVec >= 32): two 16-byte LDS
// reads per summand and one 16-byte store, instead of a scalar loop with an integer division per output (which
// cost half the time of a one-shard N = 128 tile: bench/kernels/RESULTS_skinny_h200.md). kEpiVec is in skinny_plan.hpp.
static_assert(kEpiVec == 8, "the group helpers below read and store 8 outputs (two float4, one uint4)");
struct Out8 {
  float v[kEpiVec];
};

__device__ __forceinline__ void add_lds8(Out8& s, port::lds_ptr<float> src, std::ptrdiff_t at) {
  const float4 lo = port::lds_load_as<float4>(src, at), hi = port::lds_load_as<float4>(src, at + 4);
  s.v[0] += lo.x, s.v[1] += lo.y, s.v[2] += lo.z, s.v[3] += lo.w;
  s.v[4] += hi.x, s.v[5] += hi.y, s.v[6] += hi.z, s.v[7] += hi.w;
}

// The group at o summed over the k-group partials red[q * outs + o ...] in ascending group order: the fixed order
// that makes the shard's partial bit-identical run to run (phase 2 of every kernel).
__device__ __forceinline__ Out8 kgroup_sum8(port::lds_ptr<float> red, int k_groups, int outs, int o) {
  const float4 lo = port::lds_load_as<float4>(red, o), hi = port::lds_load_as<float4>(red, o + 4);
  Out8 s{{lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w}};
  for (int q = 1; q < k_groups; ++q) add_lds8(s, red, static_cast<std::ptrdiff_t>(q) * outs + o);
  return s;
}

// Writes the group to a 16-byte-aligned fp32 slab (the split-K partials; the workspace is 16-byte aligned).
__device__ __forceinline__ void store_slab8(float* slab, int o, const Out8& s) {
  port::global_store(reinterpret_cast<float4*>(slab + o), make_float4(s.v[0], s.v[1], s.v[2], s.v[3]));
  port::global_store(reinterpret_cast<float4*>(slab + o + 4), make_float4(s.v[4], s.v[5], s.v[6], s.v[7]));
}

__device__ __forceinline__ bool aligned16(const void* q) { return (reinterpret_cast<std::uintptr_t>(q) & 15) == 0; }

// store_output for the group at o: one 16-byte store (and bias load) when the group is inside M and its row start is
// 16-byte aligned (M % 8 == 0 and aligned out / bias), else per output; the same sums and rounding either way.
template <bool F16>
__device__ __forceinline__ void store_output8(const KParams& p, const TileRef& t, int o, const Out8& s) {
  const int nl = o >> p.tm_shift;
  const int n = t.n0 + nl;
  const std::int64_t m = static_cast<std::int64_t>(t.m_tile) * p.tile_m + (o & (p.tile_m - 1));
  if (nl >= p.slice_rows || n >= p.n || m >= p.m) return;
  const bool vec = m + kEpiVec <= p.m && p.m % kEpiVec == 0 && aligned16(p.out) && (p.bias_kind == 0 || aligned16(p.bias));
  if (!vec) {
    for (int e = 0; e < kEpiVec; ++e) store_output<F16>(p, t, o + e, s.v[e]);
    return;
  }
  float w[kEpiVec];
  for (int e = 0; e < kEpiVec; ++e) w[e] = s.v[e];
  if (p.bias_kind != 0) {
    const std::int64_t at = (p.bias_kind == 2 ? static_cast<std::int64_t>(n) * p.m : 0) + m;
    const uint4 b = port::global_load(reinterpret_cast<const uint4*>(p.bias + at));
    const unsigned bw[4] = {b.x, b.y, b.z, b.w};
    for (int e = 0; e < kEpiVec; ++e) w[e] += to_f32<F16>((bw[e / 2] >> (16 * (e % 2))) & 0xffffu);
  }
  unsigned h[4];
  for (int e = 0; e < 4; ++e)
    h[e] = static_cast<unsigned>(from_f32<F16>(w[2 * e])) | (static_cast<unsigned>(from_f32<F16>(w[2 * e + 1])) << 16);
  port::global_store(reinterpret_cast<uint4*>(p.out + static_cast<std::int64_t>(n) * p.m + m), make_uint4(h[0], h[1], h[2], h[3]));
}

constexpr int kMaxOwnedGroups = 2;  // kEpiVec-output groups per thread per readback pass: pass_outs <= 4096

// Phases 3 and 4: release, count, and the last arriver reads every shard back in fixed order, adds the bias and
// stores the tile. The readback runs in passes of pass_outs outputs (whole N-tiles of rows_per_n_tile rows); each
// pass stages batch_shards shards at a time through LDS with asynchronous copies, and each thread sums and stores
// up to kMaxOwnedGroups groups of kEpiVec outputs.
template <bool F16>
__device__ __forceinline__ void finish_tile(const KParams& p, port::lds_ptr<std::uint16_t> smem, const TileRef& t,
                                            int tid) {
  const int TM = p.tile_m;
  const int outs = p.n_p2 * TM;
  // ---- 3. release, count, last arriver acquires ----
  __threadfence();  // release: this thread's partials are visible device-wide before the count
  __syncthreads();
  auto flag = port::lds_carve<int>(smem, 0, 1, "last_arriver_flag");
  if (tid == 0) {
    const int old = atomicAdd(p.counters + t.index, 1);
    const int last = (old == p.k_rnd - 1) ? 1 : 0;
    if (last) atomicExch(p.counters + t.index, 0);  // restore the zero invariant for the next launch
    flag[0] = last;
  }
  __syncthreads();
  const int last = flag[0];
  __syncthreads();  // everyone has read the flag before the readback reuses LDS
  if (!last) return;
  __threadfence();  // acquire: every other shard's partials are visible from here on

  // ---- readback in passes and batches through LDS, fixed shard order ----
  // Within a pass, output o0 + q sits in N-tile q >> stage_shift of the pass at q & stage_mask; staging layout
  // (floats): (nt_in_pass * batch_shards + ks_local) * stage + (q & stage_mask), stage = rows_per_n_tile * tile_m.
  auto stg = port::lds_carve<float>(smem, 0, static_cast<std::size_t>(p.lds_floats), "readback_stage");
  const int stage = 1 << p.stage_shift, stage_mask = stage - 1;
  const int groups = p.pass_outs / kEpiVec;  // per pass, at most kMaxOwnedGroups * kBlockThreads
  for (int o0 = 0; o0 < outs; o0 += p.pass_outs) {
    Out8 sum[kMaxOwnedGroups] = {};
    for (int b0 = 0; b0 < p.k_rnd; b0 += p.batch_shards) {
      const int bs = (p.k_rnd - b0 < p.batch_shards) ? p.k_rnd - b0 : p.batch_shards;
      const float* shard0 = slab_of(p, b0, t.index, outs) + o0;
      const std::int64_t shard_stride = static_cast<std::int64_t>(output_tiles(p)) * outs;
      for (int ksl = 0; ksl < bs; ++ksl)
        for (int q = tid * 4; q < p.pass_outs; q += kBlockThreads * 4) {
          const std::ptrdiff_t dst =
              (static_cast<std::ptrdiff_t>(q >> p.stage_shift) * p.batch_shards + ksl) * stage + (q & stage_mask);
          port::async_copy16(stg, dst, shard0 + ksl * shard_stride + q, true);
        }
      port::async_commit();
      port::async_wait<0>();
      __syncthreads();
DSV4_UNROLL
      for (int j = 0; j < kMaxOwnedGroups; ++j) {
        const int q = (tid + j * kBlockThreads) * kEpiVec;
        if (q >= p.pass_outs) break;
        const std::ptrdiff_t base =
            static_cast<std::ptrdiff_t>(q >> p.stage_shift) * p.batch_shards * stage + (q & stage_mask);
        for (int ksl = 0; ksl < bs; ++ksl) add_lds8(sum[j], stg, base + static_cast<std::ptrdiff_t>(ksl) * stage);
      }
      __syncthreads();
    }

    // ---- 4. epilogue of the pass ----
DSV4_UNROLL
    for (int j = 0; j < kMaxOwnedGroups; ++j) {
      const int g = tid + j * kBlockThreads;
      if (g >= groups) break;
      store_output8<F16>(p, t, o0 + g * kEpiVec, sum[j]);
    }
  }
}

}  // namespace dsv4::kernels::skinny::detail
