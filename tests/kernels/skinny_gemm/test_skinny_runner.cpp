// The skinny GEMM through the kernel registry (as check/zoo tools run it): kernel vs dsv4::run_reference
// ("skinny_gemm", the float64 reference of ops.md §6) per element, on the op's own generator (padded a rows hold
// NaN, every bias shape), plus the readback_one_pass zoo variant at the bug shape on the gfx950 profile.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "kernels/kernel_registry.hpp"
#include "kernels/port/runtime.hpp"
#include "reference/registry/registry.hpp"
#include "tests/kernels/skinny_gemm/skinny_runner_util.hpp"
#include "tests/support/seed.hpp"

using dsv4::Json;
using namespace dsv4::test::skinny_runner;

TEST(SkinnyRunner, MatchesRegistryReferenceOnGeneratedCases) {
  if (!dsv4::port::device_available()) GTEST_SKIP() << dsv4::port::device_unavailable_reason();
  const auto& d = dsv4::Registry::instance().get("skinny_gemm");
  auto rng = dsv4::test::rng_for_current_test();
  std::vector<Json> shapes = d.default_shapes;
  shapes.push_back(Json{{"N", 65}, {"K", 1032}, {"M", 40}, {"Kap", 1048}, {"dtype", "bf16"}, {"bias", "1m"}});
  shapes.push_back(Json{{"N", 128}, {"K", 2056}, {"M", 16}, {"dtype", "fp16"}, {"bias", "nm"}});
  for (const Json& sh : shapes) {
    const dsv4::OpCase c = d.generate(rng, sh);
    Json plan;
    const dsv4::Outputs got = run_kernel(c, {}, &plan);
    const dsv4::Outputs ref = dsv4::run_reference("skinny_gemm", c);
    const auto bad = failing_rows(got.at("out"), ref.at("out"));
    EXPECT_TRUE(bad.empty()) << sh.dump() << " " << plan.value("text", "") << ": first failing row " << bad.front();
    EXPECT_EQ(plan.at("k_shards").get<std::int64_t>() * plan.at("k_shard_size").get<std::int64_t>() >=
                  sh.at("K").get<std::int64_t>(),
              true);
    if (plan.contains("tensor_core")) {  // sm_90 plans: the JSON names the kernel the text describes
      const std::string kern = plan.at("tensor_core").at("kernel").get<std::string>();
      EXPECT_TRUE(kern == "wgmma.m64nNk16" || kern == "mma.m16n8k16") << kern;
      EXPECT_NE(plan.value("text", "").find(kern == "wgmma.m64nNk16" ? "mma=wgmma" : "mma=m16n8k16"),
                std::string::npos)
          << plan.dump();
    }
  }
}

TEST(SkinnyRunner, ZooVariantReadbackOnePassFailsOnlyTheSecondNTile) {
  if (dsv4::port::backend() != dsv4::port::Backend::sim) GTEST_SKIP() << "the planted LDS overflow is run on sim only";
  dsv4::kernels::RunOptions o;
  o.arch = "gfx950";
  o.variant = "readback_one_pass";
  Json plan;
  const auto bad =
      run_generated(Json{{"N", 80}, {"K", 5248}, {"M", 16}, {"dtype", "bf16"}, {"bias", "m"}}, o, &plan);
  ASSERT_FALSE(bad.empty()) << plan.value("text", "");
  for (std::int64_t r : bad) EXPECT_GE(r, 64) << "row " << r << " is in N-tile 0, which fits the LDS";
  EXPECT_EQ(plan.at("tile_map").at("row_tile").get<std::int64_t>(), 64);
}
