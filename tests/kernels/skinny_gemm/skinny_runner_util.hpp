// Helpers of the skinny GEMM's registry-run tests (test_skinny_runner, tests/kernels/nvidia/skinny_gemm/
// test_sm90_runner): the kernel entry run on a case with poisoned outputs, and the rows failing against
// dsv4::run_reference.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/kernel_registry.hpp"
#include "reference/registry/registry.hpp"
#include "tests/support/seed.hpp"

namespace dsv4::test::skinny_runner {

using dsv4::Json;

// Elements whose |kernel - reference| exceeds 1 ulp of the output format at |reference| plus 1e-4 (fp32
// accumulation slack for K <= 5248 at these input scales); returns failing rows.
inline std::vector<std::int64_t> failing_rows(const dsv4::Tensor& got, const dsv4::Tensor& ref) {
  std::vector<std::int64_t> rows;
  const int mant = got.dtype() == dsv4::DType::BF16 ? 7 : 10;
  for (std::int64_t n = 0; n < got.size(0); ++n)
    for (std::int64_t m = 0; m < got.size(1); ++m) {
      const double g = got.get({n, m}), r = ref.get({n, m});
      const double ulp = std::ldexp(1.0, (r == 0 ? -24 : std::max(std::ilogb(r), -14)) - mant);
      if (!(std::fabs(g - r) <= ulp + 1e-4)) {
        rows.push_back(n);
        break;
      }
    }
  return rows;
}

inline dsv4::Outputs run_kernel(const dsv4::OpCase& c, const dsv4::kernels::RunOptions& o, Json* plan) {
  const auto* k = dsv4::kernels::KernelRegistry::instance().find("skinny_gemm");
  EXPECT_NE(k, nullptr);
  dsv4::Outputs ref = dsv4::run_reference("skinny_gemm", c);
  dsv4::Outputs outs;
  for (auto& [name, t] : ref) {
    outs[name] = t.clone();
    outs[name].fill_bytes(0xff);  // poison
  }
  *plan = k->run(c, outs, o);
  return outs;
}

// A generated case of `shape` run with `o`; the rows failing against the reference (the plan JSON into *plan).
inline std::vector<std::int64_t> run_generated(const Json& shape, const dsv4::kernels::RunOptions& o, Json* plan) {
  const auto& d = dsv4::Registry::instance().get("skinny_gemm");
  auto rng = dsv4::test::rng_for_current_test();
  const dsv4::OpCase c = d.generate(rng, shape);
  const dsv4::Outputs got = run_kernel(c, o, plan);
  return failing_rows(got.at("out"), dsv4::run_reference("skinny_gemm", c).at("out"));
}

}  // namespace dsv4::test::skinny_runner
