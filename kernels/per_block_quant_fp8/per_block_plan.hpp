// Host plan of the per-block FP8 weight quantization kernel (ops.md §7.1, per_block_quant_fp8): w [N, K] ->
// w_q [N, K] e4m3fn/e4m3fnuz codes and one scale per group_size x group_size tile (the checkpoint's
// weight_scale_inv). One 256-thread block quantizes one work item: one tile (fp32 row_major / mn_major scales
// [ceil(N/gs), ceil(K/gs)]) or the four K-adjacent tiles of one packed UE8M0 word column (packed_ue8m0: the tile
// scale broadcast to every row n of the tile, I32 [N, ceil(KB/4)] MN-major), so no two blocks write the same scale
// word. Per tile: thread-local amax, a butterfly wave reduction over warpSize lanes (64 or 32 at run time), then a
// cross-wave stage in LDS over blockDim/warpSize partials (known-bugs.md #17: the wave count is derived from
// the run-time wave size, never assumed), the recipe's scale, and a second pass that casts (the tile is re-read,
// an L2 hit on GPUs). Edge tiles (N or K not a multiple of gs) use the elements present. Items are visited in a
// grid-stride loop, so the grid is a launch width, never a correctness assumption. No workspace.
//
// The recipe and FP8 flavour are resolved exactly as kernels/quant_fp8/ does (make_quant_plan): fp8 from the op's
// fp8_dtype attr or, unset, the arch profile (gfx942 -> e4m3fnuz, gfx950 / sm_90 -> e4m3fn). Pure C++.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "kernels/port/arch.hpp"
#include "kernels/quant_fp8/quant_plan.hpp"

namespace dsv4::kernels {
struct PlanSweep;  // kernels/plan_sweep.hpp
}  // namespace dsv4::kernels

namespace dsv4::kernels::block_quant {

using quant::Fp8;
using quant::InputType;
using quant::ScaleLayout;
using quant::ScaleRule;

// Deliberately buggy variants for the bug zoo; never the default.
enum class BlockQuantVariant {
  fixed,
  wave64_lds_reduction,  // known-bugs #17 style: the cross-wave LDS stage reduces blockDim/64 partials; on wave 32
                         // it covers only the first half of the waves (half the tile's rows)
};

struct BlockQuantShape {
  std::int64_t n = 1, k = 128;
  InputType dtype = InputType::bf16;
};

struct BlockQuantOptions {
  std::string recipe = "plain-fp32";  // formats.md §5 recipe name
  std::optional<Fp8> fp8;             // unset: the arch profile's flavour
  std::optional<double> fp8_max;      // unset: the recipe's default
  ScaleLayout layout = ScaleLayout::row_major;
  std::int64_t group_size = 128;      // tile edge
  BlockQuantVariant variant = BlockQuantVariant::fixed;
  int wave_size = 0;                  // 0: the profile's; 32 / 64 when a simulator overrides it
};

inline constexpr int kBlockQuantThreads = 256;
inline constexpr int kBlockQuantMaxWaves = kBlockQuantThreads / 32;  // LDS partials (wave 32 worst case)
inline constexpr std::int64_t kMaxTileEdge = 1024;

struct BlockQuantPlan {
  bool ok = false;
  std::string reason;  // when !ok: the rule or limit the shape or options break

  BlockQuantShape shape;
  BlockQuantOptions options;
  port::Arch arch = port::Arch::gfx950;
  Fp8 fp8 = Fp8::e4m3fn;

  // Recipe, resolved (same fields and meaning as quant::QuantPlan).
  ScaleRule rule = ScaleRule::plain;
  float amax_floor = 1e-10f;
  float elem_max = 448.f;
  bool divide = true, clamp = true, saturate = true, pow2_scale = false;

  // Work decomposition.
  std::int64_t n_blocks = 0, k_blocks = 0;  // ceil(N/gs), ceil(K/gs)
  int tiles_per_item = 1;                   // 4 for packed_ue8m0 (one scale word column), else 1
  std::int64_t items_per_row = 0;           // ceil(k_blocks / tiles_per_item)
  std::int64_t items = 0;                   // n_blocks * items_per_row
  int wave_size = 64;
  int waves_per_block = 4;
  std::int64_t grid = 1;
  int block = kBlockQuantThreads;

  // Output geometry.
  std::int64_t scale_rows = 0;      // rows of the logical w_s: n_blocks, or N for packed_ue8m0
  std::int64_t scale_cols = 0;      // columns: k_blocks, or ceil(k_blocks/4) words for packed_ue8m0
  std::int64_t scale_ld = 0;        // row_major: k_blocks; mn_major: align(n_blocks, 4); packed: align(N, 4)
  std::size_t scale_bytes = 0;      // bytes of the scale buffer the kernel writes (padding rows included, as 0)
  std::size_t lds_bytes = 0;        // static LDS: wave partials + the broadcast amax
  std::size_t lds_capacity = 0;     // the profile's per-block LDS
  std::size_t workspace_bytes = 0;  // 0: no workspace

  std::string describe() const;
};

BlockQuantPlan make_block_quant_plan(const BlockQuantShape& shape, const port::ArchProfile& arch,
                                     const BlockQuantOptions& opt = {});
bool can_implement(const BlockQuantShape& shape, const port::ArchProfile& arch, const BlockQuantOptions& opt = {});

const char* variant_name(BlockQuantVariant v);
std::optional<BlockQuantVariant> parse_block_quant_variant(const std::string& s);

// The plan sweep this kernel offers the AMD budget check (per_block_plan_sweep.cpp).
PlanSweep per_block_plan_sweep();

}  // namespace dsv4::kernels::block_quant
