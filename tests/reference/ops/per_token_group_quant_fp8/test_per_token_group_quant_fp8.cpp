// Tests of per_token_group_quant_fp8 (ops.md §7.1): exact bytes on hand cases (dg-ceil e4m3fn and
// v3-triton e4m3fnuz with fp8_max 224), dequantize(quantize(x)) within the RNE bound for several
// recipes, the mn_major align(M,4) layout with zero padding, packed UE8M0 byte order with K not a
// multiple of 512, and bad input.
#include <cmath>

#include <gtest/gtest.h>

#include "reference/registry/registry.hpp"
#include "tests/reference/ops/per_token_group_quant_fp8/quant_test_util.hpp"
#include "tests/support/seed.hpp"

namespace dsv4 {
namespace {

TEST(PerTokenGroupQuantFp8, HandBytesDgCeil) {
  OpCase c;
  c.inputs["x"] = Tensor::from_f64(DType::F32, {1, 4}, {896, 1, -0.5, 0});
  c.attrs = {{"scale_recipe", "dg-ceil"}};
  Outputs o = run_reference("per_token_group_quant_fp8", c);
  // sf = 896/448 = 2 (already a power of two): codes of 448, 0.5, −0.25, 0.
  EXPECT_EQ(o.at("x_q").to_codes(), (std::vector<std::uint64_t>{0x7E, 0x30, 0xA8, 0x00}));
  EXPECT_EQ(o.at("x_s").get({0, 0}), 2.0);
  c.attrs["scale_layout"] = "packed_ue8m0";
  o = run_reference("per_token_group_quant_fp8", c);
  EXPECT_EQ(o.at("x_s").dtype(), DType::I32);
  EXPECT_EQ(o.at("x_s").code({0, 0}), 0x80u);  // 2^1 → byte 128, in byte 0
}

TEST(PerTokenGroupQuantFp8, HandBytesV3TritonFnuz224) {
  OpCase c;
  c.inputs["x"] = Tensor::from_f64(DType::BF16, {1, 2}, {300, 1});
  c.attrs = {{"scale_recipe", "v3-triton"}, {"fp8_dtype", "e4m3fnuz"}, {"fp8_max", 224.0}};
  const Outputs o = run_reference("per_token_group_quant_fp8", c);
  // s = 2^ceil(log2(300/224)) = 2; 150 → fnuz 144 (0x79, RNE down), 0.5 → 0x38.
  EXPECT_EQ(o.at("x_q").dtype(), DType::F8_E4M3FNUZ);
  EXPECT_EQ(o.at("x_q").to_codes(), (std::vector<std::uint64_t>{0x79, 0x38}));
  EXPECT_EQ(o.at("x_s").get({0, 0}), 2.0);
}

TEST(PerTokenGroupQuantFp8, RoundTripWithinRneBound) {
  auto rng = test::rng_for_current_test();
  const auto& d = Registry::instance().get("per_token_group_quant_fp8");
  for (const char* recipe : {"dg-ceil", "v3-triton", "plain-fp32", "dsv4-act"})
    for (const char* f8 : {"e4m3fn", "e4m3fnuz"})
      for (const char* layout : {"row_major", "mn_major"}) {
        OpCase c = d.generate(rng, Json{{"M", 5}, {"K", 300}, {"dtype", "bf16"}});
        c.attrs = {{"scale_recipe", recipe}, {"fp8_dtype", f8}, {"scale_layout", layout}};
        const Outputs o = run_reference("per_token_group_quant_fp8", c);
        const Tensor &x = c.in("x"), &q = o.at("x_q"), &s = o.at("x_s");
        ASSERT_EQ(s.size(1), 3);
        double max_rel = 0;
        for (std::int64_t m = 0; m < 5; ++m)
          for (std::int64_t k = 0; k < 300; ++k) {
            const double sc = test::layout_scale(s, m, k / 128), xv = x.get({m, k}), dq = q.get({m, k}) * sc;
            ASSERT_TRUE(std::isfinite(dq));
            ASSERT_LE(std::fabs(xv - dq), test::quant_bound(xv, sc)) << recipe << " " << f8 << " " << m << "," << k;
            if (xv != 0) max_rel = std::max(max_rel, std::fabs(xv - dq) / std::fabs(xv));
          }
        EXPECT_GT(max_rel, 0);  // quantization is not the identity
        for (std::int64_t k = 0; k < 300; ++k) EXPECT_EQ(q.code({2, k}) & 0x7F, 0u);  // all-zero row stays zero
      }
}

TEST(PerTokenGroupQuantFp8, MnMajorLayoutPadsToAlign4) {
  auto rng = test::rng_for_current_test();
  OpCase c = Registry::instance().get("per_token_group_quant_fp8").generate(rng, Json{{"M", 5}, {"K", 384}});
  c.attrs = {{"scale_layout", "mn_major"}};
  const Tensor mn = run_reference("per_token_group_quant_fp8", c).at("x_s");
  c.attrs = {{"scale_layout", "row_major"}};
  const Tensor rm = run_reference("per_token_group_quant_fp8", c).at("x_s");
  ASSERT_EQ(mn.shape(), (Shape{5, 3}));
  EXPECT_EQ(mn.stride(0), 1);
  EXPECT_EQ(mn.stride(1), 8);  // align(5, 4)
  EXPECT_EQ(mn.storage_bytes(), 3u * 8u * 4u);
  const float* raw = reinterpret_cast<const float*>(mn.data());
  for (std::int64_t g = 0; g < 3; ++g) {
    for (std::int64_t m = 0; m < 5; ++m) EXPECT_EQ(raw[g * 8 + m], rm.get({m, g}));
    for (std::int64_t m = 5; m < 8; ++m) EXPECT_EQ(raw[g * 8 + m], 0.0f) << "padding row " << m;
  }
}

TEST(PerTokenGroupQuantFp8, PackedUe8m0ByteOrderWithPartialWord) {
  auto rng = test::rng_for_current_test();
  OpCase c = Registry::instance().get("per_token_group_quant_fp8").generate(rng, Json{{"M", 3}, {"K", 640}});
  c.attrs = {{"scale_recipe", "dg-ceil"}, {"scale_layout", "row_major"}};
  const Tensor rm = run_reference("per_token_group_quant_fp8", c).at("x_s");
  c.attrs["scale_layout"] = "packed_ue8m0";
  const Tensor pk = run_reference("per_token_group_quant_fp8", c).at("x_s");
  ASSERT_EQ(pk.shape(), (Shape{3, 2}));  // ceil(640/512) words
  EXPECT_EQ(pk.stride(0), 1);
  EXPECT_EQ(pk.stride(1), 4);  // MN-major, align(3, 4)
  for (std::int64_t m = 0; m < 3; ++m) {
    for (std::int64_t g = 0; g < 5; ++g) {
      const auto w = static_cast<std::uint32_t>(pk.code({m, g / 4}));
      int e;
      std::frexp(rm.get({m, g}), &e);
      EXPECT_EQ((w >> (8 * (g % 4))) & 0xFF, static_cast<std::uint32_t>(e - 1 + 127)) << m << "," << g;
    }
    EXPECT_EQ(static_cast<std::uint32_t>(pk.code({m, 1})) >> 8, 0u) << "unused bytes of the last word must be 0";
  }
}

TEST(PerTokenGroupQuantFp8, BadInputNamesAttribute) {
  auto expect_err = [](OpCase c, const std::string& needle) {
    try {
      run_reference("per_token_group_quant_fp8", std::move(c));
      ADD_FAILURE() << "no InputError for " << needle;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  OpCase c;
  c.inputs["x"] = Tensor::from_f64(DType::F32, {1, 4}, {3, 1, -0.5, 0});
  c.attrs = {{"scale_layout", "packed_ue8m0"}, {"scale_recipe", "plain-fp32"}};
  expect_err(c, "packed_ue8m0");
  c.attrs = {{"fp8_max", 500.0}};
  expect_err(c, "fp8_max");
  c.attrs = {{"fp8_dtype", "e4m3fnuz"}, {"fp8_max", 448.0}};
  expect_err(c, "fp8_max");
  c.attrs = {{"group_size", 0}};
  expect_err(c, "group_size");
  c.attrs = {{"scale_recipe", "dg-fp4"}};
  expect_err(c, "scale_recipe");
  c.attrs = Json::object();
  c.inputs["x"] = Tensor::empty(DType::F32, {4});
  expect_err(c, "'x'");
}

}  // namespace
}  // namespace dsv4
