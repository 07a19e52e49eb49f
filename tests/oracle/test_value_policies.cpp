// Every value policy (exact, ulp, allclose, error-bound, cosine, FlashMLA-style cosine) passes
// correct data and fails each planted error: one element just beyond its bound, a NaN, an unwritten
// element (poisoned output), a wrong sign of infinity, and a finite value where the contract says
// NaN. Expected tensors carry contract NaN/+inf/-inf positions that correct outputs reproduce.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "oracle/compare.hpp"
#include "tests/oracle/oracle_test_util.hpp"
#include "tests/support/seed.hpp"

using namespace dsv4;
using namespace dsv4::oracle;

namespace {

constexpr std::int64_t R = 32, C = 48;
const std::vector<std::int64_t> kPlant = {17, 5};  // where planted errors go
const double kInf = std::numeric_limits<double>::infinity();

struct PolicyCase {
  std::string name;
  Policy policy;
  // Makes a correct actual value for expected y at linear index i (u uniform in [-1, 1]).
  std::function<double(double y, double u, double bound)> correct;
  // A value just beyond the bound for expected y (given the whole tensors, for global policies).
  std::function<double(double y, double bound, const Tensor& actual, const Tensor& expected)> beyond;
  bool needs_bound = false;
};

Tensor expected_tensor(std::mt19937_64& rng) {
  Tensor e = testutil::randn(DType::F32, {R, C}, rng, 3.0);
  e.set({0, 0}, std::nan(""));
  e.set({1, 1}, kInf);
  e.set({2, 2}, -kInf);
  return e;
}

Tensor bound_tensor(const Tensor& e) {
  Tensor b = Tensor::empty(DType::F64, e.shape());
  for (std::int64_t i = 0; i < e.numel(); ++i) {
    double y = e.get_linear(i);
    b.set_linear(i, std::isfinite(y) ? 1e-3 * (1 + std::fabs(y)) : 0.0);
  }
  return b;
}

std::uint64_t f32_code_step(double y, int steps) {  // code of y moved `steps` ulps away from zero
  Tensor t = Tensor::from_f64(DType::F32, {1}, {y});
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(t.code_linear(0)) + steps);
}

double sum_sq_stats(const Tensor& a, const Tensor& e, double* s2) {
  double d = 0, s = 0;
  for (std::int64_t i = 0; i < a.numel(); ++i) {
    double x = a.get_linear(i), y = e.get_linear(i);
    if (!std::isfinite(x) || !std::isfinite(y)) continue;
    d += (x - y) * (x - y);
    s += x * x + y * y;
  }
  *s2 = s;
  return d;
}

std::vector<PolicyCase> cases() {
  std::vector<PolicyCase> v;
  v.push_back({"exact", parse_policy("exact", nullptr), [](double y, double, double) { return y; },
               [](double y, double, const Tensor&, const Tensor&) {
                 return Tensor::from_codes(DType::F32, {1}, {f32_code_step(y, 1)}).get_linear(0);
               }});
  v.push_back({"ulp2", parse_policy("ulp", {{"n", 2}}),
               [](double y, double u, double) {
                 return Tensor::from_codes(DType::F32, {1}, {f32_code_step(y, static_cast<int>(std::lround(2 * u)))}).get_linear(0);
               },
               [](double y, double, const Tensor&, const Tensor&) {
                 return Tensor::from_codes(DType::F32, {1}, {f32_code_step(y, 3)}).get_linear(0);
               }});
  auto ac = [](double y) { return 1e-3 + 1e-2 * std::fabs(y); };
  v.push_back({"allclose", parse_policy("allclose", {{"atol", 1e-3}, {"rtol", 1e-2}}),
               [ac](double y, double u, double) { return y + 0.99 * u * ac(y); },
               [ac](double y, double, const Tensor&, const Tensor&) { return y + 1.001 * ac(y); }});
  v.push_back({"error-bound", parse_policy("error-bound", {{"multiple", 2}}),
               [](double y, double u, double b) { return y + 1.98 * u * b; },
               [](double y, double b, const Tensor&, const Tensor&) { return y + 2.01 * b; }, true});
  v.push_back({"cosine", parse_policy("cosine", {{"max_diff", 1e-4}}),
               [](double y, double u, double) { return y * (1 + 1e-3 * u); },
               [](double y, double, const Tensor& a, const Tensor& e) {
                 // One element's error that lifts the global calc_diff just above max_diff.
                 double s2, d = sum_sq_stats(a, e, &s2);
                 double x0 = a.get({kPlant[0], kPlant[1]});
                 d -= (x0 - y) * (x0 - y);
                 s2 -= x0 * x0 + y * y;
                 // solve (delta^2) / (s2 + (y+delta)^2 + y^2) = 1.01e-4 - d/(...) approximately, then overshoot
                 double delta = std::sqrt(1e-4 * (s2 + 2 * y * y) - d) * 1.05;
                 return y + delta;
               }});
  auto fm = [](double y) { return std::max(1e-3, 1e-2 * (std::fabs(y) + 1e-6)); };
  v.push_back({"cosine-flashmla", parse_policy("cosine", {{"max_diff", 1e-2}, {"abs", 1e-3}, {"rel", 1e-2}}),
               [fm](double y, double u, double) { return y + 0.99 * u * fm(y); },
               [fm](double y, double, const Tensor&, const Tensor&) { return y + 1.001 * fm(y); }});
  return v;
}

