// The invariants every admitted skinny plan keeps, whichever kernel runs it, as RapidCheck assertions for the plan
// properties (tests/kernels/skinny_gemm/test_skinny_plan.cpp: the portable plan; tests/kernels/nvidia/skinny_gemm/
// test_sm90_plan_props.cpp: the sm_90 plan): LDS within the profile and the allocation, shards covering K, the
// predicates agreeing with the plan, the kernel's numbers the plan's, output-row slices covering N once, and the
// kernels' structural rules (whole micro-tiles and k-groups, readback passes of whole N-tiles, epilogue groups,
// power-of-two shifts); the CHUNKK rule. Call from a property only.
#pragma once

#include <rapidcheck.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "kernels/port/arch.hpp"
#include "kernels/skinny_gemm/skinny_gemm.hpp"
#include "kernels/skinny_gemm/skinny_plan.hpp"

namespace dsv4::test::skinny_plan {

namespace sk = dsv4::kernels::skinny;
namespace port = dsv4::port;

inline void check_admitted_plan(const sk::SkinnyShape& s, const port::ArchProfile& arch, const sk::SkinnyPlan& p) {
  RC_ASSERT(p.lds_alloc_bytes <= arch.lds_bytes_per_block);
  for (const auto& ph : p.lds_phases()) RC_ASSERT(ph.bytes <= p.lds_alloc_bytes);
  // Every shard is non-empty and together they cover K.
  RC_ASSERT(p.k_rnd * p.k_shard >= s.k);
  RC_ASSERT((p.k_rnd - 1) * p.k_shard < s.k);
  RC_ASSERT(p.workspace_bytes == p.workspace_need_bytes);
  RC_ASSERT(sk::workspace_size(s, arch) == sk::make_plan(s, arch).workspace_bytes);
  // The kernel's shard count, chunking and offsets are the predicate's.
  const sk::SkinnyKernelArgs ka = sk::kernel_args(p);
  RC_ASSERT(ka.k_rnd == p.k_rnd);
  RC_ASSERT(ka.k_shard == static_cast<std::int64_t>(ka.chunks_per_shard) * ka.k_chunk);
  RC_ASSERT(ka.grid == ka.tiles_m * ka.n_slices * ka.k_rnd);
  // Output-row slices cover N exactly once (no empty slice).
  RC_ASSERT(ka.n_slices == p.n_slices && ka.slice_rows == p.slice_rows);
  RC_ASSERT(static_cast<std::int64_t>(p.n_slices) * p.slice_rows >= s.n);
  RC_ASSERT(static_cast<std::int64_t>(p.n_slices - 1) * p.slice_rows < s.n);
  RC_ASSERT(static_cast<std::size_t>(ka.readback_batch_shards) * ka.readback_pass_outputs * 4 <= ka.lds_bytes);
  // Kernel structural invariants: whole micro-tiles and k-groups; readback passes of whole N-tiles with at most
  // 16 owned outputs per thread; epilogue groups of kEpiVec outputs never cross a row (16-byte aligned in LDS).
  RC_ASSERT(p.n_p2 * p.tile_m % (256 * 1) == 0);
  RC_ASSERT(p.readback_pass_outputs % 256 == 0);
  RC_ASSERT(p.readback_pass_outputs / 256 <= 16);
  RC_ASSERT(p.tile_m % sk::kEpiVec == 0);
  const std::int64_t stage = p.rows_per_n_tile * p.tile_m;  // the epilogues index by shifts: powers of two
  RC_ASSERT((p.tile_m & (p.tile_m - 1)) == 0);
  RC_ASSERT((stage & (stage - 1)) == 0);
  RC_ASSERT((std::int64_t{1} << ka.tm_shift) == p.tile_m);  // the shifts the kernel indexes by
  RC_ASSERT((std::int64_t{1} << ka.readback_stage_shift) == stage);
  RC_ASSERT(p.n_p2 * p.tile_m % p.readback_pass_outputs == 0);
  RC_ASSERT(p.readback_pass_outputs % (p.rows_per_n_tile * p.tile_m) == 0);
  RC_ASSERT((p.k_chunk / 8) % p.k_groups == 0);
  RC_ASSERT(p.n_p2 % p.rows_per_n_tile == 0);
  RC_ASSERT(p.n_p2 >= std::min<std::int64_t>(s.n, p.slice_rows));  // every workgroup computes its slice's rows
  RC_ASSERT(p.m_padded >= s.m);
}

// A split plan whose shards meet in the workspace: readback batches cover the shards; the slabs (M_p · N_p2 · k_rnd
// fp32, known-bugs #2) and one counter per output tile fit, at the same offsets for every shape (pool slots are
// shared).
inline void check_workspace_split(const sk::SkinnyPlan& p) {
  const sk::SkinnyKernelArgs ka = sk::kernel_args(p);
  RC_ASSERT(p.readback_batch_shards >= 1);
  RC_ASSERT(p.readback_batches * p.readback_batch_shards >= p.k_rnd);
  const std::size_t slabs = static_cast<std::size_t>(p.m_padded) * p.n_slices * p.n_p2 * p.k_rnd * 4;
  RC_ASSERT(p.workspace_bytes >= slabs + p.counter_bytes);
  RC_ASSERT(ka.partial_offset + ka.partial_bytes <= p.workspace_bytes);
  RC_ASSERT(ka.counter_offset + p.counter_bytes <= ka.partial_offset);
  RC_ASSERT(ka.partial_offset == sk::kCounterRegionBytes);
  RC_ASSERT(p.counter_bytes == static_cast<std::size_t>(p.tiles_m * p.n_slices) * 4);
}

// The CHUNKK rule (appendix A.3 with the #56098 cap) on the default plan of `s`: CHUNKK = 2 only above the 16-row
// class, with twice the CUs free, and at most kChunkkShardCap shards.
inline void check_chunkk_rule(const sk::SkinnyShape& s, const port::ArchProfile& arch) {
  const sk::SkinnyPlan p = sk::make_plan(s, arch);
  RC_ASSERT(p.ok);
  if (p.chunkk == 2) {
    RC_ASSERT(p.n_p2 > 16);
    RC_ASSERT(2 * p.cu_needed <= arch.compute_units);
    RC_ASSERT(p.k_rnd <= sk::kChunkkShardCap);
  }
}

}  // namespace dsv4::test::skinny_plan
