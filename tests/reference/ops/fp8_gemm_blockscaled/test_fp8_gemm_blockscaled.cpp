// Tests of the fp8_gemm_blockscaled float64 reference: a hand case, agreement with an independent
// block-scaled loop (scales decoded by the test itself) for every scale form (fp32 row/MN-major,
// typed UE8M0, packed UE8M0), partial K/N blocks, per-row weight scales and the c accumulator; the
// UE8M0 special bytes 0x00 (2^-127, not 0) and 0xFF (NaN); bad input.
#include <cmath>
#include <cstring>
#include <random>

#include <gtest/gtest.h>

#include "reference/registry/registry.hpp"
#include "tests/support/seed.hpp"

namespace dsv4 {
namespace {

// Scale (row, group) decoded independently of the reference's helpers.
double test_scale(const Tensor& sf, std::int64_t row, std::int64_t g) {
  if (sf.dtype() == DType::F32) return sf.get({row, g});
  const std::uint32_t byte = sf.dtype() == DType::I32
                                 ? (static_cast<std::uint32_t>(sf.code({row, g / 4})) >> (8 * (g % 4))) & 0xFF
                                 : static_cast<std::uint32_t>(sf.code({row, g}));
  return byte == 0xFF ? std::nan("") : std::ldexp(1.0, static_cast<int>(byte) - 127);
}

Tensor naive(const OpCase& c) {
  const Tensor &x = c.in("x"), &w = c.in("w"), &xs = c.in("x_sf"), &ws = c.in("w_sf");
  const std::int64_t M = x.size(0), K = x.size(1), N = w.size(0);
  const bool per_row = ws.size(0) == N && N > 128;
  const bool f32 = c.has("c") || (c.attrs.contains("out_dtype") && c.attrs.at("out_dtype") == "fp32");
  Tensor d = Tensor::empty(f32 ? DType::F32 : DType::BF16, {M, N});
  for (std::int64_t m = 0; m < M; ++m)
    for (std::int64_t n = 0; n < N; ++n) {
      long double acc = 0;
      for (std::int64_t kb = 0; kb * 128 < K; ++kb) {
        long double part = 0;
        for (std::int64_t k = kb * 128; k < std::min(K, kb * 128 + 128); ++k)
          part += static_cast<long double>(x.get({m, k})) * w.get({n, k});
        acc += part * test_scale(xs, m, kb) * test_scale(ws, per_row ? n : n / 128, kb);
      }
      if (c.has("c")) acc += c.in("c").get({m, n});
      d.set({m, n}, static_cast<double>(acc));
    }
  return d;
}

TEST(Fp8GemmBlockscaled, HandComputedTwoKBlocks) {
  OpCase c;  // x = 1 (0x38) and w = 2 (0x40) over K = 256; x_sf = [2, 0.5], w_sf = [[1, 4]]
  c.inputs["x"] = Tensor::from_codes(DType::F8_E4M3FN, {1, 256}, std::vector<std::uint64_t>(256, 0x38));
  c.inputs["w"] = Tensor::from_codes(DType::F8_E4M3FN, {1, 256}, std::vector<std::uint64_t>(256, 0x40));
  c.inputs["x_sf"] = Tensor::from_f64(DType::F32, {1, 2}, {2, 0.5});
  c.inputs["w_sf"] = Tensor::from_f64(DType::F32, {1, 2}, {1, 4});
  const Tensor d = run_reference("fp8_gemm_blockscaled", c).at("d");
  EXPECT_EQ(d.dtype(), DType::BF16);
  EXPECT_EQ(d.get({0, 0}), 2 * 1 * 256 + 0.5 * 4 * 256);  // 512 + 512
}

TEST(Fp8GemmBlockscaled, MatchesBlockScaledLoopForEveryScaleForm) {
  auto rng = test::rng_for_current_test();
  const auto& desc = Registry::instance().get("fp8_gemm_blockscaled");
  for (const char* form : {"fp32", "fp32_mn_major", "ue8m0", "packed_ue8m0"})
    for (const Json& extra : {Json{{"w_scale", "block"}}, Json{{"w_scale", "row"}, {"c", true}}}) {
      Json shape{{"M", 5}, {"N", 131}, {"K", 300}, {"scale", form}};
      shape.update(extra);
      const OpCase c = desc.generate(rng, shape);
      if (std::string(form) == "fp32_mn_major") EXPECT_EQ(c.in("x_sf").stride(0), 1);
      const Tensor d = run_reference("fp8_gemm_blockscaled", c).at("d");
      const Tensor e = naive(c);
      ASSERT_EQ(d.dtype(), e.dtype());
      int nonzero = 0;
      for (std::int64_t i = 0; i < d.numel(); ++i) {
        ASSERT_EQ(d.code_linear(i), e.code_linear(i)) << shape.dump() << " element " << i;
        nonzero += d.get_linear(i) != 0;
      }
      EXPECT_GT(nonzero, d.numel() / 2) << shape.dump();
    }
}

// The quant ops' outputs (per-token x with packed UE8M0, per-block w in the SM100 per-row packed form,
// and fp32 MN-major) feed the GEMM directly; the result equals the float64 GEMM of the test's own
// dequantization, and is close to the unquantized product (DeepGEMM-style calc_diff).
TEST(Fp8GemmBlockscaled, QuantOpOutputsFeedTheGemm) {
  auto rng = test::rng_for_current_test();
  std::normal_distribution<double> nd;
  const std::int64_t M = 8, N = 200, K = 640;
  Tensor x = Tensor::empty(DType::F32, {M, K}), w = Tensor::empty(DType::F32, {N, K});
  for (std::int64_t i = 0; i < x.numel(); ++i) x.set_linear(i, nd(rng));
  for (std::int64_t i = 0; i < w.numel(); ++i) w.set_linear(i, nd(rng) * 0.01);
  for (const char* layout : {"packed_ue8m0", "mn_major"}) {
    OpCase qx, qw;
    qx.inputs["x"] = x;
    qw.inputs["w"] = w;
    qx.attrs = {{"scale_recipe", "dg-ceil"}, {"scale_layout", layout}};
    qw.attrs = qx.attrs;
    const Outputs ox = run_reference("per_token_group_quant_fp8", qx), ow = run_reference("per_block_quant_fp8", qw);
    OpCase g;
    g.inputs["x"] = ox.at("x_q");
    g.inputs["x_sf"] = ox.at("x_s");
    g.inputs["w"] = ow.at("w_q");
    g.inputs["w_sf"] = ow.at("w_s");
    g.attrs["out_dtype"] = "fp32";
    const Tensor d = run_reference("fp8_gemm_blockscaled", g).at("d");
    const Tensor e = naive(g);  // independent dequantization through the test's own scale decode
    double sxy = 0, sxx = 0;
    for (std::int64_t m = 0; m < M; ++m)
      for (std::int64_t n = 0; n < N; ++n) {
        ASSERT_EQ(d.get({m, n}), e.get({m, n})) << layout;
        double exact = 0;
        for (std::int64_t k = 0; k < K; ++k) exact += x.get({m, k}) * w.get({n, k});
        sxy += exact * d.get({m, n});
        sxx += exact * exact + d.get({m, n}) * d.get({m, n});
      }
    EXPECT_LT(1 - 2 * sxy / sxx, 5e-3) << layout;
  }
}

TEST(Fp8GemmBlockscaled, Ue8m0SpecialBytesDecodeExactly) {
  OpCase c;
  c.inputs["x"] = Tensor::from_codes(DType::F8_E4M3FN, {1, 128}, std::vector<std::uint64_t>(128, 0x38));
  c.inputs["w"] = Tensor::from_codes(DType::F8_E4M3FN, {1, 128}, std::vector<std::uint64_t>(128, 0x38));
  c.inputs["x_sf"] = Tensor::from_codes(DType::F8_E8M0, {1, 1}, {0x00});  // 2^-127, not +0 (shift23 bug)
  c.inputs["w_sf"] = Tensor::from_codes(DType::F8_E8M0, {1, 1}, {0x7F});  // 1.0
  c.attrs["out_dtype"] = "fp32";
  EXPECT_EQ(run_reference("fp8_gemm_blockscaled", c).at("d").get({0, 0}), std::ldexp(1.0, -120));  // 128·2^-127
  c.inputs["x_sf"] = Tensor::from_codes(DType::I32, {1, 1}, {0xFF});  // packed: group 0 byte 0xFF = NaN
  EXPECT_TRUE(std::isnan(run_reference("fp8_gemm_blockscaled", c).at("d").get({0, 0})));
  c.inputs["x_sf"] = Tensor::from_codes(DType::I32, {1, 1}, {0xFF00});  // byte of group 1 only: group 0 = 2^-127
  EXPECT_EQ(run_reference("fp8_gemm_blockscaled", c).at("d").get({0, 0}), std::ldexp(1.0, -120));
}

TEST(Fp8GemmBlockscaled, BadInputNamesArgumentAndRule) {
  auto rng = test::rng_for_current_test();
  const OpCase good = Registry::instance().get("fp8_gemm_blockscaled").generate(rng, Json{{"M", 2}, {"N", 8}, {"K", 256}});
  auto expect_err = [](OpCase c, const std::string& needle) {
    try {
      run_reference("fp8_gemm_blockscaled", std::move(c));
      ADD_FAILURE() << "no InputError for " << needle;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  OpCase c = good;
  c.inputs["x_sf"] = Tensor::empty(DType::F32, {2, 3});
  expect_err(c, "'x_sf'");
  c = good;
  c.inputs["w"] = Tensor::empty(DType::F8_E4M3FN, {8, 200});
  expect_err(c, "K (x.size(1))");
  c = good;
  c.inputs["c"] = Tensor::empty(DType::F32, {2, 8});
  expect_err(c, "out_dtype");
  c = good;
  c.inputs["x_sf"] = Tensor::empty(DType::BF16, {2, 2});
  expect_err(c, "x_sf");
}

}  // namespace
}  // namespace dsv4