class ValuePolicy : public ::testing::TestWithParam<PolicyCase> {
 protected:
  void SetUp() override {
    auto rng = test::rng_for_current_test();
    expected = expected_tensor(rng);
    bound = bound_tensor(expected);
    actual = Tensor::empty(DType::F32, expected.shape());
    std::uniform_real_distribution<double> U(-1, 1);
    for (std::int64_t i = 0; i < expected.numel(); ++i) {
      double y = expected.get_linear(i);
      actual.set_linear(i, std::isfinite(y) ? GetParam().correct(y, U(rng), bound.get_linear(i)) : y);
    }
    actual.set_code({0, 0}, 0xFFC00000u);  // a NaN of another sign/payload: the NaN class matches
    ctx.output_name = "out";
    if (GetParam().needs_bound) ctx.bound = &bound;
  }
  Verdict run(const Tensor& a) { return compare(a, expected, GetParam().policy, ctx); }
  void expect_single_failure(const Verdict& v, FailKind k) {
    EXPECT_FALSE(v.pass);
    ASSERT_FALSE(v.worst.empty());
    EXPECT_EQ(v.worst[0].index, kPlant);
    EXPECT_EQ(v.worst[0].kind, k);
    if (GetParam().policy.kind != PolicyKind::cosine || GetParam().policy.abs_tol || k != FailKind::value) {
      EXPECT_EQ(v.failed, 1);
    }
  }
  Tensor expected, actual, bound;
  CompareContext ctx;
};

}  // namespace

TEST_P(ValuePolicy, CorrectDataPasses) {
  Verdict v = run(actual);
  EXPECT_TRUE(v.pass) << v.failed << " failures, worst at " << (v.worst.empty() ? -1 : v.worst[0].index[0]);
  EXPECT_EQ(v.failed, 0);
  EXPECT_EQ(v.counts["nan_positions_matched"], 1);
  EXPECT_EQ(v.counts["inf_positions_matched"], 2);
}

TEST_P(ValuePolicy, OneElementJustBeyondItsBoundFails) {
  Tensor a = actual.clone();
  double y = expected.get({kPlant[0], kPlant[1]});
  a.set({kPlant[0], kPlant[1]}, GetParam().beyond(y, bound.get({kPlant[0], kPlant[1]}), actual, expected));
  expect_single_failure(run(a), FailKind::value);
}

TEST_P(ValuePolicy, PlantedNaNFails) {
  Tensor a = actual.clone();
  a.set({kPlant[0], kPlant[1]}, std::nan(""));
  expect_single_failure(run(a), FailKind::nan_mismatch);
}

TEST_P(ValuePolicy, FiniteWhereContractSaysNaNFails) {
  Tensor a = actual.clone();
  a.set({0, 0}, 0.0);
  Verdict v = run(a);
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.counts["nan_mismatch"], 1);
  EXPECT_EQ(v.worst[0].index, (std::vector<std::int64_t>{0, 0}));
}

TEST_P(ValuePolicy, UnwrittenElementFails) {
  Tensor a = Tensor::empty(DType::F32, expected.shape());
  poison(a, PoisonPattern::primary);
  for (std::int64_t i = 0; i < a.numel(); ++i)
    if (i != kPlant[0] * C + kPlant[1]) a.set_code_linear(i, actual.code_linear(i));
  ctx.poison = PoisonPattern::primary;
  expect_single_failure(run(a), FailKind::unwritten);
  EXPECT_TRUE(run(actual).pass);  // fully written: the written-check alone adds nothing
}

