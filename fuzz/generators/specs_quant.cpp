// Generator specs of the FP8 quantization ops (ops.md §7.1, §7.2): K on group-size multiples and one
// either side (the quant kernel's groups), on 512 multiples (one packed UE8M0 word = 4 groups), M on
// align(M, 4) edges (mn_major / packed scale padding); scale layouts and recipes as attributes (packed
// only with power-of-two recipes, as the contract requires). Specials: rows that drive the scale to its
// extremes (all zero: the amax floor; ±largest finite: the top E8M0 bytes; 2^-120-scaled: the bottom
// clamp), one non-zero element per row, signed zeros; inv-rope positions 0 and max_pos-1.
#include <algorithm>
#include <cmath>

#include "fuzz/generators/spec_helpers.hpp"

namespace dsv4::fuzz::gen {

namespace {

const std::vector<std::string> kPow2Recipes = {"dg-ceil", "dsv4-act", "tk-ceil", "v3-triton", "vllm-v4-kv"};
const std::vector<std::string> kRecipes = {"plain-fp32", "dg-ceil", "dsv4-act", "tk-ceil", "v3-triton",
                                           "flashmla-kv-test", "vllm-v4-kv", "vllm-v4-invrope"};

void quant_attrs(Json& s, std::mt19937_64& rng, bool allow_row_major) {
  const std::string layout = allow_row_major ? pick<std::string>(rng, {"row_major", "mn_major", "packed_ue8m0"})
                                             : pick<std::string>(rng, {"mn_major", "packed_ue8m0"});
  s["attr.scale_layout"] = layout;
  if (layout == "packed_ue8m0") s["attr.scale_recipe"] = pick(rng, kPow2Recipes);
  else if (coin(rng, 0.6)) s["attr.scale_recipe"] = pick(rng, kRecipes);
  if (coin(rng, 0.3)) s["attr.fp8_dtype"] = "e4m3fnuz";
}

// Scale-extreme rows over a [rows, cols] view (any float dtype).
void extreme_rows(Tensor& x, std::mt19937_64& rng, double top) {
  for (std::int64_t r = 0; r < x.size(0); ++r) {
    Tensor row = x.select(0, r);
    const std::int64_t kind = uniform(rng, 0, 5);
    for (std::int64_t i = 0; i < row.numel(); ++i) {
      switch (kind) {
        case 0: row.set_linear(i, 0.0); break;
        case 1: row.set_linear(i, (i % 3 == 0 ? -1 : 1) * top); break;
        case 2: row.set_linear(i, std::ldexp(row.get_linear(i), -120)); break;
        case 3: row.set_linear(i, i == 0 ? row.get_linear(0) + 1.0 : 0.0); break;
        case 4: row.set_linear(i, i % 2 ? -0.0 : 0.0); break;
        default: break;
      }
    }
  }
}

}  // namespace

OpGenSpec per_token_group_quant_fp8_spec() {
  OpGenSpec g;
  g.op = "per_token_group_quant_fp8";
  g.value_inputs = {"x"};
  g.scale_inputs = {"x"};
  g.deterministic = true;
  g.determinism_note = "ops.md §7.1: exact per-group math (amax is order-free)";
  g.shapes = [](std::mt19937_64& rng, ShapeScale sc) {
    const bool test = sc == ShapeScale::test;
    Json s{{"M", test ? uniform(rng, 1, 5) : align_edge(rng, 4, 16)},
           {"K", coin(rng, 0.3) ? align_edge(rng, 512, test ? 1 : 8, 8) : align_edge(rng, 128, test ? 2 : 16)},
           {"dtype", pick<std::string>(rng, {"bf16", "fp16", "fp32"})}};
    quant_attrs(s, rng, true);
    if (!test && s["attr.scale_layout"] != "packed_ue8m0" && coin(rng, 0.15))
      s["attr.group_size"] = pick_int(rng, {32, 64, 256});
    return s;
  };
  g.specials = [](OpCase& c, const Json&, std::mt19937_64& rng) {
    Tensor& x = c.inputs.at("x");
    extreme_rows(x, rng, max_finite_of(x.dtype()));
  };
  return g;
}

OpGenSpec per_block_quant_fp8_spec() {
  OpGenSpec g;
  g.op = "per_block_quant_fp8";
  g.value_inputs = {"w"};
  g.scale_inputs = {"w"};
  g.deterministic = true;
  g.determinism_note = "ops.md §7.1: exact per-block math (amax is order-free)";
  g.shapes = [](std::mt19937_64& rng, ShapeScale sc) {
    const bool test = sc == ShapeScale::test;
    Json s{{"N", test ? pick_int(rng, {1, 3, 127, 129}) : align_edge(rng, 128, 4)},
           {"K", test ? pick_int(rng, {1, 128, 129}) : align_edge(rng, 128, 8)},
           {"dtype", pick<std::string>(rng, {"bf16", "fp16", "fp32"})}};
    quant_attrs(s, rng, true);
    return s;
  };
  g.specials = [](OpCase& c, const Json&, std::mt19937_64& rng) {
    Tensor& w = c.inputs.at("w");
    extreme_rows(w, rng, max_finite_of(w.dtype()));
  };
  return g;
}

OpGenSpec inv_rope_fp8_quant_spec() {
  OpGenSpec g;
  g.op = "inv_rope_fp8_quant";
  g.value_inputs = {"o"};
  g.scale_inputs = {"o"};
  g.deterministic = true;
  g.determinism_note = "ops.md §7.2: exact per-group math";
  g.shapes = [](std::mt19937_64& rng, ShapeScale sc) {
    const bool test = sc == ShapeScale::test;
    const std::int64_t G = pick_int(rng, {1, 2, 4, 8});
    const std::int64_t H = G * (test ? pick_int(rng, {1, 2}) : pick_int(rng, {1, 2, 4, 16}));
    Json s{{"T", test ? uniform(rng, 1, 5) : align_edge(rng, 4, 16)}, {"H", H}, {"n_groups", G},
           {"max_pos", test ? pick_int(rng, {1, 32}) : pick_int(rng, {1, 64, 4096})}};
    quant_attrs(s, rng, false);
    if (coin(rng, 0.3)) s["attr.pairing"] = "neox";
    return s;
  };
  g.specials = [](OpCase& c, const Json&, std::mt19937_64& rng) {
    Tensor& pos = c.inputs.at("positions");
    const std::int64_t max_pos = c.inputs.at("cos_sin_cache").size(0);
    for (std::int64_t t = 0; t < pos.numel(); ++t)
      if (coin(rng)) pos.set({t}, double(coin(rng) ? 0 : max_pos - 1));
    Tensor& o = c.inputs.at("o");
    // /4: a rotation of two largest-finite bf16 values must stay finite in fp32 (|cos·x - sin·y| <= √2·max).
    extreme_rows(o, rng, max_finite_of(o.dtype()) / 4);
  };
  return g;
}

}  // namespace dsv4::fuzz::gen
