// judge(): descriptor policies, overrides, the error model hook, poison, tile maps, and every kind
// of bad input (missing/extra outputs, shape or dtype mismatch, unknown override, no error model).
// Also require_default_policies on private registries (a missing or malformed policy is an error).
#include <gtest/gtest.h>

#include "oracle/default_policies.hpp"
#include "oracle/judge.hpp"
#include "reference/registry/registry.hpp"
#include "tests/oracle/oracle_test_util.hpp"
#include "tests/support/seed.hpp"

using namespace dsv4;
using namespace dsv4::oracle;

namespace {

OpDescriptor fake_gemm(bool with_model) {
  OpDescriptor d;
  d.name = "skinny_gemm";
  d.inputs = {{"a", {DType::BF16}, "[N, K]", false, ""}, {"b", {DType::BF16}, "[M, K]", false, ""}};
  d.outputs = {{"out", {DType::BF16}, "[N, M]", false, ""}};
  d.oracle["out"] = {"allclose", {{"atol", 1e-3}, {"rtol", 1e-2}}, "vLLM tolerance"};
  if (with_model)
    d.error_bound = [](const OpCase& c, const Outputs& exp) {
      // The test's own model: recompute from inputs in float64.
      const Tensor &a = c.in("a"), &b = c.in("b");
      std::int64_t N = a.size(0), M = b.size(0), K = a.size(1);
      Tensor B = Tensor::empty(DType::F64, {N, M});
      for (std::int64_t n = 0; n < N; ++n)
        for (std::int64_t m = 0; m < M; ++m) {
          double s = 0, sa = 0;
          for (std::int64_t k = 0; k < K; ++k) {
            double p = a.get({n, k}) * b.get({m, k});
            s += p, sa += std::fabs(p);
          }
          B.set({n, m}, dot_product_bound(K, sa, s, DType::BF16));
        }
      return std::map<std::string, Tensor>{{"out", B}};
    };
  return d;
}

struct JudgeFixture : ::testing::Test {
  void SetUp() override {
    auto rng = test::rng_for_current_test();
    g = testutil::make_gemm(16, 24, 256, 1.0, 1.0, rng);
    c.inputs = {{"a", g.a}, {"b", g.b}};
    expected["out"] = Tensor::from_f64(DType::BF16, {16, 24}, g.exact);
  }
  testutil::GemmCase g{};
  OpCase c;
  Outputs expected;
};

}  // namespace

TEST_F(JudgeFixture, AppliesDescriptorPolicyAndOverrides) {
  OpDescriptor d = fake_gemm(true);
  JudgeResult r = judge(d, c, expected, expected);
  EXPECT_TRUE(r.pass);
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.outputs[0].policy, "allclose");
  EXPECT_NE(r.outputs[0].rationale.find("vLLM tolerance"), std::string::npos);
  JudgeOptions o;
  o.overrides["out"] = {"error-bound", {{"multiple", 1}}, "test"};
  JudgeResult r2 = judge(d, c, expected, expected, o);
  EXPECT_TRUE(r2.pass);
  EXPECT_EQ(r2.outputs[0].policy, "error-bound");
  // A planted error twice the element's bound fails the error-bound override.
  Outputs bad{{"out", expected["out"].clone()}};
  double b = dot_product_bound(256, g.sum_abs[5 * 24 + 7], g.exact[5 * 24 + 7], DType::BF16);
  bad["out"].set({5, 7}, g.exact[5 * 24 + 7] + 3 * b);
  JudgeResult r3 = judge(d, c, expected, bad, o);
  EXPECT_FALSE(r3.pass);
  EXPECT_EQ(r3.outputs[0].worst[0].index, (std::vector<std::int64_t>{5, 7}));
}

