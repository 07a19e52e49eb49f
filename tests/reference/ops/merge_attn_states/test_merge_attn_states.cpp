// Tests of the merge_attn_states reference (ops.md §1): hand-computed merges, merging two halves vs
// attention over the whole key set, both-empty variants (-inf and +inf forms, known-bugs 6), NaN,
// prefill_tokens_with_context, transposed lse views, padded head stride, FP8 output, bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "reference/registry/registry.hpp"
#include "tests/support/seed.hpp"

using namespace dsv4;

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Tensor f32(Shape s, std::vector<double> v) { return Tensor::from_f64(DType::F32, std::move(s), v); }

OpCase merge_case(const Tensor& P, const Tensor& pl, const Tensor& S, const Tensor& sl, Json attrs = Json::object()) {
  OpCase c;
  c.inputs = {{"prefix_output", P}, {"prefix_lse", pl}, {"suffix_output", S}, {"suffix_lse", sl}};
  c.attrs = std::move(attrs);
  return c;
}

Outputs run(const OpCase& c) { return run_reference("merge_attn_states", c); }
}  // namespace

TEST(MergeAttnStates, HandComputedTwoSides) {
  // p = ln 1, s = ln 3: weights 1/4 and 3/4. prefix [4, 8], suffix [8, 0] -> [7, 2], lse ln 4.
  auto o = run(merge_case(f32({1, 1, 2}, {4, 8}), f32({1, 1}, {0.0}), f32({1, 1, 2}, {8, 0}),
                          f32({1, 1}, {std::log(3.0)})));
  EXPECT_NEAR(o["output"].get({0, 0, 0}), 7.0, 1e-6);
  EXPECT_NEAR(o["output"].get({0, 0, 1}), 2.0, 1e-6);
  EXPECT_NEAR(o["output_lse"].get({0, 0}), std::log(4.0), 1e-6);
  EXPECT_EQ(o["output"].dtype(), DType::F32);
}

TEST(MergeAttnStates, MergingHalvesEqualsAttentionOverWhole) {
  auto rng = test::rng_for_current_test();
  std::normal_distribution<double> n(0.0, 2.0);
  const std::int64_t T = 5, H = 3, D = 16, N = 24;
  Tensor P = Tensor::empty(DType::F32, {T, H, D}), S = Tensor::empty(DType::F32, {T, H, D});
  Tensor pl = Tensor::empty(DType::F32, {H, T}), sl = Tensor::empty(DType::F32, {H, T});
  std::vector<double> whole(T * H * D), whole_lse(T * H);
  for (std::int64_t t = 0; t < T; ++t)
    for (std::int64_t h = 0; h < H; ++h) {
      std::vector<double> logit(N), v(N * D);
      for (auto& x : logit) x = n(rng);
      for (auto& x : v) x = n(rng);
      // Direct softmax over the whole key set and over each half [0, N/2), [N/2, N).
      auto lse_of = [&](int a, int b) {
        double m = -kInf, s = 0;
        for (int j = a; j < b; ++j) m = std::max(m, logit[j]);
        for (int j = a; j < b; ++j) s += std::exp(logit[j] - m);
        return m + std::log(s);
      };
      auto out_of = [&](int a, int b, double lse, std::int64_t d) {
        double acc = 0;
        for (int j = a; j < b; ++j) acc += std::exp(logit[j] - lse) * v[j * D + d];
        return acc;
      };
      const double l0 = lse_of(0, N / 2), l1 = lse_of(N / 2, N), lw = lse_of(0, N);
      pl.set({h, t}, l0);
      sl.set({h, t}, l1);
      whole_lse[t * H + h] = lw;
      for (std::int64_t d = 0; d < D; ++d) {
        P.set({t, h, d}, out_of(0, N / 2, l0, d));
        S.set({t, h, d}, out_of(N / 2, N, l1, d));
        whole[(t * H + h) * D + d] = out_of(0, N, lw, d);
      }
    }
  auto o = run(merge_case(P, pl, S, sl));
  for (std::int64_t t = 0; t < T; ++t)
    for (std::int64_t h = 0; h < H; ++h) {
      EXPECT_NEAR(o["output_lse"].get({h, t}), whole_lse[t * H + h], 1e-5 * (1 + std::fabs(whole_lse[t * H + h])));
      for (std::int64_t d = 0; d < D; ++d)
        EXPECT_NEAR(o["output"].get({t, h, d}), whole[(t * H + h) * D + d], 2e-6) << t << " " << h << " " << d;
    }
}

