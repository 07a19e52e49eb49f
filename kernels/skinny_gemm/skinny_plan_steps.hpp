// The steps every skinny plan maker shares (the portable plan in skinny_plan.cpp, the sm_90 plan in
// kernels/nvidia/skinny_gemm/sm90_plan.cpp): the shape's admission, the CHUNKK rule, and the split-K plan's readback
// batches, workspace and limits once its tiling, shards and LDS phases are set. Internal to the plan makers.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "kernels/port/arch.hpp"
#include "kernels/skinny_gemm/skinny_plan.hpp"

namespace dsv4::kernels::skinny::plan_steps {

inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
inline int next_pow2(std::int64_t v) {
  int p = 1;
  while (p < v) p *= 2;
  return p;
}

// p refused with the reason.
SkinnyPlan refuse(SkinnyPlan p, const std::string& why);
// Why no kernel takes the shape ("" when the skinny range admits it).
std::string shape_refusal(const SkinnyShape& s);
// A plan's shape, arch and options, refused (with the reason) when no kernel takes the shape.
SkinnyPlan plan_of(const SkinnyShape& s, const port::ArchProfile& arch, const SkinnyOptions& opt);
// The padded rows of a every workgroup computes (n_p2 = max(16, next_pow2(N))), grps_shr_b, the readback N-tiles, and
// one output-row slice of all of them (the sm_90 warpgroup plans may slice them afterwards).
void set_padded_rows(SkinnyPlan& p);
// The CHUNKK rule (appendix A.3 with the #56098 cap) for a base chunk of `base` K elements: sets chunkk, k_chunk
// and cu_needed (p.tiles_m, p.n_slices and p.n_p2 set).
void choose_chunkk(SkinnyPlan& p, const port::ArchProfile& arch, int base, bool legacy);
// The end of a split-K plan whose tiling, shards, LDS phases and allocation are set: readback batches of
// `shard_bytes` per shard, the workspace (counters and slabs of `slab_bytes`), and the limits (LDS, phases,
// workspace, grid). `partials_on_chip`: an arch layout combines the shards without the workspace (sm_90's cluster
// reduction), so neither readback nor workspace. Returns the plan admitted or refused.
SkinnyPlan finish_split_k(SkinnyPlan p, const port::ArchProfile& arch, std::size_t slab_bytes, std::size_t shard_bytes,
                          bool legacy, bool partials_on_chip = false);

}  // namespace dsv4::kernels::skinny::plan_steps