TEST_F(JudgeFixture, BadInputIsAnInputError) {
  OpDescriptor d = fake_gemm(false);
  JudgeOptions eb;
  eb.overrides["out"] = {"error-bound", Json::object(), ""};
  EXPECT_THROW(judge(d, c, expected, expected, eb), InputError);  // no error model
  try {
    judge(d, c, expected, expected, eb);
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no error model"), std::string::npos) << e.what();
  }
  Outputs wrong_shape{{"out", Tensor::empty(DType::BF16, {24, 16})}};
  EXPECT_THROW(judge(d, c, expected, wrong_shape), InputError);
  Outputs wrong_dtype{{"out", Tensor::from_f64(DType::F32, {16, 24}, g.exact)}};
  EXPECT_THROW(judge(d, c, expected, wrong_dtype), InputError);
  EXPECT_THROW(judge(d, c, expected, Outputs{}), InputError);  // missing
  Outputs extra = expected;
  extra["scratch"] = expected["out"];
  EXPECT_THROW(judge(d, c, expected, extra), InputError);
  JudgeOptions unknown;
  unknown.overrides["outt"] = {"exact", Json::object(), ""};
  EXPECT_THROW(judge(d, c, expected, expected, unknown), InputError);
  JudgeOptions bad_policy;
  bad_policy.overrides["out"] = {"allclose", {{"atol", -1}, {"rtol", 0}}, ""};
  EXPECT_THROW(judge(d, c, expected, expected, bad_policy), InputError);
  d.oracle.clear();
  EXPECT_THROW(judge(d, c, expected, expected), InputError);  // no policy at all
}

TEST_F(JudgeFixture, PoisonAndTileMapFlowThrough) {
  OpDescriptor d = fake_gemm(false);
  Outputs act{{"out", Tensor::empty(DType::BF16, {16, 24})}};
  poison(act["out"]);
  for (std::int64_t n = 0; n < 16; ++n)
    for (std::int64_t m = 0; m < 24; ++m)
      if (n < 8) act["out"].set({n, m}, g.exact[n * 24 + m]);  // rows 8..15 never written
  JudgeOptions o;
  o.poison = PoisonPattern::primary;
  TileMap tm;
  tm.rows = {8, "N-tile", {}};
  JudgeResult r = judge(d, c, expected, act, o, &tm);
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.outputs[0].counts["unwritten"], 8 * 24);
  EXPECT_NE(r.outputs[0].where.summary.find("rows 8..15 (N-tile 1), all columns"), std::string::npos)
      << r.outputs[0].where.summary;
}

TEST(DefaultPolicies, AMissingOrMalformedPolicyIsAnErrorNamingTheOutput) {
  auto problems_of = [](OpDescriptor d) {
    Registry reg;
    reg.add(std::move(d));
    try {
      require_default_policies(reg);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(problems_of(fake_gemm(false)), "");
  OpDescriptor none = fake_gemm(false);
  none.oracle.clear();
  EXPECT_NE(problems_of(none).find("skinny_gemm.out: no default oracle policy"), std::string::npos);
  OpDescriptor bound_without_model = fake_gemm(false);
  bound_without_model.oracle["out"] = {"error-bound", {{"multiple", 1}}, "the op's error model"};
  EXPECT_NE(problems_of(bound_without_model).find("registers no error_bound"), std::string::npos);
  OpDescriptor with_model = fake_gemm(true);
  with_model.oracle["out"] = bound_without_model.oracle["out"];
  EXPECT_EQ(problems_of(with_model), "");
  OpDescriptor no_reason = fake_gemm(false);
  no_reason.oracle["out"].rationale.clear();
  EXPECT_NE(problems_of(no_reason).find("without its reasoning"), std::string::npos);
  OpDescriptor unknown = fake_gemm(false);
  unknown.oracle["out"].policy = "roughly";
  EXPECT_NE(problems_of(unknown).find("skinny_gemm.out"), std::string::npos);
  OpDescriptor stray = fake_gemm(false);
  stray.oracle["extra"] = {"exact", Json::object(), "an output the op does not have"};
  EXPECT_NE(problems_of(stray).find("skinny_gemm.extra: a policy for an output the op does not have"),
            std::string::npos);
}

TEST(DefaultPolicies, EveryRegisteredOutputHasAnAdmittedPolicy) {
  const Registry& reg = Registry::instance();
  std::vector<std::string> lines;
  ASSERT_NO_THROW(lines = require_default_policies(reg));
  std::size_t outputs = 0;
  for (const OpDescriptor* d : reg.all()) outputs += d->outputs.size();
  EXPECT_EQ(lines.size(), outputs);
}
