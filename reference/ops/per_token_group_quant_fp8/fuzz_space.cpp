// The fuzz space of per_token_group_quant_fp8 (ops.md §7.1): K on group-size multiples and one either side, on 512
// multiples (one packed UE8M0 word = 4 groups), M on align(M, 4) edges; scale layouts and recipes as attributes.
// Specials: rows that drive the scale to its extremes (reference/ops/common/quant_fuzz.hpp).
#include "reference/ops/common/fuzz_draw.hpp"
#include "reference/ops/common/quant_fuzz.hpp"
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::ops {

using namespace draw;

FuzzSpace per_token_group_quant_fp8_fuzz_space() {
  FuzzSpace g;
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

}  // namespace dsv4::ops
