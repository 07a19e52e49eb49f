// Plan of the per-block FP8 weight quantization kernel; see per_block_plan.hpp. The recipe, flavour, fp8_max and
// the packed-needs-power-of-two rule are resolved by quant::make_quant_plan (one table for both quant kernels).
#include "kernels/per_block_quant_fp8/per_block_plan.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "kernels/plan_support.hpp"

namespace dsv4::kernels::block_quant {

const char* variant_name(BlockQuantVariant v) {
  return v == BlockQuantVariant::wave64_lds_reduction ? "wave64_lds_reduction" : "default";
}

std::optional<BlockQuantVariant> parse_block_quant_variant(const std::string& s) {
  if (s == "default" || s == "fixed") return BlockQuantVariant::fixed;
  if (s == "wave64_lds_reduction") return BlockQuantVariant::wave64_lds_reduction;
  return std::nullopt;
}

std::string BlockQuantPlan::describe() const {
  return fmt::format("per_block_quant_fp8 {} N={} K={} tile={}x{} recipe={} {} fp8_max={} layout={} tiles={}x{} "
                     "items={}x{} wave={} grid={} block={} lds={}/{} variant={}{}",
                     port::profile(arch).name, shape.n, shape.k, options.group_size, options.group_size,
                     options.recipe, fp8 == Fp8::e4m3fn ? "e4m3fn" : "e4m3fnuz", elem_max, quant::layout_name(options.layout),
                     n_blocks, k_blocks, items, tiles_per_item, wave_size, grid, block, lds_bytes, lds_capacity,
                     variant_name(options.variant), ok ? "" : " REFUSED: " + reason);
}

BlockQuantPlan make_block_quant_plan(const BlockQuantShape& shape, const port::ArchProfile& arch,
                                     const BlockQuantOptions& opt) {
  BlockQuantPlan p;
  p.shape = shape;
  p.options = opt;
  p.arch = arch.arch;
  p.wave_size = opt.wave_size ? opt.wave_size : arch.wave_size;
  p.lds_capacity = arch.lds_bytes_per_block;
  if (shape.n < 0 || shape.k < 0) return refuse(p, fmt::format("N = {} and K = {} must be >= 0", shape.n, shape.k));
  if (opt.group_size <= 0 || opt.group_size > kMaxTileEdge)
    return refuse(p, fmt::format("group_size = {} must lie in [1, {}] (tile edge limit)", opt.group_size, kMaxTileEdge));
  if (shape.n * shape.k > (std::int64_t{1} << 40)) return refuse(p, "N*K exceeds 2^40 elements");

  // Recipe resolution shared with the per-token-group kernel.
  quant::QuantShape qs;
  qs.m = shape.n;
  qs.k = shape.k;
  qs.dtype = shape.dtype;
  const quant::QuantPlan qp = quant::make_quant_plan(qs, arch, quant::recipe_options(opt, p.wave_size));
  quant::copy_resolved_recipe(p, qp);
  if (!qp.ok) return refuse(p, qp.reason);

  const std::int64_t gs = opt.group_size;
  p.n_blocks = (shape.n + gs - 1) / gs;
  p.k_blocks = (shape.k + gs - 1) / gs;
  p.tiles_per_item = opt.layout == ScaleLayout::packed_ue8m0 ? 4 : 1;
  p.items_per_row = (p.k_blocks + p.tiles_per_item - 1) / p.tiles_per_item;
  p.items = p.n_blocks * p.items_per_row;
  p.waves_per_block = kBlockQuantThreads / p.wave_size;
  p.grid = std::clamp<std::int64_t>(p.items, 1, std::int64_t{arch.compute_units} * 16);
  p.lds_bytes = sizeof(float) * (kBlockQuantMaxWaves + 1);
  if (p.lds_bytes > p.lds_capacity)
    return refuse(p, fmt::format("LDS {} B exceeds the {} per-block capacity {} B", p.lds_bytes, arch.name,
                              p.lds_capacity));
  switch (opt.layout) {
    case ScaleLayout::row_major:
      p.scale_rows = p.n_blocks;
      p.scale_cols = p.k_blocks;
      p.scale_ld = p.k_blocks;
      p.scale_bytes = static_cast<std::size_t>(p.n_blocks * p.k_blocks) * 4;
      break;
    case ScaleLayout::mn_major:
      p.scale_rows = p.n_blocks;
      p.scale_cols = p.k_blocks;
      p.scale_ld = (p.n_blocks + 3) / 4 * 4;
      p.scale_bytes = static_cast<std::size_t>(p.scale_ld * p.k_blocks) * 4;
      break;
    case ScaleLayout::packed_ue8m0:
      p.scale_rows = shape.n;
      p.scale_cols = p.items_per_row;
      p.scale_ld = (shape.n + 3) / 4 * 4;
      p.scale_bytes = static_cast<std::size_t>(p.scale_ld * p.items_per_row) * 4;
      break;
  }
  p.ok = true;
  return p;
}

bool can_implement(const BlockQuantShape& shape, const port::ArchProfile& arch, const BlockQuantOptions& opt) {
  return make_block_quant_plan(shape, arch, opt).ok;
}

}  // namespace dsv4::kernels::block_quant
