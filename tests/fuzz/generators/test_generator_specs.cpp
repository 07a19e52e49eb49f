// The ops' fuzz spaces through the fuzz layer (fuzz/generators/): every registered op has one; every case they generate
// (test scale, every value distribution incl. specials) is accepted by validate_case and the float64
// reference; the value layer does what its name says (checked against hand-derived facts, not against
// itself); op-specific specials hold the special values the contract names and nothing it forbids.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "fuzz/campaign/shape_space.hpp"
#include "fuzz/generators/rc_generators.hpp"
#include "tests/fuzz/generators/rc_short.hpp"

namespace dsv4::fuzz {
namespace {

using test::check_short;

const OpDescriptor& op(const std::string& n) { return Registry::instance().get(n); }

OpCase gen(const std::string& opname, std::uint64_t seed, Json shape) {
  prepare_registry();
  std::mt19937_64 r(seed);
  return op(opname).generate(r, shape);
}

TEST(GeneratorSpecs, EveryRegisteredOpHasOneSpec) {
  prepare_registry();
  std::set<std::string> names;
  for (const auto& s : op_gen_specs()) {
    EXPECT_TRUE(names.insert(s.op).second) << "duplicate spec " << s.op;
    EXPECT_NE(Registry::instance().find(s.op), nullptr) << "spec for an unregistered op " << s.op;
    EXPECT_FALSE(s.value_inputs.empty()) << s.op;
    EXPECT_TRUE(s.specials) << s.op;
    for (const auto& n : s.value_inputs) EXPECT_NE(op(s.op).find_input(n), nullptr) << s.op << ": " << n;
  }
  for (const auto& n : Registry::instance().names()) EXPECT_TRUE(names.count(n)) << "op without a generator spec: " << n;
  EXPECT_EQ(names.size(), Registry::instance().names().size());
}

// validate_case and the reference accept every generated case of every op (reference only).
TEST(GeneratorSpecs, ValidateCaseAndReferenceAcceptEveryGeneratedCase) {
  prepare_registry();
  for (const auto& spec : op_gen_specs()) {
    SCOPED_TRACE(spec.op);
    for (ValueDist v : kAllValueDists)
      check_short(3, [&spec, v] {
        const CaseSpec c = *rcgen::case_specs(spec.op, ShapeScale::test, v);
        RC_LOG() << "repro: " << repro_command(c, UnderTestOptions{}) << "\n";
        OpCase oc = rcgen::generate_case(c);
        validate_case(op(spec.op), oc);
        const Outputs out = op(spec.op).reference(oc);
        RC_ASSERT(!out.empty());
      });
  }
}

// Campaign-scale shapes of every op generate and validate (no reference: some are large on purpose).
TEST(GeneratorSpecs, CampaignShapesGenerateAndValidate) {
  prepare_registry();
  for (const auto& spec : op_gen_specs()) {
    if (spec.op == "skinny_gemm" || spec.op == "sparse_mla_prefill") continue;  // large inputs; covered below
    SCOPED_TRACE(spec.op);
    check_short(2, [&spec] {
      const CaseSpec c = *rcgen::case_specs(spec.op, ShapeScale::campaign);
      RC_LOG() << "repro: " << repro_command(c, UnderTestOptions{}) << "\n";
      OpCase oc = rcgen::generate_case(c);
      validate_case(op(spec.op), oc);
    });
  }
}

// The registered campaign space is the spec's: draw_shape gives a shape with a values knob.
TEST(GeneratorSpecs, CampaignUsesTheRegisteredSpaces) {
  prepare_registry();
  std::mt19937_64 r(test::test_seed("spaces"));
  for (const auto& n : Registry::instance().names()) {
    const Json s = draw_shape(op(n), r);
    ASSERT_TRUE(s.contains("values")) << n << ": " << s.dump();
    EXPECT_TRUE(parse_value_dist(s["values"].get<std::string>()).has_value()) << s.dump();
  }
}

// Skinny campaign shapes sit on (or one vector from) a K where the kernel plan changes, for some profile.
TEST(GeneratorSpecs, SkinnyShapesSitOnPlanBoundaries) {
  prepare_registry();
  const OpGenSpec& spec = *find_gen_spec("skinny_gemm");
  std::mt19937_64 r(test::test_seed("skinny-bounds"));
  int near = 0, total = 40;
  std::set<std::int64_t> ns;
  for (int i = 0; i < total; ++i) {
    const Json s = spec.shapes(r, ShapeScale::campaign);
    const std::int64_t K = s["K"].get<std::int64_t>();
    ns.insert(s["N"].get<std::int64_t>());
    EXPECT_EQ(K % 8, 0) << s.dump();
    EXPECT_LE(s["N"].get<std::int64_t>() * s["M"].get<std::int64_t>() * K, std::int64_t{1} << 28) << s.dump();
    // 512 and its multiples are where the base chunk of every profile ends (hand-derived: chunks of 512/256/128).
    for (std::int64_t c : {64, 128, 256, 512})
      if (std::abs(K - (K + c / 2) / c * c) <= 8) {
        ++near;
        break;
      }
  }
  EXPECT_GE(near, total / 2);
  EXPECT_GE(ns.size(), 4u);  // several row classes
}

TEST(ValueLayer, NormalAndAbsentAreTheOpsOwnDraw) {
  const Json base = op("skinny_gemm").default_shapes[0];
  Json with = base;
  with["values"] = "normal";
  const OpCase a = gen("skinny_gemm", 5, base), b = gen("skinny_gemm", 5, with);
  for (auto& [n, t] : a.inputs) EXPECT_EQ(t.to_codes(), b.inputs.at(n).to_codes()) << n;
}

TEST(ValueLayer, AllEqualMakesEveryValueInputConstant) {
  Json s = op("merge_attn_states").default_shapes[1];  // padded heads: padding must stay untouched
  s["values"] = "all_equal";
  const OpCase c = gen("merge_attn_states", 9, s);
  for (const char* n : {"prefix_output", "suffix_output"}) {
    const auto v = c.inputs.at(n).to_f64();
    ASSERT_FALSE(v.empty());
    EXPECT_NE(v[0], 0.0) << n;
    for (double x : v) ASSERT_EQ(x, v[0]) << n;
  }
}

TEST(ValueLayer, TinyAndHugeScalesMoveMagnitudes) {
  for (const char* dt : {"bf16", "fp16"}) {
    Json s{{"N", 4}, {"K", 64}, {"M", 8}, {"dtype", dt}};
    auto amax = [](const Tensor& t) {
      double m = 0;
      for (double x : t.to_f64()) m = std::max(m, std::abs(x));
      return m;
    };
    s["values"] = "normal";
    const double a0 = amax(gen("skinny_gemm", 3, s).inputs.at("a"));
    s["values"] = "huge_scale";
    const OpCase h = gen("skinny_gemm", 3, s);
    s["values"] = "tiny_scale";
    const OpCase t = gen("skinny_gemm", 3, s);
    const bool f16 = std::string(dt) == "fp16";
    // Hand-derived: a is multiplied by 2^8 (fp16) / 2^40 (bf16), and by 2^-14 / 2^-60; b is untouched.
    EXPECT_NEAR(amax(h.inputs.at("a")) / a0, std::ldexp(1.0, f16 ? 8 : 40), std::ldexp(1.0, f16 ? 8 : 40) * 0.01) << dt;
    EXPECT_LE(amax(t.inputs.at("a")), a0 * std::ldexp(1.0, f16 ? -13 : -59)) << dt;
    EXPECT_GT(amax(t.inputs.at("a")), 0.0) << dt;
    EXPECT_EQ(amax(h.inputs.at("b")), amax(gen("skinny_gemm", 3, Json{{"N", 4}, {"K", 64}, {"M", 8}, {"dtype", dt}}).inputs.at("b")));
  }
}

TEST(ValueLayer, HeavyTailSpreadsExponents) {
  Json s{{"T", 8}, {"H", 4}, {"D", 64}, {"dtype", "F32"}, {"values", "heavy_tailed"}};
  const OpCase c = gen("merge_attn_states", 11, s);
  std::set<int> exps;
  for (double x : c.inputs.at("prefix_output").to_f64())
    if (x != 0 && std::isfinite(x)) exps.insert(std::ilogb(x));
  EXPECT_GE(exps.size(), 25u);  // N(0,1)/10-ish values alone span ~12 binades
}

TEST(ValueLayer, AttrKeysBecomeAttributesAndBadValuesNameTheRule) {
  Json s = op("per_token_group_quant_fp8").default_shapes[0];
  s["attr.scale_layout"] = "mn_major";
  EXPECT_EQ(gen("per_token_group_quant_fp8", 1, s).attrs["scale_layout"], "mn_major");
  s["values"] = "lognormal";
  try {
    gen("per_token_group_quant_fp8", 1, s);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'values' must be one of"), std::string::npos) << e.what();
  }
}

// Merge specials: ±inf and NaN LSEs occur; NaN garbage only sits where the contract says nobody reads it,
// and the reference's output there is exactly 0 (both_empty = zeros) / the suffix (past ptc).
TEST(Specials, MergeLsesAndUnreadGarbage) {
  bool pinf = false, ninf = false, nan = false, garbage = false;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const OpCase c = gen("merge_attn_states", seed, Json{{"T", 6}, {"H", 4}, {"D", 16}, {"values", "specials"}});
    OpCase v = c;
    validate_case(op("merge_attn_states"), v);
    const Outputs out = op("merge_attn_states").reference(v);
    const Tensor &pl = c.inputs.at("prefix_lse"), &sl = c.inputs.at("suffix_lse"), &po = c.inputs.at("prefix_output");
    for (std::int64_t h = 0; h < 4; ++h)
      for (std::int64_t t = 0; t < 6; ++t) {
        const double p = pl.get({h, t}), s = sl.get({h, t});
        pinf |= p == INFINITY;
        ninf |= p == -INFINITY;
        nan |= std::isnan(p);
        const bool p_nan_row = std::isnan(po.get({t, h, 0}));
        if (!p_nan_row) continue;
        garbage = true;
        ASSERT_TRUE(std::isinf(p) && std::isinf(s)) << "NaN prefix row where the merge reads it: t=" << t << " h=" << h;
        for (std::int64_t d = 0; d < 16; ++d) ASSERT_EQ(out.at("output").get({t, h, d}), 0.0);
      }
  }
  EXPECT_TRUE(pinf && ninf && nan && garbage);
}

// Prefill specials: every invalid kind FlashMLA names, no duplicate valid index in a row, topk_length 0,
// and NaN in exactly the kv rows no valid in-length index references.
TEST(Specials, PrefillInvalidKindsAndNaNRows) {
  std::set<std::int64_t> kinds;
  bool len0 = false;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const std::int64_t s_kv = 40, topk = 32;
    const OpCase c = gen("sparse_mla_prefill", seed,
                         Json{{"s_q", 4}, {"h_q", 2}, {"d_qk", 512}, {"s_kv", s_kv}, {"topk", topk}, {"values", "specials"}});
    const Tensor& idx = c.inputs.at("indices");
    const Tensor& tl = c.inputs.at("topk_length");
    std::set<std::int64_t> used;
    for (std::int64_t i = 0; i < 4; ++i) {
      const std::int64_t len = static_cast<std::int32_t>(tl.code({i}));
      len0 |= len == 0;
      std::set<std::int64_t> row;
      for (std::int64_t j = 0; j < topk; ++j) {
        const std::int64_t v = static_cast<std::int32_t>(idx.code({i, 0, j}));
        if (v < 0 || v >= s_kv) {
          kinds.insert(v == s_kv ? -100 : v == s_kv + 1 ? -101 : v);
          continue;
        }
        ASSERT_TRUE(row.insert(v).second) << "duplicate valid index " << v;
        if (j < len) used.insert(v);
      }
    }
    for (std::int64_t r = 0; r < s_kv; ++r)
      EXPECT_EQ(std::isnan(c.inputs.at("kv").get({r, 0, 0})), !used.count(r)) << "row " << r;
  }
  EXPECT_TRUE(len0);
  for (std::int64_t k : {std::int64_t{std::numeric_limits<std::int32_t>::min()}, std::int64_t{-2}, std::int64_t{-1},
                         std::int64_t{-100}, std::int64_t{-101}, std::int64_t{std::numeric_limits<std::int32_t>::max()}})
    EXPECT_TRUE(kinds.count(k)) << "invalid kind never generated: " << k;
}

