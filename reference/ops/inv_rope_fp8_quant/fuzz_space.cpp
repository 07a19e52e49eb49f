// The fuzz space of inv_rope_fp8_quant (ops.md §7.2): token counts on align(T, 4) edges, head groups, positions up
// to max_pos. Specials: positions 0 and max_pos-1, scale-extreme rows (a quarter of the largest finite, so the
// fp32 rotation stays finite).
#include "reference/ops/common/fuzz_draw.hpp"
#include "reference/ops/common/quant_fuzz.hpp"
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::ops {

using namespace draw;

FuzzSpace inv_rope_fp8_quant_fuzz_space() {
  FuzzSpace g;
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

}  // namespace dsv4::ops
