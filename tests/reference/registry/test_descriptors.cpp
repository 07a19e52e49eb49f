// Every registered descriptor, checked the same way (PyTorch OpInfo habit), one test instance per op so that a
// new op is covered by registering it: the schema is sane, attribute defaults are admitted, the generator is
// deterministic per seed and its cases match the schema with no all-zero tensor, the reference runs on every
// default shape and writes each declared output with an admitted dtype and the declared rank, finite unless the
// output's contract admits non-finite values (ArgSpec::nonfinite), every output has an admitted default oracle
// policy, and the fuzz space is complete (its generated cases are checked through the fuzz layer in
// tests/fuzz/generators/). Instances are named after the ops; the op count comes from the registry.
#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "oracle/default_policies.hpp"
#include "reference/registry/registry.hpp"
#include "tests/support/seed.hpp"

namespace dsv4 {
namespace {

// The ranks a shape rule admits: the dimension count of each "[...]" group (commas inside parentheses, as in
// align(T,4), do not separate dimensions). Empty when the rule has no bracket group.
std::set<std::size_t> ranks_of(const std::string& rule) {
  std::set<std::size_t> ranks;
  int bracket = 0, paren = 0;
  std::size_t dims = 0;
  bool any = false;
  for (char ch : rule) {
    if (ch == '[' && bracket++ == 0) dims = 1, any = false;
    else if (ch == ']' && bracket > 0 && --bracket == 0) ranks.insert(any ? dims : 0);
    else if (bracket == 1 && ch == '(') ++paren;
    else if (bracket == 1 && ch == ')') --paren;
    else if (bracket == 1 && paren == 0 && ch == ',') ++dims;
    else if (bracket == 1 && ch != ' ') any = true;
  }
  return ranks;
}

bool all_zero(const Tensor& t) {
  for (std::int64_t i = 0; i < t.numel(); ++i)
    if (t.code_linear(i) != 0) return false;
  return true;
}

bool same_case(const OpCase& a, const OpCase& b) {
  if (a.attrs != b.attrs || a.inputs.size() != b.inputs.size()) return false;
  for (const auto& [name, t] : a.inputs) {
    if (!b.inputs.count(name)) return false;
    const Tensor& u = b.inputs.at(name);
    if (t.dtype() != u.dtype() || t.shape() != u.shape()) return false;
    for (std::int64_t i = 0; i < t.numel(); ++i)
      if (t.code_linear(i) != u.code_linear(i)) return false;
  }
  return true;
}

class Descriptor : public ::testing::TestWithParam<std::string> {
 protected:
  const OpDescriptor& d() const { return Registry::instance().get(GetParam()); }
};

TEST_P(Descriptor, SchemaIsSane) {
  const OpDescriptor& op = d();
  EXPECT_FALSE(op.summary.empty());
  EXPECT_EQ(op.contract.rfind("ops.md", 0), 0u) << "contract must point into ops.md: " << op.contract;
  EXPECT_FALSE(op.inputs.empty());
  EXPECT_FALSE(op.outputs.empty());
  for (const auto* list : {&op.inputs, &op.outputs}) {
    std::set<std::string> names;
    for (const ArgSpec& a : *list) {
      EXPECT_TRUE(names.insert(a.name).second) << "duplicate argument " << a.name;
      EXPECT_FALSE(a.dtypes.empty()) << a.name << ": no admitted dtype";
      EXPECT_FALSE(ranks_of(a.shape).empty()) << a.name << ": shape rule '" << a.shape << "' names no [dims]";
    }
  }
  std::set<std::string> attrs;
  for (const AttrSpec& a : op.attrs) {
    EXPECT_TRUE(attrs.insert(a.name).second) << "duplicate attribute " << a.name;
    EXPECT_FALSE(a.doc.empty()) << a.name;
  }
  EXPECT_TRUE(op.reference) << "no reference";
  EXPECT_TRUE(op.generate) << "no generator";
  EXPECT_FALSE(op.default_shapes.empty()) << "no default shapes";
}

TEST_P(Descriptor, AttributeDefaultsAreAdmitted) {
  const OpDescriptor& op = d();
  for (const AttrSpec& a : op.attrs) {
    if (a.default_value.is_null()) continue;
    if (!a.choices.empty()) {
      ASSERT_TRUE(a.default_value.is_string()) << a.name << ": a choice attribute with a non-string default";
      EXPECT_NE(std::find(a.choices.begin(), a.choices.end(), a.default_value.get<std::string>()), a.choices.end())
          << a.name << ": default '" << a.default_value.get<std::string>() << "' is not one of its choices";
    }
  }
  // A generated case with every defaulted attribute spelled out explicitly validates like the case without them.
  auto rng = test::rng_for_current_test();
  OpCase c = op.generate(rng, op.default_shapes.front());
  for (const AttrSpec& a : op.attrs)
    if (!a.default_value.is_null() && !c.attrs.contains(a.name)) c.attrs[a.name] = a.default_value;
  EXPECT_NO_THROW(validate_case(op, c));
}

TEST_P(Descriptor, GeneratorIsDeterministicAndMatchesTheSchema) {
  const OpDescriptor& op = d();
  const std::uint64_t seed = test::test_seed(GetParam());
  for (const Json& shape : op.default_shapes) {
    SCOPED_TRACE(shape.dump());
    std::mt19937_64 r1(seed), r2(seed);
    OpCase c = op.generate(r1, shape);
    EXPECT_TRUE(same_case(c, op.generate(r2, shape))) << "two draws from one seed differ";
    ASSERT_NO_THROW(validate_case(op, c));
    for (const ArgSpec& a : op.inputs) {
      if (!c.has(a.name)) {
        EXPECT_TRUE(a.optional) << "required input " << a.name << " not generated";
        continue;
      }
      const Tensor& t = c.in(a.name);
      EXPECT_TRUE(ranks_of(a.shape).count(t.shape().size()))
          << a.name << ": rank " << t.shape().size() << " outside its shape rule '" << a.shape << "'";
      EXPECT_FALSE(t.numel() > 0 && all_zero(t)) << a.name << ": all zeros (never test on zeros)";
    }
  }
}

TEST_P(Descriptor, ReferenceWritesEveryDeclaredOutput) {
  const OpDescriptor& op = d();
  auto rng = test::rng_for_current_test();
  for (const Json& shape : op.default_shapes) {
    SCOPED_TRACE(shape.dump());
    const Outputs out = run_reference(op.name, op.generate(rng, shape));
    for (const ArgSpec& a : op.outputs) {
      if (!out.count(a.name)) {
        EXPECT_TRUE(a.optional) << "missing output " << a.name;
        continue;
      }
      const Tensor& t = out.at(a.name);
      EXPECT_NE(std::find(a.dtypes.begin(), a.dtypes.end(), t.dtype()), a.dtypes.end())
          << a.name << ": undeclared dtype " << dtype_name(t.dtype());
      EXPECT_TRUE(ranks_of(a.shape).count(t.shape().size()))
          << a.name << ": rank " << t.shape().size() << " outside its shape rule '" << a.shape << "'";
      if (a.nonfinite || is_integer(t.dtype())) continue;
      std::int64_t bad = 0;
      for (std::int64_t i = 0; i < t.numel(); ++i) bad += std::isfinite(t.get_linear(i)) ? 0 : 1;
      EXPECT_EQ(bad, 0) << a.name << ": " << bad << " non-finite values where the contract says finite";
    }
    for (const auto& [name, t] : out) EXPECT_NE(op.find_output(name), nullptr) << "undeclared output " << name;
  }
}

TEST_P(Descriptor, EveryOutputHasAnAdmittedDefaultPolicy) {
  for (const std::string& problem : oracle::policy_problems(d())) ADD_FAILURE() << problem;
}

TEST_P(Descriptor, HasAFuzzSpaceOverItsOwnInputs) {
  const OpDescriptor& op = d();
  EXPECT_TRUE(op.fuzz.shapes) << "no fuzz shape space (reference/ops/<op>/fuzz_space.cpp)";
  EXPECT_TRUE(op.fuzz.specials) << "no fuzz specials";
  EXPECT_FALSE(op.fuzz.value_inputs.empty()) << "no value inputs for the distributions";
  EXPECT_FALSE(op.fuzz.determinism_note.empty()) << "determinism without its reason";
  for (const std::string& n : op.fuzz.value_inputs) EXPECT_NE(op.find_input(n), nullptr) << "value input " << n;
  for (const std::string& n : op.fuzz.scale_inputs)
    EXPECT_NE(std::find(op.fuzz.value_inputs.begin(), op.fuzz.value_inputs.end(), n), op.fuzz.value_inputs.end())
        << "scale input " << n << " is not a value input";
  if (!op.fuzz.shapes) return;
  std::mt19937_64 rng(test::test_seed(GetParam() + "/fuzz"));
  for (ShapeScale sc : {ShapeScale::test, ShapeScale::campaign})
    for (int i = 0; i < 4; ++i) {
      const Json s = op.fuzz.shapes(rng, sc);
      EXPECT_TRUE(s.is_object() && !s.contains("values")) << s.dump();
    }
}

std::vector<std::string> registered_ops() { return Registry::instance().names(); }

INSTANTIATE_TEST_SUITE_P(Registry, Descriptor, ::testing::ValuesIn(registered_ops()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

TEST(Descriptors, TheRegistryIsNotEmpty) { EXPECT_FALSE(Registry::instance().names().empty()); }

}  // namespace
}  // namespace dsv4
