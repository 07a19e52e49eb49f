// Tests of the RoPE helper and inv_rope_fp8_quant (ops.md §7.2, §7.3): inverse after forward RoPE is
// the identity for both pairings, a 90° hand case pins the pair mapping of each pairing with exact
// codes, at angle 0 the op equals per_token_group_quant_fp8 on the grouped heads, the general case
// round-trips through the test's own forward GPT-J rotation within the quantization bound, and the
// [G, T, D] / MN-major [G, align(T,4), D/128] layouts (padding rows 0, packed words per head).
#include <cmath>

#include <gtest/gtest.h>

#include "reference/ops/common/rope_apply.hpp"
#include "reference/registry/registry.hpp"
#include "tests/reference/ops/per_token_group_quant_fp8/quant_test_util.hpp"
#include "tests/support/seed.hpp"

namespace dsv4 {
namespace {

TEST(Rope, InverseAfterForwardIsIdentity) {
  auto rng = test::rng_for_current_test();
  std::normal_distribution<double> nd;
  for (auto pairing : {rope::Pairing::interleaved, rope::Pairing::neox}) {
    std::vector<double> x(64), y, cs(64);
    for (auto& v : x) v = nd(rng);
    for (int i = 0; i < 32; ++i) {
      const double a = nd(rng) * 3;
      cs[i] = std::cos(a);
      cs[32 + i] = std::sin(a);
    }
    y = x;
    rope::apply(y.data(), 64, cs.data(), pairing, false);
    double moved = 0;
    for (int i = 0; i < 64; ++i) moved += std::fabs(y[i] - x[i]);
    EXPECT_GT(moved, 1.0);  // the rotation did something
    rope::apply(y.data(), 64, cs.data(), pairing, true);
    for (int i = 0; i < 64; ++i) EXPECT_NEAR(y[i], x[i], 1e-14) << i;
  }
}

TEST(Rope, ForwardFormulaGptJ) {
  std::vector<double> x{1, 2, 3, 4}, cs{0.6, 0.0, 0.8, 1.0};  // pair 0: c=0.6 s=0.8; pair 1: c=0 s=1
  rope::apply(x.data(), 4, cs.data(), rope::Pairing::interleaved, false);
  EXPECT_DOUBLE_EQ(x[0], 1 * 0.6 - 2 * 0.8);
  EXPECT_DOUBLE_EQ(x[1], 1 * 0.8 + 2 * 0.6);
  EXPECT_DOUBLE_EQ(x[2], -4);
  EXPECT_DOUBLE_EQ(x[3], 3);
  std::vector<double> n{1, 2, 3, 4};
  rope::apply(n.data(), 4, cs.data(), rope::Pairing::neox, false);  // pairs (0,2), (1,3)
  EXPECT_DOUBLE_EQ(n[0], 1 * 0.6 - 3 * 0.8);
  EXPECT_DOUBLE_EQ(n[2], 1 * 0.8 + 3 * 0.6);
  EXPECT_DOUBLE_EQ(n[1], -4);
  EXPECT_DOUBLE_EQ(n[3], 2);
}

// One head whose dims 448..511 hold distinct e4m3-exact values (codes 0x3E + i, max 416 → scale 1),
// rotated by 90° (cos 0, sin 1): the inverse maps (a, b) → (b, −a), so the output codes are a
// permutation of the input codes with sign flips, exactly.
TEST(InvRopeFp8Quant, NinetyDegreeHandCaseBothPairings) {
  for (const char* pairing : {"interleaved", "neox"}) {
    OpCase c;
    c.attrs = {{"n_groups", 1}, {"pairing", pairing}};
    Tensor o = Tensor::empty(DType::BF16, {1, 1, 512});
    o.fill(0.0);
    const auto val = [](int i) { return formats::decode(formats::Format::e4m3fn, 0x3E + i); };
    for (int i = 0; i < 64; ++i) o.set({0, 0, 448 + i}, val(i));
    c.inputs["o"] = o;
    c.inputs["positions"] = Tensor::from_f64(DType::I64, {1}, {0});
    std::vector<double> cs(64, 0.0);
    for (int i = 32; i < 64; ++i) cs[i] = 1.0;
    c.inputs["cos_sin_cache"] = Tensor::from_f64(DType::F32, {1, 64}, cs);
    const Outputs out = run_reference("inv_rope_fp8_quant", c);
    const Tensor& q = out.at("o_fp8");
    EXPECT_EQ(out.at("o_scale").get({0, 0, 3}), 1.0);
    for (int i = 0; i < 32; ++i) {
      const int ia = std::string(pairing) == "interleaved" ? 2 * i : i;
      const int ib = std::string(pairing) == "interleaved" ? 2 * i + 1 : i + 32;
      EXPECT_EQ(q.code({0, 0, 448 + ia}), static_cast<std::uint64_t>(0x3E + ib)) << pairing << " pair " << i;
      EXPECT_EQ(q.code({0, 0, 448 + ib}), static_cast<std::uint64_t>(0x80 | (0x3E + ia))) << pairing << " pair " << i;
    }
    for (int d = 0; d < 448; ++d) ASSERT_EQ(q.code({0, 0, d}), 0u);
  }
}

TEST(InvRopeFp8Quant, AtAngleZeroEqualsPerTokenGroupQuant) {
  auto rng = test::rng_for_current_test();
  OpCase c = Registry::instance().get("inv_rope_fp8_quant").generate(rng, Json{{"T", 5}, {"H", 8}, {"n_groups", 4}, {"max_pos", 16}});
  c.inputs["positions"] = Tensor::from_f64(DType::I64, {5}, {0, 0, 0, 0, 0});  // cache row 0: cos 1, sin 0
  const Outputs out = run_reference("inv_rope_fp8_quant", c);
  const std::int64_t T = 5, G = 4, D = 1024;
  const Tensor &q = out.at("o_fp8"), &s = out.at("o_scale");
  EXPECT_EQ(q.shape(), (Shape{T, G, D}));
  EXPECT_EQ(q.strides(), (Shape{D, T * D, 1}));
  EXPECT_EQ(s.shape(), (Shape{G, 8, D / 128}));
  EXPECT_EQ(s.stride(1), 1);
  OpCase p;  // o viewed as [T·G, D]: the heads of a group are contiguous
  p.inputs["x"] = c.in("o").contiguous().reshape({T * G, D});
  p.attrs = {{"scale_recipe", "vllm-v4-invrope"}};
  const Outputs ref = run_reference("per_token_group_quant_fp8", p);
  for (std::int64_t t = 0; t < T; ++t)
    for (std::int64_t g = 0; g < G; ++g) {
      for (std::int64_t d = 0; d < D; ++d) ASSERT_EQ(q.code({t, g, d}), ref.at("x_q").code({t * G + g, d}));
      for (std::int64_t k = 0; k < D / 128; ++k) ASSERT_EQ(s.get({g, t, k}), ref.at("x_s").get({t * G + g, k}));
    }
  for (std::int64_t g = 0; g < G; ++g)
    for (std::int64_t t = T; t < 8; ++t)
      for (std::int64_t k = 0; k < D / 128; ++k) EXPECT_EQ(s.get({g, t, k}), 0.0) << "padding row";
}

TEST(InvRopeFp8Quant, ForwardRopeOfDequantizedOutputRecoversInput) {
  auto rng = test::rng_for_current_test();
  OpCase c = Registry::instance().get("inv_rope_fp8_quant").generate(rng, Json{{"T", 6}, {"H", 8}, {"max_pos", 3000}});
  const Outputs mn = run_reference("inv_rope_fp8_quant", c);
  c.attrs["scale_layout"] = "packed_ue8m0";
  const Outputs pk = run_reference("inv_rope_fp8_quant", c);
  const Tensor &o = c.in("o"), &cache = c.in("cos_sin_cache"), &q = mn.at("o_fp8");
  ASSERT_EQ(pk.at("o_scale").shape(), (Shape{8, 8, 1}));  // one packed word per 512-wide head
  for (std::int64_t t = 0; t < 6; ++t) {
    const auto pos = static_cast<std::int64_t>(c.in("positions").get({t}));
    for (std::int64_t h = 0; h < 8; ++h) {
      const std::int64_t g = h;  // 8 groups of 1 head
      for (std::int64_t k = 0; k < 4; ++k)
        ASSERT_EQ(test::layout_scale(pk.at("o_scale").select(0, g), t, k), mn.at("o_scale").get({g, t, k}));
      auto deq = [&](std::int64_t d) { return q.get({t, g, d}) * mn.at("o_scale").get({g, t, d / 128}); };
      const double s3 = mn.at("o_scale").get({g, t, 3});
      for (std::int64_t d = 0; d < 448; ++d) {
        const double s = mn.at("o_scale").get({g, t, d / 128});
        ASSERT_LE(std::fabs(deq(d) - o.get({t, h, d})), test::quant_bound(o.get({t, h, d}), s));
      }
      for (int i = 0; i < 32; ++i) {  // forward GPT-J on the dequantized pair
        const double a = deq(448 + 2 * i), b = deq(449 + 2 * i);
        const double cs = cache.get({pos, i}), sn = cache.get({pos, 32 + i});
        const double fa = a * cs - b * sn, fb = a * sn + b * cs;
        const double ea = o.get({t, h, 448 + 2 * i}), eb = o.get({t, h, 449 + 2 * i});
        const double bound = std::sqrt(2.0) * std::ldexp(std::hypot(ea, eb), -4) + 2 * s3 * std::ldexp(1.0, -10) + 1e-6 * std::hypot(ea, eb);
        ASSERT_LE(std::fabs(fa - ea), bound) << t << "," << h << " pair " << i;
        ASSERT_LE(std::fabs(fb - eb), bound) << t << "," << h << " pair " << i;
      }
    }
  }
}

TEST(InvRopeFp8Quant, BadInputNamesAttribute) {
  auto rng = test::rng_for_current_test();
  const OpCase good = Registry::instance().get("inv_rope_fp8_quant").generate(rng, Json{{"T", 2}, {"H", 8}, {"max_pos", 8}});
  OpCase c = good;
  c.attrs["n_groups"] = 3;
  EXPECT_THROW(run_reference("inv_rope_fp8_quant", c), InputError);
  c = good;
  c.inputs["positions"] = Tensor::from_f64(DType::I64, {2}, {0, 8});
  EXPECT_THROW(run_reference("inv_rope_fp8_quant", c), InputError);
  c = good;
  c.attrs["scale_layout"] = "row_major";
  EXPECT_THROW(run_reference("inv_rope_fp8_quant", c), InputError);
  c = good;
  c.attrs["pairing"] = "gptj";
  EXPECT_THROW(run_reference("inv_rope_fp8_quant", c), InputError);
}

}  // namespace
}  // namespace dsv4
