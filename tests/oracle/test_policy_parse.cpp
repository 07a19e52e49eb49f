// Policy parsing: every malformed policy is an InputError naming the policy and parameter; the
// PyTorch default table (testing-anchors.md §3.1) and dsv4check's fp8 extension.
#include <gtest/gtest.h>

#include <cmath>

#include "oracle/policy.hpp"

using namespace dsv4;
using namespace dsv4::oracle;

TEST(PolicyParse, KnownNamesAndParameters) {
  EXPECT_EQ(parse_policy("exact", nullptr).kind, PolicyKind::exact);
  EXPECT_EQ(parse_policy("ulp", {{"n", 2}}).ulp_n, 2);
  Policy a = parse_policy("allclose", {{"atol", 1e-3}, {"rtol", 1e-2}});
  EXPECT_EQ(*a.atol, 1e-3);
  EXPECT_EQ(*a.rtol, 1e-2);
  EXPECT_EQ(parse_policy("error-bound", {{"multiple", 2}}).multiple, 2);
  EXPECT_EQ(*parse_policy("cosine", {{"max_diff", 5e-6}}).max_diff, 5e-6);
  EXPECT_EQ(parse_policy("calc_diff", {{"max_diff", 5e-6}}).kind, PolicyKind::cosine);
  EXPECT_EQ(parse_policy("topk-set", Json::object()).tie_tol, 1e-5);
}

TEST(PolicyParse, BadInputIsAnInputErrorNeverAPass) {
  auto bad = [](const std::string& name, const Json& p, const std::string& needle) {
    try {
      parse_policy(name, p);
      ADD_FAILURE() << name << " " << p.dump() << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  bad("alclose", Json::object(), "unknown oracle policy 'alclose'");
  bad("allclose", {{"atol", -1e-3}, {"rtol", 0}}, "'atol' must be finite and >= 0");
  bad("allclose", {{"atol", std::nan("")}, {"rtol", 0}}, "'atol'");
  bad("allclose", {{"atol", 1e-3}}, "given together");
  bad("allclose", {{"atol", "1e-3"}, {"rtol", 0}}, "must be a number");
  bad("allclose", {{"atol", 1e-3}, {"rtol", 1e-2}, {"rtool", 1}}, "unknown parameter 'rtool'");
  bad("allclose", {{"by_dtype", {{"BF17", {{"atol", 0}, {"rtol", 0}}}}}}, "unknown dtype 'BF17'");
  bad("allclose", {{"by_dtype", {{"BF16", {{"atol", -1}, {"rtol", 0}}}}}}, "by_dtype.BF16.atol");
  bad("ulp", Json::object(), "'n'");
  bad("ulp", {{"n", 1.5}}, "integer");
  bad("ulp", {{"n", -1}}, "'n'");
  bad("error-bound", {{"multiple", 0}}, "> 0");
  bad("error-bound", {{"multiple", std::numeric_limits<double>::infinity()}}, "'multiple'");
  bad("cosine", Json::object(), "max_diff");
  bad("cosine", {{"max_diff", -5e-6}}, "max_diff");
  bad("cosine", {{"abs", 1e-3}}, "together");
  bad("topk-set", {{"tie_tol", -1}}, "tie_tol");
  bad("exact", {{"nan_bitwise", 1}}, "true or false");
  bad("exact", Json::array(), "JSON object");
}

TEST(PolicyParse, PyTorchDefaultTable) {
  // torch.testing._comparison defaults (rtol, atol), testing-anchors.md §3.1.
  EXPECT_EQ(default_allclose(DType::F16).rtol, 1e-3);
  EXPECT_EQ(default_allclose(DType::F16).atol, 1e-5);
  EXPECT_EQ(default_allclose(DType::BF16).rtol, 1.6e-2);
  EXPECT_EQ(default_allclose(DType::BF16).atol, 1e-5);
  EXPECT_EQ(default_allclose(DType::F32).rtol, 1.3e-6);
  EXPECT_EQ(default_allclose(DType::F32).atol, 1e-5);
  EXPECT_EQ(default_allclose(DType::F64).rtol, 1e-7);
  EXPECT_EQ(default_allclose(DType::F64).atol, 1e-7);
  EXPECT_EQ(default_allclose(DType::I32).rtol, 0);
  EXPECT_EQ(default_allclose(DType::I32).atol, 0);
  // Extension: fp8 e4m3fn: rtol 2^-3, atol = smallest subnormal 2^-9; e5m2: 2^-2, 2^-16.
  EXPECT_EQ(default_allclose(DType::F8_E4M3FN).rtol, 0.125);
  EXPECT_EQ(default_allclose(DType::F8_E4M3FN).atol, std::ldexp(1.0, -9));
  EXPECT_EQ(default_allclose(DType::F8_E4M3FNUZ).atol, std::ldexp(1.0, -10));
  EXPECT_EQ(default_allclose(DType::F8_E5M2).rtol, 0.25);
  EXPECT_EQ(default_allclose(DType::F8_E5M2).atol, std::ldexp(1.0, -16));
  // by_dtype selects per output dtype, explicit atol/rtol otherwise, else the table.
  Policy p = parse_policy("allclose", {{"by_dtype", {{"BF16", {{"atol", 1e-3}, {"rtol", 1e-2}}}}}});
  EXPECT_EQ(allclose_tolerance(p, DType::BF16).rtol, 1e-2);
  EXPECT_EQ(allclose_tolerance(p, DType::F32).rtol, 1.3e-6);
}
