// Shared test body for the op descriptors of tests/reference/ops/*: every default shape generates a
// case that validates, has no all-zero input among its floating tensors, and whose reference outputs
// carry the declared names and dtypes. Used by each op's test file (one TEST per op).
#pragma once
#include <algorithm>
#include <string>

#include <gtest/gtest.h>

#include "reference/registry/registry.hpp"
#include "tests/support/seed.hpp"

namespace dsv4::test {

inline void expect_default_shapes_run(const std::string& op) {
  const OpDescriptor& d = Registry::instance().get(op);
  ASSERT_TRUE(d.reference) << op;
  ASSERT_TRUE(d.generate) << op;
  ASSERT_FALSE(d.default_shapes.empty()) << op;
  EXPECT_TRUE(d.oracle.empty()) << op << ": oracle specs are filled by the oracle layer";
  auto rng = rng_for_current_test();
  for (const Json& shape : d.default_shapes) {
    OpCase c = d.generate(rng, shape);
    for (const auto& [name, t] : c.inputs) {
      if (!is_floating(t.dtype()) || t.numel() == 0) continue;
      bool nonzero = false;
      for (std::int64_t i = 0; i < t.numel() && !nonzero; ++i) nonzero = t.code_linear(i) != 0;
      EXPECT_TRUE(nonzero) << op << " " << shape.dump() << ": input '" << name << "' is all zeros";
    }
    const Outputs out = run_reference(op, c);
    for (const ArgSpec& a : d.outputs) {
      ASSERT_TRUE(out.count(a.name)) << op << " " << shape.dump() << ": missing output " << a.name;
      const DType dt = out.at(a.name).dtype();
      EXPECT_NE(std::find(a.dtypes.begin(), a.dtypes.end(), dt), a.dtypes.end())
          << op << ": output " << a.name << " has undeclared dtype " << dtype_name(dt);
    }
    EXPECT_EQ(out.size(), d.outputs.size()) << op;
  }
}

}  // namespace dsv4::test
