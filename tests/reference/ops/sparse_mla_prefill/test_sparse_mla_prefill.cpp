// Tests of the sparse_mla_prefill reference (ops.md §2): a hand-computed case, the sparse result vs a
// dense attention over all kv rows with a mask (independent formulation), sink semantics, lonely rows
// and the version-trap variants, topk_length, NaN in unreferenced rows, duplicates, strides, bad input.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <random>

#include "reference/ops/common/attn_gen.hpp"
#include "reference/registry/registry.hpp"
#include "tests/support/seed.hpp"

using namespace dsv4;

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Tensor i32(Shape s, std::vector<std::int64_t> v) {
  Tensor t = Tensor::empty(DType::I32, std::move(s));
  for (std::size_t i = 0; i < v.size(); ++i) t.set_code_linear(static_cast<std::int64_t>(i), static_cast<std::uint32_t>(v[i]));
  return t;
}

Outputs run(const OpCase& c) { return run_reference("sparse_mla_prefill", c); }

double bf16_ulp(double r) {
  if (r == 0) return std::ldexp(1.0, -133);
  int e;
  std::frexp(r, &e);
  return std::ldexp(1.0, e - 8);
}

OpCase small_case(std::mt19937_64& rng, std::int64_t s_q, std::int64_t h_q, std::int64_t d_qk, std::int64_t s_kv,
                  std::int64_t topk, std::int64_t d_v) {
  OpCase c;
  c.inputs["q"] = attn::gen_bf16(rng, {s_q, h_q, d_qk}, 2);
  c.inputs["kv"] = attn::gen_bf16(rng, {s_kv, 1, d_qk});
  std::vector<std::int64_t> idx;
  for (std::int64_t i = 0; i < s_q; ++i) {
    auto row = attn::gen_index_row(rng, s_kv, topk, topk - i % 3, {-1, s_kv, std::numeric_limits<std::int32_t>::min()});
    std::shuffle(row.begin(), row.end(), rng);
    idx.insert(idx.end(), row.begin(), row.end());
  }
  c.inputs["indices"] = i32({s_q, 1, topk}, idx);
  c.attrs = {{"sm_scale", 0.5}, {"d_v", d_v}};
  return c;
}
}  // namespace

TEST(SparseMlaPrefill, HandComputedTwoKeys) {
  // q = [1, 0], keys [1, 0] and [0, 1], scale 1: logits 1 and 0.
  OpCase c;
  c.inputs["q"] = Tensor::from_f64(DType::BF16, {1, 1, 2}, {1, 0});
  c.inputs["kv"] = Tensor::from_f64(DType::BF16, {3, 1, 2}, {1, 0, 0, 1, 5, 5});
  c.inputs["indices"] = i32({1, 1, 3}, {1, -1, 0});
  c.attrs = {{"sm_scale", 1.0}, {"d_v", 2}};
  auto o = run(c);
  const double e = std::exp(1.0);
  EXPECT_EQ(o["out"].get({0, 0, 0}), Tensor::from_f64(DType::BF16, {1}, {e / (e + 1)}).get({0}));
  EXPECT_EQ(o["out"].get({0, 0, 1}), Tensor::from_f64(DType::BF16, {1}, {1 / (e + 1)}).get({0}));
  EXPECT_FLOAT_EQ(o["lse"].get({0, 0}), std::log(e + 1));
  EXPECT_FLOAT_EQ(o["max_logits"].get({0, 0}), 1.0);
}

