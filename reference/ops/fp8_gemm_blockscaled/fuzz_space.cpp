// The fuzz space of fp8_gemm_blockscaled (ops.md §7/§8): sizes on the 128 scale-block edges. Specials: zero weight
// rows, E8M0 extremes 0x00 (2^-127, normal x) and 0xFE (2^127 over an all-zero x row) in typed or packed scales.
#include "reference/ops/common/fuzz_draw.hpp"
#include "reference/ops/common/gemm_fuzz.hpp"
#include "reference/registry/op_descriptor.hpp"

namespace dsv4::ops {

using namespace draw;

FuzzSpace fp8_gemm_blockscaled_fuzz_space() {
  FuzzSpace g;
  g.value_inputs = {"x", "w", "c"};
  g.scale_inputs = {"x"};
  g.deterministic = false;
  g.determinism_note = "ops.md §7/§8 state no bitwise-rerun requirement (split-K kernels may reorder)";
  g.shapes = [](std::mt19937_64& rng, ShapeScale sc) {
    const bool test = sc == ShapeScale::test;
    Json s{{"M", test ? pick_int(rng, {1, 3, 4}) : pick_int(rng, {1, 3, 7, 64, 127, 128, 129})},
           {"N", test ? pick_int(rng, {40, 64, 129}) : align_edge(rng, 128, 8, 1)},
           {"K", test ? pick_int(rng, {127, 128, 129, 256}) : align_edge(rng, 128, 16, pick_int(rng, {1, 44}))},
           {"scale", pick<std::string>(rng, {"fp32", "fp32_mn_major", "ue8m0", "packed_ue8m0"})},
           {"c", coin(rng, 0.3)}};
    if (s["scale"] == "ue8m0" && coin(rng, 0.3)) s["w_scale"] = "row";
    if (coin(rng, 0.2)) s["dtype"] = "e4m3fnuz";
    return s;
  };
  g.specials = blockscaled_specials;
  return g;
}

}  // namespace dsv4::ops
