// Host plan of the per-token-group FP8 quantization kernel (ops.md §7.1, formats.md §5): x [M, K] -> x_q [M, K]
// e4m3fn/e4m3fnuz codes and x_s block scales of 1 x group_size groups. One wave quantizes one work item: one
// group (row_major / mn_major fp32 scales) or the four groups of one packed UE8M0 word (packed_ue8m0), so no two
// waves ever write the same scale word. amax is a butterfly wave reduction over warpSize lanes (run-time wave size:
// 64 on CDNA, 32 on NVIDIA or a sim override); items are visited in a grid-stride loop, so the grid is a launch
// width, never a correctness assumption. No LDS, no workspace.
//
// The FP8 flavour comes from QuantOptions::fp8 (the op's fp8_dtype attr) or, when unset, from the arch profile
// (gfx942 -> e4m3fnuz, gfx950 / sm_90 -> e4m3fn). Recipes: every fp8 recipe of formats.md §5 except mx-floor
// (refused with the reason). Pure C++, no device code.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "kernels/port/arch.hpp"

namespace dsv4::kernels {
struct PlanSweep;  // kernels/plan_sweep.hpp
}  // namespace dsv4::kernels

namespace dsv4::kernels::quant {

enum class InputType { bf16, f16, f32 };
enum class ScaleLayout { row_major, mn_major, packed_ue8m0 };
enum class Fp8 { e4m3fn, e4m3fnuz };

// How the scale of a group is derived from its amax (the recipe families of formats.md §5).
enum class ScaleRule {
  plain,           // plain-fp32: max(amax, floor) / fp8_max
  bits_ceil_mul,   // dsv4-act: 2^log2_ceil_bits(max(amax, floor) * fl(1/fp8_max))
  log2_ceil,       // v3-triton, vllm-v4-kv, vllm-v4-invrope: 2^ceil(log2f(max(amax, floor) / fp8_max)), byte clamped
  ue8m0_ceil,      // dg-ceil: biased_exp(sf) + (mant != 0), clamped to [1, 254]
  tk_ceil,         // tk-ceil: ((bits(sf) - 1) >> 23) + 1 - 127
  scale_floor_log2 // flashmla-kv-test: 2^ceil(log2f(max(amax / fp8_max, floor)))
};

// Deliberately buggy variants for the bug zoo; never the default, selectable at run time.
enum class QuantVariant {
  fixed,
  wave32_reduction,  // known-bugs #17 style: the amax butterfly assumes 32 lanes; on wave 64 it covers half the wave
};

struct QuantShape {
  std::int64_t m = 1, k = 128;
  InputType dtype = InputType::bf16;
};

struct QuantOptions {
  std::string recipe = "plain-fp32";  // formats.md §5 recipe name
  std::optional<Fp8> fp8;             // unset: the arch profile's flavour
  std::optional<double> fp8_max;      // unset: the recipe's default (448 fn; 240 fnuz; 224 fnuz for vLLM recipes)
  ScaleLayout layout = ScaleLayout::row_major;
  std::int64_t group_size = 128;
  QuantVariant variant = QuantVariant::fixed;
  int wave_size = 0;                  // 0: the profile's; 32 / 64 when a simulator overrides it (the plan's numbers)
};

inline constexpr int kQuantBlockThreads = 256;
inline constexpr std::int64_t kMaxGroupSize = 4096;

struct QuantPlan {
  bool ok = false;
  std::string reason;  // when !ok: the rule the shape or options break

  QuantShape shape;
  QuantOptions options;
  port::Arch arch = port::Arch::gfx950;
  Fp8 fp8 = Fp8::e4m3fn;

  // Recipe, resolved.
  ScaleRule rule = ScaleRule::plain;
  float amax_floor = 1e-10f;
  float elem_max = 448.f;
  bool divide = true;        // x / s (else x * fl(1/s))
  bool clamp = true;         // clamp x/s to +-elem_max before the cast
  bool saturate = true;      // rne-satfinite (else non-saturating: overflow -> NaN code)
  bool pow2_scale = false;   // the scale is a power of two (needed by packed_ue8m0)

  // Work decomposition.
  std::int64_t groups = 1;          // ceil(K / group_size) per row
  int groups_per_item = 1;          // 4 for packed_ue8m0 (one scale word), else 1
  std::int64_t items_per_row = 1;
  std::int64_t items = 1;           // M * items_per_row
  int wave_size = 64;
  int waves_per_block = 4;
  std::int64_t grid = 1;
  int block = kQuantBlockThreads;

  // Output geometry.
  std::int64_t scale_ld = 0;        // mn_major / packed: align(M, 4) (padding rows written 0); row_major: groups
  std::int64_t scale_words = 0;     // packed: ceil(groups / 4)
  std::size_t scale_bytes = 0;      // bytes of the scale buffer the kernel writes
  std::size_t lds_bytes = 0;        // 0: no LDS
  std::size_t workspace_bytes = 0;  // 0: no workspace

  std::string describe() const;
};

QuantPlan make_quant_plan(const QuantShape& shape, const port::ArchProfile& arch, const QuantOptions& opt = {});
bool can_implement(const QuantShape& shape, const port::ArchProfile& arch, const QuantOptions& opt = {});

const char* variant_name(QuantVariant v);
std::optional<QuantVariant> parse_quant_variant(const std::string& s);
const char* layout_name(ScaleLayout l);

// The kernels that quantize with this recipe table (per_block_quant_fp8, inv_rope_fp8_quant) resolve their recipe
// through make_quant_plan: recipe_options() is the QuantOptions of their options (recipe, fp8, fp8_max, layout,
// group_size) and wave size; copy_resolved_recipe() copies the resolved fields of the QuantPlan into their plan.
template <class Options>
QuantOptions recipe_options(const Options& opt, int wave_size) {
  QuantOptions qo;
  qo.recipe = opt.recipe;
  qo.fp8 = opt.fp8;
  qo.fp8_max = opt.fp8_max;
  qo.layout = opt.layout;
  qo.group_size = opt.group_size;
  qo.wave_size = wave_size;
  return qo;
}
template <class Plan>
void copy_resolved_recipe(Plan& p, const QuantPlan& qp) {
  p.fp8 = qp.fp8;
  p.rule = qp.rule;
  p.amax_floor = qp.amax_floor;
  p.elem_max = qp.elem_max;
  p.divide = qp.divide;
  p.clamp = qp.clamp;
  p.saturate = qp.saturate;
  p.pow2_scale = qp.pow2_scale;
}

// The plan sweep this kernel offers the AMD budget check (quant_plan_sweep.cpp).
PlanSweep quant_plan_sweep();

}  // namespace dsv4::kernels::quant