TEST(MergeAttnStates, BothEmptyVariantsInMiddleOfBatchBothForms) {
  // T=6, H=2, D=4, tokens 2 and 3 both empty: token 2 as (-inf, -inf), token 3 as (+inf, -inf) (FA2 marker).
  const std::int64_t T = 6, H = 2, D = 4;
  Tensor P = Tensor::empty(DType::BF16, {T, H, D}), S = Tensor::empty(DType::BF16, {T, H, D});
  for (std::int64_t i = 0; i < P.numel(); ++i) { P.set_linear(i, 1.0 + i % 7); S.set_linear(i, -2.0 - i % 5); }
  P.set({2, 0, 1}, kNaN);  // garbage in the empty prefix output
  Tensor pl = Tensor::empty(DType::F32, {H, T}), sl = Tensor::empty(DType::F32, {H, T});
  for (std::int64_t h = 0; h < H; ++h)
    for (std::int64_t t = 0; t < T; ++t) { pl.set({h, t}, 0.5); sl.set({h, t}, 0.25); }
  for (std::int64_t h = 0; h < H; ++h) { pl.set({h, 2}, -kInf); sl.set({h, 2}, -kInf); pl.set({h, 3}, kInf); sl.set({h, 3}, -kInf); }
  auto z = run(merge_case(P, pl, S, sl, {{"both_empty", "zeros"}}));
  auto cp = run(merge_case(P, pl, S, sl, {{"both_empty", "copy_prefix"}}));
  for (std::int64_t t : {2, 3})
    for (std::int64_t h = 0; h < H; ++h) {
      EXPECT_EQ(z["output_lse"].get({h, t}), -kInf);
      EXPECT_EQ(cp["output_lse"].get({h, t}), -kInf);
      for (std::int64_t d = 0; d < D; ++d) {
        EXPECT_EQ(z["output"].get({t, h, d}), 0.0);
        const double pv = P.get({t, h, d});
        if (std::isnan(pv)) EXPECT_TRUE(std::isnan(cp["output"].get({t, h, d})));
        else EXPECT_EQ(cp["output"].get({t, h, d}), pv);
      }
    }
  // Non-empty neighbours are real merges: finite, between the two sides.
  for (std::int64_t t : {0, 1, 4, 5}) {
    EXPECT_FALSE(std::isnan(z["output"].get({t, 0, 0})));
    EXPECT_NEAR(z["output_lse"].get({0, t}), std::log(std::exp(0.5) + std::exp(0.25)), 1e-6);
  }
}

TEST(MergeAttnStates, OneSideEmptyAndLargeGapCopyTheOtherSide) {
  Tensor P = f32({3, 1, 2}, {1, 2, 3, 4, 5, 6}), S = f32({3, 1, 2}, {-1, -2, -3, -4, -5, -6});
  // t0: prefix empty; t1: suffix +inf (empty); t2: |p - s| = 200 (one-sided underflow).
  auto o = run(merge_case(P, f32({1, 3}, {-kInf, 1.0, 300.0}), S, f32({1, 3}, {2.0, kInf, 100.0})));
  EXPECT_EQ(o["output"].get({0, 0, 1}), -2.0);
  EXPECT_EQ(o["output_lse"].get({0, 0}), 2.0f);
  EXPECT_EQ(o["output"].get({1, 0, 0}), 3.0);
  EXPECT_EQ(o["output_lse"].get({0, 1}), 1.0f);
  EXPECT_EQ(o["output"].get({2, 0, 1}), 6.0);
  EXPECT_EQ(o["output_lse"].get({0, 2}), 300.0f);
}

