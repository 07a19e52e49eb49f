// Every shape the fuzz layer draws (each op's spec at campaign and test scale, and the generic space over
// default and kernel check shapes) uses only the fields its op declares (reference/registry/shape_check),
// so `repro --shape` of any campaign's repro line is accepted, and an undeclared field is caught here.
#include <gtest/gtest.h>

#include "fuzz/campaign/shape_space.hpp"
#include "fuzz/generators/op_generators.hpp"
#include "fuzz/harness/under_test.hpp"
#include "kernels/kernel_registry.hpp"
#include "reference/registry/registry.hpp"
#include "reference/registry/shape_check.hpp"
#include "tests/support/seed.hpp"

using namespace dsv4;
using namespace dsv4::fuzz;

TEST(ShapeFields, EveryDrawnShapeUsesOnlyTheOpsDeclaredFields) {
  prepare_registry();
  auto rng = test::rng_for_current_test();
  for (const OpGenSpec& spec : op_gen_specs()) {
    const OpDescriptor& d = Registry::instance().get(spec.op);
    std::vector<Json> extra;
    if (auto* k = kernels::KernelRegistry::instance().find(spec.op)) extra = k->check_shapes;
    for (const Json& s : extra) EXPECT_NO_THROW(check_shape_fields(d, s)) << spec.op << " check shape " << s.dump();
    for (int i = 0; i < 30; ++i) {
      for (ShapeScale scale : {ShapeScale::campaign, ShapeScale::test}) {
        const Json s = draw_spec_shape(spec, rng, scale);
        EXPECT_NO_THROW(check_shape_fields(d, s)) << spec.op << " " << s.dump();
      }
      const Json g = draw_shape(d, rng, extra);
      EXPECT_NO_THROW(check_shape_fields(d, g)) << spec.op << " " << g.dump();
    }
  }
}
