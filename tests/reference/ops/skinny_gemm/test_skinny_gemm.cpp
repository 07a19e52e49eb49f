// Tests of the skinny_gemm float64 reference (ops.md §6): hand-computed cases, an independent naive
// triple loop over every bias shape and padded activations, the error-model bound against simulated
// fp32-accumulating kernels, the generator and bad-input errors.
#include <cmath>

#include <gtest/gtest.h>

#include "reference/ops/common/gemm_random.hpp"
#include "reference/ops/skinny_gemm/skinny_gemm.hpp"
#include "reference/registry/registry.hpp"
#include "tests/support/seed.hpp"

namespace dsv4 {
namespace {

Tensor bf16(Shape s, std::vector<double> v) { return Tensor::from_f64(DType::BF16, std::move(s), v); }

TEST(SkinnyGemm, HandComputedWithVectorBias) {
  // a = [[1..8],[−1,0.5,0,...,0,2]], b = [[1,1,...,1],[0,...,0,0.25 at k=7]], bias = [0.5, −3].
  OpCase c;
  c.inputs["a"] = bf16({2, 8}, {1, 2, 3, 4, 5, 6, 7, 8, -1, 0.5, 0, 0, 0, 0, 0, 2});
  c.inputs["b"] = bf16({2, 8}, {1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0.25});
  c.inputs["bias"] = bf16({2}, {0.5, -3});
  const Tensor out = run_reference("skinny_gemm", c).at("out");
  ASSERT_EQ(out.dtype(), DType::BF16);
  EXPECT_EQ(out.get({0, 0}), 36.5);        // 1+...+8 = 36, + 0.5
  EXPECT_EQ(out.get({0, 1}), 2 - 3);       // 8·0.25 − 3
  EXPECT_EQ(out.get({1, 0}), 1.5 + 0.5);   // −1+0.5+2 + 0.5
  EXPECT_EQ(out.get({1, 1}), 0.5 - 3);     // 2·0.25 − 3
}

TEST(SkinnyGemm, SingleRoundingOfSumPlusBias) {
  // Σ = 256 + 1 (exact in fp64), bias 1: 258 is representable in bf16 (8 bits) only as 256 or 258:
  // 257+1 = 258 exactly. A kernel that rounded the sum first (257 -> 256) then added 1 would give 257->256.
  OpCase c;
  c.inputs["a"] = bf16({1, 8}, {256, 1, 0, 0, 0, 0, 0, 0});
  c.inputs["b"] = bf16({1, 8}, {1, 1, 0, 0, 0, 0, 0, 0});
  c.inputs["bias"] = bf16({1, 1}, {1});
  EXPECT_EQ(run_reference("skinny_gemm", c).at("out").get({0, 0}), 258);
}

// Independent formulation: per-element long-double loop with explicit bias indexing rule.
Tensor naive(const OpCase& c) {
  const Tensor& a = c.in("a");
  const Tensor& b = c.in("b");
  const std::int64_t N = a.size(0), K = a.size(1), M = b.size(0);
  Tensor out = Tensor::empty(a.dtype(), {N, M});
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t m = 0; m < M; ++m) {
      long double s = 0;
      for (std::int64_t k = 0; k < K; ++k) s += static_cast<long double>(a.get({n, k})) * b.get({m, k});
      if (c.has("bias")) {
        const Tensor& bias = c.in("bias");
        const std::int64_t Bx = bias.size(-1), By = bias.dim() == 2 ? bias.size(0) : 1;
        const std::int64_t flat = (m % Bx) + (n % By) * Bx;
        s += bias.dim() == 1 ? bias.get({flat}) : bias.get({flat / Bx, flat % Bx});
      }
      out.set({n, m}, static_cast<double>(s));
    }
  return out;
}

TEST(SkinnyGemm, MatchesNaiveLoopAllBiasShapesAndPaddedA) {
  auto rng = test::rng_for_current_test();
  const auto& d = Registry::instance().get("skinny_gemm");
  for (const char* dt : {"bf16", "fp16"})
    for (const char* bias : {"none", "m", "nm", "1m"})
      for (std::int64_t Kap : {136, 144}) {
        const Json shape{{"N", 11}, {"K", 136}, {"M", 20}, {"Kap", Kap}, {"dtype", dt}, {"bias", bias}};
        OpCase c = d.generate(rng, shape);
        EXPECT_EQ(c.in("a").stride(0), Kap);
        const Tensor ref = run_reference("skinny_gemm", c).at("out");
        const Tensor nv = naive(c);
        int nonzero = 0;
        for (std::int64_t i = 0; i < ref.numel(); ++i) {
          ASSERT_EQ(ref.code_linear(i), nv.code_linear(i)) << shape.dump() << " element " << i;
          nonzero += ref.get_linear(i) != 0;
        }
        EXPECT_GT(nonzero, ref.numel() / 2);
      }
}

TEST(SkinnyGemm, PaddingOfAIsNeverRead) {
  auto rng = test::rng_for_current_test();
  OpCase c = Registry::instance().get("skinny_gemm").generate(rng, Json{{"N", 4}, {"K", 64}, {"M", 8}, {"Kap", 80}});
  const Tensor out = run_reference("skinny_gemm", c).at("out");
  for (double v : out.to_f64()) EXPECT_TRUE(std::isfinite(v));  // padding holds NaN
}

// A simulated fp32 kernel with a given K ordering (forward, reverse, split-K by 4 partials).
double fp32_kernel(const OpCase& c, std::int64_t n, std::int64_t m, int order) {
  const Tensor& a = c.in("a");
  const Tensor& b = c.in("b");
  const std::int64_t K = a.size(1);
  float parts[4] = {0, 0, 0, 0};
  for (std::int64_t i = 0; i < K; ++i) {
    const std::int64_t k = order == 1 ? K - 1 - i : i;
    const int p = order == 2 ? static_cast<int>(k % 4) : 0;
    parts[p] = std::fma(static_cast<float>(a.get({n, k})), static_cast<float>(b.get({m, k})), parts[p]);
  }
  float s = (parts[0] + parts[1]) + (parts[2] + parts[3]);
  if (c.has("bias")) s += static_cast<float>(c.in("bias").get({m}));
  Tensor o = Tensor::empty(a.dtype(), {1});
  o.set({0}, s);
  return o.get({0});
}

TEST(SkinnyGemm, ErrorBoundCoversFp32KernelsAndIsTight) {
  auto rng = test::rng_for_current_test();
  const auto& d = Registry::instance().get("skinny_gemm");
  ASSERT_TRUE(d.error_bound);
  OpCase c = d.generate(rng, Json{{"N", 6}, {"K", 2048}, {"M", 10}, {"dtype", "bf16"}, {"bias", "m"}});
  const Outputs ref = run_reference("skinny_gemm", c);
  const Tensor bound = d.error_bound(c, ref).at("out");
  ASSERT_EQ(bound.shape(), ref.at("out").shape());
  for (std::int64_t n = 0; n < 6; ++n)
    for (std::int64_t m = 0; m < 10; ++m) {
      const double r = ref.at("out").get({n, m}), bnd = bound.get({n, m});
      ASSERT_GT(bnd, 0);
      // Not vacuous: below 4 output ulps plus the accumulation term for this K.
      EXPECT_LT(bnd, std::fabs(r) * 0.05 + 0.05);
      for (int order = 0; order < 3; ++order)
        EXPECT_LE(std::fabs(fp32_kernel(c, n, m, order) - r), bnd) << n << "," << m << " order " << order;
    }
}

TEST(SkinnyGemm, BadInputNamesArgumentAndRule) {
  auto mk = [](Shape sa, Shape sb) {
    OpCase c;
    c.inputs["a"] = Tensor::empty(DType::BF16, sa);
    c.inputs["b"] = Tensor::empty(DType::BF16, sb);
    return c;
  };
  auto expect_err = [](OpCase c, const std::string& needle) {
    try {
      run_reference("skinny_gemm", std::move(c));
      ADD_FAILURE() << "no InputError for " << needle;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_err(mk({2, 12}, {3, 12}), "multiple of 8");
  expect_err(mk({2, 16}, {3, 8}), "'b'");
  OpCase c = mk({2, 16}, {3, 16});
  c.inputs["b"] = Tensor::empty(DType::F16, {3, 16});
  expect_err(c, "same dtype");
  c = mk({2, 16}, {3, 16});
  c.inputs["bias"] = Tensor::empty(DType::BF16, {4});
  expect_err(c, "'bias'");
  c = mk({2, 16}, {3, 16});
  c.inputs["bias"] = Tensor::empty(DType::BF16, {5, 3});
  expect_err(c, "[N, M] or [1, M]");
  c = mk({2, 16}, {3, 16});
  c.inputs["a"] = Tensor::empty(DType::BF16, {2, 16}).as_strided({2, 16}, {8, 1}, 0);
  expect_err(c, "Kap");
}

}  // namespace
}  // namespace dsv4
