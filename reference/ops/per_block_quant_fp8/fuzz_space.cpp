// The fuzz space of per_block_quant_fp8 (ops.md §7.1): N and K on 128-block edges; scale layouts and recipes as
// attributes. Specials: rows that drive the scale to its extremes (reference/ops/common/quant_fuzz.hpp).
#include "reference/ops/common/fuzz_draw.hpp"
#include "reference/ops/common/quant_fuzz.hpp"
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::ops {

using namespace draw;

FuzzSpace per_block_quant_fp8_fuzz_space() {
  FuzzSpace g;
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

}  // namespace dsv4::ops
