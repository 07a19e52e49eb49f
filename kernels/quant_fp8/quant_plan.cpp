// Plan of the per-token-group FP8 quantization kernel; see quant_plan.hpp.
#include "kernels/quant_fp8/quant_plan.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "kernels/plan_support.hpp"

namespace dsv4::kernels::quant {

namespace {

struct RecipeRow {
  const char* name;
  ScaleRule rule;
  float floor;
  bool divide, clamp, saturate, pow2, vllm_fnuz_224;
};

// formats.md §5 / reference/formats/recipes.cpp: scale rule, amax floor, apply, element clamp, element mode
// (rne-satfinite = saturate; torch and rne-nonsat = non-saturating), power-of-two scale, vLLM's 224 for fnuz.
constexpr RecipeRow kRecipes[] = {
    {"plain-fp32", ScaleRule::plain, 1e-10f, true, true, true, false, false},
    {"dsv4-act", ScaleRule::bits_ceil_mul, 1e-4f, true, true, true, true, false},
    {"v3-triton", ScaleRule::log2_ceil, 1e-10f, true, true, true, true, true},
    {"vllm-v4-invrope", ScaleRule::log2_ceil, 1e-10f, true, true, true, true, true},
    {"vllm-v4-kv", ScaleRule::log2_ceil, 1e-4f, true, true, true, true, true},
    {"dg-ceil", ScaleRule::ue8m0_ceil, 1e-4f, false, false, false, true, false},
    {"tk-ceil", ScaleRule::tk_ceil, 1e-4f, false, false, false, true, false},
    {"flashmla-kv-test", ScaleRule::scale_floor_log2, 1e-4f, true, false, false, true, false},
};

std::string supported_list() {
  std::string s;
  for (const auto& r : kRecipes) s += (s.empty() ? "" : ", ") + std::string(r.name);
  return s;
}

}  // namespace

const char* layout_name(ScaleLayout l) {
  switch (l) {
    case ScaleLayout::row_major: return "row_major";
    case ScaleLayout::mn_major: return "mn_major";
    case ScaleLayout::packed_ue8m0: return "packed_ue8m0";
  }
  return "?";
}

const char* variant_name(QuantVariant v) {
  return v == QuantVariant::wave32_reduction ? "wave32_reduction" : "default";
}

std::optional<QuantVariant> parse_quant_variant(const std::string& s) {
  if (s == "default" || s == "fixed") return QuantVariant::fixed;
  if (s == "wave32_reduction") return QuantVariant::wave32_reduction;
  return std::nullopt;
}

std::string QuantPlan::describe() const {
  return fmt::format("per_token_group_quant_fp8 {} M={} K={} group={} recipe={} {} fp8_max={} layout={} groups={} "
                     "items={}x{} wave={} grid={} block={} variant={}{}",
                     port::profile(arch).name, shape.m, shape.k, options.group_size, options.recipe,
                     fp8 == Fp8::e4m3fn ? "e4m3fn" : "e4m3fnuz", elem_max, layout_name(options.layout), groups,
                     items, groups_per_item, wave_size, grid, block, variant_name(options.variant),
                     ok ? "" : " REFUSED: " + reason);
}

QuantPlan make_quant_plan(const QuantShape& shape, const port::ArchProfile& arch, const QuantOptions& opt) {
  QuantPlan p;
  p.shape = shape;
  p.options = opt;
  p.arch = arch.arch;
  p.fp8 = opt.fp8.value_or(arch.fp8 == port::Fp8Flavor::fnuz ? Fp8::e4m3fnuz : Fp8::e4m3fn);
  p.wave_size = opt.wave_size ? opt.wave_size : arch.wave_size;
  if (shape.m < 0 || shape.k < 0) return refuse(p, fmt::format("M = {} and K = {} must be >= 0", shape.m, shape.k));
  if (opt.group_size <= 0 || opt.group_size > kMaxGroupSize)
    return refuse(p, fmt::format("group_size = {} must lie in [1, {}]", opt.group_size, kMaxGroupSize));
  if (p.wave_size != 32 && p.wave_size != 64) return refuse(p, fmt::format("wave size {} is not 32 or 64", p.wave_size));
  const RecipeRow* row = nullptr;
  for (const auto& r : kRecipes)
    if (opt.recipe == r.name) row = &r;
  if (!row)
    return refuse(p, fmt::format("scale_recipe '{}' is not implemented by this kernel (implemented: {}; mx-floor's "
                              "ties-away option and keep-inf element mode are reference-only)",
                              opt.recipe, supported_list()));
  p.rule = row->rule;
  p.amax_floor = row->floor;
  p.divide = row->divide;
  p.clamp = row->clamp;
  p.saturate = row->saturate;
  p.pow2_scale = row->pow2;
  const double fmax = p.fp8 == Fp8::e4m3fn ? 448.0 : 240.0;
  double em = (row->vllm_fnuz_224 && p.fp8 == Fp8::e4m3fnuz) ? 224.0 : fmax;
  if (opt.fp8_max) {
    if (!(*opt.fp8_max > 0 && *opt.fp8_max <= fmax))
      return refuse(p, fmt::format("fp8_max = {} must lie in (0, {}]", *opt.fp8_max, fmax));
    em = *opt.fp8_max;
  }
  p.elem_max = static_cast<float>(em);
  if (opt.layout == ScaleLayout::packed_ue8m0 && !p.pow2_scale)
    return refuse(p, fmt::format("scale_layout packed_ue8m0 needs a power-of-two (UE8M0) scale_recipe; '{}' gives "
                              "plain fp32 scales", opt.recipe));

  p.groups = shape.k == 0 ? 0 : (shape.k + opt.group_size - 1) / opt.group_size;
  p.groups_per_item = opt.layout == ScaleLayout::packed_ue8m0 ? 4 : 1;
  p.items_per_row = (p.groups + p.groups_per_item - 1) / p.groups_per_item;
  p.items = shape.m * p.items_per_row;
  p.waves_per_block = kQuantBlockThreads / p.wave_size;
  p.grid = std::clamp<std::int64_t>((p.items + p.waves_per_block - 1) / p.waves_per_block, 1,
                                    std::int64_t{arch.compute_units} * 64);
  const std::int64_t ld4 = (shape.m + 3) / 4 * 4;
  switch (opt.layout) {
    case ScaleLayout::row_major:
      p.scale_ld = p.groups;
      p.scale_bytes = static_cast<std::size_t>(shape.m * p.groups) * 4;
      break;
    case ScaleLayout::mn_major:
      p.scale_ld = ld4;
      p.scale_bytes = static_cast<std::size_t>(ld4 * p.groups) * 4;
      break;
    case ScaleLayout::packed_ue8m0:
      p.scale_ld = ld4;
      p.scale_words = p.items_per_row;
      p.scale_bytes = static_cast<std::size_t>(ld4 * p.scale_words) * 4;
      break;
  }
  if (shape.m * shape.k > (std::int64_t{1} << 40)) return refuse(p, "M*K exceeds 2^40 elements");
  p.ok = true;
  return p;
}

bool can_implement(const QuantShape& shape, const port::ArchProfile& arch, const QuantOptions& opt) {
  return make_quant_plan(shape, arch, opt).ok;
}

}  // namespace dsv4::kernels::quant