TEST(SparseMlaPrefill, MatchesDenseMaskedAttention) {
  auto rng = test::rng_for_current_test();
  for (auto [d_qk, d_v] : {std::pair<std::int64_t, std::int64_t>{576, 512}, {512, 512}, {40, 24}}) {
    const std::int64_t s_q = 5, h_q = 3, s_kv = 50, topk = 16;
    OpCase c = small_case(rng, s_q, h_q, d_qk, s_kv, topk, d_v);
    Tensor tl = i32({s_q}, {16, 9, 0, 16, 3});
    c.inputs["topk_length"] = tl;
    auto o = run(c);
    const Tensor &q = c.inputs["q"], &kv = c.inputs["kv"], &idx = c.inputs["indices"];
    for (std::int64_t i = 0; i < s_q; ++i) {
      std::vector<char> mask(s_kv, 0);
      for (std::int64_t j = 0; j < tl.get({i}); ++j) {
        const auto v = static_cast<std::int32_t>(idx.code({i, 0, j}));
        if (v >= 0 && v < s_kv) mask[v] = 1;
      }
      for (std::int64_t h = 0; h < h_q; ++h) {
        std::vector<double> logit(s_kv, -kInf);
        double m = -kInf;
        for (std::int64_t r = 0; r < s_kv; ++r) {
          if (!mask[r]) continue;
          double acc = 0;
          for (std::int64_t d = 0; d < d_qk; ++d) acc += q.get({i, h, d}) * kv.get({r, 0, d});
          logit[r] = 0.5 * acc;
          m = std::max(m, logit[r]);
        }
        if (m == -kInf) {
          EXPECT_EQ(o["lse"].get({i, h}), kInf);
          EXPECT_EQ(o["max_logits"].get({i, h}), -kInf);
          for (std::int64_t d = 0; d < d_v; ++d) EXPECT_EQ(o["out"].get({i, h, d}), 0.0);
          continue;
        }
        double l = 0;
        for (std::int64_t r = 0; r < s_kv; ++r) l += mask[r] ? std::exp(logit[r] - m) : 0.0;
        const double lse = m + std::log(l);
        EXPECT_NEAR(o["lse"].get({i, h}), lse, 1e-6 * std::fabs(lse) + 1e-7);
        EXPECT_NEAR(o["max_logits"].get({i, h}), m, 1e-6 * std::fabs(m) + 1e-7);
        for (std::int64_t d = 0; d < d_v; ++d) {
          double acc = 0;
          for (std::int64_t r = 0; r < s_kv; ++r) if (mask[r]) acc += std::exp(logit[r] - lse) * kv.get({r, 0, d});
          EXPECT_LE(std::fabs(o["out"].get({i, h, d}) - acc), bf16_ulp(acc)) << i << " " << h << " " << d;
        }
      }
    }
  }
}

TEST(SparseMlaPrefill, SinkScalesOutputOnlyAndInfinitiesAct) {
  auto rng = test::rng_for_current_test();
  OpCase c = small_case(rng, 3, 4, 64, 40, 8, 64);
  auto base = run(c);
  c.inputs["attn_sink"] = Tensor::from_f64(DType::F32, {4}, {-kInf, kInf, 0.3, -1.0});
  auto o = run(c);
  EXPECT_EQ(o["lse"].to_f64(), base["lse"].to_f64());
  EXPECT_EQ(o["max_logits"].to_f64(), base["max_logits"].to_f64());
  for (std::int64_t i = 0; i < 3; ++i)
    for (std::int64_t d = 0; d < 64; ++d) {
      EXPECT_EQ(o["out"].get({i, 0, d}), base["out"].get({i, 0, d}));  // -inf sink: no effect
      EXPECT_EQ(o["out"].get({i, 1, d}), 0.0);                          // +inf sink: out = 0
      for (std::int64_t h : {2, 3}) {
        const double lse = base["lse"].get({i, h}), sink = h == 2 ? 0.3 : -1.0;
        const double expect = base["out"].get({i, h, d}) * std::exp(lse) / (std::exp(lse) + std::exp(sink));
        EXPECT_LE(std::fabs(o["out"].get({i, h, d}) - expect), 2 * bf16_ulp(expect));
      }
    }
}

TEST(SparseMlaPrefill, LonelyRowsAndVersionTrapVariants) {
  auto rng = test::rng_for_current_test();
  OpCase c = small_case(rng, 3, 2, 32, 20, 4, 32);
  // Row 0: all invalid values; row 1: topk_length 0; row 2: normal.
  const std::int64_t bad[] = {std::numeric_limits<std::int32_t>::min(), -1, 20, std::numeric_limits<std::int32_t>::max()};
  for (std::int64_t j = 0; j < 4; ++j) c.inputs["indices"].set_code({0, 0, j}, static_cast<std::uint32_t>(bad[j]));
  c.inputs["topk_length"] = i32({3}, {4, 0, 4});
  c.inputs["attn_sink"] = Tensor::from_f64(DType::F32, {2}, {0.5, -kInf});
  auto o = run(c);
  for (std::int64_t i : {0, 1})
    for (std::int64_t h = 0; h < 2; ++h) {
      EXPECT_EQ(o["lse"].get({i, h}), kInf);
      EXPECT_EQ(o["max_logits"].get({i, h}), -kInf);
      for (std::int64_t d = 0; d < 32; ++d) EXPECT_EQ(o["out"].get({i, h, d}), 0.0);
    }
  c.attrs["lse_units"] = "log2";
  c.attrs["lonely_lse"] = "-inf";
  auto old = run(c);
  EXPECT_EQ(old["lse"].get({0, 0}), -kInf);
  EXPECT_EQ(old["max_logits"].get({1, 1}), -kInf);
  EXPECT_NEAR(old["lse"].get({2, 1}), o["lse"].get({2, 1}) / std::numbers::ln2, 1e-5);
  EXPECT_NEAR(old["max_logits"].get({2, 0}), o["max_logits"].get({2, 0}) / std::numbers::ln2, 1e-5);
  EXPECT_EQ(old["out"].to_f64(), o["out"].to_f64());
}