TEST(MergeAttnStates, NanLsePropagatesAndRawPosInfGivesNan) {
  Tensor P = f32({2, 1, 1}, {1, 2}), S = f32({2, 1, 1}, {3, 4});
  auto o = run(merge_case(P, f32({1, 2}, {kNaN, 0.0}), S, f32({1, 2}, {0.0, kInf})));
  EXPECT_TRUE(std::isnan(o["output"].get({0, 0, 0})));
  EXPECT_TRUE(std::isnan(o["output_lse"].get({0, 0})));
  EXPECT_EQ(o["output"].get({1, 0, 0}), 2.0);  // +inf suffix = empty
  auto raw = run(merge_case(P, f32({1, 2}, {0.0, 0.0}), S, f32({1, 2}, {0.0, kInf}), {{"pos_inf_lse", "raw"}}));
  EXPECT_TRUE(std::isnan(raw["output"].get({1, 0, 0})));  // exp(inf - inf)
  EXPECT_NEAR(raw["output"].get({0, 0, 0}), 2.0, 1e-6);
}

TEST(MergeAttnStates, PrefillTokensWithContextCopiesSuffixRaw) {
  Tensor P = f32({3, 1, 1}, {1, 2, 3}), S = f32({3, 1, 1}, {7, 8, 9});
  Tensor pl = f32({1, 3}, {0, 0, 0}), sl = f32({1, 3}, {0, kInf, -kInf});
  for (std::int64_t ptc : {0, 1, 3}) {
    auto o = run(merge_case(P, pl, S, sl, {{"prefill_tokens_with_context", ptc}}));
    for (std::int64_t t = 0; t < 3; ++t) {
      if (t >= ptc) {
        EXPECT_EQ(o["output"].get({t, 0, 0}), S.get({t, 0, 0}));
        const double sv = sl.get({0, t}), ov = o["output_lse"].get({0, t});
        EXPECT_TRUE(sv == ov) << "raw copy of suffix lse at t=" << t << " ptc=" << ptc;
      } else {
        EXPECT_NEAR(o["output"].get({t, 0, 0}), t == 0 ? 4.0 : P.get({t, 0, 0}), 1e-6);
      }
    }
  }
}

TEST(MergeAttnStates, TransposedLseAndPaddedHeadStride) {
  auto rng = test::rng_for_current_test();
  std::normal_distribution<double> n(0.0, 1.0);
  const std::int64_t T = 4, H = 3, D = 8, pad = 5;
  auto padded = [&]() {
    Tensor base = Tensor::empty(DType::F32, {T * H * (D + pad)});
    base.fill(kNaN);  // padding must never be read
    Tensor t = base.as_strided({T, H, D}, {H * (D + pad), D + pad, 1}, 0);
    for (std::int64_t i = 0; i < t.numel(); ++i) t.set_linear(i, n(rng));
    return t;
  };
  Tensor P = padded(), S = padded();
  Tensor plT = Tensor::empty(DType::F32, {T, H}), slT = Tensor::empty(DType::F32, {T, H});
  for (std::int64_t i = 0; i < T * H; ++i) { plT.set_linear(i, n(rng)); slT.set_linear(i, n(rng)); }
  auto o = run(merge_case(P, plT.transpose(0, 1), S, slT.transpose(0, 1)));
  auto c = run(merge_case(P.contiguous(), plT.transpose(0, 1).contiguous(), S.contiguous(), slT.transpose(0, 1).contiguous()));
  EXPECT_EQ(o["output"].stride(1), D + pad);
  EXPECT_EQ(o["output"].stride(0), H * (D + pad));
  EXPECT_EQ(o["output"].to_f64(), c["output"].to_f64());
  EXPECT_EQ(o["output_lse"].to_f64(), c["output_lse"].to_f64());
  for (double v : o["output"].to_f64()) EXPECT_FALSE(std::isnan(v));
  // Value check of one element against the formula.
  const double p = plT.get({1, 2}), s = slT.get({1, 2}), m = std::max(p, s);
  const double e = (P.get({1, 2, 3}) * std::exp(p - m) + S.get({1, 2, 3}) * std::exp(s - m)) / (std::exp(p - m) + std::exp(s - m));
  EXPECT_NEAR(o["output"].get({1, 2, 3}), e, 1e-6);
}