// Decode specials: only -1 is invalid (ops.md §3.2), whole -1 rows and topk_length 0 occur.
TEST(Specials, DecodeOnlyMinusOne) {
  bool minus1 = false, len0 = false;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const OpCase c = gen("sparse_mla_decode", seed,
                         Json{{"b", 3}, {"s_q", 1}, {"h_q", 2}, {"d_qk", 512}, {"block_size", 16}, {"num_blocks", 2},
                              {"topk", 16}, {"values", "specials"}});
    const Tensor& idx = c.inputs.at("indices");
    for (std::int64_t i = 0; i < idx.numel(); ++i) {
      const std::int64_t v = static_cast<std::int32_t>(idx.code_linear(i));
      ASSERT_TRUE(v == -1 || (v >= 0 && v < 32)) << v;
      minus1 |= v == -1;
    }
    for (std::int64_t b = 0; b < 3; ++b) len0 |= c.inputs.at("topk_length").code({b}) == 0;
    OpCase v = c;
    validate_case(op("sparse_mla_decode"), v);
    EXPECT_NO_THROW(op("sparse_mla_decode").reference(v));
  }
  EXPECT_TRUE(minus1 && len0);
}

// GEMM specials: an x_sf row of 0xFE over an all-zero x row gives exactly 0 in the reference output
// (0 · 2^127 · anything finite), and a row of 0x00 (2^-127) occurs.
TEST(Specials, Fp8GemmE8M0Extremes) {
  bool fe = false, zero = false;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    const OpCase c = gen("fp8_gemm_blockscaled", seed,
                         Json{{"M", 4}, {"N", 64}, {"K", 256}, {"scale", "ue8m0"}, {"values", "specials"}});
    OpCase v = c;
    validate_case(op("fp8_gemm_blockscaled"), v);
    const Outputs out = op("fp8_gemm_blockscaled").reference(v);
    const Tensor& xs = c.inputs.at("x_sf");
    for (std::int64_t m = 0; m < 4; ++m) {
      zero |= xs.code({m, 0}) == 0x00;
      if (xs.code({m, 0}) != 0xFE) continue;
      fe = true;
      for (std::int64_t n = 0; n < 64; ++n) ASSERT_EQ(out.at("d").get({m, n}), 0.0);
    }
  }
  EXPECT_TRUE(fe && zero);
}

// topk specials: an all -inf row selects nothing (every slot -1, ops.md §5).
TEST(Specials, TopkNegInfRowsSelectNothing) {
  bool seen = false;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const OpCase c = gen("topk", seed, Json{{"R", 6}, {"C", 40}, {"topk", 8}, {"values", "specials"}});
    OpCase v = c;
    validate_case(op("topk"), v);
    const Outputs out = op("topk").reference(v);
    for (std::int64_t r = 0; r < 6; ++r) {
      bool all_neg = true;
      for (std::int64_t j = 0; j < 40; ++j) all_neg &= c.inputs.at("logits").get({r, j}) == -INFINITY;
      if (!all_neg) continue;
      seen = true;
      for (std::int64_t k = 0; k < 8; ++k) EXPECT_EQ(static_cast<std::int32_t>(out.at("topk_indices").code({r, k})), -1);
    }
  }
  EXPECT_TRUE(seen);
}

}  // namespace
}  // namespace dsv4::fuzz