TEST(SparseMlaPrefill, NanInUnreferencedRowsNeverReachesTheResult) {
  auto rng = test::rng_for_current_test();
  OpCase c = small_case(rng, 4, 2, 32, 30, 8, 32);
  c.inputs["topk_length"] = i32({4}, {5, 5, 8, 2});
  auto clean = run(c);
  // Poison every kv row not referenced within topk_length (including rows referenced only past it).
  std::vector<char> used(30, 0);
  for (std::int64_t i = 0; i < 4; ++i)
    for (std::int64_t j = 0; j < c.inputs["topk_length"].get({i}); ++j) {
      const auto v = static_cast<std::int32_t>(c.inputs["indices"].code({i, 0, j}));
      if (v >= 0 && v < 30) used[v] = 1;
    }
  Tensor kv = c.inputs["kv"].contiguous();
  for (std::int64_t r = 0; r < 30; ++r)
    if (!used[r]) for (std::int64_t d = 0; d < 32; ++d) kv.set({r, 0, d}, kNaN);
  c.inputs["kv"] = kv;
  auto o = run(c);
  EXPECT_EQ(o["out"].to_f64(), clean["out"].to_f64());
  EXPECT_EQ(o["lse"].to_f64(), clean["lse"].to_f64());
  for (double v : o["out"].to_f64()) EXPECT_FALSE(std::isnan(v));
  // Under nan_beyond_topk_length = forbidden a valid index past topk_length at a NaN row is an error.
  bool past_nan = false;
  for (std::int64_t i = 0; i < 4; ++i)
    for (std::int64_t j = c.inputs["topk_length"].get({i}); j < 8; ++j) {
      const auto v = static_cast<std::int32_t>(c.inputs["indices"].code({i, 0, j}));
      if (v >= 0 && v < 30 && !used[v]) past_nan = true;
    }
  c.attrs["nan_beyond_topk_length"] = "forbidden";
  if (past_nan) EXPECT_THROW(run(c), InputError);
  else EXPECT_NO_THROW(run(c));
}

TEST(SparseMlaPrefill, DuplicateIndexCountsOncePerOccurrence) {
  OpCase c;
  c.inputs["q"] = Tensor::from_f64(DType::BF16, {1, 1, 1}, {0});
  c.inputs["kv"] = Tensor::from_f64(DType::BF16, {2, 1, 1}, {3, 0});
  c.inputs["indices"] = i32({1, 1, 3}, {0, 0, 1});  // logits all 0: weights 2/3 on row 0
  c.attrs = {{"sm_scale", 1.0}, {"d_v", 1}};
  auto o = run(c);
  EXPECT_EQ(o["out"].get({0, 0, 0}), 2.0);
  EXPECT_FLOAT_EQ(o["lse"].get({0, 0}), std::log(3.0));
}

TEST(SparseMlaPrefill, StridedQueryAndBf16PRoundingStayClose) {
  auto rng = test::rng_for_current_test();
  OpCase c = small_case(rng, 4, 3, 64, 64, 32, 64);
  auto o = run(c);
  OpCase cc = c;
  cc.inputs["q"] = c.inputs["q"].contiguous();
  EXPECT_FALSE(c.inputs["q"].is_contiguous());
  EXPECT_EQ(run(cc)["out"].to_f64(), o["out"].to_f64());
  c.attrs["p_rounding"] = "bf16";
  auto r = run(c);
  double max_err = 0, max_ref = 0;
  const auto a = r["out"].to_f64(), b = o["out"].to_f64();
  for (std::size_t i = 0; i < a.size(); ++i) { max_err = std::max(max_err, std::fabs(a[i] - b[i])); max_ref = std::max(max_ref, std::fabs(b[i])); }
  EXPECT_GT(max_err, 0.0);               // the option does change the result ...
  EXPECT_LE(max_err, max_ref * 0x1p-7);  // ... within the 2^-7 relative budget of a bf16 P
  EXPECT_EQ(r["lse"].to_f64(), o["lse"].to_f64());
}

