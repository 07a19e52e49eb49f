// The fuzz space of fp8_einsum (ops.md §8): R and D on 128/64 edges, both recipes. Specials as fp8_gemm_blockscaled
// (zero weight rows, E8M0 extremes).
#include "reference/ops/common/fuzz_draw.hpp"
#include "reference/ops/common/gemm_fuzz.hpp"
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::ops {

using namespace draw;

FuzzSpace fp8_einsum_fuzz_space() {
  FuzzSpace g;
  g.value_inputs = {"x", "w", "c"};
  g.scale_inputs = {"x"};
  g.deterministic = false;
  g.determinism_note = "ops.md §8 states no bitwise-rerun requirement";
  g.shapes = [](std::mt19937_64& rng, ShapeScale sc) {
    const bool test = sc == ShapeScale::test;
    Json s{{"B", test ? pick_int(rng, {1, 2, 3}) : pick_int(rng, {1, 3, 4, 64, 129})},
           {"H", test ? pick_int(rng, {1, 2}) : pick_int(rng, {1, 2, 8, 16})},
           {"R", test ? pick_int(rng, {127, 128, 200}) : align_edge(rng, 128, 8, pick_int(rng, {1, 72}))},
           {"D", test ? pick_int(rng, {40, 64}) : align_edge(rng, 64, 8)},
           {"scale", pick<std::string>(rng, {"fp32", "ue8m0", "packed_ue8m0"})},
           {"recipe", coin(rng) ? "1,128,128" : "1,1,128"},
           {"c", coin(rng, 0.3)}};
    return s;
  };
  g.specials = blockscaled_specials;
  return g;
}

}  // namespace dsv4::ops