TEST_P(ValuePolicy, WrongSignOfInfinityFails) {
  Tensor a = actual.clone();
  a.set({1, 1}, -kInf);
  Verdict v = run(a);
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.counts["inf_mismatch"], 1);
  EXPECT_EQ(v.worst[0].index, (std::vector<std::int64_t>{1, 1}));
  a = actual.clone();
  a.set({2, 2}, 1e30);  // finite where -inf is expected
  EXPECT_EQ(run(a).counts["inf_mismatch"], 1);
}

TEST_P(ValuePolicy, AllZeroOutputIsFlagged) {
  Tensor z = Tensor::from_f64(DType::F32, {R, C}, std::vector<double>(R * C, 0.0));
  Tensor e = expected.clone();
  e.set({0, 0}, 1.0), e.set({1, 1}, 1.0), e.set({2, 2}, 1.0);
  Verdict v = compare(z, e, GetParam().policy, ctx);
  EXPECT_FALSE(v.pass);
  EXPECT_TRUE(v.all_zero_flag);
}

INSTANTIATE_TEST_SUITE_P(Policies, ValuePolicy, ::testing::ValuesIn(cases()),
                         [](const auto& info) {
                           std::string n = info.param.name;
                           for (auto& ch : n) if (ch == '-') ch = '_';
                           return n;
                         });