TEST(SparseMlaPrefill, BadInputIsRejectedWithTheArgumentNamed) {
  auto rng = test::rng_for_current_test();
  const OpCase good = small_case(rng, 2, 2, 16, 10, 4, 16);
  auto expect_error = [&](OpCase c, const std::string& needle) {
    try {
      run(c);
      ADD_FAILURE() << "no InputError for " << needle;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  OpCase c = good;
  c.inputs["indices"] = Tensor::empty(DType::I64, {2, 1, 4});
  expect_error(c, "indices");
  c = good;
  c.inputs["kv"] = Tensor::from_f64(DType::BF16, {10, 1, 8}, std::vector<double>(80, 0.5));
  expect_error(c, "kv");
  c = good;
  c.inputs["topk_length"] = i32({2}, {1, 5});
  expect_error(c, "topk_length");
  c = good;
  c.attrs["d_v"] = 17;
  expect_error(c, "d_v");
  c = good;
  c.attrs.erase("sm_scale");
  expect_error(c, "sm_scale");
  c = good;
  c.inputs["attn_sink"] = Tensor::from_f64(DType::F32, {3}, {0, 0, 0});
  expect_error(c, "attn_sink");
  c = good;
  c.attrs["lse_units"] = "log10";
  expect_error(c, "lse_units");
}

TEST(SparseMlaPrefill, GeneratorDefaultShapesAreValidCases) {
  auto rng = test::rng_for_current_test();
  const OpDescriptor& d = Registry::instance().get("sparse_mla_prefill");
  ASSERT_TRUE(d.generate);
  std::size_t nonzero = 0, lonely = 0;
  for (const Json& s : d.default_shapes) {
    OpCase c = d.generate(rng, s);
    auto o = run_reference("sparse_mla_prefill", c);
    for (double v : o["out"].to_f64()) { EXPECT_FALSE(std::isnan(v)); nonzero += v != 0; }
    for (double v : o["lse"].to_f64()) lonely += v == kInf;
  }
  EXPECT_GT(nonzero, 0u);
  EXPECT_GT(lonely, 0u);  // the generator always makes some fully invalid rows
}

// Property: the result depends only on the multiset of valid indices of a row: permuting the row and
// turning extra slots into invalid values (any of FlashMLA's four) changes nothing beyond summation
// order (1 bf16 ulp on out, 1e-6 relative on lse).
RC_GTEST_PROP(SparseMlaPrefill, InvariantToIndexOrderAndInvalidPadding, ()) {
  const auto s_kv = *rc::gen::inRange<std::int64_t>(1, 40);
  const auto topk = *rc::gen::inRange<std::int64_t>(1, 24);
  const auto h_q = *rc::gen::inRange<std::int64_t>(1, 5);
  const auto seed = *rc::gen::arbitrary<std::uint64_t>();
  std::mt19937_64 rng(seed ^ test::test_seed("SparseMlaPrefill.InvariantToIndexOrderAndInvalidPadding"));
  OpCase c;
  c.inputs["q"] = attn::gen_bf16(rng, {1, h_q, 16});
  c.inputs["kv"] = attn::gen_bf16(rng, {s_kv, 1, 16});
  const std::vector<std::int64_t> bad = {std::numeric_limits<std::int32_t>::min(), -1, s_kv,
                                         std::numeric_limits<std::int32_t>::max()};
  auto row = attn::gen_index_row(rng, s_kv, topk, *rc::gen::inRange<std::int64_t>(0, topk + 1), bad);
  c.inputs["indices"] = i32({1, 1, topk}, row);
  c.attrs = {{"sm_scale", 0.7}, {"d_v", 16}};
  auto a = run(c);
  std::shuffle(row.begin(), row.end(), rng);
  row.insert(row.begin() + static_cast<std::ptrdiff_t>(rng() % (row.size() + 1)), bad[rng() % 4]);
  c.inputs["indices"] = i32({1, 1, topk + 1}, row);
  auto b = run(c);
  for (std::int64_t h = 0; h < h_q; ++h) {
    const double la = a["lse"].get({0, h}), lb = b["lse"].get({0, h});
    RC_ASSERT((la == lb || std::fabs(la - lb) <= 1e-6 * std::fabs(la)));
    for (std::int64_t d = 0; d < 16; ++d) {
      const double x = a["out"].get({0, h, d}), y = b["out"].get({0, h, d});
      RC_ASSERT(!std::isnan(y));
      RC_ASSERT(std::fabs(x - y) <= bf16_ulp(x));
    }
  }
}