TEST(MergeAttnStates, Fp8OutputWithScaleOcpAndFnuz) {
  // Both sides equal: output = value. Scale 0.05: 1.0 -> 20 (e4m3fn 0x5A), 100 -> 2000 -> saturated.
  Tensor P = f32({3, 1, 1}, {1.0, 100.0, -100.0});
  Tensor pl = f32({1, 3}, {0, 0, 0});
  auto o = run(merge_case(P, pl, P, pl, {{"output_scale", 0.05}}));
  EXPECT_EQ(o["output"].dtype(), DType::F8_E4M3FN);
  EXPECT_EQ(o["output"].code({0, 0, 0}), 0x5Au);
  EXPECT_EQ(o["output"].code({1, 0, 0}), 0x7Eu);
  EXPECT_EQ(o["output"].code({2, 0, 0}), 0xFEu);
  auto z = run(merge_case(P, pl, P, pl, {{"output_scale", 0.05}, {"output_fp8_format", "e4m3fnuz"}}));
  EXPECT_EQ(z["output"].dtype(), DType::F8_E4M3FNUZ);
  EXPECT_EQ(z["output"].get({0, 0, 0}), 20.0);
  EXPECT_EQ(z["output"].get({1, 0, 0}), 240.0);
  EXPECT_EQ(z["output"].get({2, 0, 0}), -240.0);
}

TEST(MergeAttnStates, BadInputIsRejectedWithTheArgumentNamed) {
  Tensor P = f32({2, 2, 4}, std::vector<double>(16, 1.0)), pl = f32({2, 2}, {0, 0, 0, 0});
  auto expect_error = [&](const OpCase& c, const std::string& needle) {
    try {
      run(c);
      ADD_FAILURE() << "no InputError for " << needle;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_error(merge_case(P, pl, Tensor::from_f64(DType::BF16, {2, 2, 4}, std::vector<double>(16, 1.0)), pl),
               "suffix_output");
  expect_error(merge_case(P, pl, P, f32({2, 3}, std::vector<double>(6, 0.0))), "suffix_lse");
  expect_error(merge_case(P, Tensor::from_f64(DType::F64, {2, 2}, {0, 0, 0, 0}), P, pl), "prefix_lse");
  expect_error(merge_case(P, pl, P, pl, {{"prefill_tokens_with_context", 3}}), "prefill_tokens_with_context");
  expect_error(merge_case(P, pl, P, pl, {{"output_scale", -1.0}}), "output_scale");
  expect_error(merge_case(P, pl, P, pl, {{"both_empty", "nan"}}), "both_empty");
  // Token stride that is not H * head_stride (arbitrary token strides are not allowed).
  Tensor big = Tensor::empty(DType::F32, {3, 2, 4});
  big.fill(1.0);
  Tensor odd = big.as_strided({2, 2, 4}, {12, 4, 1}, 0);
  expect_error(merge_case(odd, pl, odd, pl), "prefix_output");
  // Head stride differing between prefix and suffix.
  Tensor wide = Tensor::empty(DType::F32, {2 * 2 * 6});
  wide.fill(1.0);
  expect_error(merge_case(P, pl, wide.as_strided({2, 2, 4}, {12, 6, 1}, 0), pl), "head stride");
}

TEST(MergeAttnStates, GeneratorDefaultShapesRunWithoutNanInBothEmptyTokens) {
  auto rng = test::rng_for_current_test();
  const OpDescriptor& d = Registry::instance().get("merge_attn_states");
  ASSERT_TRUE(d.generate);
  ASSERT_FALSE(d.default_shapes.empty());
  for (const Json& s : d.default_shapes) {
    OpCase c = d.generate(rng, s);
    auto o = run_reference("merge_attn_states", c);
    const std::int64_t T = o["output"].size(0), H = o["output"].size(1), D = o["output"].size(2);
    const std::int64_t ptc = s.contains("prefill_tokens_with_context") ? s["prefill_tokens_with_context"].get<std::int64_t>() : T;
    if (T / 2 >= ptc) continue;
    for (std::int64_t h = 0; h < H; ++h)
      for (std::int64_t dd = 0; dd < D; ++dd) EXPECT_EQ(o["output"].get({T / 2, h, dd}), 0.0) << s.dump();
  }
}