TEST(ValuePolicyMisc, ShapeOrDtypeMismatchIsAnInputError) {
  Tensor a = Tensor::from_f64(DType::F32, {2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b = Tensor::from_f64(DType::F32, {3, 2}, {1, 2, 3, 4, 5, 6});
  Tensor c = Tensor::from_f64(DType::BF16, {2, 3}, {1, 2, 3, 4, 5, 6});
  Policy p = parse_policy("allclose", Json::object());
  EXPECT_THROW(compare(a, b, p), InputError);
  EXPECT_THROW(compare(a, c, p), InputError);
  EXPECT_THROW(compare(a, a, parse_policy("error-bound", Json::object())), InputError);  // no bound given
  Tensor wrong_bound = Tensor::from_f64(DType::F64, {6}, {1, 1, 1, 1, 1, 1});
  CompareContext ctx;
  ctx.bound = &wrong_bound;
  EXPECT_THROW(compare(a, a, parse_policy("error-bound", Json::object()), ctx), InputError);
  Tensor nan_bound = Tensor::from_f64(DType::F64, {2, 3}, {1, 1, std::nan(""), 1, 1, 1});
  ctx.bound = &nan_bound;
  EXPECT_THROW(compare(a, a, parse_policy("error-bound", Json::object()), ctx), InputError);
}

TEST(ValuePolicyMisc, ExactNaNClassAndSignedZeroRules) {
  Tensor e = Tensor::from_codes(DType::BF16, {3}, {0x7FC0, 0x0000, 0x3F80});
  Tensor a = Tensor::from_codes(DType::BF16, {3}, {0xFFC1, 0x0000, 0x3F80});
  EXPECT_TRUE(compare(a, e, parse_policy("exact", nullptr)).pass);                        // any NaN matches
  EXPECT_FALSE(compare(a, e, parse_policy("exact", {{"nan_bitwise", true}})).pass);       // payload compared
  Tensor z = Tensor::from_codes(DType::BF16, {3}, {0x7FC0, 0x8000, 0x3F80});              // -0 for +0
  EXPECT_FALSE(compare(z, e, parse_policy("exact", nullptr)).pass);
  EXPECT_TRUE(compare(z, e, parse_policy("exact", {{"signed_zero", false}})).pass);
  // Integers: bitwise.
  Tensor i1 = Tensor::from_f64(DType::I32, {3}, {1, -1, 7}), i2 = Tensor::from_f64(DType::I32, {3}, {1, -1, 8});
  EXPECT_TRUE(compare(i1, i1, parse_policy("exact", nullptr)).pass);
  EXPECT_EQ(compare(i2, i1, parse_policy("exact", nullptr)).failed, 1);
}

TEST(ValuePolicyMisc, UlpDistanceHandDerived) {
  EXPECT_EQ(ulp_distance(DType::F32, 0x3F800000, 0x3F800001), 1);
  EXPECT_EQ(ulp_distance(DType::F32, 0x00000000, 0x80000000), 0);  // +0, -0
  EXPECT_EQ(ulp_distance(DType::F32, 0x00000001, 0x80000001), 2);  // across zero
  EXPECT_EQ(ulp_distance(DType::BF16, 0x3F80, 0x3F7F), 1);         // 1.0 and the float below
  EXPECT_EQ(ulp_distance(DType::F8_E4M3FN, 0x01, 0x81), 2);
  EXPECT_EQ(ulp_distance(DType::F8_E8M0, 0x7F, 0x80), 1);
  EXPECT_EQ(ulp_distance(DType::I32, 0xFFFFFFFFu, 0x1u), 2);        // -1 vs 1
  // fp8 output under ulp(1): neighbours pass, two codes away fails; the same fp8 NaN class matches.
  Tensor e = Tensor::from_codes(DType::F8_E4M3FN, {3}, {0x38, 0x40, 0x7F});
  Tensor a = Tensor::from_codes(DType::F8_E4M3FN, {3}, {0x39, 0x3F, 0xFF});
  EXPECT_TRUE(compare(a, e, parse_policy("ulp", {{"n", 1}})).pass);
  Tensor b = Tensor::from_codes(DType::F8_E4M3FN, {3}, {0x3A, 0x40, 0x7F});
  EXPECT_EQ(compare(b, e, parse_policy("ulp", {{"n", 1}})).failed, 1);
}

TEST(ValuePolicyMisc, CosineRowViewFindsErrorsDilutedGlobally) {
  // 64 rows x 32: one row with 3% relative noise; the global calc_diff stays under 1e-4 but that
  // row's own calc_diff is ~2e-4.
  auto rng = test::rng_for_current_test();
  Tensor e = testutil::randn(DType::F32, {64, 32}, rng);
  Tensor a = e.clone();
  std::normal_distribution<double> nd;
  for (std::int64_t c = 0; c < 32; ++c) a.set({40, c}, e.get({40, c}) * (1 + 0.03 * nd(rng)));
  Verdict g = compare(a, e, parse_policy("cosine", {{"max_diff", 1e-4}}));
  EXPECT_TRUE(g.pass) << *g.metric;
  ASSERT_FALSE(g.notes.empty());
  EXPECT_NE(g.notes[0].find("rows 40"), std::string::npos) << g.notes[0];
  Verdict r = compare(a, e, parse_policy("cosine", {{"max_diff", 1e-4}, {"per_row", true}}));
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.where.rows, (std::vector<std::int64_t>{40}));
}

TEST(ValuePolicyMisc, MaskNegInfLeavesUnspecifiedPositionsUncompared) {
  const double ninf = -std::numeric_limits<double>::infinity();
  Tensor e = Tensor::from_f64(DType::F32, {2, 3}, {1.0, ninf, 2.0, ninf, 3.0, 4.0});
  Tensor a = Tensor::empty(DType::F32, {2, 3});
  poison(a);  // the kernel leaves the -inf positions unwritten (clean_logits=false)
  a.set({0, 0}, 1.0), a.set({0, 2}, 2.0), a.set({1, 1}, 3.0), a.set({1, 2}, 4.0);
  CompareContext ctx;
  ctx.poison = PoisonPattern::primary;
  OpCase c;
  c.attrs = {{"clean_logits", false}};
  ctx.op_case = &c;
  Policy p = parse_policy("cosine", {{"max_diff", 5e-6}, {"mask_neg_inf", "clean_logits"}});
  Verdict v = compare(a, e, p, ctx);
  EXPECT_TRUE(v.pass);
  EXPECT_EQ(v.counts["masked"], 2);
  c.attrs["clean_logits"] = true;  // now the -inf mask must match exactly
  Verdict w = compare(a, e, p, ctx);
  EXPECT_FALSE(w.pass);
  EXPECT_EQ(w.counts["unwritten"], 2);
  EXPECT_FALSE(compare(a, e, parse_policy("allclose", {{"mask_neg_inf", false}}), ctx).pass);
  EXPECT_TRUE(compare(a, e, parse_policy("allclose", {{"mask_neg_inf", true}}), ctx).pass);
  // a finite value where a masked position's neighbour is wrong still fails
  a.set({0, 0}, 1.5);
  EXPECT_FALSE(compare(a, e, parse_policy("allclose", {{"mask_neg_inf", true}}), ctx).pass);
  c.attrs = Json::object();
  EXPECT_THROW(compare(a, e, p, ctx), InputError);  // the named attribute is missing
  EXPECT_THROW(parse_policy("allclose", {{"mask_neg_inf", 3}}), InputError);
}
