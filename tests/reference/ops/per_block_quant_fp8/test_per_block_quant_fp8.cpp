// Tests of per_block_quant_fp8 (ops.md §7.1): 128x128 tile amax (checked by the test's own tiling
// against plain-fp32's amax/448), partial edge tiles, round trip within the RNE bound, the SM100
// packed form broadcast along N, and bad input.
#include <cmath>

#include <gtest/gtest.h>

#include "reference/registry/registry.hpp"
#include "tests/reference/ops/per_token_group_quant_fp8/quant_test_util.hpp"
#include "tests/support/seed.hpp"

namespace dsv4 {
namespace {

TEST(PerBlockQuantFp8, TileAmaxAndRoundTrip) {
  auto rng = test::rng_for_current_test();
  OpCase c = Registry::instance().get("per_block_quant_fp8").generate(rng, Json{{"N", 130}, {"K", 300}, {"dtype", "bf16"}});
  Tensor w = c.in("w").clone();
  w.set({129, 299}, 5000.0);  // in the partial corner tile (1, 2) only
  c.inputs["w"] = w;
  const Outputs o = run_reference("per_block_quant_fp8", c);
  const Tensor &q = o.at("w_q"), &s = o.at("w_s");
  ASSERT_EQ(s.shape(), (Shape{2, 3}));
  for (std::int64_t i = 0; i < 2; ++i)
    for (std::int64_t kb = 0; kb < 3; ++kb) {
      double amax = 0;
      for (std::int64_t n = i * 128; n < std::min<std::int64_t>(130, i * 128 + 128); ++n)
        for (std::int64_t k = kb * 128; k < std::min<std::int64_t>(300, kb * 128 + 128); ++k)
          amax = std::max(amax, std::fabs(w.get({n, k})));
      EXPECT_EQ(s.get({i, kb}), static_cast<double>(static_cast<float>(amax) / 448.0f)) << i << "," << kb;
    }
  EXPECT_EQ(s.get({1, 2}), static_cast<double>(static_cast<float>(w.get({129, 299})) / 448.0f));  // bf16(5000) = 4992
  for (std::int64_t n = 0; n < 130; ++n)
    for (std::int64_t k = 0; k < 300; ++k) {
      const double sc = s.get({n / 128, k / 128}), xv = w.get({n, k});
      ASSERT_LE(std::fabs(xv - q.get({n, k}) * sc), test::quant_bound(xv, sc)) << n << "," << k;
    }
}

TEST(PerBlockQuantFp8, PackedFormBroadcastsAlongN) {
  auto rng = test::rng_for_current_test();
  OpCase c = Registry::instance().get("per_block_quant_fp8").generate(rng, Json{{"N", 200}, {"K", 640}});
  c.attrs = {{"scale_recipe", "dg-ceil"}};
  const Tensor rm = run_reference("per_block_quant_fp8", c).at("w_s");
  c.attrs["scale_layout"] = "packed_ue8m0";
  const Tensor pk = run_reference("per_block_quant_fp8", c).at("w_s");
  ASSERT_EQ(pk.shape(), (Shape{200, 2}));
  for (std::int64_t n = 0; n < 200; ++n)
    for (std::int64_t kb = 0; kb < 5; ++kb)
      ASSERT_EQ(test::layout_scale(pk, n, kb), rm.get({n / 128, kb})) << n << "," << kb;
}

TEST(PerBlockQuantFp8, BadInputNamesArgumentAndRule) {
  OpCase c;
  c.inputs["w"] = Tensor::from_f64(DType::F32, {1, 2}, {1, 2});
  c.attrs = {{"scale_layout", "packed_ue8m0"}};
  EXPECT_THROW(run_reference("per_block_quant_fp8", c), InputError);
  c.attrs = {{"scale_layout", "diagonal"}};
  EXPECT_THROW(run_reference("per_block_quant_fp8", c), InputError);
  c.attrs = Json::object();
  c.inputs["w"] = Tensor::empty(DType::I32, {2, 2});
  EXPECT_THROW(run_reference("per_block_quant_fp8", c), InputError);
}

}  // namespace
}  // namespace dsv4
